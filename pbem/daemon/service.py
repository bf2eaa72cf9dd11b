"""The moderator as a service: ``pbem run`` (:class:`Daemon`) and ``pbem poll --once`` (:func:`poll_once`).

Both drive :class:`pbem.daemon.loop.MailFlow`, which does one pass (the
inbox, the queue, the moves left to tell, the outbox, the periodic tasks;
see ``pbem.daemon.loop``). Here is what surrounds the passes: for cron, one
pass and exit; for a service, IMAP IDLE (or polling when the server has no
IDLE), reconnecting with growing waits, stopping cleanly on SIGTERM/SIGINT,
and helping another process that holds the inbox's lease.

Why a module of its own: the pass is what every transport shares (``pbem
lmtp`` runs the same flow without an inbox); how a process waits, retries
and stops is the service's business.
"""
from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from pbem.daemon.loop import HELP_INTERVAL, RECLAIM_INTERVAL, MailFlow, PassReport, mailbox_name
from pbem.daemon.outages import FIRST_WAIT, MAX_WAIT, Service
from pbem.daemon.sender import DeliveryReport
from pbem.mail import MailboxError
from pbem.moderator.inbound.handler import DatabaseUnavailable

log = logging.getLogger("pbem.daemon")  # the same logger as the pass: one process, one voice


# --- pbem poll --once ------------------------------------------------------------------------------


@dataclass
class PollReport:
    inbox: PassReport | None
    outbox: DeliveryReport
    problems: list[str] = field(default_factory=list)
    read_inbox: bool = True  # False: the configuration has no inbox (mail comes by LMTP), only the queue was handled

    @property
    def ok(self) -> bool:
        return not self.problems and self.outbox.ok


def poll_once(flow: MailFlow) -> PollReport:
    """The inbox once, the periodic tasks once, the outbox once (``pbem poll --once``).

    An inbox or database that cannot be reached is reported in ``problems``
    (the outbox is still delivered); nothing is lost either way. An inbox that
    cannot be read is also told to the process's outages, as ``pbem run``
    tells it, so that ``pbem status`` names it until a poll reads it again.
    """
    problems: list[str] = []
    report: PassReport | None = None
    inbox = None
    try:
        if not flow.has_inbox:
            log.info("no inbox configured: mail comes by LMTP; handling the queue only")
            flow.reclaim()
            report = PassReport(outcomes=flow.apply_queue())
        elif flow.fetch_lease.hold():
            inbox = flow.open_inbox()
            report = flow.process_inbox(inbox, recover=True)
            flow.outages.up(Service.INBOX)
        else:  # a running ``pbem run`` reads the inbox: only help with what is queued
            log.info("the inbox is read by another process; handling the queue only")
            flow.reclaim()
            report = PassReport(outcomes=flow.apply_queue())
    except (MailboxError, DatabaseUnavailable) as exc:
        problems.append(str(exc))
        log.error("inbox not processed: %s", exc)
        if isinstance(exc, MailboxError):  # written for ``pbem status``; said once above, not "trying again"
            flow.outages.record(Service.INBOX, str(exc))
    finally:
        if inbox is not None:
            inbox.close()
        flow.fetch_lease.release()
    problems += flow.run_tasks()
    flow.tell_left_over()
    delivery = flow.deliver()
    flow.task_lease.release()
    return PollReport(report, delivery, problems, read_inbox=flow.has_inbox)


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

    def __init__(self, flow: MailFlow, *, outbox_interval: float = 60.0, min_backoff: float = FIRST_WAIT,
                 max_backoff: float = MAX_WAIT, wait_slice: float | None = None, read_inbox: bool = True) -> None:
        self.flow = flow
        flow.outages.first_wait, flow.outages.max_wait = min_backoff, max_backoff  # the waits after a failed try
        self.read_inbox = read_inbox  # off for ``pbem lmtp``: the mail comes to it
        self.outbox_interval = outbox_interval
        self.min_backoff = min_backoff
        self.max_backoff = max_backoff
        self.wait_slice = wait_slice
        self._stop = threading.Event()
        self._interruptible = False
        self.passes = 0
        self.connects = 0
        self._helping = False
        self._reclaimed = -RECLAIM_INTERVAL  # time.monotonic() of the last look for a dead process's claims
        self.activity = "starting"  # what the loop does now, for the heartbeat (pbem.daemon.heartbeat)
        self.listening: str | None = None  # what else this process serves ("takes mail by LMTP on …")

    def describe(self) -> str:
        """What this process does, in a few words for ``pbem status`` (its heartbeat asks at every beat)."""
        parts = [self.listening] if self.listening else []
        parts.append(self.activity)
        if self.flow.task_lease.held:
            parts.append("checks the deadlines")
        return "; ".join(parts)

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
        """Read the inbox while this process holds its lease; else (another process reads it) help with the
        queue, the periodic tasks and the outbox, and try the lease again now and then."""
        backoff = self.min_backoff
        log.info("pbem moderator started%s", "" if self.read_inbox else
                 " without an inbox (mail comes by LMTP): it handles the queue, the deadlines and the outbox")
        try:
            while not self.stopping:
                try:
                    if self.read_inbox and self.flow.fetch_lease.hold():
                        self._read_inbox()
                    else:
                        self._help()
                    backoff = self.min_backoff
                except _Interrupted:
                    break
                except Exception as exc:  # the daemon carries on
                    if self.stopping:
                        break
                    wait = backoff
                    if isinstance(exc, MailboxError | DatabaseUnavailable):  # said once per outage, named
                        service = Service.INBOX if isinstance(exc, MailboxError) else Service.DATABASE
                        wait = self.flow.outages.down(service, str(exc))
                        self.activity = f"waits for {service.words}, which cannot be reached"
                    else:  # a bug: say so loudly, but keep the moderator running
                        log.exception("unexpected error; trying again in %g s", backoff)
                        backoff = min(self.max_backoff, backoff * 2)
                    try:
                        self._sleep(wait)
                    except _Interrupted:
                        break
        finally:
            self.activity = "stopping"
            self.flow.fetch_lease.release()
            self.flow.task_lease.release()
        log.info("pbem moderator stopped")

    def _read_inbox(self) -> None:
        inbox = self.flow.open_inbox()
        self.flow.outages.up(Service.INBOX)
        try:
            self.connects += 1
            mode = "IDLE" if getattr(inbox, "uses_idle", False) else "polling"
            log.info("inbox %s open (%s)", mailbox_name(inbox), mode)
            self.activity = f"reads the inbox {mailbox_name(inbox)} ({mode})"
            recover = True
            while not self.stopping:
                self.flow.process_inbox(inbox, recover=recover)
                self.flow.outages.up(Service.DATABASE)
                recover = False
                self.passes += 1
                self._chores()
                if self.stopping or not self.flow.fetch_lease.hold():
                    return
                with self._waiting():
                    inbox.wait_for_mail(self._timeout())
        finally:
            _close(inbox)

    def _help(self) -> None:
        """One round without the inbox: another process reads it (``pbem.daemon.workers``)."""
        if not self._helping and self.read_inbox:
            log.info("another process reads the inbox: this one handles the queue, and reads the inbox "
                     "when that process stops")
        self._helping = True
        self.activity = ("handles the queue and the outbox; another process reads the inbox" if self.read_inbox
                         else "handles the queue and the outbox")
        database_down = self.flow.outages.wait_left(Service.DATABASE)
        if database_down:  # the workers or the sender found it down: no try before its wait has run
            self._sleep(database_down)
            return
        if time.monotonic() - self._reclaimed >= RECLAIM_INTERVAL:  # not at every look at the queue
            self.flow.reclaim()
            self._reclaimed = time.monotonic()
        if self.flow.apply_inline:
            self.flow.apply_queue()
        self._chores()
        if not self.stopping:
            with self._waiting():
                self.flow.queued.wait(min(self._timeout(), HELP_INTERVAL))
            self.flow.queued.clear()

    def _chores(self) -> None:
        self.flow.run_tasks(force=False)
        self.flow.tell_left_over()
        if self.flow.sending_elsewhere:
            self.flow.send_soon()
        elif self.flow.may_deliver():
            self.flow.deliver()

    def _timeout(self) -> float:
        timeout = self.flow.seconds_to_next_mail(min(self.outbox_interval, self.flow.task_interval)
                                                 if self.flow.tasks else self.outbox_interval)
        return timeout if self.wait_slice is None else min(timeout, self.wait_slice)


def _close(inbox: Any) -> None:
    try:
        inbox.close()
    except Exception:  # a connection dropped mid-IDLE: nothing to say goodbye to
        pass
