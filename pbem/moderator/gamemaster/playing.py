"""Orders applied inside a command's transaction (force, the deadline tick), and the move they note to tell."""
from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col

from pbem import store
from pbem.games import kind_of
from pbem.games.results import AppliedLine, MessageLine, Refusal
from pbem.moderator.apply import SubmitResult, submit_in
from pbem.moderator.deadlines import Deadline
from pbem.moderator.gamemaster.common import (
    MailContext,
    Subject,
    TickLine,
    _seat_of,
    _seats,
    _stamp,
    _when,
    later,
    notice,
    subject_words,
    teller,
    tick_words,
)
from pbem.moderator.notify.subjects import move_subject
from pbem.moderator.notify.telling import Recorded, record_move
from pbem.moderator.notify.turnmail import Words
from pbem.render.text import until_stamp
from pbem.store import GameRow
from pbem.store import waiting as waiting_store
from pbem.store.absence import ask_replace_once, stood_in
from pbem.store.masters import masters_of
from pbem.store.models import ActionRow
from pbem.store.moves import Source
from pbem.store.settings import GameSettings

log = logging.getLogger("pbem.moderator.gamemaster")

# --- orders applied inside a transaction -----------------------------------------------------------


@dataclass(frozen=True)
class PlayedLine:
    """One applied line of a forced message or of waiting lines it resumed, and who gave it."""

    player: str
    line: MessageLine
    implicit: bool
    events: tuple[Any, ...]
    narration: tuple[str, ...]


@dataclass(frozen=True)
class Played:
    """Orders applied for a player inside the caller's transaction (see :func:`play_in_session`)."""

    game: str
    player: str
    text: str
    version_before: int
    state: Any
    applied: tuple[PlayedLine, ...]  # the player's lines, then the waiting lines they resumed
    refusal: Refusal | None = None  # the refused line of the text, if one was
    resumed_refusals: tuple[tuple[str, Refusal], ...] = ()  # (player, refusal) of refused waiting lines
    waiting: Mapping[str, tuple[tuple[int, str], ...]] = field(default_factory=dict)
    events: tuple[Any, ...] = ()  # what every accepted action did, in log order
    before: Any = None  # the position the orders were given in
    result: SubmitResult | None = None  # what the order layer made of them: the mail is told from it

    @property
    def ok(self) -> bool:
        return self.refusal is None

    @property
    def version(self) -> int:
        return int(self.state.version)


def _lines(player: str, applied: Sequence[AppliedLine]) -> list[PlayedLine]:
    return [PlayedLine(player, MessageLine(a.line_number, a.line), a.implicit, a.events, a.narration)
            for a in applied]


def play_in_session(session: Session, game: GameRow, player_text: str, text: str, now: datetime,
                    state: Any = None) -> Played:
    """Apply ``text`` as the player's message in the caller's transaction, exactly as ``Moderator.submit``.

    The same order language, log, snapshot and waiting-line bookkeeping
    (``pbem.moderator.submit_in``); the new log rows are stamped ``now``.
    ``state`` is the game now, when the caller has it. Raises
    ``ConcurrentUpdate`` when another writer appended meanwhile.
    """
    before = state if state is not None else store.load_state(session, game)
    result = submit_in(session, game, player_text, text, before)
    if result.version > result.version_before:
        session.execute(update(ActionRow).where(col(ActionRow.game_id) == game.id,
                                             col(ActionRow.version) >= result.version_before).values(applied=now))
    applied = _lines(result.player, result.applied)
    for part in result.resumed:
        applied += _lines(part.player, part.applied)
    resumed = tuple((part.player, part.refusal) for part in result.resumed if part.refusal is not None)
    return Played(game.name, result.player, text, result.version_before, result.state, tuple(applied),
                  result.refusal, resumed, waiting_store.load_waiting(session, game), result.events, before, result)


def _resumed_notes(played: Played) -> dict[str, list[str | Words]]:
    notes: dict[str, list[str | Words]] = {}
    for player, error in played.resumed_refusals:
        notes.setdefault(player, []).append(later("core/move_note_waiting_refused.j2", line_number=error.line_number,
                                                  line=error.line, reason=error.reason))
    return notes


def record_play(session: Session, game: GameRow, played: Played, mail: MailContext, now: datetime, source: str,
                note: Sequence[str | Words]) -> Recorded | None:
    """Note the move of orders that came by no mail, to be told after the commit as a mailed order is
    (``pbem.moderator.notify.telling``), with ``note`` to every seat told of it; what ``MailContext.tell``
    takes, None when nothing is to be mailed."""
    if mail.identity() is None or played.result is None or played.result.version == played.version_before:
        return None
    return record_move(session, game, played.before, played.result, cause=f"{source}:{_stamp(now)}",
                       source=source, holder=teller(), now=now, note=note, private=_resumed_notes(played))


# --- used by the deadline tick ------------------------------------------------------------------------


def apply_default(session: Session, game: GameRow, state: Any, deadline: Deadline,
                  settings: GameSettings, mail: MailContext, now: datetime) -> tuple[bool, str]:
    """Apply the expired decision's passive default as its player; (applied, what was done or why not). The
    move is told after the caller's commit (``MailContext.tell``)."""
    kind = kind_of(game.kind)
    assert deadline.pending is not None
    text = kind.default_order(state, deadline.pending)
    assert text is not None
    played = play_in_session(session, game, deadline.player, text, now, state)
    if not any(a.player == deadline.player for a in played.applied):
        reason = played.refusal.reason if played.refusal is not None else tick_words(TickLine.NOTHING_APPLIED)
        return False, tick_words(TickLine.REFUSED, order=text, reason=reason)
    note = [later("core/move_note_default.j2", order=text, player=deadline.player,
                  what=kind.decision_words(state, deadline.pending), due=_when(deadline.due))]
    record_play(session, game, played, mail, now, Source.DEADLINE, note)
    return True, text


def remind(session: Session, game: GameRow, state: Any, deadline: Deadline, moment: datetime,
           settings: GameSettings, mail: MailContext, now: datetime) -> bool:
    """Queue the reminder due at ``moment`` to the deciding player; False when it was queued before.

    Its Message-ID is made of the reminder's hours and the clock's start, not
    of ``now``: a tick run twice, or by two processes, queues it once. It is
    the prompt again, the question first (issue 29: its options within the
    first 15 lines; the subject says it is a reminder), then how long is left
    and what happens without an answer.
    """
    assert deadline.pending is not None and deadline.since is not None
    composer = mail.composer(session, now, "")
    if composer is None:
        return False
    seat = _seat_of(session, game, deadline.player)
    hours = deadline.reminder_hours(moment)
    key = f"reminder:{hours:g}:{_stamp(deadline.since)}"
    kind = kind_of(game.kind)
    move = kind.shown_move(state)
    if composer.queued_before(composer.message_id(game.name, move, seat.email, key)) is not None:
        return False
    with composer.writing_to(game, seat):
        what, due = kind.decision_words(state, deadline.pending), _when(deadline.due)
        note = notice("core/notice_reminder.j2", what=what, due=due, hours=hours,
                      default=kind.default_order(state, deadline.pending))
        prompt = kind.prompt(state, deadline.player, game=game.name, deadline=deadline.due) or ""
        composer.to_seat(game, seat, purpose="reminder", key=key, version=move,
                         subject=move_subject(game.name, move, subject_words(Subject.REMINDER, what=what, due=due)),
                         body="\n".join(part for part in (prompt, note) if part), decision=deadline.kind)
    return True


def alert_addresses(session: Session, game: GameRow, mail: MailContext) -> list[str]:
    """Who hears a game's alerts: its masters (``pbem.store.masters``), else the host's ``[moderator] game_master``."""
    masters = [row.email for row in masters_of(session, game)]
    return masters or ([mail.game_master] if mail.game_master else [])


def alert_game_master(session: Session, game: GameRow, state: Any, deadline: Deadline,
                      settings: GameSettings, mail: MailContext, now: datetime) -> bool:
    """Tell the game's masters (``alert_addresses``) that a decision without a default is past its deadline;
    once per decision and address."""
    addresses = alert_addresses(session, game, mail)
    if not addresses or deadline.pending is None or deadline.since is None:
        return False
    composer = mail.composer(session, now, "")
    if composer is None:
        return False
    key = f"stalled:{deadline.kind}:{deadline.player}:{_stamp(deadline.since)}"
    addresses = [a for a in addresses
                 if composer.queued_before(composer.message_id(game.name, state.version, a, key)) is None]
    if not addresses:
        return False
    name = game.name
    kind = kind_of(game.kind)
    note = notice("core/notice_stalled.j2", game=name, player=deadline.player,
                  what=kind.decision_words(state, deadline.pending), since=_when(deadline.since),
                  due=_when(deadline.due))
    prompt = kind.prompt(state, deadline.player, game=name, deadline=deadline.due) or ""
    stalled = subject_words(Subject.STALLED, player=deadline.player, decision=deadline.kind)
    for address in addresses:
        composer.to_address(address, purpose="stalled", key=key, game=game, version=state.version,
                            subject=f"[{name}] {stalled}", body=note + prompt)
    return True


# --- the stand-in for an absent player ----------------------------------------------------------------

STAND_IN_STRATEGY = "sensible"
STAND_IN_ATTEMPTS = 3


def stand_in(session: Session, game: GameRow, state: Any, deadline: Deadline, settings: GameSettings,
             mail: MailContext, now: datetime, *, away_until: datetime | None = None,
             unreachable: bool = False) -> tuple[bool, str]:
    """The game's bot plays the expired decision for its player, as that player; (played, the orders or why not).

    Every seat's report says so (told after the caller's commit: ``MailContext.tell``); after
    ``settings.absent_limit`` decisions in a row taken this way the game master is asked, once, to replace
    the seat. ``away_until``: the player is on vacation until then (``vacation = bot``), which the note tells
    instead of the deadline; ``unreachable``: the seat's mail bounces (``pbem.moderator.inbound.bounces``).
    """
    kind = kind_of(game.kind)
    player = deadline.player
    played = _bot_plays(session, game, state, player, now)
    if played is None:
        return False, tick_words(TickLine.NO_STAND_IN)
    seat = next(s for s in _seats(session, game) if s.name == player)
    missed = stood_in(session, game, seat, range(played.version_before, played.version))
    asked = kind.decision_words(state, deadline.pending) if deadline.pending is not None else deadline.kind
    note = [later("core/move_note_stand_in.j2", player=player, what=asked, orders=played.text.replace("\n", "; "),
                  away_until=until_stamp(away_until) if away_until is not None else "", due=_when(deadline.due),
                  unreachable=unreachable)]
    record_play(session, game, played, mail, now, Source.STAND_IN, note)
    if settings.absent_limit and missed >= settings.absent_limit and ask_replace_once(session, seat):
        _ask_to_replace(session, game, state, player, missed, settings, mail, now)
    return True, played.text


def _bot_plays(session: Session, game: GameRow, state: Any, player: str, now: datetime) -> Played | None:
    """The bot's answer to the player's prompt, retried on a refusal; None when nothing was taken."""
    kind = kind_of(game.kind)
    prompt = kind.prompt(state, player, game=game.name)
    if prompt is None:
        return None
    report = kind.report(state, player, (), game=game.name)
    seed = f"{game.name}:{state.version}:{player}"
    text = kind.bot.answer(prompt, STAND_IN_STRATEGY, seed, report)
    tried: list[str] = []
    for attempt in range(1, STAND_IN_ATTEMPTS + 1):
        if not text:
            return None
        savepoint = session.begin_nested()  # a refused try leaves nothing behind
        played = play_in_session(session, game, player, text, now, state)
        if any(a.player == player for a in played.applied):
            savepoint.commit()
            return played
        savepoint.rollback()
        tried.append(text.upper())
        error = kind.error(state, player, played.refusal, game=game.name) if played.refusal else ""
        text = kind.bot.answer_refusal(error, prompt, STAND_IN_STRATEGY, seed, report, tried, attempt)
    return None


def _ask_to_replace(session: Session, game: GameRow, state: Any, player: str, missed: int,
                    settings: GameSettings, mail: MailContext, now: datetime) -> bool:
    addresses = alert_addresses(session, game, mail)
    if not addresses:
        log.warning("%s: %s missed %d decisions in a row; no game master address to tell", game.name, player, missed)
        return False
    composer = mail.composer(session, now, "")
    if composer is None:
        return False
    for address in addresses:
        composer.to_address(address, purpose="replace", key=f"replace:{player}:{_stamp(now)}", game=game,
                            version=state.version,
                            subject=f"[{game.name}] {subject_words(Subject.REPLACE, player=player, missed=missed)}",
                            body=notice("core/notice_replace_seat.j2", game=game.name, player=player, missed=missed))
    return True
