"""One pass of the moderator's mail flow: read the inbox, handle each mail in its own transaction, deliver.

``pbem poll --once`` and ``pbem run`` (``pbem.daemon.service``: one pass
and exit, or passes between waits for mail) both use :class:`MailFlow`,
which does one pass:

1. *Recovery* (first pass after connecting): claims left by a dead process
   of this host are freed; messages still in the inbox at or below the
   stored position were queued but not moved (a crash between the commit
   and the move); they are found queued or handled (``duplicate``) and moved.
2. ``fetch_new`` above the stored position (``mailbox_state``), by UID, in
   batches; a changed UIDVALIDITY rereads the whole inbox, and what was
   handled before is skipped by its key.
3. Each batch goes into the inbound queue in one transaction with the new
   position (``pbem.daemon.intake.receive``), then each message is moved to
   the processed folder (bytes that are no mail at all: to the failed
   folder). Then the queue is handled (``intake.drain``: one transaction per
   message, ``pbem.moderator.inbound.handler.process_message``), in this thread, or
   by the workers of ``pbem run --workers N`` (``pbem.daemon.workers``).
   A message whose handling fails stays in the queue, set aside, for the game
   master (``pbem inbox``). A database that cannot be reached stops the pass
   with the mail left in the inbox.
4. The moves whose mail nobody writes: each handled message's move is told
   by its worker right after its commit (``pbem.moderator.notify.telling``);
   a pass tells those a process left when it died, or that another left
   for too long (:meth:`MailFlow.tell_left_over`).
5. The outbox: :func:`pbem.daemon.sender.deliver_due` (by the
   sender thread of ``pbem.daemon.workers`` under ``pbem run``).
6. Periodic tasks (the deadline tick of ``pbem.moderator.tick``), when given, by
   the one process that holds their lease.

Several processes may share one database: the one holding the inbox's lease
reads it; the others handle the queue and send, and take the lease over when
its holder stops (``pbem.daemon.service.Daemon``).

The daemon delivers the outbox after every pass and at least every
``outbox_interval`` seconds (mail queued by the game master's commands goes
out without waiting for a player's mail), and waits with IDLE in between,
renewed every ``[imap] idle_refresh`` seconds (default 9 minutes, well inside
the 29 minutes of RFC 2177 and the NAT timeouts seen in practice).

Logging goes to the ``pbem.daemon`` loggers (the handling of one mail to
``pbem.moderator.inbound``): outcomes, moves, reconnects.
Never a password (the mail layer masks them), never a token (no header of a
mail to a player is logged), never a message body.
"""
from __future__ import annotations

import logging
import ssl
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from pbem.config import Config
from pbem.crash import crash_point
from pbem.daemon.intake import ReceiptStatus, Received, drain, receive
from pbem.daemon.mailbox import Mailbox
from pbem.daemon.outages import Outages, Service, recorder
from pbem.daemon.sender import DeliveryReport, deliver_due, next_due
from pbem.daemon.workers import Lease
from pbem.holders import gone, holder_name
from pbem.mail import FetchedMessage, MailboxPosition, MaildirInbox, SmtpSender
from pbem.moderator.games import Moderator
from pbem.moderator.inbound.handler import DatabaseUnavailable
from pbem.moderator.inbound.outcome import DUPLICATE, Outcome
from pbem.moderator.notify.telling import tell_left_over
from pbem.moderator.tick import tick
from pbem.store.inbound import load_position
from pbem.store.inqueue import reclaim as reclaim_messages
from pbem.store.outbox import drop_unused_pictures, forget_sent_texts
from pbem.store.outbox import reclaim as reclaim_mail

log = logging.getLogger("pbem.daemon")

FETCH_LIMIT = 50  # messages per fetch: bounded memory, the outbox gets its turn between batches
FETCH_LEASE = 300.0  # seconds: renewed at every pass, and a pass comes at least every outbox interval
RECLAIM_INTERVAL = 60.0  # seconds between looks for claims of dead processes while helping
HELP_INTERVAL = 1.0  # seconds between looks at the queue when another process reads the inbox
TASK_LEASE = 180.0  # seconds, at least three task intervals: one process runs the deadline tick
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
                 fetch_limit: int = FETCH_LIMIT, apply_inline: bool = True) -> None:
        self.config = config
        self.db = db
        self.moderator = moderator or Moderator(db)
        self.clock = clock
        self._context: ssl.SSLContext | None = None
        # No inbox in the configuration: mail comes by LMTP (``pbem.daemon.lmtp``), the queue is all there is.
        self.has_inbox = inbox_factory is not None or config.inbox_configured
        self.inbox_factory = inbox_factory or default_inbox_factory(config, self.ssl_context)
        self.sender_factory = sender_factory or (
            lambda: SmtpSender(config.require_smtp(), ssl_context=self.ssl_context()))
        self.tasks = list(tasks)
        self.task_interval = task_interval
        self._tasks_ran: float | None = None  # time.monotonic() of the last run
        self.fetch_limit = fetch_limit
        self.apply_inline = apply_inline
        self.worker = holder_name("apply")
        self._wake: Callable[[], None] = lambda: None
        self.queued = threading.Event()  # set when mail was queued (here, or elsewhere: QueueListener)
        self._send_soon: Callable[[], None] | None = None
        config.require_moderator()
        self.outages = Outages(record=recorder(db, clock))  # what this process cannot reach (its threads share it)
        self.fetch_lease = Lease(db, f"fetch:{inbox_identity(config)}", FETCH_LEASE, clock, self.outages)
        self.task_lease = Lease(db, "periodic-tasks", max(TASK_LEASE, 3 * task_interval), clock, self.outages)

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
        mailbox = mailbox_name(inbox)
        stored = self._position(mailbox)
        if recover:
            self.reclaim()
            if stored is not None and stored.uidvalidity == inbox.uidvalidity:
                leftovers = _leftovers(inbox, stored.last_uid)
                if leftovers:
                    log.info("%d message(s) queued before but still in the inbox: moving them", len(leftovers))
                    self._take(inbox, mailbox, leftovers, None, report, recovering=True)
        position = stored
        while True:
            result = inbox.fetch_new(position, limit=self.fetch_limit)
            if result.uidvalidity_changed:
                report.uidvalidity_changed = True
                log.warning("UIDVALIDITY of %s changed (%s -> %s): reading the whole inbox again; "
                            "messages handled before are skipped", mailbox,
                            position.uidvalidity if position else "?", result.position.uidvalidity)
            crash_point("after_fetch")
            moved = result.position if position != result.position else None
            self._take(inbox, mailbox, result.messages, moved, report)
            position = result.position
            if not result.more:
                return report

    def _take(self, inbox: Any, mailbox: str, messages: Sequence[FetchedMessage], position: MailboxPosition | None,
              report: PassReport, *, recovering: bool = False) -> None:
        """Queue ``messages`` (and the new ``position``) in one transaction, move them out of the inbox, and
        handle the queue unless separate workers do."""
        batch = [Received(m.raw, "imap", mailbox, inbox.uidvalidity, m.uid) for m in messages]
        if batch or position is not None:
            at = (mailbox, position.uidvalidity, position.last_uid) if position is not None else None
            receipts = receive(self.db, self.config, batch, self.clock(), at)
            processed: list[int] = []
            for fetched, receipt in zip(messages, receipts, strict=True):
                crash_point("after_commit_before_move")
                if receipt.status is ReceiptStatus.UNREADABLE:
                    log.error("message UID %s of %s is no mail, moved to the failed folder: %s", fetched.uid,
                              mailbox, receipt.reason)
                    inbox.move_to_failed(fetched.uid)
                    report.failed.append((fetched.uid, receipt.reason))
                    continue
                processed.append(fetched.uid)
                if recovering:
                    report.recovered += 1
                if receipt.status is ReceiptStatus.HANDLED:
                    report.outcomes.append(Outcome(receipt.key, DUPLICATE, receipt.reason))
            inbox.move_to_processed(*processed)  # one command for the batch: the queue holds them all already
        if self.apply_inline:
            report.outcomes += self.apply_queue()
        elif batch:
            self.wake_workers()

    def apply_queue(self) -> list[Outcome]:
        """Handle what is queued, in this thread (see ``pbem.daemon.intake``), logging each outcome."""
        def handled(outcome: Outcome) -> None:
            self.log_outcome(outcome)
            if self._send_soon is not None and outcome.queued:
                self._send_soon()

        return drain(self.db, self.config, self.worker, self.clock, moderator=self.moderator, after_each=handled)

    @staticmethod
    def log_outcome(outcome: Outcome) -> None:
        where = f" game {outcome.game}" if outcome.game else ""
        who = f" seat {outcome.player}" if outcome.player else ""
        versions = (f" v{outcome.version_before}->{outcome.version}"
                    if outcome.version is not None and outcome.version_before is not None else "")
        log.info("message %s from %s:%s%s%s %s (%s); %d mail(s) queued", outcome.key, outcome.sender or "?", where,
                 who, versions, outcome.outcome, outcome.reason, len(outcome.queued))

    def reclaim(self) -> None:
        """Claims left by a process of this host that died (a crash, a kill) are free again at once; pictures
        no mail carries any more (two senders each left one to the other) go."""
        try:
            with self.db.transaction() as session:
                messages = reclaim_messages(session, gone)
                mails = reclaim_mail(session, gone, self.clock())
                drop_unused_pictures(session)
        except SQLAlchemyError as exc:
            raise DatabaseUnavailable(f"database unavailable: {_first_line(exc)}") from None
        if messages or mails:
            log.info("a stopped process left %d message(s) and %d mail(s) claimed: taken back", messages, mails)

    def wake_workers(self) -> None:
        """Mail was queued: wake what handles the queue, the appliers' threads or else this loop (the loop
        woken for nothing would look at the outbox and the deadlines just as a worker starts on the mail)."""
        if self.apply_inline:
            self.queued.set()
        self._wake()

    def on_sending(self, wake: Callable[[], None]) -> None:
        """A sender thread delivers the outbox (``pbem.daemon.workers.Sender``): ``wake`` starts it."""
        self._send_soon = wake

    @property
    def sending_elsewhere(self) -> bool:
        return self._send_soon is not None

    def send_soon(self) -> None:
        """Deliver what is due: by the sender thread when there is one, else here and now."""
        if self._send_soon is not None:
            self._send_soon()
        else:
            self.deliver()

    def on_queued(self, wake: Callable[[], None]) -> None:
        """What to call when mail was queued and the workers apply it (``apply_inline`` off)."""
        self._wake = wake

    def _position(self, mailbox: str) -> MailboxPosition | None:
        try:
            with self.db.transaction() as session:
                stored = load_position(session, mailbox)
        except SQLAlchemyError as exc:
            raise DatabaseUnavailable(f"database unavailable: {_first_line(exc)}") from None
        return None if stored is None else MailboxPosition(stored.uidvalidity, stored.last_uid)

    # --- the moves to tell, the outbox and the periodic tasks ---------------------------------------------

    def tell_left_over(self) -> int:
        """Write the mail of the moves nobody tells (``pbem.moderator.notify.telling.tell_left_over``: their
        process died between the move and its mail, or left them too long); the number of mails queued."""
        try:
            told = tell_left_over(self.db, self.config.require_moderator(), holder=holder_name("tell"),
                                  now=self.clock)
        except SQLAlchemyError as exc:
            self.outages.down(Service.DATABASE, _first_line(exc))
            return 0
        if told.moves:
            log.info("the mail of %d move(s) left by another process written: %d mail(s) queued", told.moves,
                     len(told.queued))
        return len(told.queued)

    def deliver(self, sender: SmtpSender | None = None, *, keep_open: bool = False) -> DeliveryReport:
        """Deliver the due outbox once (over ``sender``, left open with ``keep_open``: ``pbem run``'s sender
        thread keeps its connection); a relay or a database that cannot be reached is reported, not raised,
        and told to :attr:`outages` (which logs it once per outage and names it)."""
        try:
            report = deliver_due(self.db, sender or self.sender_factory(), self.clock(),
                                 moderator=self.config.moderator, limits=self.config.limits, keep_open=keep_open)
        except SQLAlchemyError as exc:
            self.outages.down(Service.DATABASE, _first_line(exc))
            return DeliveryReport(unavailable=f"database unavailable: {_first_line(exc)}")
        self.outages.up(Service.DATABASE)
        if report.unavailable is not None:
            self.outages.down(Service.RELAY, report.unavailable)
        elif report.sent or report.failed or report.retried:  # it answered (with nothing due, who knows)
            self.outages.up(Service.RELAY)
        return report

    def may_deliver(self) -> bool:
        """Whether the daemon's next delivery may be tried now: not while the relay's or the database's wait
        after a failed try runs (``pbem poll`` tries once whatever)."""
        return not (self.outages.wait_left(Service.RELAY) or self.outages.wait_left(Service.DATABASE))

    def run_tasks(self, *, force: bool = True) -> list[str]:
        """Run the periodic tasks (unless ``force`` is off and they ran less than ``task_interval`` ago).

        A failing task is logged (and named in the result), never fatal.
        """
        now = time.monotonic()
        if not force and self._tasks_ran is not None and now - self._tasks_ran < self.task_interval:
            return []
        self._tasks_ran = now
        if self.tasks and not self.task_lease.hold():  # another process runs them (one deadline ticker)
            return []
        problems = []
        for task in self.tasks:
            try:
                task(self.clock())
            except Exception as exc:  # a task's bug must not stop the moderator
                log.exception("periodic task %s failed", getattr(task, "__name__", task))
                problems.append(f"{getattr(task, '__name__', 'task')}: {exc}")
        return problems

    def seconds_to_next_mail(self, ceiling: float) -> float:
        """Seconds until the next queued mail is due and may be tried (not while the relay's wait after a
        failed try runs), within [0.5, ceiling]."""
        try:
            due = next_due(self.db)
        except SQLAlchemyError:
            return ceiling
        if due is None:
            return ceiling
        if due.tzinfo is None:  # SQLite hands back naive UTC
            due = due.replace(tzinfo=UTC)
        relay = self.outages.wait_left(Service.RELAY)
        return max(0.5, min(ceiling, max(relay, (due - self.clock()).total_seconds())))


def default_inbox_factory(config: Config, context: Callable[[], ssl.SSLContext] | None = None,
                          use_idle: bool | None = None) -> Callable[[], Any]:
    """The inbox of ``config``: a :class:`Mailbox` over ``[imap]``, or a Maildir over ``[maildir]``."""
    maildir = getattr(config, "maildir", None)
    if maildir is not None:
        return lambda: MaildirInbox(maildir)
    return lambda: Mailbox(config.require_imap(), ssl_context=context() if context else None, use_idle=use_idle)


def inbox_identity(config: Config) -> str:
    """Which inbox ``config`` reads, as a lease name: one reader per inbox, whatever the processes."""
    maildir = getattr(config, "maildir", None)
    if maildir is not None:
        return f"maildir:{maildir.path}"
    imap = getattr(config, "imap", None)
    return "none" if imap is None else f"imap:{imap.username}@{imap.host}:{imap.port}/{imap.mailbox}"


def mailbox_name(inbox: Any) -> str:
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


FORGET_EVERY = 3600.0  # seconds between looks for sent mail whose text is no longer kept
FORGET_BATCH = 500  # mails per transaction when their texts are dropped


def forgetting_task(config: Config, db: Any) -> Task | None:
    """Sent mail older than ``[limits] keep_sent_mail_days`` loses its text (``pbem.store.outbox.forget_sent_texts``),
    looked for once an hour, a batch per transaction; None when the texts are kept for ever (0 days)."""
    days = config.limits.keep_sent_mail_days
    if days <= 0:
        return None
    looked: float | None = None  # time.monotonic() of the last look

    def forget(now: datetime) -> None:
        nonlocal looked
        if looked is not None and time.monotonic() - looked < FORGET_EVERY:
            return
        looked = time.monotonic()
        forgotten = FORGET_BATCH
        while forgotten == FORGET_BATCH:
            with db.transaction() as session:
                forgotten = forget_sent_texts(session, now - timedelta(days=days), FORGET_BATCH)
            if forgotten:
                log.info("the texts of %d mail(s) sent over %d days ago are no longer kept", forgotten, days)

    return forget


def deadline_task(config: Config, db: Any) -> Task:
    """The deadline tick (``pbem.moderator.tick``) as a periodic task of the daemon."""
    moderator = config.require_moderator()

    def deadlines(now: datetime) -> None:
        tick(db, now, mail_domain=moderator.domain, moderator_address=moderator.address,
             game_master=moderator.game_master or None)

    return deadlines

