"""Eight-Minute Empire behind the ``engine.core.Rules`` protocol, with its state as JSON.

The bid is the one sealed decision (R8-BID-1): ``pending`` lists every player
with ``answered`` for those whose bid is in. The deck's order is hidden: it is
in the state (replay needs it) but in no event.

A stored state names its ``format``; ``state_from_json`` refuses any other
(``ValueError``), so a snapshot written by an engine that laid out its states
differently is passed over and the game replayed from its log, the truth.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from engine.core.decisions import Pending
from engine.core.seats import Seat
from engine.eight_minute_empire.actions import Action, action_from_json, action_to_json
from engine.eight_minute_empire.board import Board, default_board
from engine.eight_minute_empire.events import Event
from engine.eight_minute_empire.game import DecisionKind, apply, new_game, pending
from engine.eight_minute_empire.model import CardInPlay, Phase, Score, Setup, State, Variant


@dataclass(frozen=True)
class EightMinuteRules:
    board: Board = field(default_factory=default_board)

    def new_game(self, setup: Setup) -> tuple[State, list[Event]]:
        return new_game(self.board, setup)

    def apply(self, state: State, player: str, action: Action) -> tuple[State, list[Event]]:
        return apply(self.board, state, player, action)

    def pending(self, state: State) -> tuple[Pending, ...]:
        return tuple(Pending(d.player, d.kind.value, None, has_default=True, sealed=d.kind is DecisionKind.BID,
                             answered=d.answered, detail=d) for d in pending(state))

    def version(self, state: State) -> int:
        return state.version

    def finished(self, state: State) -> bool:
        return state.finished

    def setup_of(self, state: State) -> Setup:
        return state.setup

    def renamed(self, setup: Setup, old: str, new: str, email: str) -> Setup:
        return replace(setup, players=tuple(Seat(new, email) if s.name == old else s for s in setup.players),
                       ages=tuple(new if p == old else p for p in setup.ages))

    def seats(self, setup: Setup) -> tuple[Seat, ...]:
        return setup.players

    def setup_to_json(self, setup: Setup) -> dict[str, Any]:
        return setup_to_json(setup)

    def setup_from_json(self, data: dict[str, Any]) -> Setup:
        return setup_from_json(data)

    def action_to_json(self, action: Action) -> dict[str, Any]:
        return action_to_json(action)

    def action_from_json(self, data: dict[str, Any]) -> Action:
        return action_from_json(data)

    def state_to_json(self, state: State) -> dict[str, Any]:
        return state_to_json(state)

    def state_from_json(self, data: dict[str, Any]) -> State:
        return state_from_json(data)


def setup_to_json(setup: Setup) -> dict[str, Any]:
    return {"players": [[s.name, s.email] for s in setup.players], "seed": setup.seed, "ages": list(setup.ages),
            "variants": sorted(v.value for v in setup.variants)}


def setup_from_json(data: dict[str, Any]) -> Setup:
    return Setup(tuple(Seat(n, e) for n, e in data["players"]), int(data["seed"]), tuple(data.get("ages", ())),
                 frozenset(Variant(v) for v in data.get("variants", ())))


# 2: the row is refilled after the card's action (R8-TURN-3). Format 1 (no "format" key) laid the deck's card when
# the card was taken, so its states during an action show a row that replay no longer gives.
STATE_FORMAT = 2


def _pieces(pieces: dict[int, dict[str, int]]) -> dict[str, dict[str, int]]:
    return {str(r): dict(here) for r, here in sorted(pieces.items())}


def state_to_json(state: State) -> dict[str, Any]:
    """Everything, the deck's hidden order and open bids included (snapshots, the game master's --everything)."""
    in_play = state.in_play
    return {
        "format": STATE_FORMAT, "setup": setup_to_json(state.setup), "ages": list(state.ages),
        "deck": list(state.deck), "row": list(state.row), "coins": dict(state.coins),
        "hands": {p: list(h) for p, h in state.hands.items()}, "armies": _pieces(state.armies),
        "cities": _pieces(state.cities), "phase": state.phase.value, "bids": dict(state.bids),
        "current": state.current, "version": state.version, "winners": list(state.winners),
        "game_number": state.game_number, "carried": dict(state.carried), "first": state.first,
        "bid_opened": state.bid_opened,
        "revealed": dict(state.revealed),
        "in_play": None if in_play is None else {"card": in_play.card, "left": list(in_play.left),
                                                 "chosen": in_play.chosen},
        "scores": [[s.player, s.regions, s.continents, s.goods, list(s.wilds), s.coins, s.armies]
                   for s in state.scores],
    }


def state_from_json(data: dict[str, Any]) -> State:
    """The state ``state_to_json`` wrote; ``ValueError`` for a state of another format (replay it instead)."""
    if data.get("format", 1) != STATE_FORMAT:
        raise ValueError(f"an Eight-Minute Empire state of format {data.get('format', 1)}, not {STATE_FORMAT}")
    in_play = data["in_play"]
    return State(
        setup=setup_from_json(data["setup"]), ages=tuple(data["ages"]),
        deck=tuple(data["deck"]), row=tuple(data["row"]), coins=dict(data["coins"]),
        hands={p: tuple(h) for p, h in data["hands"].items()},
        armies={int(r): dict(here) for r, here in data["armies"].items()},
        cities={int(r): dict(here) for r, here in data["cities"].items()},
        phase=Phase(data["phase"]), bids=dict(data["bids"]), current=data["current"],
        in_play=None if in_play is None else CardInPlay(in_play["card"], tuple(in_play["left"]), in_play["chosen"]),
        version=data["version"], winners=tuple(data["winners"]),
        game_number=data.get("game_number", 1), carried=dict(data.get("carried", {})),
        bid_opened=data.get("bid_opened", 0),
        first=data.get("first"), revealed=dict(data.get("revealed", {})),
        scores=tuple(Score(p, r, c, g, tuple(w), coins, a) for p, r, c, g, w, coins, a in data["scores"]),
    )
