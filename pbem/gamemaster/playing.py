"""Orders applied inside a command's transaction (force, the deadline tick) and the mail they cause."""
from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import update
from sqlmodel import Session

from engine.imperial2030.board import Board
from engine.imperial2030.events import Event
from engine.imperial2030.game import LogEntry
from engine.imperial2030.model import GameState
from pbem import store
from pbem.deadlines import Deadline
from pbem.errors import StoreError
from pbem.gamemaster.common import (
    MailContext,
    _email,
    _exists,
    _headers,
    _queue,
    _queue_prompts,
    _queue_reports,
    _resolve,
    _stamp,
    _when,
)
from pbem.games.imperial2030 import orders
from pbem.games.imperial2030.orders import (
    AppliedOrder,
    MessageLine,
    OrderError,
    format_action,
    split_message,
)
from pbem.games.imperial2030.reports import render_prompt
from pbem.games.imperial2030.views import decision_words
from pbem.mail.outbound import message_id_for
from pbem.mailflow.binding import move_subject
from pbem.render.text import note_block
from pbem.store import GameRow, GameStatus
from pbem.store import waiting as waiting_store
from pbem.store.models import ActionRow
from pbem.store.settings import GameSettings

log = logging.getLogger("pbem.gamemaster")

# --- orders applied inside a transaction -----------------------------------------------------------


@dataclass(frozen=True)
class Played:
    """Orders applied for a player inside the caller's transaction (see :func:`play_in_session`)."""

    game: str
    player: str
    text: str
    version_before: int
    state: GameState
    applied: tuple[AppliedOrder, ...]  # every accepted action in log order, resumed waiting lines included
    refusal: OrderError | None = None  # the refused line of the text, if one was
    resumed_refusals: tuple[tuple[str, OrderError], ...] = ()  # (player, error) of refused waiting lines
    waiting: Mapping[str, tuple[tuple[int, str], ...]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.refusal is None

    @property
    def version(self) -> int:
        return self.state.version

    @property
    def events(self) -> tuple[Event, ...]:
        return tuple(e for a in self.applied for e in a.events)


def play_in_session(session: Session, game: GameRow, board: Board, player_text: str, text: str,
                    now: datetime) -> Played:
    """Apply ``text`` as the player's message in the caller's transaction, like ``Moderator.submit``.

    The same order layer (``orders.apply_exchange`` with the game's waiting
    lines and the implicit end of a maneuver message), the same log, snapshot
    and waiting-line bookkeeping; the new log rows are stamped ``now``.
    Raises ``ConcurrentUpdate`` when another writer appended meanwhile.
    """
    state = store.load_state(session, game, board)
    player = _resolve(state.seating, player_text, game.name)
    waiting = waiting_store.load_waiting(session, game)
    held = {p: tuple(MessageLine(n, t) for n, t in lines) for p, lines in waiting.items()}
    exchange = orders.apply_exchange(state, player, split_message(text), held, end_maneuver=True)
    entries = tuple(LogEntry(a.player, a.action, a.version) for a in exchange.applied)
    if [e.version for e in entries] != list(range(state.version, state.version + len(entries))) \
            or exchange.state.version != state.version + len(entries):
        raise StoreError(f"the order layer applied {len(entries)} actions but the state moved "
                         f"from version {state.version} to {exchange.state.version}")
    final = exchange.state
    if entries:
        store.append_actions(session, game, entries)
        session.exec(update(ActionRow).where(ActionRow.game_id == game.id,  # type: ignore[call-overload]
                                             ActionRow.version >= state.version).values(applied=now))
        store.save_snapshot(session, game, final)
        if final.finished:
            store.set_status(session, game, GameStatus.FINISHED)
    stored = {p: tuple((line.number, line.text) for line in lines) for p, lines in exchange.waiting.items()}
    if final.finished:
        stored = {}
    if stored != waiting:
        waiting_store.save_waiting(session, game, stored, final.version)
    refusal = exchange.message.error
    if refusal is None and not entries and not exchange.message.queries:
        refusal = OrderError("The message holds no orders.")
    resumed = tuple((part.player, part.error) for part in exchange.resumed if part.error is not None)
    return Played(game.name, player, text, state.version, final, exchange.applied, refusal, resumed, stored)


def _resumed_notes(played: Played) -> dict[str, list[str]]:
    notes: dict[str, list[str]] = {}
    for player, error in played.resumed_refusals:
        where = f"line {error.line_number} ({error.line})" if error.line_number is not None else "a line"
        notes.setdefault(player, []).append(
            f"Your orders that waited for an answer went on; {where} was refused: {error.reason} "
            "The lines after it were not applied; please send your next orders.")
    return notes


def _mail_after_play(session: Session, game: GameRow, played: Played, settings: GameSettings, mail: MailContext,
                     now: datetime, tag: str, note: Sequence[str]) -> int:
    """Reports to every seat and prompts to the deciders after orders were applied; the number queued."""
    count = _queue_reports(session, game, played.state, played.events, settings, mail, now, tag, "report",
                           "Note from the moderator", note, _resumed_notes(played))
    count += _queue_prompts(session, game, played.state, settings, mail, now, now, tag)
    return count


# --- used by the deadline tick ------------------------------------------------------------------------


def apply_default(session: Session, game: GameRow, board: Board, state: GameState, deadline: Deadline,
                  settings: GameSettings, mail: MailContext, now: datetime) -> tuple[bool, str]:
    """Apply the expired decision's passive default as its player; (applied, what was done or why not)."""
    assert deadline.decision is not None and deadline.decision.default is not None
    text = format_action(board, deadline.decision.default)
    played = play_in_session(session, game, board, deadline.player, text, now)
    if not any(a.player == deadline.player for a in played.applied):
        reason = played.refusal.reason if played.refusal is not None else "nothing was applied"
        return False, f"{text} was refused: {reason}"
    note = [f"No answer by the deadline: {text}. {deadline.player} was asked to "
            f"{decision_words(state, deadline.decision)} by {_when(deadline.due)}; the game took the "
            "default answer."]
    _mail_after_play(session, game, played, settings, mail, now, "deadline", note)
    return True, text


def remind(session: Session, game: GameRow, state: GameState, deadline: Deadline, moment: datetime,
           settings: GameSettings, mail: MailContext, now: datetime) -> bool:
    """Queue the reminder due at ``moment`` to the deciding player; False when it was queued before."""
    assert deadline.decision is not None and deadline.since is not None
    email = _email(session, game, deadline.player)
    hours = deadline.reminder_hours(moment)
    key = f"reminder:{hours:g}:{_stamp(deadline.since)}"
    if _exists(session, message_id_for(game.name, state.version, email, key, domain=mail.domain)):
        return False
    words = decision_words(state, deadline.decision)
    then = (f"Without an answer by then, the game takes: {format_action(state.board, deadline.decision.default)}."
            if deadline.decision.default is not None
            else "Without an answer by then, the game master is asked to step in.")
    note = [f"Reminder: the game waits for you to {words}. Please answer by {_when(deadline.due)} "
            f"(about {hours:g} hours from this reminder). {then}"]
    prompt = render_prompt(state, deadline.player, game=game.name, deadline=deadline.due) or ""
    return _queue(session, game, state.version, email, "reminder", key,
                  move_subject(game.name, state.version, f"reminder: please {words} by {_when(deadline.due)}"),
                  note_block("Reminder", note) + prompt,
                  _headers(game, settings, mail, deadline.kind), mail, now)


def alert_game_master(session: Session, game: GameRow, state: GameState, deadline: Deadline,
                      settings: GameSettings, mail: MailContext, now: datetime) -> bool:
    """Tell the game master that a decision without a default is past its deadline; once per decision."""
    if not mail.game_master or deadline.decision is None or deadline.since is None:
        return False
    key = f"stalled:{deadline.kind}:{deadline.player}:{_stamp(deadline.since)}"
    if _exists(session, message_id_for(game.name, state.version, mail.game_master, key, domain=mail.domain)):
        return False
    name = game.name
    words = decision_words(state, deadline.decision)
    note = [
        f"Game {name}: {deadline.player} was asked to {words} (pending since {_when(deadline.since)}); the "
        f"deadline passed on {_when(deadline.due)}. This decision has no default answer, so the game waits.",
        f"To go on: pbem force {name} --as {deadline.player} \"...\" (orders for the player), "
        f"pbem resend {name} --to {deadline.player} (the prompt again), pbem replace {name} "
        f"{deadline.player} NEW --email ADDRESS (a new player), or pbem pause {name}.",
        f"What {deadline.player} is asked follows.",
    ]
    prompt = render_prompt(state, deadline.player, game=name, deadline=deadline.due) or ""
    return _queue(session, game, state.version, mail.game_master, "stalled", key,
                  f"[{name}] Stalled: {deadline.player} is past the deadline ({deadline.kind})",
                  note_block("For the game master", note) + prompt, _headers(game, settings, mail), mail, now)
