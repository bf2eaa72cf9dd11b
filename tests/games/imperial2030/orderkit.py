"""What the order-language tests of Imperial 2030 share (test_orders.py, test_orders_maneuver.py): playing
actions into a position, the round trip of an action through its text, a seeded new game."""
from __future__ import annotations

from engine.core.seats import Seat
from engine.imperial2030.game import apply
from engine.imperial2030.mapfile import default_board
from engine.imperial2030.model import GameSetup, GameState, Variant
from engine.imperial2030.setup import new_game
from pbem.games.imperial2030.orders import format_action, parse_order

BOARD = default_board()


def play(state: GameState, *moves: tuple[str, object]) -> GameState:
    for player, action in moves:
        state, _ = apply(state, player, action)  # type: ignore[arg-type]
    return state


def assert_round_trip(state: GameState, player: str, action: object) -> None:
    text = format_action(state.board, action)  # type: ignore[arg-type]
    assert parse_order(state, player, text) == action, text


def random_game(seed: int, players: int, variants: frozenset[Variant]) -> GameState:
    seats = tuple(Seat(name) for name in ("ann", "bob", "cat", "dan", "eve", "fay")[:players])
    state, _ = new_game(BOARD, GameSetup(seats, seed=seed, variants=variants))
    return state
