"""A seeded random legal player, for property tests and benchmarks.

It picks among the listed options, combining single options where a decision
allows several (imports, production), and now and then donates, so that random
games exercise every path the rules allow.
"""
from __future__ import annotations

import random

from engine.actions import Action, Donate, Import, Pass, Produce
from engine.decisions import Decision, DecisionKind, pending
from engine.economy import supply_left, unit_for
from engine.model import GameState, UnitKind


def random_action(state: GameState, decision: Decision, rng: random.Random) -> Action:
    options = [o.action for o in decision.options]
    if decision.kind is DecisionKind.IMPORT:
        singles = [a for a in options if isinstance(a, Import) and a.units]
        count = rng.randint(0, min(decision.limit, len(singles), state.nations[decision.nation].treasury))  # type: ignore[index]
        left = {kind: supply_left(state, decision.nation, kind) for kind in UnitKind}  # type: ignore[arg-type]
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
        singles = [a.provinces[0] for a in options if isinstance(a, Produce) and a.provinces]  # type: ignore[index]
        left = {kind: supply_left(state, decision.nation, kind) for kind in UnitKind}  # type: ignore[arg-type]
        chosen = []
        for province in rng.sample(singles, rng.randint(0, len(singles))):
            kind = unit_for(state, province)
            if left[kind] > 0:
                left[kind] -= 1
                chosen.append(province)
        return Produce(tuple(chosen))
    if decision.kind in (DecisionKind.INVESTMENT, DecisionKind.SETUP_BOND) and rng.random() < 0.3:
        return Pass()
    return rng.choice(options)


def random_move(state: GameState, rng: random.Random) -> tuple[str, Action]:
    """(player, action) for one random legal step of the game."""
    decision = rng.choice(pending(state))
    if rng.random() < 0.02:
        governed = state.governed_by(decision.player)
        money = state.players[decision.player].cash
        if governed and money:
            return decision.player, Donate(rng.choice(governed), rng.randint(1, money))
    return decision.player, random_action(state, decision, rng)
