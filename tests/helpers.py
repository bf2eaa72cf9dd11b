"""Shared helpers for the rules test suite (tests/engine/imperial2030/test_rules_*.py, our "DATC").

A rules test reads like the rule it checks:

    state = standard_game()                        # a fixed, known deal
    state = position(state, "china", rondel=INVESTOR, power=11)
    state, events = play(state, ChooseSpace(TAXATION))

``position`` edits a *clone* of the state directly (treasury, power, rondel
marker, factories, hostile armies, ...), so a test can start from any position
a rulebook example describes; the engine is then driven only through
``engine.imperial2030.game.apply`` like a real game.

Seats and the standard fixed deal (R-SETUP-6), used unless a test says otherwise:

    seat   Anna    Ben    Cleo   Dan     Eva   Finn
    card   Russia  China  India  Brazil  USA   Europe

so that after the standard setup every treasury holds 11, every player 2, and
the investor card is with Ben (left of Anna, Russia's government; R-SETUP-5).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

import pytest

from engine.imperial2030.actions import Action, ChooseSpace
from engine.imperial2030.board import Board
from engine.imperial2030.decisions import Decision, pending
from engine.imperial2030.errors import IllegalAction
from engine.imperial2030.events import AccountKind, Event, MoneyMoved, Reason
from engine.imperial2030.game import apply, waiting_for
from engine.imperial2030.mapfile import default_board
from engine.imperial2030.model import (
    Bond,
    GameSetup,
    GameState,
    RondelStep,
    Seat,
    TurnInfo,
    Variant,
)
from engine.imperial2030.setup import new_game

BOARD: Board = default_board()

NAMES = ("Anna", "Ben", "Cleo", "Dan", "Eva", "Finn")
NATIONS = ("russia", "china", "india", "brazil", "usa", "europe")
STANDARD_DEAL = dict(zip(NATIONS, NAMES, strict=True))

# Rondel spaces (R-RONDEL-1), clockwise from Investor.
INVESTOR = "investor"
IMPORT = "import"
PRODUCTION_2 = "production_2"
MANEUVER_2 = "maneuver_2"
TAXATION = "taxation"
FACTORY = "factory"
PRODUCTION_1 = "production_1"
MANEUVER_1 = "maneuver_1"

# Neutral land regions, handy as flag sites (R-TAX-1).
NEUTRAL_LAND = tuple(r.id for r in BOARD.regions.values() if r.kind.value == "land")

E = TypeVar("E")


# --- games ----------------------------------------------------------------------------


def game_setup(
    players: Iterable[str] = NAMES,
    deal: Mapping[str, str] | None = None,
    variants: Iterable[Variant] = (),
    seed: int = 0,
    start_player: str | None = None,
) -> GameSetup:
    names = tuple(players)
    if deal is None:
        deal = {n: p for n, p in STANDARD_DEAL.items() if p in names} if len(names) == 6 else {}
    return GameSetup(
        players=tuple(Seat(name, f"{name.lower()}@example.org") for name in names),
        seed=seed,
        variants=frozenset(variants),
        deal=tuple(deal.items()),
        start_player=start_player,
    )


def new(
    players: Iterable[str] = NAMES,
    deal: Mapping[str, str] | None = None,
    variants: Iterable[Variant] = (),
    seed: int = 0,
    start_player: str | None = None,
) -> tuple[GameState, list[Event]]:
    """A new game and its setup events."""
    return new_game(BOARD, game_setup(players, deal, variants, seed, start_player))


def standard_game(variants: Iterable[Variant] = ()) -> GameState:
    """Six players, the standard fixed deal above; Russia (Anna) is to choose a space."""
    state, _ = new(NAMES, STANDARD_DEAL, variants)
    return state


# --- positions -------------------------------------------------------------------------


def position(state: GameState, nation: str | None = None, **fields: Any) -> GameState:
    """A clone of ``state`` with the nation's fields set (treasury, power, rondel, ...)."""
    new_state = state.clone()
    if nation is not None:
        ns = new_state.nations[nation]
        for name, value in fields.items():
            if not hasattr(ns, name):
                raise AttributeError(f"NationState has no field {name!r}")
            setattr(ns, name, value)
    elif fields:
        raise ValueError("fields need a nation")
    return new_state


def turn_of(state: GameState, nation: str, **fields: Any) -> GameState:
    """A clone where it is ``nation``'s turn to choose a rondel space (fields as in ``position``)."""
    new_state = position(state, nation, **fields)
    new_state.turn = TurnInfo(nation)
    new_state.step = RondelStep()
    return new_state


def with_cash(state: GameState, **cash: int) -> GameState:
    new_state = state.clone()
    for player, amount in cash.items():
        new_state.players[player].cash = amount
    return new_state


def with_bonds(state: GameState, player: str, *bonds: tuple[str, int]) -> GameState:
    """A clone where ``player`` holds exactly ``bonds`` (nation, value)."""
    new_state = state.clone()
    new_state.players[player].bonds = sorted(Bond(n, v) for n, v in bonds)
    return new_state


def governments(state: GameState, **govs: str | None) -> GameState:
    """A clone with governments reassigned, e.g. ``governments(s, europe="Anna")``."""
    new_state = state.clone()
    for nation, player in govs.items():
        new_state.nations[nation].government = player
    return new_state


def swiss_bank(state: GameState, player: str, heir: str) -> GameState:
    """A clone where ``player`` governs nothing (and so holds a Swiss bank, R-INVEST-7):
    every nation he governs passes to ``heir`` together with his bonds of that nation,
    so the position stays one the rules can reach (the government is the largest holder)."""
    new_state = state.clone()
    for nation in new_state.governed_by(player):
        mine = [b for b in new_state.players[player].bonds if b.nation == nation]
        new_state.players[player].bonds = [b for b in new_state.players[player].bonds if b.nation != nation]
        new_state.players[heir].bonds = sorted(new_state.players[heir].bonds + mine)
        new_state.nations[nation].government = heir
    return new_state


def hostile_army(state: GameState, occupier: str, province: str, count: int = 1) -> GameState:
    """A clone with ``count`` hostile (standing) armies of ``occupier`` in ``province`` (R-HOSTILE-1)."""
    new_state = state.clone()
    ns = new_state.nations[occupier]
    ns.armies[province] = ns.armies.get(province, 0) + count
    ns.hostile[province] = ns.hostile.get(province, 0) + count
    return new_state


def friendly_army(state: GameState, owner: str, province: str, count: int = 1) -> GameState:
    """A clone with ``count`` friendly (lying) armies of ``owner`` in ``province``."""
    new_state = state.clone()
    ns = new_state.nations[owner]
    ns.armies[province] = ns.armies.get(province, 0) + count
    return new_state


# --- driving the engine ----------------------------------------------------------------------


def decider(state: GameState) -> str:
    """The one player the game waits for (fails if there is not exactly one)."""
    waiting = waiting_for(state)
    assert len(waiting) == 1, waiting
    return waiting[0]


def play(state: GameState, action: Action, player: str | None = None) -> tuple[GameState, list[Event]]:
    """``apply`` the action for ``player`` (default: whoever the game waits for)."""
    return apply(state, player or decider(state), action)


def play_all(state: GameState, *actions: Action) -> tuple[GameState, list[Event]]:
    """Play actions one after the other, each by whoever is asked; all events in order."""
    events: list[Event] = []
    for action in actions:
        state, new_events = play(state, action)
        events.extend(new_events)
    return state, events


def move_to(state: GameState, space: str) -> tuple[GameState, list[Event]]:
    """The current government chooses ``space`` on the rondel."""
    return play(state, ChooseSpace(space))


def refused(state: GameState, action: Action, player: str | None = None) -> IllegalAction:
    """The IllegalAction ``action`` raises; it must carry a reason and a non-empty ``legal`` list."""
    with pytest.raises(IllegalAction) as info:
        play(state, action, player)
    error = info.value
    assert error.reason, "an illegal action must say why"
    assert error.legal, f"an illegal action must list what is legal instead: {error.reason}"
    return error


def decision(state: GameState) -> Decision:
    decisions = pending(state)
    assert len(decisions) == 1, decisions
    return decisions[0]


def options(state: GameState) -> list[Action]:
    """The actions the pending decision offers."""
    return [o.action for o in decision(state).options]


# --- reading events ----------------------------------------------------------------------


def of_type(events: Iterable[Any], kind: type[E]) -> list[E]:
    return [e for e in events if isinstance(e, kind)]


def one(events: Iterable[Any], kind: type[E]) -> E:
    found = of_type(events, kind)
    assert len(found) == 1, f"expected one {kind.__name__}, got {found}"
    return found[0]


def payments(events: Iterable[Any], reason: Reason) -> list[MoneyMoved]:
    return [e for e in events if isinstance(e, MoneyMoved) and e.reason is reason]


def paid(events: Iterable[Any], reason: Reason) -> int:
    """Total amount moved for ``reason``."""
    return sum(e.amount for e in payments(events, reason))


def paid_to(events: Iterable[Any], reason: Reason, owner: str) -> int:
    """Amount moved for ``reason`` into the cash or treasury of ``owner``."""
    return sum(e.amount for e in payments(events, reason) if e.target.owner == owner)


def paid_by(events: Iterable[Any], reason: Reason, owner: str) -> int:
    return sum(e.amount for e in payments(events, reason) if e.source.owner == owner)


def to_bank(events: Iterable[Any], reason: Reason) -> int:
    return sum(e.amount for e in payments(events, reason) if e.target.kind is AccountKind.BANK)


def total_money(state: GameState) -> int:
    """Money outside the bank: every treasury plus every player's cash."""
    return sum(n.treasury for n in state.nations.values()) + sum(p.cash for p in state.players.values())


def bank_flow(events: Iterable[Any]) -> int:
    """Net money that left the bank in these events."""
    flow = 0
    for e in events:
        if isinstance(e, MoneyMoved):
            if e.source.kind is AccountKind.BANK:
                flow += e.amount
            if e.target.kind is AccountKind.BANK:
                flow -= e.amount
    return flow


# --- maneuver positions (rules section 5) ----------------------------------------------------
# Unit positions are edited directly (like ``position``); the maneuver itself is then driven
# through ``apply`` only.


def with_units(
    state: GameState,
    nation: str,
    armies: Mapping[str, int] | None = None,
    fleets: Mapping[str, int] | None = None,
) -> GameState:
    """A clone with extra armies/fleets of ``nation`` (added to what stands there; friendly)."""
    new_state = state.clone()
    ns = new_state.nations[nation]
    for units, extra in ((ns.armies, armies), (ns.fleets, fleets)):
        for region, count in (extra or {}).items():
            assert region in new_state.board.regions, region
            units[region] = units.get(region, 0) + count
    return new_state


def with_flags(state: GameState, nation: str, *regions: str) -> GameState:
    """A clone where ``nation``'s flags stand exactly on ``regions`` (taken off any other nation)."""
    new_state = state.clone()
    for ns in new_state.nations.values():
        ns.flags = [r for r in ns.flags if r not in regions]
    new_state.nations[nation].flags = list(regions)
    return new_state


def maneuver_turn(state: GameState, nation: str) -> GameState:
    """``nation`` moves its marker one space, free, from Production onto Maneuver (passing
    nothing); with units on the board its government is then asked for maneuver orders."""
    new_state = turn_of(state, nation, rondel=PRODUCTION_2)
    new_state, _ = move_to(new_state, MANEUVER_2)
    return new_state
