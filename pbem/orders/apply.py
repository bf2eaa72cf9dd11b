"""Applying the orders of a message, line by line.

The orders of one message are applied in order; the first that fails stops
the message. What came before it stands (the player saw those lines accepted
and later lines may depend on them), the failing line and every later one are
handed back unapplied, with the reason and what is legal now. Bad input never
raises: a player's typo must become a polite reply, not a crashed daemon.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.actions import Action
from engine.errors import EngineError
from engine.events import Event
from engine.game import apply as engine_apply
from engine.model import GameState
from pbem.orders.errors import OrderError
from pbem.orders.legal import refusal
from pbem.orders.message import MessageLine, split_message
from pbem.orders.parse import Query, parse_line, parse_order


@dataclass(frozen=True, slots=True)
class AppliedOrder:
    """A line the engine accepted: what was written, the action it became and what happened."""

    line: MessageLine
    action: Action
    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class QueryLine:
    """A report request found among the orders; the moderator answers it after the orders."""

    line: MessageLine
    query: Query


@dataclass(frozen=True)
class MessageResult:
    """The outcome of one message.

    ``state`` is the state after every applied line (the given state when
    none applied). ``error`` is None when every line was applied; otherwise it
    names the failing line, and ``not_applied`` holds that line and all after it.
    """

    state: GameState
    applied: tuple[AppliedOrder, ...] = ()
    queries: tuple[QueryLine, ...] = ()
    error: OrderError | None = None
    not_applied: tuple[MessageLine, ...] = ()

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def events(self) -> tuple[Event, ...]:
        return tuple(e for a in self.applied for e in a.events)


def apply_action(state: GameState, player: str, action: Action) -> tuple[GameState, list[Event]]:
    """``engine.game.apply`` with its refusals turned into order errors."""
    try:
        return engine_apply(state, player, action)
    except EngineError as exc:  # every refusal of the engine, not only IllegalAction, is a refusal, not a crash
        raise refusal(state, player, exc) from exc


def apply_order(state: GameState, player: str, text: str) -> tuple[GameState, Action, list[Event]]:
    """Parse and apply one order (the game master's ``pbem order``); raises ``OrderError``."""
    action = parse_order(state, player, text)
    new, events = apply_action(state, player, action)
    return new, action, events


def apply_lines(state: GameState, player: str, lines: list[MessageLine] | tuple[MessageLine, ...]) -> MessageResult:
    """Apply already split lines in order, stopping at the first failure."""
    applied: list[AppliedOrder] = []
    queries: list[QueryLine] = []
    for index, line in enumerate(lines):
        try:
            parsed = parse_line(state, player, line.text)
            if isinstance(parsed, Query):
                queries.append(QueryLine(line, parsed))
                continue
            state, events = apply_action(state, player, parsed)
        except OrderError as exc:
            return MessageResult(state, tuple(applied), tuple(queries), exc.at_line(line.number, line.text),
                                 tuple(lines[index:]))
        applied.append(AppliedOrder(line, parsed, tuple(events)))
    return MessageResult(state, tuple(applied), tuple(queries))


def apply_message(state: GameState, player: str, text: str) -> MessageResult:
    """Apply the orders in the body of a message (see ``split_message`` for what counts as an order)."""
    return apply_lines(state, player, split_message(text))
