"""Applying the orders of a message, line by line.

The orders of one message are applied in order; the first that fails stops
the message. What came before it stands (the player saw those lines accepted
and later lines may depend on them), the failing line and every later one are
handed back unapplied, with the reason and what is legal now. Bad input never
raises: a player's typo must become a polite reply, not a crashed daemon.

Waiting lines (ORDERS.md, "Maneuver"). When an applied order leaves the game
waiting for another player's answer to a question it raised (a canal
passage, a battle declaration: the engine's ``ManeuverStep.entry``), the
message stops without error and the rest of it *waits*: its remaining lines
and its end (see below), so a waiting record may hold no line at all. It is
resumed as soon as the writer is the one the game waits for again, that is,
right after the answer, in the same call (``apply_exchange``: the answering
message's next line already sees the resumed lines' effects). A waiting line
that the answer made illegal is refused like any failing line, with the
reason and what is legal now; the lines after it are dropped, and the
government is asked (by the pending decision) to continue.

The end of a message ends the maneuver (an implicit ``DONE``, flagged
``implicit``) when ``end_maneuver`` is set (the moderator sets it: that is
the rule of ORDERS.md; the plain functions apply exactly the written lines)
and all of these hold:

- the message gave at least one maneuver order (FLEET, ARMY, ATTACK,
  DESTROY FACTORY) in the maneuver still in progress. A message of queries
  (STATUS, OPTIONS …), standing orders or donations sent in the middle of
  one's own maneuver ends nothing (asking where one stands must not cost the
  rest of the maneuver), nor does a message that only chose the Maneuver
  space (the player may want to see the board first);
- no line was refused: a refused line stops the message, and the government
  must say how to go on;
- no question is open: while one is, the end of the message waits with its
  lines and comes once everything before it is applied. Decision: this holds
  also when the last order itself raised the question. Whether a move raises
  a question depends on the other players' standing answers, which are
  secret, so the writer cannot know it; "a message with maneuver orders is a
  whole maneuver" is the rule a player can rely on.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from engine.imperial2030.actions import (
    Action,
    ArmyMove,
    Attack,
    DestroyFactory,
    Done,
    FleetMove,
)
from engine.imperial2030.decisions import Decision, pending
from engine.imperial2030.errors import EngineError
from engine.imperial2030.events import Event
from engine.imperial2030.game import apply as engine_apply
from engine.imperial2030.game import waiting_for
from engine.imperial2030.model import GameState, ManeuverStep
from pbem.games.imperial2030.orders.errors import OrderError
from pbem.games.imperial2030.orders.legal import refusal
from pbem.games.imperial2030.orders.lexicon import written_in
from pbem.games.imperial2030.orders.parse import Query, parse_line, parse_order
from pbem.games.imperial2030.orders.split import MessageLine, split_orders
from pbem.languages import speaking

MANEUVER_ORDERS = (FleetMove, ArmyMove, Attack, DestroyFactory)
IMPLICIT_DONE = "DONE"  # the text of the DONE added at the end of a message


@dataclass(frozen=True, slots=True)
class AppliedOrder:
    """A line the engine accepted: what was written, the action it became and what happened.

    ``version`` is the state version the action was made against (its place
    in the log), ``nation`` the nation whose turn it was; ``implicit`` marks
    the DONE that the end of the message added.
    """

    line: MessageLine
    action: Action
    events: tuple[Event, ...]
    player: str = ""
    version: int = -1
    nation: str | None = None
    implicit: bool = False


@dataclass(frozen=True, slots=True)
class QueryLine:
    """A report request found among the orders; the moderator answers it after the orders."""

    line: MessageLine
    query: Query


@dataclass(frozen=True)
class MessageResult:
    """The outcome of one message (or of the resumed waiting part of one).

    ``state`` is the state after every applied line (the given state when
    none applied). ``error`` is None when no line was refused; otherwise it
    names the failing line, and ``not_applied`` holds that line and all after
    it. ``question`` is the other player's open decision the message stopped
    at (a canal or battle question its last applied order raised), and
    ``waiting`` the lines after that order, held until it is answered (none
    when that order was the last: the end of the message waits alone).
    """

    state: GameState
    applied: tuple[AppliedOrder, ...] = ()
    queries: tuple[QueryLine, ...] = ()
    error: OrderError | None = None
    not_applied: tuple[MessageLine, ...] = ()
    waiting: tuple[MessageLine, ...] = ()
    question: Decision | None = None
    player: str = ""
    resumed: bool = False  # these lines had waited for an answer
    ignored: tuple[MessageLine, ...] = ()  # courtesy lines not read as orders ("Thanks, Alice")

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def events(self) -> tuple[Event, ...]:
        return tuple(e for a in self.applied for e in a.events)


@dataclass(frozen=True)
class Exchange:
    """A message, and the waiting lines of other players that its answers set going.

    ``resumed`` holds one result per resumption, in the order they started;
    ``waiting`` every player whose message waits afterwards (the sender's
    included), with its waiting lines (possibly none: only its end waits);
    ``applied`` every accepted action of all parts, in log order.
    """

    state: GameState
    message: MessageResult
    resumed: tuple[MessageResult, ...] = ()
    waiting: Mapping[str, tuple[MessageLine, ...]] = field(default_factory=dict)

    @property
    def applied(self) -> tuple[AppliedOrder, ...]:
        parts = (self.message, *self.resumed)
        return tuple(sorted((a for part in parts for a in part.applied), key=lambda a: a.version))


def apply_action(state: GameState, player: str, action: Action) -> tuple[GameState, list[Event]]:
    """``engine.imperial2030.game.apply`` with its refusals turned into order errors."""
    try:
        return engine_apply(state, player, action)
    except EngineError as exc:  # every refusal of the engine, not only IllegalAction, is a refusal, not a crash
        raise refusal(state, player, exc) from exc


def apply_order(state: GameState, player: str, text: str) -> tuple[GameState, Action, list[Event]]:
    """Parse and apply one order (no waiting, no implicit DONE); raises ``OrderError``."""
    action = parse_order(state, player, text)
    new, events = apply_action(state, player, action)
    return new, action, events


def held(state: GameState, player: str) -> bool:
    """``player``'s own maneuver move waits for another player's answer (a canal or battle question)."""
    step = state.step
    return (isinstance(step, ManeuverStep) and step.entry is not None and state.turn is not None
            and state.nations[state.turn.nation].government == player and player not in waiting_for(state))


def in_own_maneuver(state: GameState, player: str) -> bool:
    """The game waits for ``player``'s next maneuver order (no question open)."""
    step = state.step
    return (isinstance(step, ManeuverStep) and step.entry is None and state.turn is not None
            and state.nations[state.turn.nation].government == player)


def _maneuvering(before: bool, action: Action, state: GameState) -> bool:
    """Whether maneuver orders were given in the maneuver still in progress after ``action``."""
    if isinstance(action, Done) or not isinstance(state.step, ManeuverStep):
        return False
    return before or isinstance(action, MANEUVER_ORDERS)


def _turn(state: GameState) -> str | None:
    return state.turn.nation if state.turn is not None else None


def _run(state: GameState, player: str, lines: Sequence[MessageLine], *, maneuvering: bool, end_maneuver: bool,
         resumed: bool, wake: Callable[[GameState], GameState] | None) -> MessageResult:
    applied: list[AppliedOrder] = []
    queries: list[QueryLine] = []
    for index, line in enumerate(lines):
        try:
            parsed = parse_line(state, player, line.text)
            if isinstance(parsed, Query):
                queries.append(QueryLine(line, parsed))
                continue
            before = state
            state, events = apply_action(state, player, parsed)
        except OrderError as exc:
            return MessageResult(state, tuple(applied), tuple(queries), exc.at_line(line.number, line.text),
                                 tuple(lines[index:]), player=player, resumed=resumed)
        applied.append(AppliedOrder(line, parsed, tuple(events), player, before.version, _turn(before)))
        maneuvering = _maneuvering(maneuvering, parsed, state)
        if wake is not None:
            state = wake(state)
        if held(state, player) and not held(before, player):  # this line raised the question
            return MessageResult(state, tuple(applied), tuple(queries), waiting=tuple(lines[index + 1:]),
                                 question=pending(state)[0], player=player, resumed=resumed)
    if end_maneuver and maneuvering and in_own_maneuver(state, player):
        line = MessageLine(lines[-1].number if lines else 0, IMPLICIT_DONE)
        try:
            new, events = apply_action(state, player, Done())
        except OrderError as exc:  # the engine always takes DONE here; should it not, say so rather than crash
            return MessageResult(state, tuple(applied), tuple(queries), exc.at_line(line.number, line.text),
                                 player=player, resumed=resumed)
        applied.append(AppliedOrder(line, Done(), tuple(events), player, state.version, _turn(state), implicit=True))
        state = wake(new) if wake is not None else new
    return MessageResult(state, tuple(applied), tuple(queries), player=player, resumed=resumed)


def apply_exchange(
    state: GameState,
    player: str,
    lines: Sequence[MessageLine],
    waiting: Mapping[str, Sequence[MessageLine]] | None = None,
    *,
    end_maneuver: bool = False,
) -> Exchange:
    """Apply ``player``'s lines; resume the ``waiting`` lines of others as soon as they may go on.

    ``waiting`` maps players to the waiting rest of an earlier message (its
    lines, possibly none). After every accepted action, each of those players
    whom the game now waits for gets their rest applied (which may stop again
    at a new question, or wake others in turn) before the next line of the
    message is read. A rest whose writer may already go on when the call
    starts is resumed first.
    """
    held_lines: dict[str, tuple[MessageLine, ...]] = {p: tuple(ls) for p, ls in (waiting or {}).items()}
    resumed: list[MessageResult | None] = []  # in the order the resumptions started (nested ones finish first)

    def wake(current: GameState) -> GameState:
        moved = True
        while moved and not current.finished:
            moved = False
            for who in list(held_lines):
                if who not in held_lines or who not in waiting_for(current):
                    continue
                rest = held_lines.pop(who)
                slot = len(resumed)
                resumed.append(None)
                with speaking(written_in(line.text for line in rest)):  # its writer's words, whoever answered
                    result = _run(current, who, rest, maneuvering=True, end_maneuver=end_maneuver, resumed=True,
                                  wake=wake)
                resumed[slot] = result
                if result.question is not None:
                    held_lines[who] = result.waiting
                current = result.state
                moved = True
        return current

    state = wake(state)
    message = _run(state, player, lines, maneuvering=False, end_maneuver=end_maneuver, resumed=False, wake=wake)
    if message.question is not None:
        held_lines[player] = message.waiting
    return Exchange(message.state, message, tuple(r for r in resumed if r is not None), dict(held_lines))


def apply_lines(state: GameState, player: str, lines: list[MessageLine] | tuple[MessageLine, ...], *,
                end_maneuver: bool = False) -> MessageResult:
    """Apply already split lines in order, stopping at the first failure or at another player's question."""
    return apply_exchange(state, player, lines, end_maneuver=end_maneuver).message


def apply_message(state: GameState, player: str, text: str, *, end_maneuver: bool = False) -> MessageResult:
    """Apply the orders in the body of a message (see ``split_orders`` for what counts as an order)."""
    split = split_orders(text)
    result = apply_lines(state, player, split.orders, end_maneuver=end_maneuver)
    return replace(result, ignored=split.ignored)
