"""Invariants over random legal play (hypothesis shrinks the seed on failure).

Each game is played by the seeded random legal player for a bounded number of
actions; the invariants are checked after every action.
"""
from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.imperial2030.events import AccountKind, MoneyMoved, Reason
from engine.imperial2030.game import LogEntry, apply, replay
from engine.imperial2030.mapfile import default_board
from engine.imperial2030.model import GameSetup, GameState, RondelStep, Seat, UnitKind, Variant
from engine.imperial2030.randomplay import random_move
from engine.imperial2030.serialize import state_from_json, state_to_json
from engine.imperial2030.setup import new_game

BOARD = default_board()
VARIANTS = st.frozensets(st.sampled_from(list(Variant)))


def _setup(players: int, seed: int, variants: frozenset[Variant]) -> GameSetup:
    return GameSetup(tuple(Seat(f"p{i}", f"p{i}@example.org") for i in range(players)), seed, variants)


def _play(setup: GameSetup, steps: int):
    """Yield (state before, player, action, state after, events) for each random step."""
    state, _ = new_game(BOARD, setup)
    rng = random.Random(setup.seed)
    for _ in range(steps):
        if state.finished:
            return
        player, action = random_move(state, rng)
        after, events = apply(state, player, action)
        yield state, player, action, after, events
        state = after


def _money(state: GameState) -> int:
    return sum(n.treasury for n in state.nations.values()) + sum(p.cash for p in state.players.values())


def _bank_flow(events) -> int:
    flow = 0
    for e in events:
        if isinstance(e, MoneyMoved):
            if e.source.kind is AccountKind.BANK:
                flow += e.amount
            if e.target.kind is AccountKind.BANK:
                flow -= e.amount
    return flow


# Who may pay whom (R-PIECE-4): the only player-to-player payment is the interest shortfall.
ALLOWED_FLOWS = {
    (AccountKind.CASH, AccountKind.CASH): {Reason.INTEREST_SHORTFALL},
    (AccountKind.CASH, AccountKind.TREASURY): {Reason.BOND, Reason.UPGRADE, Reason.DONATION},
    (AccountKind.TREASURY, AccountKind.CASH): {Reason.INTEREST, Reason.BONUS},
    (AccountKind.TREASURY, AccountKind.TREASURY): set(),
}


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 10**6), variants=VARIANTS)
def test_money_only_moves_as_the_rules_say(players, seed, variants):
    """R-PIECE-4: money moves only between bank, treasuries and players as the rules say."""
    for before, _, _, after, events in _play(_setup(players, seed, variants), 400):
        assert _money(after) - _money(before) == _bank_flow(events)
        for e in events:
            if isinstance(e, MoneyMoved) and AccountKind.BANK not in (e.source.kind, e.target.kind):
                assert e.reason in ALLOWED_FLOWS[(e.source.kind, e.target.kind)], e
        assert all(n.treasury >= 0 for n in after.nations.values())
        assert all(p.cash >= 0 for p in after.players.values())


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 10**6), variants=VARIANTS)
def test_bonds_are_never_duplicated(players, seed, variants):
    """R-PIECE-3: each nation has 9 bonds; a bond is held by one player or is in stock."""
    values = sorted(t.value for t in BOARD.tables.bonds)
    for _, _, _, after, _ in _play(_setup(players, seed, variants), 400):
        for nation in BOARD.nation_ids:
            held = sorted(b.value for _, b in after.bonds_held(nation))
            assert len(held) == len(set(held))
            assert sorted(held + list(after.bonds_available(nation))) == values


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 10**6), variants=VARIANTS)
def test_government_is_the_largest_investor(players, seed, variants):
    """R-INVEST-6, R-SETUP-4: when a turn starts, no player holds more of a nation than its government."""
    for _, _, _, after, _ in _play(_setup(players, seed, variants), 400):
        if not isinstance(after.step, RondelStep):
            continue
        for nation in BOARD.nation_ids:
            gov = after.nations[nation].government
            totals = [p.bond_total(nation) for p in after.players.values()]
            if gov is None:
                assert max(totals) == 0
            else:
                assert after.players[gov].bond_total(nation) == max(totals)


@settings(max_examples=15, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 10**6), variants=VARIANTS)
def test_replay_equals_state(players, seed, variants):
    """ARCHITECTURE: a game's state equals the replay of its setup plus its log."""
    setup = _setup(players, seed, variants)
    log: list[LogEntry] = []
    state = None
    for before, player, action, after, _ in _play(setup, 300):
        log.append(LogEntry(player, action, before.version))
        state = after
    if state is not None:
        assert replay(BOARD, setup, log) == state


@settings(max_examples=15, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 10**6), variants=VARIANTS)
def test_state_round_trips_through_json(players, seed, variants):
    """State survives JSON text exactly, at every step."""
    for _, _, _, after, _ in _play(_setup(players, seed, variants), 200):
        assert state_from_json(BOARD, json.loads(json.dumps(state_to_json(after)))) == after


@settings(max_examples=10, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 10**6), variants=VARIANTS)
def test_random_games_end_by_the_rules(players, seed, variants):
    """R-END-1: a game ends when a nation reaches 25 power points, and then nothing more is pending."""
    final = None
    for _, _, _, after, _ in _play(_setup(players, seed, variants), 5000):
        final = after
    assert final is not None and final.finished
    assert max(n.power for n in final.nations.values()) == 25
    assert final.scores is not None and set(final.scores) == set(final.players)


# --- the board during random play with maneuvers (rules section 5) --------------------------------


def _board_faults(state: GameState) -> list[str]:
    """Every way the units, hostile markers and flags on the board break the rules (empty: none)."""
    regions = BOARD.regions
    faults: list[str] = []
    flag_owner: dict[str, str] = {}
    for nation, ns in state.nations.items():
        limit = BOARD.tables.unit_limits[nation]
        if sum(ns.armies.values()) > limit.armies or sum(ns.fleets.values()) > limit.fleets:
            faults.append(f"{nation} exceeds its supply: {ns.armies} {ns.fleets}")
        for region, count in ns.fleets.items():
            r = regions[region]
            if count <= 0:
                faults.append(f"{nation} has {count} fleets listed in {region}")
            if not (r.is_sea or (r.is_home and r.nation == nation and r.port)):
                faults.append(f"{nation} fleet in {region}: neither a sea nor an own port")
        for region, count in ns.armies.items():
            if count <= 0:
                faults.append(f"{nation} has {count} armies listed in {region}")
            if regions[region].is_sea:
                faults.append(f"{nation} army at sea in {region}")
        for region, count in ns.hostile.items():
            r = regions[region]
            if not 0 < count <= ns.armies.get(region, 0):
                faults.append(f"{nation}: {count} hostile of {ns.armies.get(region, 0)} armies in {region}")
            if not r.is_home or r.nation == nation:
                faults.append(f"{nation} hostile in {region}, not a foreign home province")
        if len(ns.flags) > BOARD.tables.flags_per_nation or len(set(ns.flags)) != len(ns.flags):
            faults.append(f"{nation} flags: {ns.flags}")
        for region in ns.flags:
            if regions[region].is_home:
                faults.append(f"{nation} flag in home province {region}")
            if region in flag_owner:
                faults.append(f"two flags in {region}: {flag_owner[region]} and {nation}")
            flag_owner[region] = nation
    return faults


@settings(max_examples=20, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 10**6), variants=VARIANTS)
def test_units_hostile_armies_and_flags_stay_legal(players, seed, variants):
    """R-PIECE-2 (supply), R-MOVE-1/3 (fleets only at sea or in an own port, armies never at sea),
    R-HOSTILE-1 (hostile armies are armies standing in a foreign home province), R-FLAG-1/3
    (at most 15 flags, never in a home province, one flag per region) — after every action of a
    random game played long enough to maneuver, fight, convoy and flag."""
    for _, player, action, after, _ in _play(_setup(players, seed, variants), 1500):
        faults = _board_faults(after)
        assert not faults, (player, action, faults)


@settings(max_examples=10, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 10**6), variants=VARIANTS)
def test_units_never_exceed_supply_counting_a_unit_on_its_way(players, seed, variants):
    """R-PIECE-2: while a question about a moving unit is open (ManeuverStep.entry) the unit is off
    the board; counted back in, the supply still holds."""
    for _, _, _, after, _ in _play(_setup(players, seed, variants), 1500):
        step = after.step
        entry = getattr(step, "entry", None)
        if entry is None or after.turn is None:
            continue
        ns = after.nations[after.turn.nation]
        limit = BOARD.tables.unit_limits[after.turn.nation]
        on_board = ns.unit_count(entry.kind)
        cap = limit.armies if entry.kind is UnitKind.ARMY else limit.fleets
        assert on_board + (1 if not entry.canals else 0) <= cap


@settings(max_examples=8, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 10**6), variants=VARIANTS)
def test_replay_equals_state_through_maneuvers(players, seed, variants):
    """ARCHITECTURE: replay equals state, over games long enough to hold maneuvers, battles,
    canal and battle questions (the same check as test_replay_equals_state, longer games)."""
    setup = _setup(players, seed, variants)
    log: list[LogEntry] = []
    state = None
    for before, player, action, after, _ in _play(setup, 1200):
        log.append(LogEntry(player, action, before.version))
        state = after
    assert state is not None
    assert replay(BOARD, setup, log) == state


@settings(max_examples=15, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 10**6), variants=VARIANTS)
@pytest.mark.slow
def test_apply_never_changes_the_state_it_is_given(players, seed, variants):
    """ARCHITECTURE: states are immutable in spirit; apply works on a fork that copies what it changes."""
    state, _ = new_game(BOARD, _setup(players, seed, variants))
    rng = random.Random(seed)
    for _ in range(600):
        if state.finished:
            break
        before = json.dumps(state_to_json(state), sort_keys=True)
        player, action = random_move(state, rng)
        after, _ = apply(state, player, action)
        assert json.dumps(state_to_json(state), sort_keys=True) == before
        state = after
