"""Listing every maneuver order (``maneuver_options``) and the facts it needs, each computed once
(R-MOVE-1..5, R-BATTLE-2, R-HOSTILE-1..3).

Why a module of its own: the single-unit functions of ``movement`` and
``maneuver`` answer one question each (where may this army go, which stance
may it take there, may this factory be destroyed) and recompute what they
need every time. Listing every option asks them for every unit and every
destination, and so rebuilt the blocked provinces, the rail components, the
convoy seas and each owner's last free factory again and again: nearly half
the time of a random game that lists its options at every step.

``ManeuverFacts`` computes each such fact once per listing; what depends on
the board, the nation and the blocked provinces alone (where an army gets
overland) is kept between listings. Its answers are exactly those of the
single-unit functions; tests compare both over random games.

The listing lives here, below ``maneuver`` and ``decisions``, because both
use it: ``decisions`` offers it as the government's maneuver decision, and
``maneuver`` shows it beside the reason when it refuses an order.
"""
from __future__ import annotations

from functools import lru_cache

from engine.imperial2030.actions import ArmyMove, Attack, DestroyFactory, Done, FleetMove
from engine.imperial2030.board import Board
from engine.imperial2030.economy import blocked_provinces
from engine.imperial2030.model import GameState, ManeuverStep, NationState, Stance, UnitKind
from engine.imperial2030.movement import fleet_destinations, rail_component
from engine.imperial2030.option import Option


def _component(board: Board, nation: str, region: str, blocked: frozenset[str]) -> tuple[str, ...]:
    """``movement.rail_reach`` without a state: a region off the nation's rail is alone (no cache call)."""
    if region not in board.rail.get(nation, {}) or region in blocked:
        return (region,)
    return rail_component(board, nation, region, blocked)


@lru_cache(maxsize=4096)
def _overland(board: Board, nation: str, blocked: frozenset[str], before: tuple[str, ...]) -> frozenset[str]:
    """Where an army in the rail component ``before`` gets by rail, one land step and rail again (R-MOVE-3/5).

    Cached between listings: only the board, the nation and the blocked
    provinces decide it, and these rarely change during a game. The army's
    own region is included (the caller leaves it out).
    """
    found = set(before)
    for start in before:
        for land in board.land_steps[start]:
            if land not in found:  # a region found is in a component found whole
                found.update(_component(board, nation, land, blocked))
    return frozenset(found)


class ManeuverFacts:
    """What listing the current maneuver's orders looks up for many units, computed at most once each.

    Valid for the one state it was made from (states never change once made).
    """

    __slots__ = ("board", "nation", "step", "own", "blocked", "_moved", "_free_seas", "_protected", "_reach",
                 "_nations", "others")

    def __init__(self, state: GameState) -> None:
        assert state.turn is not None and isinstance(state.step, ManeuverStep)
        self.board = state.board
        self.nation = state.turn.nation
        self.step: ManeuverStep = state.step
        self.own: NationState = state.nations[self.nation]
        self.others = [(other, state.nations[other]) for other in self.board.nation_ids if other != self.nation]
        self.blocked = blocked_provinces(state)
        self._moved = {(kind, region): count for kind, region, count in self.step.moved}
        self._free_seas: frozenset[str] | None = None
        self._protected: dict[str, str | None] = {}
        self._reach: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._nations = state.nations

    # --- units ---------------------------------------------------------------------------

    def movable(self, kind: UnitKind, region: str) -> int:
        """``movement.movable`` for the moving nation, with the moved units counted once."""
        return self.own.units(kind).get(region, 0) - self._moved.get((kind, region), 0)

    def foreign_units(self) -> frozenset[str]:
        """Regions holding a unit of another nation: the only ones where an attack in place is possible."""
        return frozenset().union(*(units for _, ns in self.others for units in (ns.armies, ns.fleets)))

    def attacks_in_place(self, region: str) -> bool:
        """``maneuver.attacker_kind`` is not None: a unit in ``region`` that did not move may attack there."""
        fleets_may = not self.step.armies_moving
        if self.board.regions[region].is_sea:
            return fleets_may and self.movable(UnitKind.FLEET, region) > 0
        return self.movable(UnitKind.ARMY, region) > 0 or (fleets_may and self.movable(UnitKind.FLEET, region) > 0)

    # --- armies (R-MOVE-3..5) --------------------------------------------------------------

    def reach(self, origin: str) -> tuple[str, ...]:
        """Where the army at ``origin`` may go, in id order, ``origin`` itself included.

        Less ``origin``, these are the keys of ``movement.army_routes``. Every
        army of one rail component reaches the same regions (less its own),
        so they are found once per component and listing.
        """
        board, nation, blocked = self.board, self.nation, self.blocked
        before = _component(board, nation, origin, blocked)
        found = self._reach.get(before)
        if found is None:
            regions = set(_overland(board, nation, blocked, before))
            for sea in self._convoy_seas(before):
                for land in board.lands_of[sea]:
                    if land not in regions:
                        regions.update(_component(board, nation, land, blocked))
            found = self._reach[before] = tuple(sorted(regions))
        return found

    def _convoy_seas(self, embark: tuple[str, ...]) -> set[str]:
        """The keys of ``movement.convoy_paths``: seas a chain of free own fleets carries an army to (R-MOVE-4).

        Only which seas are reached matters for where an army may go, so a
        plain search replaces the cheapest-chain search that chooses the route.
        """
        free = self._free()
        if not free:
            return set()
        board, denied = self.board, self.step.denied
        todo = [sea for land in embark for sea in board.seas_of[land] if sea in free]
        seen = set(todo)
        while todo:
            here = todo.pop()
            for nxt in board.seas_of[here]:
                if nxt in free and nxt not in seen and board.canal_on(here, nxt) not in denied:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    def _free(self) -> frozenset[str]:
        """Seas holding an own fleet that has not carried an army this maneuver."""
        if self._free_seas is None:
            regions, step = self.board.regions, self.step
            self._free_seas = frozenset(sea for sea, n in self.own.fleets.items()
                                        if regions[sea].is_sea and n - step.carried_count(sea) > 0)
        return self._free_seas

    # --- occupation (R-HOSTILE-1..3) ----------------------------------------------------------

    def protected(self, owner: str) -> str | None:
        """The province of ``owner``'s only factory free of hostile armies, if it has exactly one (R-HOSTILE-2)."""
        if owner not in self._protected:
            free = [f for f in self._nations[owner].factories if f not in self.blocked]
            self._protected[owner] = free[0] if len(free) == 1 else None
        return self._protected[owner]

    def last_free_factories(self) -> frozenset[str]:
        """Every nation's only factory free of hostile armies, where it has exactly one (R-HOSTILE-2).

        An army may enter such a province of another nation only as a
        friendly one (``decisions.stances``).
        """
        regions, blocked, protected = self.board.regions, self.blocked, self._protected
        found = set()
        for owner, ns in self._nations.items():
            free = [f for f in ns.factories if f not in blocked] if blocked else ns.factories
            province = protected[owner] = free[0] if len(free) == 1 else None
            if province is not None and regions[province].nation == owner:
                found.add(province)
        return frozenset(found)

    def destroyable(self, province: str) -> bool:
        """``maneuver.destroyable`` for the moving nation (R-HOSTILE-3)."""
        region = self.board.regions.get(province)
        if region is None or not region.is_home or region.nation is None or region.nation == self.nation:
            return False
        owner = self._nations[region.nation]
        if province not in owner.factories or self.own.armies.get(province, 0) < 3:
            return False
        if owner.armies.get(province, 0) or owner.fleets.get(province, 0):
            return False
        return self.protected(region.nation) != province


# --- the listing ------------------------------------------------------------------------------


def maneuver_options(state: GameState) -> tuple[Option, ...]:
    """Every single order the government may give now in its maneuver (R-MOVE-1..5, R-BATTLE-2, R-HOSTILE-3).

    In this order: fleet moves, army moves (by origin, destination, stance),
    attacks in place, factory destructions, DONE. What many units look up
    (blocked provinces, rail, convoy seas, last free factories) is computed
    once per listing by ``ManeuverFacts``; an army's orders are kept between
    listings (``_army_orders``) rather than built anew at every step.
    """
    facts = ManeuverFacts(state)
    nation, step, board, ns = facts.nation, facts.step, state.board, facts.own
    options: list[Option] = []
    if not step.armies_moving:
        for origin in sorted(ns.fleets):
            if facts.movable(UnitKind.FLEET, origin) > 0:
                options.extend(Option(FleetMove(origin, d)) for d in fleet_destinations(state, nation, step, origin))
    last_free: frozenset[str] | None = None
    for origin in sorted(ns.armies):
        if facts.movable(UnitKind.ARMY, origin) > 0:
            if last_free is None:
                last_free = facts.last_free_factories()
            options.extend(_army_orders(board, nation, origin, facts.reach(origin), last_free))
    foreign = facts.foreign_units()
    for region in sorted(foreign.intersection(ns.armies) | foreign.intersection(ns.fleets)):
        if not facts.attacks_in_place(region):
            continue
        sea = board.regions[region].is_sea
        for other, os in facts.others:
            if not sea and os.armies.get(region, 0):
                options.append(Option(Attack(region, other, UnitKind.ARMY)))
            if os.fleets.get(region, 0):
                options.append(Option(Attack(region, other, UnitKind.FLEET)))
    options.extend(Option(DestroyFactory(p)) for p in sorted(ns.armies) if facts.destroyable(p))
    options.append(_DONE)
    return tuple(options)


_DONE = Option(Done())


@lru_cache(maxsize=8192)
def _army_orders(board: Board, nation: str, origin: str, reach: tuple[str, ...],
                 last_free: frozenset[str]) -> tuple[Option, ...]:
    """The orders of an army at ``origin`` that may go to ``reach`` (less ``origin``), each with every
    stance ``stances`` allows there (R-HOSTILE-1/2).

    Cached: an army that has not moved is offered the same orders step after
    step (and turn after turn), and building them anew was most of a listing's
    time. ``last_free`` (``ManeuverFacts.last_free_factories``) is all a
    stance depends on besides the board.
    """
    orders = []
    for dest in reach:
        if dest == origin:
            continue
        region = board.regions[dest]
        owner = region.nation
        if not region.is_home or owner is None or owner == nation:
            orders.append(Option(ArmyMove(origin, dest)))
        else:
            if dest not in last_free:
                orders.append(Option(ArmyMove(origin, dest, Stance.HOSTILE)))
            orders.append(Option(ArmyMove(origin, dest, Stance.FRIENDLY)))
    return tuple(orders)
