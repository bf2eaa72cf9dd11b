"""One inbound mail, handled in one database transaction: record it, apply its orders, note the move to tell.

:func:`process_message` is the whole decision, in this order:

1. Already recorded (same key: Message-ID, or a digest of the bytes) -> ``duplicate``: nothing
   happens again (the daemon only moves it out of the inbox).
2. Auto-reply, bounce, mailing list, our own mail, no sender (RFC 3834 and friends) -> recorded as
   ``automatic``; never answered (loop guard). A bounce that quotes a mail of ours to a seat is
   ``bounce``: counted against the seat (``pbem.moderator.inbound.bounces``), still never answered.
   A sender the host's ``[senders]`` lists refuse -> ``denied``, nothing read; one answer, ever
   (``pbem.moderator.senders``; a game's own lists are looked at once its token names it).
3. Larger than ``[limits] max_message_bytes`` -> recorded as ``oversize``; only its header is read;
   a polite reply to the sender.
4. No reply token (plus-address or ``TOKEN …`` line) -> ``no_token``; a token that is no seat's ->
   ``unknown_token``; each with one short reply to the sender telling how to reply.
   A token of an observer of a game (``pbem.store.observers``) -> ``STOP`` ends their mail, other
   words are answered saying that observers do not play (``pbem.moderator.notify.observers``).
   A game master's token (``pbem.store.masters``) -> the mail is the master's commands: this
   transaction writes nothing, and ``pbem.moderator.mastermail`` records the mail, does each line as
   the CLI's command does it (in that command's own transaction) and answers the master.
5. A seat's token, but from another address than the seat's -> ``spoofed``: nothing applied; the
   reply goes to the seat's real address (never to the sender, who may be anyone), saying that a
   message from that other address was ignored.
6. The game is over -> ``finished``; paused by the game master -> ``paused``: nothing applied, the
   seat is told.
7. Otherwise the body is applied as the seat's orders (``Moderator.submit_in``, same session):
   ``applied``, ``refused`` (a line refused; the lines before it stand) or ``query``. When the
   game moved on, the move to tell is noted (``pbem.moderator.notify.telling.record_move``) with
   what only the sender's one reply carries: a refusal, the answers to its report requests
   (STATUS, BOARD, OPTIONS, HISTORY, HELP; the game kind's ``answer_query``, against the state
   after the orders), notes; every seat's mail (the report, the prompt to each player who must
   decide now, the game-end mail when it ended), the sender's reply among them, is written
   right after the commit (``telling.tell_moves``). When nothing moved, the one reply to the
   sender is queued in the transaction itself. A player whose waiting lines the message resumed
   and who got refused gets the refusal in a mail of its own, queued in the transaction too.
   Before the game reads the orders, the core takes out its own lines: press to other players
   (``PRESS TO``, or the text of a reply to a press mail; relayed at once, ``pbem.moderator.inbound.press``)
   and mail preferences (``MAIL``, ``BOARD``); their confirmation rides in the same one reply.

Direct replies (3-6, error replies, answers to questions) are counted in
budgets (``pbem.store.inbound.Budget``), so that nobody can make the
moderator mail a third party, nor silence a seat:

* a reply to mail that carried a seat's token from the seat's address is
  the seat's own budget (``[limits] replies_per_sender_per_hour`` and
  ``replies_per_sender_per_day``): mail without that token never spends it;
* a reply to mail without a seat's token (no token, an unknown token, too
  big) is a stranger's: three a day per address, at most
  ``replies_per_domain_per_hour`` to one domain and
  ``replies_to_strangers_per_hour`` in all, and one reply, ever, to an
  address that holds no seat (a forged sender must not make us a spammer);
* the warning to a seat that another address used its token: one a day.

A mail whose From is not exactly one mailbox (two From headers, two
addresses, none) has no author to trust: with a seat's token it is
``spoofed`` (the seat is told, at its own address); without one it is not
answered at all. A suppressed reply is noted in the record's reason.
Reports and prompts are not counted: they go out once per move.

The record (``inbound_messages``), the mailbox position (``mailbox_state``),
the log entries, the snapshot, the move to tell and the replies bound to no
move are written in the one transaction, so a crash anywhere leaves either
all of it or none of it; a move's mail, written after the commit, is
written once, however the process stops (``pbem.moderator.notify.telling``).
Where the line is: mail that belongs to no move (answers to strangers and
observers, warnings of a spoofed sender, notices of a paused or finished
game, confirmations of mail preferences or press, press relayed, a reply
when nothing moved) is cheap, bound to no version and composed in the
transaction; a move's mail (every seat's, the sender's reply with it) is
told after it.

Errors. A mail that is no mail at all, or that makes the handling fail (a
bug, a game whose log does not replay), raises :class:`MessageFailed`; the
caller sets it aside (``pbem.daemon.intake``: it stays in the inbound
queue, nothing is recorded, and ``pbem inbox retry`` tries it again). When
the database cannot be reached, :class:`DatabaseUnavailable` is raised: the
mail must stay where it is (inbox or queue) until it can. Concurrent writers (another message of the same game, a
game-master command, a second daemon with the same message) make the whole
transaction start again, up to ``retries`` times.
"""
from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.exc import (
    DBAPIError,
    IntegrityError,
    InterfaceError,
    OperationalError,
    SQLAlchemyError,
)
from sqlmodel import Session

from pbem.config import Config, ModeratorSettings
from pbem.crash import crash_point
from pbem.errors import ConcurrentUpdate, PbemError, StoreError
from pbem.games import kind_of
from pbem.holders import holder_name
from pbem.languages import speaking
from pbem.mail import InboundError, InboundMessage, ReplyTo, parse_message
from pbem.moderator.apply import SubmitResult
from pbem.moderator.games import Moderator
from pbem.moderator.inbound.binding import Binding, Verdict, answered_move, judge
from pbem.moderator.inbound.bounces import reachable
from pbem.moderator.inbound.gates import Gates
from pbem.moderator.inbound.judge import Judge, read_command
from pbem.moderator.inbound.outcome import DUPLICATE, FAILED, PROCESSED, Outcome
from pbem.moderator.inbound.preferences import Preferences, read_preferences
from pbem.moderator.inbound.press import PressReading, answered_press, read_press, relay
from pbem.moderator.inbound.seatreplies import SeatReplies
from pbem.moderator.inbound.vacation import announce_vacation, vacation_problem
from pbem.moderator.inbound.words import said
from pbem.moderator.mastermail.inbound import DONE as MASTER
from pbem.moderator.mastermail.inbound import master_mail
from pbem.moderator.notify.compose import MailComposer, error_body, key_tag
from pbem.moderator.notify.observers import answer as observer_answer
from pbem.moderator.notify.subjects import MailSubject, decision_kind, game_subject, mail_subject, reply_subject
from pbem.moderator.notify.telling import Recorded, record_move, tell_safely
from pbem.moderator.notify.tokens import remember_token
from pbem.store import (
    Database,
    GameRow,
    GameStatus,
    SeatRow,
    game_setup,
    load_log,
    load_state,
    seats,
)
from pbem.store.inbound import (
    Budget,
    InboundOutcome,
    InboundRow,
    advance_position,
    find_message,
    normalise_key,
    record_message,
)
from pbem.store.mailprefs import set_prefs
from pbem.store.masters import master_for_token
from pbem.store.models import id_of
from pbem.store.moves import Source
from pbem.store.observers import ObserverRow, observer_for_token
from pbem.store.tokens import seat_and_game_for_token, seat_for_token

log = logging.getLogger("pbem.moderator.inbound")

REFUSAL = "refusal"  # templates/core/refusal.j2: the answer to a mail not read as orders, by its reason


class MessageFailed(PbemError):
    """This message cannot be handled (not a mail, or the handling failed): set it aside for the game master."""


class DatabaseUnavailable(PbemError):
    """The database cannot be reached: leave the message where it is (inbox or queue) and try again later."""


def process_message(db: Database, config: Config, raw: bytes, mailbox: str, uidvalidity: int, uid: int,
                    now: datetime, *, moderator: Moderator | None = None, retries: int = 5,
                    also: Callable[[Session], None] | None = None, advance: bool = True) -> Outcome:
    """Handle one raw mail in one transaction (see the module docstring), then tell the move it made; ``now``
    must be timezone-aware.

    ``also`` runs in that transaction too (the inbound queue deletes the
    message there); ``advance`` off leaves the mailbox position alone (the queue's receiver moved it).
    """
    identity = config.require_moderator()
    moderator = moderator or Moderator(db)
    now = now.astimezone(UTC)
    message, key, oversize = read(raw, identity, config.limits.max_message_bytes)
    holder = holder_name("tell")  # the move's teller: this thread, right after the commit
    for attempt in range(retries + 1):
        try:
            with db.transaction() as session:
                handler = _Handler(session, config, identity, moderator, message, key, oversize, len(raw), now,
                                   holder)
                outcome = handler.handle()
                if not handler.master:  # a master's mail is recorded by its own handling, after this
                    if not outcome.duplicate:
                        handler.record(mailbox, uidvalidity, uid, outcome)
                    if advance:
                        advance_position(session, mailbox, uidvalidity, uid, now)
                    if also is not None:
                        also(session)
                    crash_point("mid_transaction")
            if handler.master:
                break
            return _told(db, identity, handler.recorded, holder, outcome)
        except (ConcurrentUpdate, IntegrityError) as exc:
            # another writer of the same game, or of the same message: read everything again
            if attempt == retries:
                if isinstance(exc, IntegrityError):  # not contention after all: this message breaks something
                    raise MessageFailed(f"message {key}: database error: {_first_line(exc)}") from None
                raise DatabaseUnavailable(f"message {key}: still conflicting with other writers after "
                                          f"{retries + 1} tries ({_first_line(exc)})") from None
            log.info("message %s met a concurrent writer (%s); trying again", key, _first_line(exc))
        except OperationalError as exc:
            if "locked" in str(exc.orig).lower() and attempt < retries:
                log.info("message %s: the database is busy; trying again", key)
                continue
            raise DatabaseUnavailable(f"database unavailable: {_first_line(exc)}") from None
        except InterfaceError as exc:
            raise DatabaseUnavailable(f"database unavailable: {_first_line(exc)}") from None
        except DBAPIError as exc:
            if exc.connection_invalidated:
                raise DatabaseUnavailable(f"database connection lost: {_first_line(exc)}") from None
            raise MessageFailed(f"message {key}: database error: {_first_line(exc)}") from None
        except SQLAlchemyError as exc:
            raise MessageFailed(f"message {key}: database error: {_first_line(exc)}") from None
        except (MessageFailed, DatabaseUnavailable):
            raise
        except Exception as exc:
            log.exception("message %s could not be handled", key)
            raise MessageFailed(f"message {key}: {type(exc).__name__}: {exc}") from None
    # Only a master's token leaves the loop: its commands run in the transactions of the CLI's own commands
    mastered = _master_mail(db, config, message, key, mailbox, uidvalidity, uid, now, also, advance)
    if mastered is None:  # its game was deleted meanwhile
        raise MessageFailed(f"message {key}: the master's game is gone")
    return mastered


def _master_mail(db: Database, config: Config, message: InboundMessage, key: str, mailbox: str, uidvalidity: int,
                 uid: int, now: datetime, also: Callable[[Session], None] | None, advance: bool) -> Outcome | None:
    """``pbem.moderator.mastermail.inbound.master_mail``, its failures told as a message's (module docstring)."""
    try:
        done = master_mail(db, config, message, key, mailbox, uidvalidity, uid, now, also=also, advance=advance)
    except (OperationalError, InterfaceError) as exc:
        raise DatabaseUnavailable(f"database unavailable: {_first_line(exc)}") from None
    except StoreError as exc:
        raise DatabaseUnavailable(f"message {key}: {exc}") from None
    except Exception as exc:
        log.exception("master message %s could not be handled", key)
        raise MessageFailed(f"message {key}: {type(exc).__name__}: {exc}") from None
    if done is None:
        return None
    return Outcome(done.key, done.outcome, done.reason, done.sender, game=done.game, queued=done.queued,
                   kind=done.kind, game_id=done.game_id)


def _told(db: Database, identity: ModeratorSettings, recorded: Recorded | None, holder: str,
          outcome: Outcome) -> Outcome:
    """After the commit: the move's mail (``pbem.moderator.notify.telling``), counted in the outcome."""
    if recorded is None:
        return outcome
    crash_point("after_apply_before_render")
    told = tell_safely(db, identity, recorded.row.game_id, holder=holder, recorded=recorded)
    return replace(outcome, queued=outcome.queued + told.queued) if told.queued else outcome


def read(raw: bytes, identity: ModeratorSettings, max_bytes: int) -> tuple[InboundMessage, str, bool]:
    """(parsed message, key, oversize?): an oversize mail is read by its header alone.

    Raises :class:`MessageFailed` for bytes that are no mail at all.
    """
    oversize = len(raw) > max_bytes
    digest = hashlib.sha256(raw).hexdigest()
    source = _header_part(raw) if oversize else raw
    try:
        message = parse_message(source, moderator_address=identity.address)
    except InboundError as exc:
        raise MessageFailed(f"not a readable mail ({exc}); sha256 {digest}") from None
    key = normalise_key(message.message_id or f"<sha256.{digest}@pbem.invalid>")
    return message, key, oversize


def _header_part(raw: bytes) -> bytes:
    for separator in (b"\r\n\r\n", b"\n\n"):
        head, found, _ = raw.partition(separator)
        if found:
            return head + separator
    return raw[:65536]


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class _Handler(SeatReplies, Gates):
    """The decision for one message, inside one session."""

    def __init__(self, session: Session, config: Config, identity: ModeratorSettings, moderator: Moderator,
                 message: InboundMessage, key: str, oversize: bool, size: int, now: datetime,
                 holder: str = "") -> None:
        self.session = session
        self.config = config
        self.identity = identity
        self.moderator = moderator
        self.message = message
        self.key = key
        self.tag = key_tag(key)
        self.oversize = oversize
        self.size = size
        self.now = now
        self.compose = MailComposer(session, identity, now, cause=self.tag)
        self.game: GameRow | None = None
        self.seat: SeatRow | None = None
        self.notes: list[str] = []
        self.holder = holder  # who tells the move after the commit (``pbem.store.moves``)
        self.recorded: Recorded | None = None  # the move to tell after the commit
        self.master = False  # a game master's token: ``pbem.moderator.mastermail`` handles the mail

    # --- the decision ------------------------------------------------------------------------

    def handle(self) -> Outcome:
        message = self.message
        existing = find_message(self.session, self.key)
        if existing is not None:
            folder = FAILED if existing.outcome in InboundOutcome.FAILED_FOLDER else PROCESSED
            return Outcome(self.key, DUPLICATE, f"already handled ({existing.outcome})", existing.sender,
                           folder=folder)
        self.compose.fresh_cause = True  # a new message: no mail made for it can be queued already
        if message.is_automatic:
            return self.automatic()
        refused = self.host_refusal()
        if refused is not None:
            return self.denied(refused)
        if self.oversize:
            return self.too_big()
        token = message.token
        if message.sender_problem is not None and not token:  # no author to answer: answering is backscatter
            return self.outcome(InboundOutcome.NO_TOKEN, f"no reply token; {message.sender_problem}: not answered")
        if not token:
            command = read_command(message.body) if message.sender_problem is None else None
            if command is not None:
                return self.outcome(*self.judge().command(command))
            return self.stranger(InboundOutcome.NO_TOKEN, "no reply token in the address or the text")
        found = seat_and_game_for_token(self.session, token)
        if found is None:
            watcher = observer_for_token(self.session, token)
            if watcher is not None:
                return self.observer(watcher, token)
            if master_for_token(self.session, token) is not None:  # handled after this transaction
                self.master = True
                return self.outcome(MASTER, "a master's token")
            done = self.judge().confirmation(token) if message.sender_problem is None else None
            if done is not None:
                return self.outcome(*done)
            return self.stranger(InboundOutcome.UNKNOWN_TOKEN, "the reply token belongs to no seat")
        seat, game = found
        self.game, self.seat = game, seat
        settings = self.compose.settings(game)
        refused = self.game_refusal(game, settings.allow, settings.deny, seat.email)
        if refused is not None:
            return self.denied(refused)
        with self.compose.writing_to(game, seat):  # what the seat is answered, in its language
            return self.from_seat(token)

    def from_seat(self, token: str) -> Outcome:
        """A mail with a seat's token (``self.seat``): checked for its sender and the game's state, then read."""
        game, message = self.game, self.message
        assert game is not None and self.seat is not None
        if message.sender_problem is not None or (message.sender or "").lower() != self.seat.email.strip().lower():
            return self.spoofed(token)
        if reachable(self.session, self.seat):  # it wrote from its address: its mail goes out again
            self.notes.append("bounces forgotten: the seat wrote")
        if game.status == GameStatus.FINISHED:
            return self.notice(InboundOutcome.FINISHED, token, "the game is over", MailSubject.IS_OVER)
        if self.compose.settings(game).paused:
            return self.notice(InboundOutcome.PAUSED, token, "the game is paused", MailSubject.IS_PAUSED)
        return self.orders(token)

    def outcome(self, outcome: str, reason: str, *, version_before: int | None = None,
                version: int | None = None) -> Outcome:
        notes = "; ".join(self.notes)
        reason = f"{reason}; {notes}" if notes else reason
        if self.message.defects:
            reason += f" [MIME: {', '.join(self.message.defects[:5])}]"
        return Outcome(self.key, outcome, reason, self.message.sender or "",
                       game=self.game.name if self.game else None,
                       player=self.seat.name if self.seat else None,
                       version_before=version_before, version=version,
                       queued=tuple(q.message_id for q in self.compose.queued),
                       kind=self.game.kind if self.game else None, game_id=self.game.id if self.game else None)

    def record(self, mailbox: str, uidvalidity: int, uid: int, outcome: Outcome) -> None:
        record_message(self.session, InboundRow(
            message_key=self.key, game_id=self.game.id if self.game else None,
            player=self.seat.name if self.seat else None, mailbox=mailbox, uidvalidity=uidvalidity, uid=uid,
            sender=(self.message.sender or "")[:320], subject=self.message.subject, outcome=outcome.outcome,
            reason=outcome.reason, version=outcome.version, received=self.now))

    # --- answers without orders -----------------------------------------------------------------

    def judge(self) -> Judge:
        """Commands by mail with no seat's token (``pbem.moderator.inbound.judge``): each answer is a stranger's
        reply, in the strangers' budgets but the one-reply-ever to an address that holds no seat, which would
        leave a newcomer no answer to its confirmation; the addresses the host names in ``[judge] creators``
        (and its game master), who create and start games, have a player's budget instead."""
        judge, limits = self.config.judge, self.config.limits

        def allowed(address: str, purpose: str) -> bool:
            if judge.named(address, self.identity.game_master):  # the host's creators: a player's budget
                budgets: tuple[Budget, ...] = (Budget(f"creator:{address}", limits.replies_per_sender_per_hour,
                                                      limits.replies_per_sender_per_day),)
            else:
                budgets = tuple(b for b in self._stranger_budget(address) if not b.key.startswith("once:"))
            return self._allowed(budgets, purpose)

        return Judge(self.session, self.config, self.identity, self.moderator, self.compose, self.message, self.tag,
                     self.now, allowed)

    def too_big(self) -> Outcome:
        message = self.message
        limit = self.config.limits.max_message_bytes
        reason = f"{self.size} bytes, above the limit of {limit}"
        sender = message.sender if message.sender_problem is None else None
        token = message.token
        seat = seat_for_token(self.session, token) if token and sender else None
        if seat is not None and seat.email.strip().lower() != sender:
            seat = None
        budgets = self._seat_budget(seat) if seat is not None else self._stranger_budget(sender) if sender else ()
        if sender and self._allowed(budgets, "oversize"):
            body = said(REFUSAL, reason="oversize", subject=message.subject, size=self.size, limit=limit)
            if seat is not None:
                game = self.session.get(GameRow, seat.game_id)
                assert game is not None
                self.game, self.seat = game, seat
                self.compose.to_seat(game, seat, purpose="oversize", key=f"oversize:{self.tag}", version=0,
                                     subject=reply_subject(message.subject, game_subject(game.name, MailSubject.YOUR_MESSAGE)),
                                     body=body, known_token=token, reply_to_message=message,
                                     auto_submitted="auto-replied")
            else:
                self.compose.to_address(sender, purpose="oversize", key=f"oversize:{self.tag}",
                                        subject=reply_subject(message.subject, mail_subject(MailSubject.TO_MODERATOR)),
                                        body=body, reply_to_message=message)
        return self.outcome(InboundOutcome.OVERSIZE, reason)

    def stranger(self, outcome: str, reason: str) -> Outcome:
        """No usable token: one short reply to the sender telling how to reply."""
        message = self.message
        sender = message.sender
        if sender and self._allowed(self._stranger_budget(sender), outcome):
            local, _, host = self.identity.address.rpartition("@")
            body = said(REFUSAL, reason=outcome, subject=message.subject, address=self.identity.address, local=local,
                        host=host)
            self.compose.to_address(sender, purpose=outcome, key=f"{outcome}:{self.tag}",
                                    subject=reply_subject(message.subject, mail_subject(MailSubject.TO_MODERATOR)),
                                    body=body, reply_to_message=message)
        return self.outcome(outcome, reason)

    def observer(self, watcher: ObserverRow, token: str) -> Outcome:
        """A mail with an observer's token: STOP, or the answer that observers do not play."""
        self.game = game = self.session.get(GameRow, watcher.game_id)
        if game is not None:
            settings = self.compose.settings(game)
            refused = self.game_refusal(game, settings.allow, settings.deny, watcher.email)
            if refused is not None:
                return self.denied(refused)
        outcome, reason = observer_answer(self.compose, self.message, watcher, token, self.tag, self._allowed)
        return self.outcome(outcome, reason)

    def spoofed(self, token: str) -> Outcome:
        """A seat's token from another address: tell the seat, at its own address, and change nothing."""
        game, seat, message = self.game, self.seat, self.message
        assert game is not None and seat is not None
        reason = f"sent from {message.sender or '(no address)'}, not from the seat's address {seat.email}"
        if self._allowed(self._spoof_budget(seat), "spoofed"):
            body = said(REFUSAL, reason="spoofed", game=game.name, sender=message.sender or "", email=seat.email,
                        subject=message.subject)
            self.compose.to_seat(game, seat, purpose="spoofed", key=f"spoofed:{self.tag}", version=0,
                                 subject=game_subject(game.name, MailSubject.SPOOFED), body=body,
                                 known_token=token)
        return self.outcome(InboundOutcome.SPOOFED, reason)

    def notice(self, outcome: str, token: str, reason: str, title: MailSubject) -> Outcome:
        """A game that takes no orders now (over, or paused): the seat is told, nothing is applied."""
        game, seat, message = self.game, self.seat, self.message
        assert game is not None and seat is not None
        if self._allowed(self._seat_budget(seat), outcome):
            self.compose.to_seat(game, seat, purpose=outcome, key=f"{outcome}:{self.tag}", version=0,
                                 subject=reply_subject(message.subject, game_subject(game.name, title)),
                                 body=said(REFUSAL, reason=outcome, game=game.name), known_token=token, reply_to_message=message,
                                 auto_submitted="auto-replied")
        return self.outcome(outcome, reason)

    # --- orders ----------------------------------------------------------------------------------

    def orders(self, token: str) -> Outcome:
        game, seat, message = self.game, self.seat, self.message
        assert game is not None and seat is not None
        before = load_state(self.session, game)
        # First the press (its text may hold lines that look like MAIL or BOARD); a reply to a press mail is press
        press = read_press(message.body, answered_press(self.session, game, seat, message))
        wanted = read_preferences(press.body)
        if wanted.refusal is None and wanted.vacation:
            wanted = vacation_problem(self.compose.settings(game), wanted, self.now)
        if wanted.refusal is not None:
            return self.preference_refused(game, seat, token, before, wanted.refusal)
        if wanted.language is not None:  # the answer, and every mail after it, in the language chosen
            set_prefs(self.session, seat, language=wanted.language)
            with speaking(wanted.language):
                return self.read_orders(token, before, press, wanted)
        return self.read_orders(token, before, press, wanted)

    def read_orders(self, token: str, before: Any, press: PressReading, wanted: Preferences) -> Outcome:
        """The mail's preferences (``wanted``), press and orders, once its preference lines are known right."""
        game, seat = self.game, self.seat
        assert game is not None and seat is not None
        kind = kind_of(game.kind)
        body = wanted.body
        parts = [self.press(game, seat, before, press)] if press.any else []  # press is bound to no move
        binding = self.binding(game, seat, before)
        if binding.verdict is Verdict.STALE and not kind.queries_only(body) and (
                body.strip() or not (wanted.any or press.any)):
            return self.stale(game, seat, token, before, binding, body, parts)
        remember_token(seat, token)  # the sender's token is at hand: no search for it when its mail is written
        if wanted.any:
            if wanted.vacation:
                parts.append(announce_vacation(self.compose, game, before, seat, wanted))
            if wanted.mode is not None or wanted.board is not None or wanted.language is not None:
                set_prefs(self.session, seat, mode=wanted.mode, board=wanted.board)
                parts.append(wanted.told())
            if wanted.history_from is not None:
                parts.append(self.history(game, seat, before, wanted.history_from))
        if parts and not kind.order_lines(body):
            what = ", ".join(w for w, said in (("mail preferences", wanted.any), ("press", press.any)) if said)
            return self.preferences_only(game, seat, before, parts, what, ask_again=wanted.language is not None)
        result = self.moderator.submit_in(self.session, game, seat.name, body, state=before)
        return self.tell(game, seat, before, binding, result, parts)

    def tell(self, game: GameRow, seat: SeatRow, before: Any, binding: Binding, result: SubmitResult,
             parts: list[str]) -> Outcome:
        """The mail about the message's orders, and its outcome: the move to tell when the game moved (every
        seat's mail, the sender's reply with the refusal and the answers among them), else the one reply."""
        kind, message = kind_of(game.kind), self.message
        changed = result.version != result.version_before
        if result.refusal is not None and self._allowed(self._seat_budget(seat), "error"):
            asked = changed and decision_kind(kind, result.state, seat.name) is not None  # the move's mail asks
            parts.append(error_body(kind, result, seat.name, game.name, with_prompt=asked))
        refused = [part for part in result.resumed if part.refusal is not None]
        table = {s.name: s for s in seats(self.session, game)} if refused else {}
        for part in refused:
            other = table.get(part.player)
            if part.refusal is not None and other is not None:
                self.compose.to_seat(game, other, purpose="error", key=f"error:{self.tag}:{part.player}",
                                     version=kind.shown_move(result.state),
                                     subject=game_subject(game.name, MailSubject.WAITING_REFUSED),
                                     body=kind.error(result.state, part.player, part.refusal, game=game.name),
                                     decision=decision_kind(kind, result.state, part.player))
        if changed and binding.verdict is Verdict.SAME_DECISION and self._allowed(self._seat_budget(seat),
                                                                                   "applied_late"):
            parts.append(self.applied_late(binding, result.version_before))
        if result.queries and self._allowed(self._seat_budget(seat), "query"):
            parts.append(self.answers(game, seat, result))
        if changed:  # the sender's reply rides in its mail about the move
            self.recorded = record_move(
                self.session, game, before, result, cause=self.tag, source=Source.MAIL, holder=self.holder,
                now=self.now, parts=parts, reply=ReplyTo.of(message), settings=self.compose.settings(game),
                attachment=self.compose.attachments.pop(id_of(seat), None))
        elif parts:
            self.reply(game, seat, result, parts)
        if result.refusal is not None:
            outcome, reason = InboundOutcome.REFUSED, _refusal_text(result)
        elif result.queries and not result.applied:
            outcome, reason = InboundOutcome.QUERY, ", ".join(q.kind for q in result.queries)
        else:
            outcome, reason = InboundOutcome.APPLIED, f"{len(result.applied)} line(s) applied"
        return self.outcome(outcome, reason, version_before=result.version_before, version=result.version)

    # --- which move a mail answers (pbem.moderator.inbound.binding) ------------------------------------

    def binding(self, game: GameRow, seat: SeatRow, now: Any) -> Binding:
        welcomes = frozenset({self.compose.settings(game).thread_root, self.compose.welcome_id(game, seat.email)})
        move = answered_move(self.message, game.name, self.identity.domain, welcomes)
        if move is None or move == kind_of(game.kind).shown_move(now):  # the common case: no log to read
            return Binding(move, Verdict.CURRENT)
        return judge(kind_of(game.kind), game_setup(game), load_log(self.session, game), now, seat.name, move)

    def press(self, game: GameRow, seat: SeatRow, state: Any, reading: PressReading) -> str:
        """Relay the message's press (``pbem.moderator.inbound.press``); the sender's confirmation block."""
        relayed = relay(self.compose, game, seat, state, reading, self.tag)
        self.notes.append(relayed.note)
        return relayed.told



def _refusal_text(result: SubmitResult) -> str:
    refusal = result.refusal
    assert refusal is not None
    where = f"line {refusal.line_number}: {refusal.line}: " if refusal.line_number is not None else ""
    applied = f"{len(result.applied)} line(s) applied before; " if result.applied else ""
    return f"{applied}{where}{refusal.reason}"

