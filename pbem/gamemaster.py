"""The game master's tools: look at a game, order for a player, undo, replace a player, pause, resend.

Every command is one database transaction that changes the game and queues
every mail it causes in the outbox (ARCHITECTURE: nothing is sent inside a
transaction; the outbox sender delivers committed mail). The deadline tick
(``pbem.deadlines``) uses the same machinery to apply a passive default.

    game_show(db, name)                      GameView: seats, status, whose turn, deadlines, log, outbox
    force(db, name, player, text)            orders for a player, as if mailed; reports say so
    undo(db, name)                           roll back the last logged action and tell everyone
    replace(db, name, old, new, email)       a new player takes a seat
    pause(db, name) / resume(db, name)       stop / restart the game (orders refused, deadlines frozen)
    resend(db, name, player=None)            the current report (and prompt) again
    refuse_if_paused(session, game)          for the mail pipeline: raises GamePaused

Decisions:

- **force** applies the text through the order layer exactly like a player's
  mail (waiting lines resume, the end of a maneuver message ends the maneuver),
  also in a paused game (the game master may repair a paused game). The log
  has no column for who typed an order, so the entry is the player's; the
  reports to every seat say "The game master gave these orders for ann: …".
- **undo** deletes the last log row (one action, not one message) and every
  snapshot made after it, re-saves the snapshot of the replayed log, drops
  waiting lines that began after it or no longer wait for anything, reopens a
  finished game, and mails every seat what was undone (narrated as the
  reader may see it) with the position now; deciders get a fresh prompt.
  The undo notice restarts the deadline clock (pbem.deadlines.CLOCK_PURPOSES).
- **replace** renames the player in the setup JSON, the seats table, every
  log row and the waiting lines, then replays the log (seating and deal do not
  depend on names, so the game is the same game) and re-saves the snapshot.
  Token: a new one is issued when the e-mail address changes (the player who
  left must not keep playing the seat); a pure rename at the same address
  keeps it. The new player gets the welcome mail with the token (Reply-To
  with it when the moderator address is known, and a ``TOKEN …`` line in the
  body); every seat and the old address are told. Restarts the clock.
- **pause** sets ``settings.paused``: the mail pipeline refuses orders
  (``refuse_if_paused``), the tick skips the game. **resume** clears it and
  restarts the clock: every pending decision gets its full deadline again,
  counted from the resume (the resume notice in the outbox is the new start).
- **resend** renders the current report (the events of the last message, as
  ``pbem report`` does) and the prompt for a deciding player anew, under a
  "sent again" line, with new Message-IDs (outbox purpose ``resend``).

Message-IDs: ``pbem.mail.outbound.message_id_for(game, version, recipient,
purpose)``; the purpose carries a time stamp (the clock start for reminders
and alerts, the moment of the command otherwise), because ``undo`` makes
versions be played again: a mail about the new version N must not be taken
for the old one.
"""
from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace as dc_replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, func, update
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlmodel import Session, select

from engine.board import Board, default_board
from engine.decisions import pending
from engine.errors import EngineError
from engine.events import Event
from engine.game import LogEntry, apply, replay
from engine.model import GameSetup, GameState, Seat
from engine.serialize import entry_from_json, setup_to_json
from engine.setup import new_game
from pbem import orders, store
from pbem.deadlines import Deadline, deadlines, decision_since, utc
from pbem.errors import BadSetup, ConcurrentUpdate, PbemError, StoreError, UnknownPlayer
from pbem.mail.errors import OutboundError
from pbem.mail.outbound import domain_of, list_id_for, message_id_for, token_address
from pbem.mailflow.binding import move_subject
from pbem.mailflow.outgoing import prompt_subject, seat_token
from pbem.moderator import EMAIL, PLAYER_NAME  # the same rules as for a new game
from pbem.narrate import narrate
from pbem.orders import AppliedOrder, MessageLine, OrderError, format_action, split_message
from pbem.render import render_prompt, render_report, render_welcome
from pbem.render.text import note_block, wrap
from pbem.render.views import decision_words, turn_line
from pbem.store import GameRow, GameStatus, SeatRow
from pbem.store import waiting as waiting_store
from pbem.store.models import ActionRow, SnapshotRow
from pbem.store.outbox import OutboxRow, QueuedMail, queue_mail
from pbem.store.settings import GameSettings, load_settings, save_settings
from pbem.store.tokens import SeatTokenRow, issue_token

if TYPE_CHECKING:
    from pbem.store import Database

log = logging.getLogger("pbem.gamemaster")

DEFAULT_MAIL_DOMAIN = "pbem.invalid"  # Message-IDs when no moderator address is configured
RECENT_ACTIONS = 10
RETRIES = 5


class GameMasterError(PbemError):
    """A game-master command that cannot be done as asked."""


class NothingToUndo(GameMasterError):
    """The game's log is empty."""


class GamePaused(GameMasterError):
    """The game is paused: no orders are taken."""


# --- mail settings ---------------------------------------------------------------------------


@dataclass(frozen=True)
class MailContext:
    """What the mails need beyond the game: the Message-ID domain, our address, the game master's address."""

    domain: str = DEFAULT_MAIL_DOMAIN
    moderator_address: str | None = None
    game_master: str | None = None

    @classmethod
    def make(cls, *, mail_domain: str | None = None, moderator_address: str | None = None,
             game_master: str | None = None) -> MailContext:
        """The domain is ``mail_domain``, else that of ``moderator_address``, else ``pbem.invalid``."""
        try:
            domain = mail_domain or (domain_of(moderator_address) if moderator_address else DEFAULT_MAIL_DOMAIN)
        except OutboundError as exc:
            raise GameMasterError(str(exc)) from None
        return cls(domain, moderator_address or None, game_master or None)

    @classmethod
    def from_config(cls, config: Any) -> MailContext:
        """From the ``[moderator]`` section of a ``pbem.config.Config``: ``address``, ``game_master``."""
        moderator = getattr(config, "moderator", None)
        if moderator is not None:
            address, master = moderator.address, getattr(moderator, "game_master", None)
        else:
            section = config.section("moderator") if hasattr(config, "section") else {}
            address, master = section.get("address"), section.get("game_master")
        for key, value in (("address", address), ("game_master", master)):
            if value is not None and (not isinstance(value, str) or "@" not in value):
                raise GameMasterError(f"[moderator] {key} must be an e-mail address, not {value!r}")
        return cls.make(moderator_address=address, game_master=master)


def _stamp(moment: datetime) -> str:
    return utc(moment).strftime("%Y%m%dT%H%M%S.%f")


def _when(moment: datetime) -> str:
    return utc(moment).strftime("%A %Y-%m-%d %H:%M UTC")


# --- transactions ------------------------------------------------------------------------------


@contextmanager
def _transaction(db: Database) -> Iterator[Session]:
    """``Database.transaction`` with database errors told as ``StoreError`` / ``ConcurrentUpdate``."""
    try:
        with db.transaction() as session:
            yield session
    except OperationalError as exc:
        if "locked" in str(exc.orig).lower():
            raise ConcurrentUpdate(f"the database is busy ({exc.orig}); nothing was written") from None
        raise StoreError(f"database error in {db.display_url}: {exc.orig or exc}") from None
    except SQLAlchemyError as exc:
        raise StoreError(f"database error in {db.display_url}: {getattr(exc, 'orig', None) or exc}") from None


def _retrying(call):  # type: ignore[no-untyped-def]
    for attempt in range(RETRIES + 1):
        try:
            return call()
        except ConcurrentUpdate:
            if attempt == RETRIES:
                raise
    raise AssertionError("unreachable")


def _locked_game(session: Session, name: str) -> GameRow:
    """The game's row, locked for this transaction on PostgreSQL (SQLite locks the whole file on write)."""
    game = session.exec(select(GameRow).where(GameRow.name == name).with_for_update()).first()
    return game if game is not None else store.find_game(session, name)  # the helpful "no game named" error


def _seats(session: Session, game: GameRow) -> list[SeatRow]:
    return store.seats(session, game)


def _email(session: Session, game: GameRow, player: str) -> str:
    for seat in _seats(session, game):
        if seat.name == player:
            return seat.email
    raise UnknownPlayer(f"{player!r} has no seat in game {game.name!r}")


def _resolve(names: Sequence[str], text: str, game: str) -> str:
    for name in names:
        if name == text:
            return name
    matches = [n for n in names if n.casefold() == text.strip().casefold()]
    if len(matches) == 1:
        return matches[0]
    raise UnknownPlayer(f"{text!r} is not a player of game {game!r}; players: {', '.join(names)}")


# --- queueing mail --------------------------------------------------------------------------------


def _headers(game: GameRow, settings: GameSettings, mail: MailContext, decision: str | None = None,
             reply_to: str | None = None) -> dict[str, Any]:
    """Header values for the outbox sender (threading, List-Id, X-PBEM-Decision, Reply-To)."""
    headers: dict[str, Any] = {"list_id": list_id_for(game.name, domain=mail.domain)}
    if settings.thread_root:
        headers["in_reply_to"] = settings.thread_root
        headers["references"] = [settings.thread_root]
    if decision:
        headers["decision"] = decision
    if reply_to:
        headers["reply_to"] = reply_to
    return headers


def _exists(session: Session, message_id: str) -> bool:
    return session.exec(select(OutboxRow.id).where(OutboxRow.message_id == message_id)).first() is not None


def _queue(session: Session, game: GameRow, version: int, recipient: str, purpose: str, key: str,
           subject: str, body: str, headers: dict[str, Any], mail: MailContext, now: datetime) -> bool:
    """Queue one mail unless one with its Message-ID is queued already; True when queued now.

    ``purpose`` is stored (short: report, prompt, reminder …); ``key`` is what
    makes the Message-ID (purpose plus a time stamp). ``created`` is ``now``,
    the command's clock, which the deadline clock reads (CLOCK_PURPOSES).
    """
    if mail.moderator_address is None:
        return False  # no mail configured: the command's work stands, nothing is queued (see MailContext)
    message_id = message_id_for(game.name, version, recipient, key, domain=mail.domain)
    if _exists(session, message_id):
        return False
    headers = _with_reply_to(session, game, recipient, headers, mail.moderator_address)
    row = queue_mail(session, QueuedMail(recipient=recipient, purpose=purpose, message_id=message_id,
                                         subject=subject, body=body, game_id=game.id, version=version,
                                         headers=headers))
    row.created = now
    session.add(row)
    session.flush()
    return True


def _with_reply_to(session: Session, game: GameRow, recipient: str, headers: dict[str, Any],
                   moderator_address: str) -> dict[str, Any]:
    """A mail to a seat carries the seat's token address, as every mail to a player does: Reply just works."""
    if headers.get("reply_to"):
        return headers
    seat = next((s for s in _seats(session, game) if s.email.strip().lower() == recipient.strip().lower()), None)
    if seat is None:  # the game master, a player who left
        return headers
    return {**headers, "reply_to": token_address(moderator_address, seat_token(session, seat, moderator_address))}


def _restart_clock(session: Session, game: GameRow, settings: GameSettings, moment: datetime) -> GameSettings:
    """Deadlines count from ``moment`` (undo, replace, resume; read by ``pbem.deadlines.decision_since``)."""
    settings = dc_replace(settings, clock_reset=moment)
    save_settings(session, game, settings)
    return settings


def _deciders(state: GameState) -> list[str]:
    seen: list[str] = []
    for decision in pending(state):
        if decision.player not in seen:
            seen.append(decision.player)
    return seen


def _due_by_player(state: GameState, settings: GameSettings, since: datetime) -> dict[str, datetime]:
    return {d.player: d.due for d in deadlines(state, settings, since)}


def _queue_prompts(session: Session, game: GameRow, state: GameState, settings: GameSettings, mail: MailContext,
                   now: datetime, since: datetime, tag: str, note: Sequence[str] = (),
                   subject_suffix: str = "", only: str | None = None, purpose: str = "prompt") -> int:
    """A prompt to every deciding player (with the deadline counted from ``since``); the number queued."""
    dues = _due_by_player(state, settings, since)
    count = 0
    for player in _deciders(state):
        if only is not None and player != only:
            continue
        prompt = render_prompt(state, player, game=game.name, deadline=dues.get(player))
        if prompt is None:
            continue
        decision = next(d for d in pending(state) if d.player == player)
        body = (note_block("Note from the moderator", note) if note else "") + prompt
        subject = prompt_subject(game.name, state, decision, subject_suffix)
        if _queue(session, game, state.version, _email(session, game, player), purpose,
                  f"prompt:{tag}:{_stamp(now)}", subject, body,
                  _headers(game, settings, mail, decision.kind.value), mail, now):
            count += 1
    return count


def _queue_reports(session: Session, game: GameRow, state: GameState, events: Sequence[Event],
                   settings: GameSettings, mail: MailContext, now: datetime, tag: str, purpose: str,
                   title: str, note: Sequence[str], private: Mapping[str, Sequence[str]] | None = None,
                   subject: str | None = None, only: str | None = None) -> int:
    """The report to every seat (or ``only`` one), under a note; the number queued."""
    count = 0
    for seat in _seats(session, game):
        if only is not None and seat.name != only:
            continue
        paragraphs = list(note) + list((private or {}).get(seat.name, ()))
        body = (note_block(title, paragraphs) if paragraphs else "") + render_report(
            state, seat.name, events, game=game.name, open_cash=settings.open_cash)
        if _queue(session, game, state.version, seat.email, purpose, f"report:{tag}:{_stamp(now)}",
                  subject or move_subject(game.name, state.version, "report"), body,
                  _headers(game, settings, mail), mail, now):
            count += 1
    return count


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


# --- game show ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatView:
    seat: int  # 1-based, clockwise
    name: str
    email: str
    governs: tuple[str, ...]  # nation names
    token: bool  # a reply token was issued


@dataclass(frozen=True)
class PendingView:
    player: str
    nation: str | None  # nation name
    kind: str
    what: str  # 'choose a rondel space for Russia'
    out_of_turn: bool
    default: str | None  # the order taken on expiry; None: the game master is alerted
    since: datetime
    due: datetime | None
    reminders: tuple[datetime, ...]


@dataclass(frozen=True)
class LoggedAction:
    version: int  # made against this version: it is move version + 1
    player: str
    order: str
    applied: datetime


@dataclass(frozen=True)
class GameView:
    name: str
    status: str
    paused: bool
    version: int
    created: datetime
    turn: str  # 'Round 2: Russia's turn (ann), choosing a rondel space.'
    seats: tuple[SeatView, ...]
    pending: tuple[PendingView, ...]
    waiting: Mapping[str, tuple[tuple[int, str], ...]]
    recent: tuple[LoggedAction, ...]  # the last actions, newest first
    outbox: Mapping[str, int]  # status -> number of mails
    settings: GameSettings


def game_show(db: Database, name: str, *, board: Board | None = None) -> GameView:
    """Everything the game master wants to see about one game, read in one transaction."""
    board = board or default_board()
    with _transaction(db) as session:
        game = store.find_game(session, name)
        state = store.load_state(session, game, board)
        settings = load_settings(session, game)
        since = decision_since(session, game)
        seats = _seats(session, game)
        tokens = set(session.exec(select(SeatTokenRow.seat_id).where(
            SeatTokenRow.seat_id.in_([s.id for s in seats]))).all())  # type: ignore[attr-defined]
        waiting = waiting_store.load_waiting(session, game)
        rows = session.exec(select(ActionRow).where(ActionRow.game_id == game.id)
                            .order_by(ActionRow.version.desc()).limit(RECENT_ACTIONS)).all()  # type: ignore[attr-defined]
        recent = []
        for row in rows:
            entry = entry_from_json({"player": row.player, "version": row.version, "action": row.action})
            recent.append(LoggedAction(row.version, row.player, format_action(board, entry.action), utc(row.applied)))
        counts = dict(session.exec(select(OutboxRow.status, func.count(OutboxRow.id))
                                   .where(OutboxRow.game_id == game.id).group_by(OutboxRow.status)).all())
        status, created = game.status, utc(game.created)
    dues = {(d.player, d.kind): d for d in deadlines(state, settings, since)}
    views = []
    for decision in pending(state):
        d = dues.get((decision.player, decision.kind.value))
        views.append(PendingView(
            decision.player, board.name(decision.nation) if decision.nation else None, decision.kind.value,
            decision_words(state, decision), decision.out_of_turn,
            format_action(board, decision.default) if decision.default is not None else None,
            since, d.due if d else None, tuple(d.reminders) if d else ()))
    seat_views = tuple(SeatView(s.seat + 1, s.name, s.email,
                                tuple(board.name(n) for n in state.governed_by(s.name)), s.id in tokens)
                       for s in seats)
    return GameView(name, status, settings.paused, state.version, created, turn_line(state), seat_views,
                    tuple(views), waiting, tuple(recent), counts, settings)


# --- force -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Forced:
    played: Played
    mailed: int


def force(db: Database, name: str, player: str, text: str, *, mail: MailContext | None = None,
          now: datetime | None = None, board: Board | None = None) -> Forced:
    """Apply ``text`` as ``player``'s orders (see the module docstring); reports tell the game master gave them.

    Like a mailed message, the lines before a refused one stand; the refusal is
    in ``played.refusal``. Nothing is mailed when nothing was applied.
    """
    mail = mail or MailContext()
    board = board or default_board()
    moment = utc(now or datetime.now(UTC))

    def once() -> Forced:
        with _transaction(db) as session:
            game = store.find_game(session, name)
            played = play_in_session(session, game, board, player, text, moment)
            if not played.applied:
                return Forced(played, 0)
            settings = load_settings(session, game)
            lines = [a.line.text for a in played.applied if a.player == played.player and not a.implicit]
            note = [f"The game master gave these orders for {played.player}: " + "; ".join(lines) + "."]
            return Forced(played, _mail_after_play(session, game, played, settings, mail, moment, "force", note))

    return _retrying(once)  # type: ignore[no-any-return]


# --- undo --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Undone:
    game: str
    entry: LogEntry  # the action taken back
    order: str  # its canonical text
    state: GameState  # the position now
    dropped: Mapping[str, tuple[tuple[int, str], ...]]  # waiting lines dropped with it
    mailed: int

    @property
    def version(self) -> int:
        return self.state.version


def undo(db: Database, name: str, *, mail: MailContext | None = None, now: datetime | None = None,
         board: Board | None = None) -> Undone:
    """Take back the last logged action (see the module docstring); ``NothingToUndo`` for an empty log."""
    mail = mail or MailContext()
    board = board or default_board()
    moment = utc(now or datetime.now(UTC))
    with _transaction(db) as session:
        game = _locked_game(session, name)
        log_entries = store.load_log(session, game)
        if not log_entries:
            raise NothingToUndo(f"game {name!r} has no moves to undo")
        last = log_entries[-1]
        try:
            state = replay(board, store.game_setup(game), log_entries[:-1])
            _, events = apply(state, last.player, last.action)
        except EngineError as exc:
            raise StoreError(f"game {name!r}: the log does not replay: {exc}") from None
        session.exec(delete(ActionRow).where(ActionRow.game_id == game.id,  # type: ignore[call-overload]
                                             ActionRow.version == last.version))
        session.exec(delete(SnapshotRow).where(SnapshotRow.game_id == game.id,  # type: ignore[call-overload]
                                               SnapshotRow.version > last.version))
        session.flush()
        if store.log_length(session, game) != last.version:
            raise ConcurrentUpdate(f"game {name!r} changed meanwhile; nothing was undone")
        store.save_snapshot(session, game, state)
        store.set_status(session, game, GameStatus.FINISHED if state.finished else GameStatus.ACTIVE)
        waiting = waiting_store.load_waiting(session, game)
        since_rows = dict(session.exec(select(waiting_store.WaitingRow.player, waiting_store.WaitingRow.since)
                                       .where(waiting_store.WaitingRow.game_id == game.id)).all())
        kept = {p: lines for p, lines in waiting.items()
                if since_rows.get(p, 0) <= state.version and orders.held(state, p)}
        dropped = {p: lines for p, lines in waiting.items() if p not in kept}
        if dropped:
            waiting_store.save_waiting(session, game, kept, state.version)
        settings = _restart_clock(session, game, load_settings(session, game), moment)
        order = format_action(board, last.action)
        count = 0
        for seat in _seats(session, game):
            paragraphs = [f"The game master has undone move {last.version + 1}: {last.player}'s {order}. "
                          f"The game stands again as after move {state.version}."]
            told = narrate(board, events, viewer=seat.name)
            if told:
                paragraphs.append("Taken back: " + " ".join(told))
            if seat.name in dropped:
                paragraphs.append("Your orders that waited for an answer were dropped with it; please send "
                                  "them again if they still apply.")
            if _deciders(state):
                paragraphs.append("Deadlines count from now.")
            body = note_block("Move undone", paragraphs) + render_report(
                state, seat.name, (), game=name, open_cash=settings.open_cash)
            if _queue(session, game, state.version, seat.email, "undo", f"undo:{_stamp(moment)}",
                      move_subject(name, state.version, f"move {last.version + 1} taken back by the game master"), body,
                      _headers(game, settings, mail), mail, moment):
                count += 1
        count += _queue_prompts(session, game, state, settings, mail, moment, moment, "undo")
        log.info("%s: undid move %d (%s: %s)", name, last.version + 1, last.player, order)
        return Undone(name, last, order, state, dropped, count)


# --- replace -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Replaced:
    game: str
    old: str
    new: str
    email: str
    seat: int  # 1-based
    token: str | None  # the new seat token, when one was issued (it exists nowhere else)
    state: GameState
    mailed: int


def _renamed_setup(setup: GameSetup, old: str, new: str, email: str) -> GameSetup:
    def rename(player: str | None) -> str | None:
        return new if player == old else player

    return GameSetup(
        players=tuple(Seat(new, email) if s.name == old else s for s in setup.players),
        seed=setup.seed,
        variants=setup.variants,
        deal=tuple((n, rename(p)) for n, p in setup.deal),  # type: ignore[misc]
        start_player=rename(setup.start_player),
    )


def replace(db: Database, name: str, old: str, new_name: str, new_email: str, *,
            mail: MailContext | None = None, now: datetime | None = None, board: Board | None = None) -> Replaced:
    """A new player takes ``old``'s seat (see the module docstring for the token and what is renamed)."""
    mail = mail or MailContext()
    board = board or default_board()
    moment = utc(now or datetime.now(UTC))
    new_name, new_email = new_name.strip(), new_email.strip()
    if not PLAYER_NAME.match(new_name):
        raise BadSetup(f"bad player name {new_name!r}: use letters, digits, '.', '_' or '-' "
                       "(at most 32, starting with a letter)")
    if not EMAIL.match(new_email):
        raise BadSetup(f"bad email address {new_email!r} for player {new_name}")
    with _transaction(db) as session:
        game = _locked_game(session, name)
        seats = _seats(session, game)
        old_name = _resolve([s.name for s in seats], old, name)
        seat = next(s for s in seats if s.name == old_name)
        old_email = seat.email
        for other in seats:
            if other is seat:
                continue
            if other.name.casefold() == new_name.casefold():
                raise BadSetup(f"{new_name!r} is already a player of game {name!r}")
            if other.email.strip().lower() == new_email.lower():
                raise BadSetup(f"{new_email} is the address of {other.name}; each player needs an own address")
        if new_name == old_name and new_email == old_email:
            raise BadSetup(f"{old_name} <{old_email}> already holds that seat: nothing to change")
        setup = _renamed_setup(store.game_setup(game), old_name, new_name, new_email)
        game.setup = setup_to_json(setup)
        session.add(game)
        seat.name, seat.email = new_name, new_email
        session.add(seat)
        session.exec(update(ActionRow).where(ActionRow.game_id == game.id,  # type: ignore[call-overload]
                                             ActionRow.player == old_name).values(player=new_name))
        session.exec(update(waiting_store.WaitingRow)  # type: ignore[call-overload]
                     .where(waiting_store.WaitingRow.game_id == game.id,
                            waiting_store.WaitingRow.player == old_name).values(player=new_name))
        session.exec(delete(SnapshotRow).where(SnapshotRow.game_id == game.id))  # type: ignore[call-overload]
        session.flush()
        state = store.replay_game(session, game, board)
        store.save_snapshot(session, game, state)
        token = issue_token(session, seat) if new_email.lower() != old_email.strip().lower() else None
        settings = _restart_clock(session, game, load_settings(session, game), moment)
        count = _mail_replacement(session, game, state, settings, mail, moment, seat, old_name, old_email, token)
        log.info("%s: %s <%s> takes over seat %d from %s", name, new_name, new_email, seat.seat + 1, old_name)
        return Replaced(name, old_name, new_name, new_email, seat.seat + 1, token, state, count)


def _mail_replacement(session: Session, game: GameRow, state: GameState, settings: GameSettings,
                      mail: MailContext, now: datetime, seat: SeatRow, old: str, old_email: str,
                      token: str | None) -> int:
    name, new = game.name, seat.name
    governs = [state.board.name(n) for n in state.governed_by(new)]
    what = f"{new} takes over seat {seat.seat + 1} from {old}" + (
        f", with the government of {', '.join(governs)}" if governs else "") + "."
    later = "Deadlines of the pending decisions count from now." if _deciders(state) else ""
    count = 0
    key = f"replace:{_stamp(now)}"
    reply_to = token_address(mail.moderator_address, token) if token and mail.moderator_address else None
    paragraphs = [f"Welcome to game {name}: you take over seat {seat.seat + 1} from {old}, as it stands now."]
    if token:
        paragraphs.append(f"Your secret reply token is {token}. Replies to the moderator's mails carry it; "
                          f"if a reply of yours does not, add this line to it: TOKEN {token}")
    body = note_block("A seat for you", paragraphs) + render_welcome(
        state, new, game=name, reply_to=reply_to, open_cash=settings.open_cash)
    if _queue(session, game, state.version, seat.email, "replace", key, f"[{name}] Welcome, {new}", body,
              _headers(game, settings, mail, reply_to=reply_to), mail, now):
        count += 1
    for other in _seats(session, game):
        if other.id == seat.id:
            continue
        body = note_block("New player", [f"The game master has given {old}'s seat to another player: {what}",
                                         later]) + render_report(state, other.name, (), game=name,
                                                                 open_cash=settings.open_cash)
        if _queue(session, game, state.version, other.email, "replace", key,
                  f"[{name}] {new} takes over from {old}", body, _headers(game, settings, mail), mail, now):
            count += 1
    if old_email.strip().lower() != seat.email.lower():
        body = note_block("You have left the game", [
            f"The game master has given your seat in game {name} to another player: {what} Your orders are "
            "no longer taken. Thank you for playing."])
        if _queue(session, game, state.version, old_email, "replace", key, f"[{name}] {new} takes over your seat",
                  body, _headers(game, settings, mail), mail, now):
            count += 1
    count += _queue_prompts(session, game, state, settings, mail, now, now, "replace")
    return count


# --- pause and resume --------------------------------------------------------------------------------


@dataclass(frozen=True)
class PauseChange:
    game: str
    paused: bool
    deadlines: tuple[Deadline, ...]  # after a resume: the new deadlines
    mailed: int


def refuse_if_paused(session: Session, game: GameRow) -> None:
    """For the mail pipeline: raise ``GamePaused`` when the game takes no orders now."""
    if load_settings(session, game).paused:
        raise GamePaused(f"game {game.name!r} is paused by the game master: no orders are taken until it is "
                         "resumed")


def is_paused(db: Database, name: str) -> bool:
    with _transaction(db) as session:
        return load_settings(session, store.find_game(session, name)).paused


def pause(db: Database, name: str, *, mail: MailContext | None = None, now: datetime | None = None) -> PauseChange:
    """Pause the game: orders are refused, deadlines stand still; every seat is told."""
    mail = mail or MailContext()
    moment = utc(now or datetime.now(UTC))
    with _transaction(db) as session:
        game = _locked_game(session, name)
        settings = load_settings(session, game)
        if settings.paused:
            raise GameMasterError(f"game {name!r} is paused already")
        if game.status != GameStatus.ACTIVE:
            raise GameMasterError(f"game {name!r} is {game.status}: there is nothing to pause")
        settings = dc_replace(settings, paused=True)
        save_settings(session, game, settings)
        version = store.log_length(session, game)
        count = 0
        for seat in _seats(session, game):
            body = note_block("Game paused", [
                f"The game master has paused game {name}. Orders are not taken and deadlines stand still "
                "until the game is resumed; you will get a mail then."])
            if _queue(session, game, version, seat.email, "pause", f"pause:{_stamp(moment)}",
                      move_subject(name, version, "game paused"), body, _headers(game, settings, mail), mail,
                      moment):
                count += 1
        return PauseChange(name, True, (), count)


def resume(db: Database, name: str, *, mail: MailContext | None = None, now: datetime | None = None,
           board: Board | None = None) -> PauseChange:
    """Resume a paused game: deadlines count from now (the resume notice restarts the clock)."""
    mail = mail or MailContext()
    board = board or default_board()
    moment = utc(now or datetime.now(UTC))
    with _transaction(db) as session:
        game = _locked_game(session, name)
        settings = load_settings(session, game)
        if not settings.paused:
            raise GameMasterError(f"game {name!r} is not paused")
        settings = _restart_clock(session, game, dc_replace(settings, paused=False), moment)
        state = store.load_state(session, game, board)
        dues = tuple(deadlines(state, settings, moment))
        lines = [f"{d.player}: {decision_words(state, d.decision)}, by {_when(d.due)}"  # type: ignore[arg-type]
                 for d in dues]
        count = 0
        for seat in _seats(session, game):
            paragraphs = [f"The game master has resumed game {name}: orders are taken again."]
            if lines:
                paragraphs.append("Deadlines count from now: " + "; ".join(lines) + ".")
            body = note_block("Game resumed", paragraphs) + render_report(
                state, seat.name, (), game=name, open_cash=settings.open_cash)
            if _queue(session, game, state.version, seat.email, "resume", f"resume:{_stamp(moment)}",
                      move_subject(name, state.version, "game resumed"), body, _headers(game, settings, mail), mail, moment):
                count += 1
        count += _queue_prompts(session, game, state, settings, mail, moment, moment, "resume")
        return PauseChange(name, False, dues, count)


# --- resend --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Resent:
    game: str
    version: int
    mails: tuple[tuple[str, str], ...]  # (player, purpose) of every mail queued


def _last_message_events(board: Board, setup: GameSetup, entries: Sequence[LogEntry]) -> tuple[GameState,
                                                                                                 list[Event]]:
    """The state, and the events of the last run of log entries by one player (the setup's when none)."""
    start = len(entries)
    while start > 0 and entries[start - 1].player == entries[-1].player:
        start -= 1
    state, setup_events = new_game(board, setup)
    events: list[Event] = list(setup_events) if not entries else []
    for entry in entries:
        state, new = apply(state, entry.player, entry.action)
        if entry.version >= start:
            events.extend(new)
    return state, events


def resend(db: Database, name: str, player: str | None = None, *, mail: MailContext | None = None,
           now: datetime | None = None, board: Board | None = None) -> Resent:
    """Queue the current report (and the prompt of a deciding player) again, for one seat or all."""
    mail = mail or MailContext()
    board = board or default_board()
    moment = utc(now or datetime.now(UTC))
    with _transaction(db) as session:
        game = store.find_game(session, name)
        seats = _seats(session, game)
        only = _resolve([s.name for s in seats], player, name) if player is not None else None
        try:
            state, events = _last_message_events(board, store.game_setup(game), store.load_log(session, game))
        except EngineError as exc:
            raise StoreError(f"game {name!r}: the log does not replay: {exc}") from None
        settings = load_settings(session, game)
        note = ["Sent again at the game master's request; the position is as of now."]
        mails: list[tuple[str, str]] = []
        for seat in seats:
            if only is not None and seat.name != only:
                continue
            if _queue_reports(session, game, state, events, settings, mail, moment, "resend", "resend",
                              "Sent again", note, subject=move_subject(name, state.version, "report (sent again)"),
                              only=seat.name):
                mails.append((seat.name, "report"))
        since = decision_since(session, game)
        for who in _deciders(state):
            if only is not None and who != only:
                continue
            if _queue_prompts(session, game, state, settings, mail, moment, since, "resend", note,
                              " (sent again)", only=who, purpose="resend"):
                mails.append((who, "prompt"))
        return Resent(name, state.version, tuple(mails))
