"""The moderator's loop: read the inbox, handle each mail in its own transaction, deliver the outbox.

``pbem poll --once`` is :func:`poll_once` (for cron: the inbox once, the
outbox once, exit); ``pbem run`` is :class:`Daemon` (IMAP IDLE, or polling
when the server has no IDLE, reconnecting with backoff, stopping cleanly on
SIGTERM/SIGINT). Both use :class:`MailFlow`, which does one pass:

1. *Recovery* (first pass after connecting): messages still in the inbox at
   or below the stored position were recorded but not moved (a crash between
   the commit and the move); they are read again, found recorded
   (``duplicate``) and moved where they belong.
2. ``fetch_new`` above the stored position (``mailbox_state``), by UID, in
   batches; a changed UIDVALIDITY rereads the whole inbox, and what was
   recorded before is skipped by its key.
3. Each message: :func:`pbem.mailflow.inbound.process_message` (one
   transaction: record, orders, log, outbox, the position), then the move to
   the processed folder (or to the failed folder for mail that cannot be
   handled, with the reason logged). A database that cannot be reached stops
   the pass with the mail left in the inbox.
4. The outbox: :func:`pbem.mailflow.outbox_sender.deliver_due`.
5. Periodic tasks (the deadline tick of ``pbem.deadlines``), when given.

The daemon delivers the outbox after every pass and at least every
``outbox_interval`` seconds (mail queued by the game master's commands goes
out without waiting for a player's mail), and waits with IDLE in between,
renewed every ``[imap] idle_refresh`` seconds (default 9 minutes, well inside
the 29 minutes of RFC 2177 and the NAT timeouts seen in practice).

Logging goes to the ``pbem.mailflow`` loggers: outcomes, moves, reconnects.
Never a password (the mail layer masks them), never a token (no header of a
mail to a player is logged), never a message body.
"""
from __future__ import annotations

import logging
import signal
import ssl
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from pbem.config import Config
from pbem.mail import FetchedMessage, MailboxError, MailboxPosition, SmtpSender
from pbem.mailflow.crash import crash_point
from pbem.mailflow.inbound import (
    DatabaseUnavailable,
    MessageFailed,
    Outcome,
    process_message,
)
from pbem.mailflow.mailbox import Mailbox
from pbem.mailflow.outbox_sender import DeliveryReport, deliver_due, next_due
from pbem.moderator import Moderator
from pbem.store.inbound import advance_position, load_position

log = logging.getLogger("pbem.mailflow")

FETCH_LIMIT = 50  # messages per fetch: bounded memory, the outbox gets its turn between batches
Task = Callable[[datetime], Any]  # a periodic task: called with the clock after every pass


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class PassReport:
    """What one pass over the inbox did."""

    outcomes: list[Outcome] = field(default_factory=list)
    failed: list[tuple[int, str]] = field(default_factory=list)  # (UID, reason) moved to the failed folder
    recovered: int = 0  # recorded before, moved now
    uidvalidity_changed: bool = False

    @property
    def handled(self) -> int:
        return len(self.outcomes)


class MailFlow:
    """The inbox, the database and the outbox of one configuration.

    ``inbox_factory`` makes the inbox (default: :class:`Mailbox` over
    ``[imap]``, or ``pbem.mail.MaildirInbox`` over ``[maildir]``);
    ``sender_factory`` the SMTP sender; ``clock`` the time (timezone-aware).
    """

    def __init__(self, config: Config, db: Any, *, moderator: Moderator | None = None,
                 clock: Callable[[], datetime] = utc_now, inbox_factory: Callable[[], Any] | None = None,
                 sender_factory: Callable[[], SmtpSender] | None = None,
                 tasks: Sequence[Task] = (), task_interval: float = 60.0,
                 fetch_limit: int = FETCH_LIMIT) -> None:
        self.config = config
        self.db = db
        self.moderator = moderator or Moderator(db)
        self.clock = clock
        self._context: ssl.SSLContext | None = None
        self.inbox_factory = inbox_factory or default_inbox_factory(config, self.ssl_context)
        self.sender_factory = sender_factory or (
            lambda: SmtpSender(config.require_smtp(), ssl_context=self.ssl_context()))
        self.tasks = list(tasks)
        self.task_interval = task_interval
        self._tasks_ran: float | None = None  # time.monotonic() of the last run
        self.fetch_limit = fetch_limit
        config.require_moderator()

    def ssl_context(self) -> ssl.SSLContext:
        """One verifying TLS context for every connection (loading the CA store costs ~70 ms each time)."""
        if self._context is None:
            self._context = ssl.create_default_context()
        return self._context

    # --- the inbox ---------------------------------------------------------------------------

    def open_inbox(self) -> Any:
        inbox = self.inbox_factory()
        inbox.connect()
        return inbox

    def process_inbox(self, inbox: Any, *, recover: bool = True) -> PassReport:
        """One pass (steps 1-3 of the module docstring). Raises ``MailboxError``, ``DatabaseUnavailable``."""
        report = PassReport()
        mailbox = _mailbox_name(inbox)
        stored = self._position(mailbox)
        if recover and stored is not None and stored.uidvalidity == inbox.uidvalidity:
            leftovers = _leftovers(inbox, stored.last_uid)
            if leftovers:
                log.info("%d message(s) recorded before but still in the inbox: moving them", len(leftovers))
                for fetched in leftovers:
                    self._handle(inbox, mailbox, fetched, report, recovering=True)
        position = stored
        while True:
            result = inbox.fetch_new(position, limit=self.fetch_limit)
            if result.uidvalidity_changed:
                report.uidvalidity_changed = True
                log.warning("UIDVALIDITY of %s changed (%s -> %s): reading the whole inbox again; "
                            "messages handled before are skipped", mailbox,
                            position.uidvalidity if position else "?", result.position.uidvalidity)
            crash_point("after_fetch")
            for fetched in result.messages:
                self._handle(inbox, mailbox, fetched, report)
            if position != result.position:
                self._advance(mailbox, result.position)
            position = result.position
            if not result.more:
                return report

    def _handle(self, inbox: Any, mailbox: str, fetched: FetchedMessage, report: PassReport, *,
                recovering: bool = False) -> None:
        uid = fetched.uid
        try:
            outcome = process_message(self.db, self.config, fetched.raw, mailbox, inbox.uidvalidity, uid,
                                      self.clock(), moderator=self.moderator)
        except MessageFailed as exc:
            log.error("message UID %s of %s cannot be handled, moved to the failed folder: %s", uid, mailbox, exc)
            inbox.move_to_failed(uid)
            report.failed.append((uid, str(exc)))
            return
        crash_point("after_commit_before_move")
        if outcome.folder == "failed":
            inbox.move_to_failed(uid)
        else:
            inbox.move_to_processed(uid)
        if recovering:
            report.recovered += 1
        report.outcomes.append(outcome)
        where = f" game {outcome.game}" if outcome.game else ""
        who = f" seat {outcome.player}" if outcome.player else ""
        versions = (f" v{outcome.version_before}->{outcome.version}"
                    if outcome.version is not None and outcome.version_before is not None else "")
        log.info("UID %s from %s:%s%s%s %s (%s); %d mail(s) queued", uid, outcome.sender or "?", where, who,
                 versions, outcome.outcome, outcome.reason, len(outcome.queued))

    def _position(self, mailbox: str) -> MailboxPosition | None:
        try:
            with self.db.transaction() as session:
                stored = load_position(session, mailbox)
        except SQLAlchemyError as exc:
            raise DatabaseUnavailable(f"database unavailable: {_first_line(exc)}") from None
        return None if stored is None else MailboxPosition(stored.uidvalidity, stored.last_uid)

    def _advance(self, mailbox: str, position: MailboxPosition) -> None:
        try:
            with self.db.transaction() as session:
                advance_position(session, mailbox, position.uidvalidity, position.last_uid, self.clock())
        except SQLAlchemyError as exc:
            raise DatabaseUnavailable(f"database unavailable: {_first_line(exc)}") from None

    # --- the outbox and the periodic tasks --------------------------------------------------------

    def deliver(self) -> DeliveryReport:
        """Deliver the due outbox once; a database that cannot be reached is reported, not raised."""
        try:
            return deliver_due(self.db, self.sender_factory(), self.clock(), moderator=self.config.moderator)
        except SQLAlchemyError as exc:
            log.warning("outbox not delivered: database unavailable: %s", _first_line(exc))
            return DeliveryReport(unavailable=f"database unavailable: {_first_line(exc)}")

    def run_tasks(self, *, force: bool = True) -> list[str]:
        """Run the periodic tasks (unless ``force`` is off and they ran less than ``task_interval`` ago).

        A failing task is logged (and named in the result), never fatal.
        """
        now = time.monotonic()
        if not force and self._tasks_ran is not None and now - self._tasks_ran < self.task_interval:
            return []
        self._tasks_ran = now
        problems = []
        for task in self.tasks:
            try:
                task(self.clock())
            except Exception as exc:  # a task's bug must not stop the moderator
                log.exception("periodic task %s failed", getattr(task, "__name__", task))
                problems.append(f"{getattr(task, '__name__', 'task')}: {exc}")
        return problems

    def seconds_to_next_mail(self, ceiling: float) -> float:
        """Seconds until the next queued mail is due, within [0.5, ceiling]."""
        try:
            due = next_due(self.db)
        except SQLAlchemyError:
            return ceiling
        if due is None:
            return ceiling
        if due.tzinfo is None:  # SQLite hands back naive UTC
            due = due.replace(tzinfo=UTC)
        return max(0.5, min(ceiling, (due - self.clock()).total_seconds()))


def default_inbox_factory(config: Config, context: Callable[[], ssl.SSLContext] | None = None,
                          use_idle: bool | None = None) -> Callable[[], Any]:
    """The inbox of ``config``: a :class:`Mailbox` over ``[imap]``, or a Maildir over ``[maildir]``."""
    maildir = getattr(config, "maildir", None)
    if maildir is not None:
        from pbem.mail import MaildirInbox

        return lambda: MaildirInbox(maildir)
    return lambda: Mailbox(config.require_imap(), ssl_context=context() if context else None, use_idle=use_idle)


def _mailbox_name(inbox: Any) -> str:
    name = getattr(inbox, "mailbox", None)
    if isinstance(name, str) and name:
        return name
    return str(inbox.settings.mailbox)


def _leftovers(inbox: Any, last_uid: int) -> list[FetchedMessage]:
    """Messages still in the inbox at or below ``last_uid`` (recorded, not yet moved)."""
    if hasattr(inbox, "uids") and hasattr(inbox, "fetch_uids"):
        fetched: list[FetchedMessage] = inbox.fetch_uids([uid for uid in inbox.uids() if uid <= last_uid])
        return fetched
    everything = inbox.fetch_new(None)  # an inbox without UID search (a Maildir): it is local and small
    return [m for m in everything.messages if m.uid <= last_uid]


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


# --- pbem poll --once ------------------------------------------------------------------------------


@dataclass
class PollReport:
    inbox: PassReport | None
    outbox: DeliveryReport
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and self.outbox.ok


def poll_once(flow: MailFlow) -> PollReport:
    """The inbox once, the periodic tasks once, the outbox once (``pbem poll --once``).

    An inbox or database that cannot be reached is reported in ``problems``
    (the outbox is still delivered); nothing is lost either way.
    """
    problems: list[str] = []
    report: PassReport | None = None
    inbox = None
    try:
        inbox = flow.open_inbox()
        report = flow.process_inbox(inbox, recover=True)
    except (MailboxError, DatabaseUnavailable) as exc:
        problems.append(str(exc))
        log.error("inbox not processed: %s", exc)
    finally:
        if inbox is not None:
            inbox.close()
    problems += flow.run_tasks()
    delivery = flow.deliver()
    return PollReport(report, delivery, problems)


# --- pbem run ------------------------------------------------------------------------------------------


class _Interrupted(BaseException):
    """Raised by the signal handler to leave a blocking wait (IDLE, a backoff sleep) at once.

    A ``BaseException`` (like ``KeyboardInterrupt``), so that no ``except
    Exception`` on the way takes it for a failure of the message at hand.
    """


class Daemon:
    """``pbem run``: see the module docstring. ``stop()`` (or SIGTERM/SIGINT) ends :meth:`run` cleanly.

    ``wait_slice`` bounds one wait for mail (so that ``stop()`` from another
    thread is noticed that soon; signals interrupt a wait at once anyway).
    """

    def __init__(self, flow: MailFlow, *, outbox_interval: float = 60.0, min_backoff: float = 1.0,
                 max_backoff: float = 300.0, wait_slice: float | None = None) -> None:
        self.flow = flow
        self.outbox_interval = outbox_interval
        self.min_backoff = min_backoff
        self.max_backoff = max_backoff
        self.wait_slice = wait_slice
        self._stop = threading.Event()
        self._interruptible = False
        self.passes = 0
        self.connects = 0

    # --- stopping ----------------------------------------------------------------------------

    def stop(self) -> None:
        self._stop.set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def install_signal_handlers(self) -> None:
        """SIGTERM and SIGINT stop the daemon: at once while it waits, else after the current message
        (a second signal stops it at once: an open transaction is rolled back, nothing is lost)."""
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, self._on_signal)

    def _on_signal(self, signum: int, frame: Any) -> None:
        again = self._stop.is_set()
        log.info("%s received: stopping%s", signal.Signals(signum).name, " now" if again else "")
        self._stop.set()
        if self._interruptible or again:
            self._interruptible = False
            raise _Interrupted()

    @contextmanager
    def _waiting(self) -> Iterator[None]:
        self._interruptible = True
        try:
            if self._stop.is_set():
                raise _Interrupted()
            yield
        finally:
            self._interruptible = False

    def _sleep(self, seconds: float) -> None:
        with self._waiting():
            self._stop.wait(seconds)

    # --- the loop ------------------------------------------------------------------------------

    def run(self) -> None:
        backoff = self.min_backoff
        smtp_down = False
        log.info("pbem moderator started")
        while not self.stopping:
            inbox = None
            try:
                inbox = self.flow.open_inbox()
                self.connects += 1
                mode = "IDLE" if getattr(inbox, "uses_idle", False) else "polling"
                log.info("inbox %s open (%s)", _mailbox_name(inbox), mode)
                recover = True
                while not self.stopping:
                    self.flow.process_inbox(inbox, recover=recover)
                    recover = False
                    backoff = self.min_backoff
                    self.passes += 1
                    self.flow.run_tasks(force=False)
                    delivery = self.flow.deliver()
                    if delivery.unavailable and not smtp_down:
                        log.warning("outbox waits: %s", delivery.unavailable)
                    elif smtp_down and not delivery.unavailable:
                        log.info("SMTP relay reachable again")
                    smtp_down = delivery.unavailable is not None
                    if self.stopping:
                        break
                    timeout = self.flow.seconds_to_next_mail(min(self.outbox_interval, self.flow.task_interval)
                                                             if self.flow.tasks else self.outbox_interval)
                    if self.wait_slice is not None:
                        timeout = min(timeout, self.wait_slice)
                    with self._waiting():
                        inbox.wait_for_mail(timeout)
            except _Interrupted:
                break
            except Exception as exc:  # noqa: BLE001  (the daemon carries on)
                if self.stopping:
                    break
                if isinstance(exc, MailboxError | DatabaseUnavailable):
                    log.warning("%s; trying again in %g s", exc, backoff)
                else:  # a bug: say so loudly, but keep the moderator running
                    log.exception("unexpected error; trying again in %g s", backoff)
                if inbox is not None:
                    _close(inbox)
                    inbox = None
                try:
                    self._sleep(backoff)
                except _Interrupted:
                    break
                backoff = min(self.max_backoff, backoff * 2)
            finally:
                if inbox is not None:
                    _close(inbox)
        log.info("pbem moderator stopped")


def _close(inbox: Any) -> None:
    try:
        inbox.close()
    except Exception:  # a connection dropped mid-IDLE: nothing to say goodbye to
        pass


def deadline_task(config: Config, db: Any) -> Task | None:
    """The deadline tick of ``pbem.deadlines`` as a periodic task (None when that module is not there)."""
    try:
        from pbem.deadlines import tick
    except ImportError:  # pragma: no cover
        return None
    moderator = config.require_moderator()

    def deadlines(now: datetime) -> None:
        tick(db, now, mail_domain=moderator.domain, moderator_address=moderator.address,
             game_master=moderator.game_master or None)

    return deadlines

