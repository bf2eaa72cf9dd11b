"""A player's message applied through Imperial 2030's order language, told in the moderator's terms.

``run_message`` is Imperial's ``GameKind.run_message``: the order layer
(``orders.apply_exchange``) applies the lines, and this module turns what it
did into log entries, narrated lines, a refusal with what is legal now, the
report requests, and the maneuver's waiting lines (docs/orders.md, "The
maneuver"): when a move raises a question to another player, the rest of the
message waits for the answer, and a later message that makes that player
decide again resumes it.
"""
from __future__ import annotations

from collections.abc import Sequence

from engine.core.log import LogEntry
from engine.imperial2030.actions import Action, ArmyMove, FleetMove, Import, Produce
from engine.imperial2030.board import Board
from engine.imperial2030.decisions import Decision, DecisionKind, pending
from engine.imperial2030.events import Event, NationSkipped, TurnStarted, UnitsPlaced
from engine.imperial2030.game import waiting_for
from engine.imperial2030.model import GameState, ManeuverStep
from pbem.games.imperial2030 import orders
from pbem.games.imperial2030.narrate import narrate
from pbem.games.imperial2030.orders import MessageResult, format_action, split_orders
from pbem.games.imperial2030.orders.lexicon import shown
from pbem.games.imperial2030.orders.reasons import Reason, why
from pbem.games.imperial2030.sayings import say
from pbem.games.results import (
    AppliedLine,
    MessageLine,
    MessageOutcome,
    Query,
    Refusal,
    Resumed,
    Waiting,
)

WAITING = "_waiting"  # templates/imperial2030/_waiting.j2: what a message waits for, quiet actions


class OrderLayerError(RuntimeError):
    """The order layer's result does not continue the log (a bug, never a player's mistake)."""


def describe_decision(board: Board, decision: Decision) -> str:
    """Who must decide what, in a few words: 'bob (investment)', 'ann (rondel for Russia)'."""
    return say(WAITING, "decision", player=decision.player, kind=decision.kind.value,
               nation=shown(board, decision.nation) if decision.nation else None)


def describe_question(state: GameState, decision: Decision) -> str:
    """The open maneuver question in a few words: 'India: allow Europe's fleet through the Suez canal?'."""
    board = state.board
    step = state.step
    entry = step.entry if isinstance(step, ManeuverStep) else None
    if entry is None or state.turn is None or decision.kind not in (DecisionKind.CANAL, DecisionKind.BATTLE):
        return say(WAITING, "what", kind=decision.kind.value,
                   nation=shown(board, decision.nation) if decision.nation else None)
    mover = shown(board, state.turn.nation)
    asked = shown(board, decision.nation) if decision.nation else "?"  # questions are always put to a nation
    if decision.kind is DecisionKind.CANAL:
        canal = entry.canals[0].replace("_", " ").title()
        return say(WAITING, "canal", asked=asked, mover=mover, unit=entry.kind.value, canal=canal)
    return say(WAITING, "battle", asked=asked, mover=mover, unit=entry.kind.value, dest=shown(board, entry.dest))


# --- the order layer, behind one function -----------------------------------------------


def _lines(stored: dict[str, tuple[tuple[int, str], ...]]) -> dict[str, tuple[MessageLine, ...]]:
    return {p: tuple(MessageLine(n, t) for n, t in lines) for p, lines in stored.items()}


def run_message(board: Board, state: GameState, player: str, text: str,
                waiting: dict[str, tuple[tuple[int, str], ...]] | None = None) -> MessageOutcome:
    """Apply a message through the order layer and turn its result into log entries and narration.

    ``waiting`` holds the stored waiting lines of the game; those of players
    the message's answers make deciders again are resumed on the way.
    """
    split = split_orders(text)
    exchange = orders.apply_exchange(state, player, split.orders, _lines(waiting or {}), end_maneuver=True)
    entries = tuple(LogEntry(a.player, a.action, a.version) for a in exchange.applied)
    if [e.version for e in entries] != list(range(state.version, state.version + len(entries))) \
            or exchange.state.version != state.version + len(entries):
        raise OrderLayerError(f"the order layer applied {len(entries)} actions but the state moved "
                         f"from version {state.version} to {exchange.state.version}")
    result = exchange.message
    applied = _applied_lines(board, result)
    queries = _queries(result)
    refusal = _refusal(result)
    if refusal is None and not applied and not queries:
        refusal = Refusal(reason=why(Reason.NO_ORDERS).text)
    final = exchange.state
    if refusal is not None and player not in waiting_for(final) and not final.finished:
        refusal = _with_waiting(board, final, refusal)
    stored = {p: tuple((line.number, line.text) for line in lines) for p, lines in exchange.waiting.items()}
    if final.finished:
        stored = {}
    resumed = tuple(Resumed(part.player, _applied_lines(board, part), _refusal(part),
                            _stopped_at(part), _queries(part))
                    for part in exchange.resumed)
    events = tuple(event for item in exchange.applied for event in item.events)
    return MessageOutcome(final, applied, entries, refusal, queries, stored, _waiting_of(final, player, stored),
                          resumed, pending(final), events, split.ignored)


def _applied_lines(board: Board, result: MessageResult) -> tuple[AppliedLine, ...]:
    applied = []
    for item in result.applied:
        sentences = narrate(board, item.events)
        quiet = _quiet_action(board, item.nation, item.action, item.events)
        if quiet:
            sentences.insert(0, quiet)
        applied.append(AppliedLine(item.line.number, item.line.text, (item.action,), item.events, tuple(sentences),
                                   item.implicit))
    return tuple(applied)


def _queries(result: MessageResult) -> tuple[Query, ...]:
    return tuple(Query(q.line.number, q.line.text, q.query.kind.value, q.query.topic, q.query.count)
                 for q in result.queries)


def _refusal(result: MessageResult) -> Refusal | None:
    error = result.error
    if error is None:
        return None
    return Refusal(
        reason=error.reason,
        line_number=error.line_number,
        line=error.line,
        legal=error.legal,
        suggestions=error.suggestions,
        not_applied=tuple((line.number, line.text) for line in result.not_applied),
        kind=type(error).__name__,
    )


def _stopped_at(result: MessageResult) -> Waiting | None:
    """The question a part of a message stopped at, as it stood then."""
    if result.question is None:
        return None
    lines = tuple((line.number, line.text) for line in result.waiting)
    return Waiting(result.player, result.question.player, describe_question(result.state, result.question), lines)


def _waiting_of(state: GameState, player: str, stored: dict[str, tuple[tuple[int, str], ...]]) -> Waiting | None:
    """What the waiting rest of ``player``'s message waits for, if any waits."""
    if player not in stored:
        return None
    lines = stored[player]
    decisions = pending(state)
    if not decisions:  # cannot happen while the game runs: stored lines are cleared when it ends
        return Waiting(player, say(WAITING, "nobody"), say(WAITING, "game_over"), lines)
    return Waiting(player, decisions[0].player, describe_question(state, decisions[0]), lines)


def _quiet_action(board: Board, nation: str | None, action: Action, events: Sequence[Event]) -> str | None:
    """A sentence for an accepted action whose own events are silent (importing or producing nothing)."""
    who = shown(board, nation) if nation else None
    if isinstance(action, Import | Produce) and not any(isinstance(e, UnitsPlaced) for e in events):
        return say(WAITING, "imported_nothing" if isinstance(action, Import) else "produced_nothing", who=who)
    if isinstance(action, FleetMove | ArmyMove) and not events:  # held by a question to another player
        unit = "fleet" if isinstance(action, FleetMove) else "army"
        return say(WAITING, "sets_out", who=who, unit=unit, origin=shown(board, action.origin),
                   dest=shown(board, action.dest))
    if all(isinstance(e, TurnStarted | NationSkipped) for e in events):
        return say(WAITING, "unchanged", order=format_action(board, action))
    return None


def _with_waiting(board: Board, state: GameState, refusal: Refusal) -> Refusal:
    waits = tuple(describe_decision(board, d) for d in pending(state))
    return Refusal(refusal.reason, refusal.line_number, refusal.line, refusal.legal, refusal.suggestions,
                   refusal.not_applied, waits, refusal.kind)
