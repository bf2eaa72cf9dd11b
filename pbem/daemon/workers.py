"""Worker threads that handle the inbound queue, and the leases that keep single jobs single.

``pbem run --workers N`` (and ``pbem lmtp``) hand the queue to N threads: the
receiver only queues mail and goes back to waiting, each worker claims a
message (``pbem.daemon.intake``), handles it, and delivers the outbox right
after, so a player's answer leaves as soon as it is written. Workers are
woken at once by a receiver of the same process, and look at the queue every
``poll`` seconds anyway (mail queued by another process: a second ``pbem
run``, an LMTP server on another host).

Why threads and not processes: handling a message is mostly database and
SMTP round trips (the GIL is released while waiting); several processes on
one PostgreSQL database work as well (claims, not locks), which is the way to
use more cores (docs/running.md).
"""
from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from pbem.daemon.intake import QUEUE_CHANNEL, drain
from pbem.daemon.outages import Outages, Service
from pbem.holders import gone, holder_name
from pbem.mail import SmtpSender
from pbem.moderator.inbound.handler import DatabaseUnavailable
from pbem.store.leases import release_lease, take_lease

if TYPE_CHECKING:
    from pbem.daemon.loop import MailFlow
    from pbem.daemon.sender import DeliveryReport
    from pbem.moderator.inbound.outcome import Outcome
    from pbem.store import Database

log = logging.getLogger("pbem.daemon")
KEEP_OPEN = 30.0  # seconds the sender keeps an idle SMTP connection for the next mail
_leases = itertools.count(1)


class Appliers:
    """N threads draining the inbound queue of ``flow``; ``start``, ``wake`` when mail was queued, ``stop``."""

    def __init__(self, flow: MailFlow, count: int, *, poll: float = 1.0) -> None:
        self.flow = flow
        self.count = count
        self.poll = poll
        self._stop = threading.Event()
        self._bell = threading.Condition()
        self._rings = 0
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        for number in range(self.count):
            thread = threading.Thread(target=self._work, name=f"pbem-apply-{number + 1}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def wake(self) -> None:
        """A message was queued: one idle worker starts on it (a worker busy draining sees it anyway).

        Why one, not all: every worker woken tries to claim, and on SQLite
        the ones that lose wait for the winner's write, as the sender does.
        """
        with self._bell:
            self._rings += 1
            self._bell.notify()

    def stop(self, timeout: float = 30.0) -> None:
        """Stop after the message at hand (its transaction ends either way: nothing is half done)."""
        self._stop.set()
        with self._bell:
            self._rings += 1
            self._bell.notify_all()
        for thread in self._threads:
            thread.join(timeout)

    def _work(self) -> None:
        name = holder_name("apply")
        flow = self.flow
        while not self._stop.is_set():
            with self._bell:
                rings = self._rings
            pause = flow.outages.wait_left(Service.DATABASE)
            if pause:  # found down (here or by another thread): no try before its wait has run
                self._stop.wait(pause)
                continue
            try:
                outcomes = drain(flow.db, flow.config, name, flow.clock, moderator=flow.moderator,
                                 stopping=self._stop.is_set, after_each=self._handled)
                flow.outages.up(Service.DATABASE)
            except DatabaseUnavailable as exc:
                flow.outages.down(Service.DATABASE, str(exc))  # said once per outage
                continue
            except Exception:  # a bug must not end the worker: the message stays claimed until its lease ends
                log.exception("worker %s: unexpected error", name)
                outcomes = []
            if outcomes:
                continue
            with self._bell:
                if self._rings == rings:  # no mail was queued while the queue was read: wait for some
                    self._bell.wait(self.poll)


    def _handled(self, outcome: Outcome) -> None:
        """Each message as it is done: its mail goes now, while the queue is looked at again."""
        self.flow.log_outcome(outcome)
        if outcome.queued:
            self.flow.send_soon()


class Sender:
    """One thread that delivers the outbox whenever it is woken (mail was queued), and every ``interval``.

    Why a thread of its own: the SMTP conversation is mostly waiting, and the
    next message can be handled meanwhile; and one sender per process keeps
    one connection's worth of mail together. The connection outlives a run
    of the outbox by up to ``KEEP_OPEN`` seconds: under load the next order's
    mail follows within moments, and a connection per run cost a TCP and
    EHLO round trip (with TLS and a login at a real provider) per order.
    """

    def __init__(self, flow: MailFlow, interval: float) -> None:
        self.flow = flow
        self.interval = interval
        self._stop = threading.Event()
        self._due = threading.Event()
        self._thread = threading.Thread(target=self._work, name="pbem-send", daemon=True)
        self._smtp: SmtpSender | None = None

    def start(self) -> None:
        self._thread.start()

    def wake(self) -> None:
        self._due.set()

    def stop(self, timeout: float = 30.0) -> None:
        self._stop.set()
        self._due.set()
        self._thread.join(timeout)

    def _work(self) -> None:
        next_round = time.monotonic() + self.interval
        try:
            while not self._stop.is_set():
                woken = self._due.wait(self._pause(next_round))
                self._due.clear()
                if self._stop.is_set():
                    return
                if not woken and time.monotonic() < next_round:  # only the kept connection's time is up
                    self._close()
                    continue
                self._round()
                next_round = time.monotonic() + self.interval
        finally:
            self._close()

    def _pause(self, next_round: float) -> float:
        """Until the next round, or until the kept connection has idled ``KEEP_OPEN`` seconds if sooner."""
        wait = max(0.0, next_round - time.monotonic())
        idle = self._smtp.idle_for() if self._smtp is not None else None
        return wait if idle is None else min(wait, max(0.0, KEEP_OPEN - idle))

    def _round(self) -> None:
        if not self.flow.may_deliver():  # the relay or the database was found down: its wait runs
            return
        try:
            self._deliver()  # what cannot be reached is told to flow.outages, which says so once
        except Exception:  # a bug must not end the sender: the mail stays queued
            log.exception("the sender failed; the outbox waits for the next round")
            self._close()

    def _deliver(self) -> DeliveryReport:
        """``MailFlow.deliver`` over the kept connection."""
        if self._smtp is None:
            self._smtp = self.flow.sender_factory()
        return self.flow.deliver(self._smtp, keep_open=True)

    def _close(self) -> None:
        if self._smtp is not None:
            self._smtp.close()


class QueueListener:
    """On PostgreSQL: wake this process's workers when any process queued mail (LISTEN/NOTIFY).

    Why: a process that does not read the inbox would otherwise look at the
    queue only every second or so; with several processes the mail should go
    to whichever worker is free at once.
    """

    def __init__(self, flow: MailFlow) -> None:
        self.flow = flow
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._listen, name="pbem-listen", daemon=True)

    @staticmethod
    def wanted(flow: MailFlow) -> bool:
        return bool(flow.db.url.get_backend_name() == "postgresql")

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)

    def _listen(self) -> None:
        import psycopg

        conninfo = self.flow.db.url.set(drivername="postgresql").render_as_string(hide_password=False)
        while not self._stop.is_set():
            try:
                with psycopg.connect(conninfo, autocommit=True) as connection:
                    connection.execute(f"LISTEN {QUEUE_CHANNEL}")
                    while not self._stop.is_set():
                        for _ in connection.notifies(timeout=1.0):
                            self.flow.wake_workers()
            except psycopg.Error as exc:  # the workers still look every second; try again shortly
                error = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                self._stop.wait(max(5.0, self.flow.outages.down(Service.DATABASE, error)))


class Lease:
    """One named lease held by this process (``pbem.store.leases``): ``hold()`` takes or renews it."""

    def __init__(self, db: Database, name: str, seconds: float, clock: Callable[[], datetime],
                 outages: Outages | None = None) -> None:
        self.db = db
        self.name = name
        self.seconds = seconds
        self.clock = clock
        self.outages = outages  # told whether the database answered (else each failure is a warning)
        self.holder = holder_name(f"lease{next(_leases)}")  # two flows of one thread are two holders
        self.held = False

    def hold(self) -> bool:
        try:
            with self.db.transaction() as session:
                self.held = take_lease(session, self.name, self.holder, self.clock(), self.seconds, gone)
        except Exception as exc:  # no database: nobody holds it as far as we can tell
            if self.outages is None:
                log.warning("lease %s not taken: %s", self.name, exc)
            else:
                self.outages.down(Service.DATABASE, f"lease {self.name} not taken: {_first_line(exc)}")
            self.held = False
            return False
        if self.outages is not None:
            self.outages.up(Service.DATABASE)
        return self.held

    def release(self) -> None:
        if not self.held:
            return
        try:
            with self.db.transaction() as session:
                release_lease(session, self.name, self.holder)
        except Exception as exc:  # it runs out by itself
            log.warning("lease %s not released: %s", self.name, exc)
        self.held = False


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
