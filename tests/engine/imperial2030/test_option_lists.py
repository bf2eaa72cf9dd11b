"""The full list of maneuver orders, listed cheaply, is the one the single-unit rules give (issue 13).

``listing.maneuver_options`` computes what many units look up once per
listing (``listing.ManeuverFacts``). Here a straightforward reference builds
the same list from the single-unit functions, unit by unit and destination by
destination (``movement.army_routes``, ``decisions.stances``,
``maneuver.attacker_kind``, ``maneuver.destroyable``), and both must give the
same options in the same order in every maneuver state of random games:
R-MOVE-1..5 (fleets, armies, canals, convoys, rail), R-BATTLE-2/3 (attacks in
place), R-HOSTILE-1..3 (stances, the last free factory, factory destruction).
"""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.seats import Seat
from engine.imperial2030.actions import ArmyMove, Attack, DestroyFactory, Done, FleetMove, Passage
from engine.imperial2030.board import CityKind
from engine.imperial2030.decisions import pending, stances
from engine.imperial2030.economy import (
    blocked_provinces,
    factory_sites,
    hostile_in,
    import_sites,
    producing_factories,
    supply_left,
    unit_for,
)
from engine.imperial2030.game import apply
from engine.imperial2030.listing import maneuver_options
from engine.imperial2030.maneuver import attacker_kind, destroyable
from engine.imperial2030.mapfile import default_board
from engine.imperial2030.model import GameSetup, GameState, ManeuverStep, Stance, UnitKind, Variant
from engine.imperial2030.movement import RouteKind, army_routes, fleet_destinations, movable
from engine.imperial2030.option import Option
from engine.imperial2030.randomplay import random_move
from engine.imperial2030.setup import new_game
from tests.helpers import maneuver_turn, options, play, standard_game, with_flags, with_units

BOARD = default_board()


def reference_options(state: GameState) -> tuple[Option, ...]:
    """Every maneuver order, from the single-unit functions: slow, plain, the meaning of the fast listing."""
    assert state.turn is not None and isinstance(state.step, ManeuverStep)
    nation, step, board = state.turn.nation, state.step, state.board
    ns = state.nations[nation]
    options: list[Option] = []
    if not step.armies_moving:
        for origin in sorted(ns.fleets):
            if movable(state, nation, step, UnitKind.FLEET, origin) > 0:
                options.extend(Option(FleetMove(origin, d)) for d in fleet_destinations(state, nation, step, origin))
    for origin in sorted(ns.armies):
        if movable(state, nation, step, UnitKind.ARMY, origin) <= 0:
            continue
        for dest in sorted(army_routes(state, nation, step, origin)):
            options.extend(Option(ArmyMove(origin, dest, stance)) for stance in stances(state, nation, dest))
    for region in sorted(set(ns.armies) | set(ns.fleets)):
        if attacker_kind(state, nation, step, region) is None:
            continue
        kinds = (UnitKind.FLEET,) if board.regions[region].is_sea else tuple(UnitKind)
        for other in board.nation_ids:
            if other != nation:
                options.extend(Option(Attack(region, other, k)) for k in kinds
                               if state.nations[other].units(k).get(region, 0))
    options.extend(Option(DestroyFactory(p)) for p in sorted(ns.armies) if destroyable(state, nation, p))
    options.append(Option(Done()))
    return tuple(options)


def _maneuver_states(players: int, seed: int, variants: frozenset[Variant], steps: int,
                     listing: bool) -> Iterator[GameState]:
    """Every state of a random game where the government gives its next maneuver order.

    ``listing``: each step picks uniformly among every listed option (many
    hostile entries, blockades and destroyed factories); otherwise the seeded
    random player of the property tests plays.
    """
    setup = GameSetup(tuple(Seat(f"p{i}", f"p{i}@example.org") for i in range(players)), seed, variants)
    state, _ = new_game(BOARD, setup)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.finished:
            return
        if isinstance(state.step, ManeuverStep) and state.step.entry is None:
            yield state
        if listing:
            decision = rng.choice(pending(state))
            player, action = decision.player, rng.choice(decision.options).action
        else:
            player, action = random_move(state, rng)
        state, _ = apply(state, player, action)


def _seen(state: GameState, listed: tuple[Option, ...], seen: Counter[str]) -> None:
    """Count the rule cases a state exercises, so that the comparison is known to reach them."""
    assert state.turn is not None and isinstance(state.step, ManeuverStep)
    nation, step = state.turn.nation, state.step
    seen["blocked"] += bool(blocked_provinces(state))
    seen["fleet carried"] += bool(step.carried)
    seen["army moved"] += any(k is UnitKind.ARMY for k, _, _ in step.moved)
    actions = [o.action for o in listed]
    seen["destroy"] += any(isinstance(a, DestroyFactory) for a in actions)
    seen["attack"] += any(isinstance(a, Attack) for a in actions)
    hostile = {(a.origin, a.dest) for a in actions if isinstance(a, ArmyMove) and a.stance is Stance.HOSTILE}
    seen["last free factory"] += any(isinstance(a, ArmyMove) and a.stance is Stance.FRIENDLY
                                     and (a.origin, a.dest) not in hostile for a in actions)
    for origin in sorted(state.nations[nation].armies)[:2]:
        routes = army_routes(state, nation, step, origin)
        seen["convoy"] += any(r.kind is RouteKind.CONVOY for r in routes.values())
        seen["rail"] += any(r.kind is RouteKind.RAIL for r in routes.values())


def _with_denied(state: GameState, canals: tuple[str, ...]) -> GameState:
    """The state as if passage through ``canals`` had been denied this maneuver (R-MOVE-2).

    Random games seldom meet a controlled canal and a denial, so the
    comparison also runs on each state with its canals closed.
    """
    assert isinstance(state.step, ManeuverStep)
    closed = state.fork()
    closed.step = replace(state.step, denied=canals)
    return closed


def _compare(players: int, seed: int, variants: frozenset[Variant], steps: int, listing: bool,
             seen: Counter[str]) -> None:
    for state in _maneuver_states(players, seed, variants, steps, listing):
        listed = maneuver_options(state)
        assert listed == reference_options(state), (seed, state.turn, state.step)
        _seen(state, listed, seen)
        for canals in (("suez",), ("panama", "suez")):
            closed = _with_denied(state, canals)
            assert maneuver_options(closed) == reference_options(closed), (seed, canals, state.turn, state.step)


@pytest.mark.slow
def test_r_move_r_hostile_listing_equals_the_single_unit_rules_over_fixed_games() -> None:
    """R-MOVE-1..5, R-BATTLE-2, R-HOSTILE-1..3: same options, same order, in every maneuver state
    of fixed random games, and those states reach every case the listing shares work across."""
    seen: Counter[str] = Counter()
    for i in range(12):
        _compare(2 + i % 5, 1 + i, frozenset(), 1500, listing=i % 2 == 0, seen=seen)
    for case in ("blocked", "fleet carried", "army moved", "destroy", "attack",
                 "last free factory", "convoy", "rail"):
        assert seen[case] > 0, (case, seen)


@settings(max_examples=15, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 10**6),
       variants=st.frozensets(st.sampled_from(list(Variant))), listing=st.booleans())
@pytest.mark.slow
def test_r_move_r_hostile_listing_equals_the_single_unit_rules(players: int, seed: int,
                                                                variants: frozenset[Variant],
                                                                listing: bool) -> None:
    """R-MOVE-1..5, R-BATTLE-2, R-HOSTILE-1..3: the fast listing is the reference listing, in random games."""
    _compare(players, seed, variants, 800, listing, Counter())


def test_r_hostile_2_a_listing_is_not_changed_by_the_cache_of_an_earlier_one() -> None:
    """R-HOSTILE-1/2: a listing caches what depends on the blocked provinces by those provinces, so a
    blockade that appears or ends between two listings of one game changes the stances offered."""
    free = blocked = 0
    for state in _maneuver_states(4, 7, frozenset(), 3000, listing=True):
        assert maneuver_options(state) == reference_options(state)
        if blocked_provinces(state):
            blocked += 1
        else:
            free += 1
    assert free and blocked


def test_r_move_2_a_denied_canal_closes_fleet_moves_and_convoys_in_the_listing() -> None:
    """R-MOVE-2, the rulebook's Suez example: once the USA denies Europe passage through Suez, the
    listing offers neither the fleet's move through it nor a convoy to Mumbai, as the reference."""
    state = with_flags(standard_game(), "usa", "northafrica")
    state = with_units(state, "europe", armies={"paris": 1}, fleets={"mediterraneansea": 1, "indianocean": 1})
    state = maneuver_turn(state, "europe")
    assert FleetMove("mediterraneansea", "indianocean") in options(state)
    assert any(isinstance(a, ArmyMove) and a.dest == "mumbai" for a in options(state))
    state, _ = play(state, FleetMove("mediterraneansea", "indianocean"))
    state, _ = play(state, Passage(False), "Eva")
    assert isinstance(state.step, ManeuverStep) and state.step.denied == ("suez",)
    assert maneuver_options(state) == reference_options(state)
    assert FleetMove("mediterraneansea", "indianocean") not in options(state)
    assert not any(isinstance(a, ArmyMove) and a.dest == "mumbai" for a in options(state))


# --- the action steps' listings (R-FACTORY-1, R-PROD-1, R-IMPORT-1 with R-HOSTILE-1) -------------


def _all_states(players: int, seed: int, steps: int) -> Iterator[GameState]:
    """Every state of a random game that lists every option at every step."""
    state, _ = new_game(BOARD, GameSetup(tuple(Seat(f"p{i}", f"p{i}@example.org") for i in range(players)), seed))
    rng = random.Random(seed)
    for _ in range(steps):
        if state.finished:
            return
        yield state
        decision = rng.choice(pending(state))
        state, _ = apply(state, decision.player, rng.choice(decision.options).action)


@pytest.mark.slow
def test_r_hostile_1_factory_production_and_import_sites_check_each_province_as_hostile_in_does() -> None:
    """R-HOSTILE-1 with R-FACTORY-1, R-PROD-1, R-IMPORT-1: the sites these listings offer, found with
    the blocked provinces computed once, are those ``hostile_in`` asked province by province gives."""
    blockades = 0
    for i in range(6):
        for state in _all_states(2 + i % 5, 100 + i, 1500):
            blockades += bool(blocked_provinces(state))
            for nation, ns in state.nations.items():
                homes = BOARD.homes[nation]
                sites = () if ns.treasury < BOARD.tables.factory_cost else tuple(
                    c for c in homes if c not in ns.factories and not hostile_in(state, c))
                assert factory_sites(state, nation) == sites
                assert producing_factories(state, nation) == tuple(
                    f for f in ns.factories
                    if not hostile_in(state, f) and supply_left(state, nation, unit_for(state, f)) > 0)
                for kind in UnitKind:
                    assert import_sites(state, nation, kind) == tuple(
                        h for h in homes if not hostile_in(state, h)
                        and (kind is UnitKind.ARMY or BOARD.regions[h].city is CityKind.SHIPYARD))
    assert blockades > 0
