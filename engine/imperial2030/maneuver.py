"""The maneuver (rules section 5): moves, questions to other governments, battles, flags.

A move is checked and its route found at once; then the canal and battle
questions it raises are asked one at a time (each may be answered by a
standing order). Only when none is left does the unit leave its region and
arrive, fight or turn back. The government gives its next order after that.
"""
from __future__ import annotations

import dataclasses
from typing import Any, NoReturn

from engine.imperial2030.actions import (
    Action,
    ArmyMove,
    Attack,
    DestroyFactory,
    Done,
    Fight,
    FleetMove,
    Passage,
)
from engine.imperial2030.describe import describe
from engine.imperial2030.economy import hostile_in
from engine.imperial2030.errors import IllegalAction
from engine.imperial2030.events import (
    ArmyMoved,
    Battle,
    Event,
    FactoryDestroyed,
    FightAnswered,
    FlagPlaced,
    FlagRemoved,
    FleetMoved,
    PassageAnswered,
)
from engine.imperial2030.listing import maneuver_options
from engine.imperial2030.model import (
    Entry,
    GameState,
    ManeuverStep,
    Stance,
    StandingKind,
    UnitKind,
)
from engine.imperial2030.movement import (
    Route,
    asked_controller,
    canal_needs_permission,
    fleet_destinations,
    forced_route,
    movable,
    rail_reach,
    route_to,
)
from engine.imperial2030.refusals import Refused
from engine.imperial2030.standing import standing_answer

#: R-MOVE-1/3, the head of section 5: why a fleet may not move or attack once the armies have begun.
FLEETS_FIRST = ("Three steps in order: fleets, then armies, then flags. Fleets move and attack before armies, "
                "and the armies have started: no fleet may move or attack now.")


def _nation(state: GameState) -> str:
    assert state.turn is not None
    return state.turn.nation


def _step(state: GameState) -> ManeuverStep:
    step = state.step
    assert isinstance(step, ManeuverStep)
    return step


def _bump(pairs: tuple[tuple[Any, ...], ...], key: tuple[Any, ...], delta: int) -> tuple[tuple[Any, ...], ...]:
    """Add ``delta`` to the count stored under ``key`` in a tuple of (*key, count)."""
    size = len(key)
    found = False
    out = []
    for item in pairs:
        if item[:size] == key:
            found = True
            count = item[size] + delta
            if count > 0:
                out.append(key + (count,))
        else:
            out.append(item)
    if not found and delta > 0:
        out.append(key + (delta,))
    return tuple(out)


# --- the government's orders ---------------------------------------------------------


def maneuver_order(state: GameState, action: Action, events: list[Event]) -> bool:
    """Carry out one maneuver order; True when the maneuver is over (DONE)."""
    match action:
        case FleetMove():
            _move_fleet(state, action, events)
        case ArmyMove():
            _move_army(state, action, events)
        case Attack():
            _attack_in_place(state, action, events)
        case DestroyFactory():
            _destroy_factory(state, action, events)
        case Done():
            place_flags(state, events)
            return True
        case _:
            raise IllegalAction("The maneuver waits for FLEET, ARMY, ATTACK, DESTROY FACTORY or DONE orders.",
                                ["DONE"], code=Refused.MANEUVER_ORDERS)
    return False


def _refuse(state: GameState, reason: str, code: Refused, **values: object) -> NoReturn:
    """Refuse an order, listing the orders the government may give instead; ``code`` and ``values`` name the
    sentence for the moderator (``IllegalAction.code``)."""
    raise IllegalAction(reason, [describe(state.board, o.action) for o in maneuver_options(state)], code=code,
                        values=values)


def _move_fleet(state: GameState, action: FleetMove, events: list[Event]) -> None:
    nation, step, board = _nation(state), _step(state), state.board
    if step.armies_moving:
        _refuse(state, FLEETS_FIRST, Refused.FLEETS_FIRST)
    if action.origin not in board.regions or movable(state, nation, step, UnitKind.FLEET, action.origin) <= 0:
        _refuse(state, f"{board.name(nation)} has no fleet in {board.name(action.origin)} that can still move.",
                Refused.NO_FLEET_MOVES, nation=nation, region=action.origin)
    if action.dest not in fleet_destinations(state, nation, step, action.origin):
        _refuse(state, f"A fleet in {board.name(action.origin)} cannot reach {board.name(action.dest)}.",
                Refused.FLEET_CANNOT_REACH, origin=action.origin, dest=action.dest)
    if action.attack is not None:
        _check_target(state, nation, action.dest, UnitKind.FLEET, action.attack, UnitKind.FLEET)
    canal = board.canal_on(action.origin, action.dest) if board.regions[action.origin].is_sea else None
    entry = Entry(UnitKind.FLEET, action.origin, action.dest, canals=(canal,) if canal else (),
                  attack=action.attack, attack_kind=UnitKind.FLEET if action.attack else None)
    _advance_entry(state, entry, events)


def _move_army(state: GameState, action: ArmyMove, events: list[Event]) -> None:
    nation, step, board = _nation(state), _step(state), state.board
    if action.origin not in board.regions or movable(state, nation, step, UnitKind.ARMY, action.origin) <= 0:
        _refuse(state, f"{board.name(nation)} has no army in {board.name(action.origin)} that can still move.",
                Refused.NO_ARMY_MOVES, nation=nation, region=action.origin)
    route = _army_route(state, nation, step, action)
    stance = _stance(state, nation, action)
    if action.attack is not None:
        _check_nation(state, nation, action.attack)
        target_kind = action.attack_kind or _default_target_kind(state, action.attack, action.dest)
        _check_target(state, nation, action.dest, UnitKind.ARMY, action.attack, target_kind)
    state.step = ManeuverStep(True, step.moved, step.carried, step.denied, None)
    entry = Entry(UnitKind.ARMY, action.origin, action.dest, route.seas, stance, route.canals,
                  attack=action.attack, attack_kind=action.attack_kind)
    _advance_entry(state, entry, events)


def _army_route(state: GameState, nation: str, step: ManeuverStep, action: ArmyMove) -> Route:
    board = state.board
    if action.dest not in board.regions or board.regions[action.dest].is_sea:
        _refuse(state, f"An army cannot go to {board.name(action.dest)}.", Refused.ARMY_CANNOT_GO, dest=action.dest)
    if action.via:
        route = forced_route(state, nation, step, action.origin, action.dest, action.via)
        if route is None:
            _refuse(state, f"No convoy from {board.name(action.origin)} to {board.name(action.dest)} via "
                           f"{', '.join(board.name(s) for s in action.via)}: each sea needs a free own fleet.",
                    Refused.NO_CONVOY, origin=action.origin, dest=action.dest, via=list(action.via))
        return route
    route = route_to(state, nation, step, action.origin, action.dest)
    if route is None:
        _refuse(state, f"The army in {board.name(action.origin)} cannot reach {board.name(action.dest)}: "
                       "one land step or one convoy, with rail only inside the own country.",
                Refused.ARMY_CANNOT_REACH, origin=action.origin, dest=action.dest)
    return route


def _stance(state: GameState, nation: str, action: ArmyMove) -> Stance | None:
    """R-HOSTILE-1/2: entering another nation's home province needs a stance; the last free factory forces friendly."""
    region = state.board.regions[action.dest]
    owner = region.nation
    if not region.is_home or owner is None or owner == nation:
        return None
    if protected_factory(state, owner, action.dest):
        return Stance.FRIENDLY
    if action.stance is None:
        _refuse(state, f"{region.name} is a home province of {state.board.name(owner)}: "
                       "say HOSTILE or FRIENDLY.", Refused.SAY_STANCE, region=action.dest, nation=owner)
    return action.stance


def protected_factory(state: GameState, owner: str, province: str) -> bool:
    """R-HOSTILE-2: the owner's only factory free of hostile armies stands in ``province``."""
    free = [f for f in state.nations[owner].factories if not hostile_in(state, f)]
    return free == [province]


def _default_target_kind(state: GameState, target: str, region: str) -> UnitKind:
    return UnitKind.ARMY if state.nations[target].armies.get(region, 0) else UnitKind.FLEET


def _check_nation(state: GameState, nation: str, target: str) -> None:
    if target not in state.nations or target == nation:
        _refuse(state, f"{target!r} is not another nation.", Refused.NOT_OTHER_NATION, text=target)


def _check_target(state: GameState, nation: str, region: str, own: UnitKind, target: str, kind: UnitKind) -> None:
    """R-BATTLE-3: at sea fleets fight fleets; in a port province armies and fleets may fight each other."""
    board = state.board
    _check_nation(state, nation, target)
    if own is UnitKind.FLEET and kind is not UnitKind.FLEET and board.regions[region].is_sea:
        _refuse(state, "At sea a fleet can only attack fleets.", Refused.SEA_FLEETS_ONLY)
    if state.nations[target].units(kind).get(region, 0) <= 0:
        _refuse(state, f"{board.name(target)} has no {kind.value} in {board.name(region)} to attack.", Refused.NO_TARGET,
                nation=target, kind=kind.value, region=region)


# --- questions and arrival ------------------------------------------------------------


def _advance_entry(state: GameState, entry: Entry, events: list[Event]) -> None:
    """Ask the next open question of a unit on its way, or let it arrive."""
    nation = _nation(state)
    step = _step(state)
    while entry.canals:
        canal = entry.canals[0]
        if not canal_needs_permission(state, nation, canal):
            entry = _replace(entry, canals=entry.canals[1:])
            continue
        controller = asked_controller(state, canal)
        gov = state.governor(controller)
        answer = standing_answer(state, gov, StandingKind.ALLOW, nation, canal)
        if answer is None:
            state.step = ManeuverStep(step.armies_moving, step.moved, step.carried, step.denied, entry)
            return
        events.append(PassageAnswered(gov, controller, canal, nation, answer, standing=True))
        if not answer:
            _turn_back(state, canal)
            return
        entry = _replace(entry, canals=entry.canals[1:])
    _depart(state, entry, events)
    attack = entry.attack
    if attack is not None:
        kind = entry.attack_kind or (UnitKind.FLEET if entry.kind is UnitKind.FLEET
                                     else _default_target_kind(state, attack, entry.dest))
        _battle(state, entry.dest, nation, entry.kind, attack, kind, events, entering=nation)
        _clear_entry(state)
        return
    _ask_defenders(state, _replace(entry, askers=_defenders(state, nation, entry)), events)


def _replace(entry: Entry, **changes: Any) -> Entry:
    return dataclasses.replace(entry, **changes)


def _turn_back(state: GameState, canal: str) -> None:
    """Passage denied: the unit stays where it was and the canal stays closed to it this maneuver."""
    step = _step(state)
    state.step = ManeuverStep(step.armies_moving, step.moved, step.carried, step.denied + (canal,), None)


def _depart(state: GameState, entry: Entry, events: list[Event]) -> None:
    """The unit leaves its region (and the carrying fleets are spent); it is now on its way."""
    nation = _nation(state)
    _remove_units(state, nation, entry.kind, entry.origin, 1, lost=False)
    step = _step(state)
    carried = step.carried
    for sea in entry.seas:
        carried = _bump(carried, (sea,), 1)
    state.step = ManeuverStep(step.armies_moving, step.moved, carried, step.denied, None)
    if entry.kind is UnitKind.FLEET:
        canal = state.board.canal_on(entry.origin, entry.dest) if state.board.regions[entry.origin].is_sea else None
        events.append(FleetMoved(nation, entry.origin, entry.dest, canal))
    else:
        by_rail = not entry.seas and entry.dest in rail_reach(state, nation, entry.origin)
        events.append(ArmyMoved(nation, entry.origin, entry.dest, entry.seas, entry.stance, by_rail))


def _defenders(state: GameState, nation: str, entry: Entry) -> tuple[str, ...]:
    """R-BATTLE-1: the other nations present, in turn order after the mover, that may fight it.

    Decision: a government is not asked to fight a nation it also governs.
    """
    order = state.board.nation_ids
    start = order.index(nation)
    mover_gov = state.nations[nation].government
    askers = []
    for offset in range(1, len(order)):
        other = order[(start + offset) % len(order)]
        gov = state.nations[other].government
        if gov is None or gov == mover_gov:
            continue
        if _fighting_kinds(state, other, entry):
            askers.append(other)
    return tuple(askers)


def _fighting_kinds(state: GameState, defender: str, entry: Entry) -> tuple[UnitKind, ...]:
    """Units of ``defender`` in the region that can fight the newcomer (R-BATTLE-3)."""
    ns = state.nations[defender]
    if entry.kind is UnitKind.FLEET:
        return (UnitKind.FLEET,) if ns.fleets.get(entry.dest, 0) else ()
    return tuple(k for k in UnitKind if ns.units(k).get(entry.dest, 0))


def _ask_defenders(state: GameState, entry: Entry, events: list[Event]) -> None:
    nation = _nation(state)
    askers = entry.askers
    while askers:
        defender = askers[0]
        gov = state.governor(defender)
        answer = standing_answer(state, gov, StandingKind.FIGHT, nation)
        if answer is None:
            step = _step(state)
            state.step = ManeuverStep(step.armies_moving, step.moved, step.carried, step.denied,
                                      _replace(entry, askers=askers))
            return
        events.append(FightAnswered(gov, defender, entry.dest, answer, standing=True))
        if answer:
            kind = _fighting_kinds(state, defender, entry)[0]
            _battle(state, entry.dest, defender, kind, nation, entry.kind, events, entering=nation)
            _clear_entry(state)
            return
        askers = askers[1:]
    _arrive(state, entry)


def _arrive(state: GameState, entry: Entry) -> None:
    nation = _nation(state)
    ns = state.nation_w(nation)
    units = ns.units(entry.kind)
    units[entry.dest] = units.get(entry.dest, 0) + 1
    if entry.stance is Stance.HOSTILE:
        ns.hostile[entry.dest] = ns.hostile.get(entry.dest, 0) + 1
    step = _step(state)
    moved = _bump(step.moved, (entry.kind, entry.dest), 1)
    state.step = ManeuverStep(step.armies_moving, moved, step.carried, step.denied, None)


def _clear_entry(state: GameState) -> None:
    step = _step(state)
    state.step = ManeuverStep(step.armies_moving, step.moved, step.carried, step.denied, None)


def answer_question(state: GameState, player: str, action: Action, events: list[Event]) -> None:
    """A canal controller's ALLOW/DENY or a defender's FIGHT/NO FIGHT."""
    step = _step(state)
    entry = step.entry
    assert entry is not None
    nation = _nation(state)
    if entry.canals:
        if not isinstance(action, Passage):
            raise IllegalAction("The open question is canal passage.", ["ALLOW", "DENY"],
                                code=Refused.CANAL_QUESTION)
        canal = entry.canals[0]
        controller = asked_controller(state, canal)
        events.append(PassageAnswered(player, controller, canal, nation, action.allow))
        if not action.allow:
            _turn_back(state, canal)
            return
        _advance_entry(state, _replace(entry, canals=entry.canals[1:]), events)
        return
    defender = entry.askers[0]
    if not isinstance(action, Fight):
        raise IllegalAction("The open question is whether you fight.", _fight_options(state, defender, entry),
                            code=Refused.FIGHT_QUESTION)
    events.append(FightAnswered(player, defender, entry.dest, action.fight))
    if not action.fight:
        _ask_defenders(state, _replace(entry, askers=entry.askers[1:]), events)
        return
    kinds = _fighting_kinds(state, defender, entry)
    if action.nation not in (None, defender):
        raise IllegalAction(f"The question is for {state.board.name(defender)}.", _fight_options(state, defender, entry),
                            code=Refused.QUESTION_FOR, values={"nation": defender})
    kind = action.kind or kinds[0]
    if kind not in kinds:
        raise IllegalAction(f"{state.board.name(defender)} has no {kind.value} there that can fight.",
                            code=Refused.CANNOT_FIGHT, values={"nation": defender, "kind": kind.value}, legal=
                            _fight_options(state, defender, entry))
    _battle(state, entry.dest, defender, kind, nation, entry.kind, events, entering=nation)
    _clear_entry(state)


def fight_choices(state: GameState, defender: str, entry: Entry) -> tuple[Fight, ...]:
    kinds = _fighting_kinds(state, defender, entry)
    return tuple(Fight(True, defender, k) for k in kinds) + (Fight(False),)


def _fight_options(state: GameState, defender: str, entry: Entry) -> list[str]:
    return [describe(state.board, a) for a in fight_choices(state, defender, entry)]


# --- battles, attacks in place, factory destruction -----------------------------------------


def _battle(state: GameState, region: str, attacker: str, attacker_kind: UnitKind, defender: str,
            defender_kind: UnitKind, events: list[Event], entering: str | None) -> None:
    """One unit of each side leaves the board (R-BATTLE-1); ``entering`` names the side
    whose unit was on its way in and so is off the board already."""
    for nation, kind in ((attacker, attacker_kind), (defender, defender_kind)):
        if nation != entering:
            _remove_units(state, nation, kind, region, 1, lost=True)
    events.append(Battle(region, attacker, attacker_kind, defender, defender_kind))


def _remove_units(state: GameState, nation: str, kind: UnitKind, region: str, count: int, lost: bool) -> None:
    """Take units off the board.

    Decision: an army that departs a foreign home province is a friendly one if
    there is any (the blockade stays); an army lost or spent is a hostile one first.
    """
    ns = state.nation_w(nation)
    units = ns.units(kind)
    total = units.get(region, 0)
    left = total - count
    if left > 0:
        units[region] = left
    else:
        units.pop(region, None)
    if kind is UnitKind.ARMY and region in ns.hostile:
        hostile = ns.hostile[region]
        if lost:
            hostile -= min(hostile, count)
        hostile = min(hostile, max(left, 0))
        if hostile > 0:
            ns.hostile[region] = hostile
        else:
            del ns.hostile[region]
    step = state.step
    if isinstance(step, ManeuverStep) and state.turn is not None and nation == state.turn.nation:
        moved = step.moved_count(kind, region)
        keep = min(moved, max(left, 0))
        if keep != moved:
            state.step = ManeuverStep(step.armies_moving, _bump(step.moved, (kind, region), keep - moved),
                                      step.carried, step.denied, step.entry)


def _attack_in_place(state: GameState, action: Attack, events: list[Event]) -> None:
    """R-BATTLE-2/3: a unit that did not move attacks a foreign unit in its own region."""
    nation, step, board = _nation(state), _step(state), state.board
    region = action.region
    if region not in board.regions:
        _refuse(state, f"{region!r} is not on the map.", Refused.NOT_ON_MAP, text=region)
    _check_nation(state, nation, action.nation)
    own = attacker_kind(state, nation, step, region)
    if own is None:
        if step.armies_moving and _fleet_could_attack(state, nation, step, region):
            _refuse(state, FLEETS_FIRST, Refused.FLEETS_FIRST)
        _refuse(state, f"{board.name(nation)} has no unit in {board.name(region)} that did not move.",
                Refused.NO_UNIT_STILL, nation=nation, region=region)
    kind = action.kind or (UnitKind.FLEET if board.regions[region].is_sea
                           else _default_target_kind(state, action.nation, region))
    _check_target(state, nation, region, own, action.nation, kind)
    if own is UnitKind.ARMY:  # R-MOVE-1: an army's attack is army work, so the fleets' step is over
        state.step = ManeuverStep(True, step.moved, step.carried, step.denied, step.entry)
    _battle(state, region, nation, own, action.nation, kind, events, entering=None)


def _fleet_could_attack(state: GameState, nation: str, step: ManeuverStep, region: str) -> bool:
    """Whether a fleet of ``nation`` in ``region`` would attack in place, were the fleets' step not over."""
    return movable(state, nation, step, UnitKind.FLEET, region) > 0


def attacker_kind(state: GameState, nation: str, step: ManeuverStep, region: str) -> UnitKind | None:
    """The unit that attacks in place: a fleet at sea; on land an army, else a fleet in its own port.

    Decision (R-BATTLE-2 with the FAQ "the army is already there"): a fleet in
    port that did not move may attack a foreign army standing in its province.

    R-MOVE-1 ("first the fleets, then the armies, finally the flags"): an
    attack is part of its unit's step. Once the armies' step has begun (an
    army moved, attacked in place or destroyed a factory) no fleet attacks any
    more, not even one that carried no army.
    """
    kinds: tuple[UnitKind, ...] = (UnitKind.ARMY,) if step.armies_moving else (UnitKind.ARMY, UnitKind.FLEET)
    if state.board.regions[region].is_sea:
        kinds = () if step.armies_moving else (UnitKind.FLEET,)
    for kind in kinds:
        if movable(state, nation, step, kind, region) > 0:
            return kind
    return None


def destroyable(state: GameState, nation: str, province: str) -> bool:
    """R-HOSTILE-3: three own armies, no defender, a factory that is not the owner's last free one."""
    board = state.board
    region = board.regions.get(province)
    if region is None or not region.is_home or region.nation is None or region.nation == nation:
        return False
    owner = state.nations[region.nation]
    if province not in owner.factories or state.nations[nation].armies.get(province, 0) < 3:
        return False
    if owner.armies.get(province, 0) or owner.fleets.get(province, 0):
        return False
    return not protected_factory(state, region.nation, province)


def _destroy_factory(state: GameState, action: DestroyFactory, events: list[Event]) -> None:
    nation, board = _nation(state), state.board
    if not destroyable(state, nation, action.province):
        _refuse(state, f"No factory in {board.name(action.province)} can be destroyed now: it takes a foreign "
                       "factory, three own armies there, no defending unit, and not the owner's last free factory.",
                Refused.NO_FACTORY_DESTROY, province=action.province)
    owner = board.regions[action.province].nation
    assert owner is not None  # destroyable: a foreign nation's factory
    step = _step(state)
    state.step = ManeuverStep(True, step.moved, step.carried, step.denied, None)
    _spend_armies(state, nation, action.province, 3)
    state.nation_w(owner).factories.remove(action.province)
    events.append(FactoryDestroyed(owner, action.province, nation))


def _spend_armies(state: GameState, nation: str, province: str, count: int) -> None:
    """The armies that destroy a factory leave the board; those that arrived this maneuver go first."""
    step = _step(state)
    moved = step.moved_count(UnitKind.ARMY, province)
    _remove_units(state, nation, UnitKind.ARMY, province, count, lost=True)
    step = _step(state)
    left = state.nations[nation].armies.get(province, 0)
    keep = min(left, max(0, moved - count))
    current = step.moved_count(UnitKind.ARMY, province)
    state.step = ManeuverStep(step.armies_moving, _bump(step.moved, (UnitKind.ARMY, province), keep - current),
                              step.carried, step.denied, step.entry)


# --- flags (R-FLAG-1..3) -------------------------------------------------------------------


def place_flags(state: GameState, events: list[Event]) -> None:
    """After all moves, every non-home region held by one nation alone carries its flag.

    Decision: this applies to any nation left alone (R-FLAG-2: "replaced only when
    another nation occupies the region alone"), active or not, at every flag step.
    """
    board = state.board
    limit = board.tables.flags_per_nation
    flag_of = {region: n for n, ns in state.nations.items() for region in ns.flags}
    occupants: dict[str, set[str]] = {}
    for n, ns in state.nations.items():
        for units in (ns.armies, ns.fleets):
            for region in units:
                occupants.setdefault(region, set()).add(n)
    for region_id in sorted(occupants):
        present = occupants[region_id]
        if len(present) != 1 or board.regions[region_id].is_home:
            continue
        (occupier,) = present
        old = flag_of.get(region_id)
        if old == occupier:
            continue
        if old is not None:
            state.nation_w(old).flags.remove(region_id)
        if len(state.nations[occupier].flags) < limit:
            state.nation_w(occupier).flags.append(region_id)
            flag_of[region_id] = occupier
            events.append(FlagPlaced(occupier, region_id, old))
        elif old is not None:
            del flag_of[region_id]
            events.append(FlagRemoved(old, region_id, occupier))
