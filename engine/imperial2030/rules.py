"""Imperial 2030 behind the ``engine.core.Rules`` protocol: the moderator's one handle on these rules.

Imperial has no sealed decisions and no hidden information: every decision is
answered by one player at a time (R-DECIDE-1), and the whole state is public
except the players' addresses, which the moderator's views leave out.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from engine.core.decisions import Pending
from engine.core.protocol import JsonObject
from engine.core.seats import Seat
from engine.imperial2030.actions import Action, action_from_json, action_to_json
from engine.imperial2030.board import Board
from engine.imperial2030.decisions import Decision, pending
from engine.imperial2030.events import Event
from engine.imperial2030.game import apply
from engine.imperial2030.mapfile import default_board
from engine.imperial2030.model import GameSetup, GameState
from engine.imperial2030.serialize import (
    setup_from_json,
    setup_to_json,
    state_from_json,
    state_to_json,
)
from engine.imperial2030.setup import new_game


def summary(board: Board, decision: Decision) -> Pending:
    """The moderator's summary of one of Imperial's decisions (its kind names a deadline kind)."""
    return Pending(decision.player, decision.kind.value, decision.nation,
                   has_default=decision.default is not None, out_of_turn=decision.out_of_turn,
                   detail=decision)


@dataclass(frozen=True)
class ImperialRules:
    """The rules of Imperial 2030 on one board (the standard map unless a test gives another)."""

    board: Board = field(default_factory=default_board)

    def new_game(self, setup: GameSetup) -> tuple[GameState, list[Event]]:
        return new_game(self.board, setup)

    def apply(self, state: GameState, player: str, action: Action) -> tuple[GameState, list[Event]]:
        return apply(state, player, action)

    def pending(self, state: GameState) -> tuple[Pending, ...]:
        return tuple(summary(self.board, d) for d in pending(state))

    def version(self, state: GameState) -> int:
        return state.version

    def finished(self, state: GameState) -> bool:
        return state.finished

    def setup_of(self, state: GameState) -> GameSetup:
        return state.setup

    def renamed(self, setup: GameSetup, old: str, new: str, email: str) -> GameSetup:
        def rename(player: str | None) -> str | None:
            return new if player == old else player

        return GameSetup(
            players=tuple(Seat(new, email) if s.name == old else s for s in setup.players),
            seed=setup.seed,
            variants=setup.variants,
            deal=tuple((n, new if p == old else p) for n, p in setup.deal),
            start_player=rename(setup.start_player),
        )

    def seats(self, setup: GameSetup) -> tuple[Seat, ...]:
        return setup.players

    def setup_to_json(self, setup: GameSetup) -> JsonObject:
        return setup_to_json(setup)

    def setup_from_json(self, data: JsonObject) -> GameSetup:
        return setup_from_json(data)

    def action_to_json(self, action: Action) -> JsonObject:
        return action_to_json(action)

    def action_from_json(self, data: JsonObject) -> Action:
        return action_from_json(data)

    def state_to_json(self, state: GameState) -> JsonObject:
        return state_to_json(state)

    def state_from_json(self, data: JsonObject) -> GameState:
        return state_from_json(self.board, data)
