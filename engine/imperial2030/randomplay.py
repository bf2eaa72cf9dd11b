"""A seeded random legal player, for property tests and benchmarks.

It picks among the listed options, combining single options where a decision
allows several (imports, production), and now and then donates, so that random
games exercise every path the rules allow.
"""
from __future__ import annotations

import random
from dataclasses import replace

from engine.imperial2030.actions import (
    Action,
    ArmyMove,
    Attack,
    DestroyFactory,
    Donate,
    Done,
    FleetMove,
    Import,
    Pass,
    Produce,
)
from engine.imperial2030.decisions import Decision, DecisionKind, pending, stances
from engine.imperial2030.economy import supply_left, unit_for
from engine.imperial2030.maneuver import attacker_kind, destroyable
from engine.imperial2030.model import GameState, ManeuverStep, UnitKind
from engine.imperial2030.movement import fleet_destinations, movable, reachable


def random_action(state: GameState, decision: Decision, rng: random.Random) -> Action:
    options = [o.action for o in decision.options]
    if decision.kind is DecisionKind.IMPORT:
        singles = [a for a in options if isinstance(a, Import) and a.units]
        importer = decision.nation
        assert importer is not None  # an import is a nation's
        count = rng.randint(0, min(decision.limit, len(singles), state.nations[importer].treasury))
        left = {kind: supply_left(state, importer, kind) for kind in UnitKind}
        picked = []
        for _ in range(count):
            unit = rng.choice(singles).units[0]
            if left[unit.kind] > 0:
                left[unit.kind] -= 1
                picked.append(unit)
        return Import(tuple(picked))
    if decision.kind is DecisionKind.PRODUCTION:
        if rng.random() < 0.7:
            return Produce(None)
        factories = [a.provinces[0] for a in options if isinstance(a, Produce) and a.provinces]
        producer = decision.nation
        assert producer is not None  # production is a nation's
        left = {kind: supply_left(state, producer, kind) for kind in UnitKind}
        chosen = []
        for province in rng.sample(factories, rng.randint(0, len(factories))):
            kind = unit_for(state, province)
            if left[kind] > 0:
                left[kind] -= 1
                chosen.append(province)
        return Produce(tuple(chosen))
    if decision.kind in (DecisionKind.INVESTMENT, DecisionKind.SETUP_BOND) and rng.random() < 0.3:
        return Pass()
    if decision.kind is DecisionKind.BATTLE:
        return options[-1] if rng.random() < 0.7 else rng.choice(options)
    return rng.choice(options)


def _random_maneuver(state: GameState, rng: random.Random) -> Action:
    """A random legal maneuver order, found unit by unit rather than from the full option list.

    Listing every destination of every unit is what a player's OPTIONS needs;
    random play only needs one, so it draws a unit first and then its orders.
    """
    assert state.turn is not None and isinstance(state.step, ManeuverStep)
    nation, step = state.turn.nation, state.step
    ns = state.nations[nation]
    if rng.random() < 0.2:
        return Done()
    units = [(UnitKind.ARMY, r) for r in sorted(ns.armies) if movable(state, nation, step, UnitKind.ARMY, r) > 0]
    if not step.armies_moving:
        units += [(UnitKind.FLEET, r) for r in sorted(ns.fleets) if movable(state, nation, step, UnitKind.FLEET, r) > 0]
    if not units or rng.random() < 0.2:
        extras = _attacks_and_destroys(state, nation, step)
        if extras:
            return rng.choice(extras)
    if not units:
        return Done()
    kind, origin = rng.choice(units)
    if kind is UnitKind.FLEET:
        dests = fleet_destinations(state, nation, step, origin)
        if not dests:
            return Done()
        action: FleetMove | ArmyMove = FleetMove(origin, rng.choice(dests))
    else:
        routes = reachable(state, nation, step, origin, convoys=rng.random() < 0.5)
        if not routes:
            return Done()
        dest = rng.choice(routes)
        action = ArmyMove(origin, dest, rng.choice(stances(state, nation, dest)))
    return _maybe_attack(state, nation, action, rng)


def _attacks_and_destroys(state: GameState, nation: str, step: ManeuverStep) -> list[Action]:
    ns = state.nations[nation]
    found: list[Action] = [DestroyFactory(p) for p in sorted(ns.armies) if destroyable(state, nation, p)]
    for region in sorted(set(ns.armies) | set(ns.fleets)):
        if attacker_kind(state, nation, step, region) is None:
            continue
        kinds = (UnitKind.FLEET,) if state.board.regions[region].is_sea else tuple(UnitKind)
        for other, os in state.nations.items():
            if other != nation:
                found.extend(Attack(region, other, k) for k in kinds if os.units(k).get(region, 0))
    return found


def _maybe_attack(state: GameState, nation: str, action: FleetMove | ArmyMove, rng: random.Random) -> Action:
    """Now and then attack a unit standing where the mover enters (R-BATTLE-1)."""
    if rng.random() >= 0.3:
        return action
    fleet = isinstance(action, FleetMove)
    enemies = sorted(n for n, ns in state.nations.items()
                     if n != nation and (ns.fleets.get(action.dest) if fleet
                                         else ns.armies.get(action.dest) or ns.fleets.get(action.dest)))
    return replace(action, attack=rng.choice(enemies)) if enemies else action


def random_move(state: GameState, rng: random.Random) -> tuple[str, Action]:
    """(player, action) for one random legal step of the game."""
    step = state.step
    if isinstance(step, ManeuverStep) and step.entry is None and rng.random() >= 0.02:
        assert state.turn is not None
        return state.governor(state.turn.nation), _random_maneuver(state, rng)
    decision = rng.choice(pending(state))
    if rng.random() < 0.02:
        governed = state.governed_by(decision.player)
        money = state.players[decision.player].cash
        if governed and money:
            return decision.player, Donate(rng.choice(governed), rng.randint(1, money))
    return decision.player, random_action(state, decision, rng)
