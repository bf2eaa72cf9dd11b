"""A moderator process's heartbeat: its row in ``processes`` (``pbem.store.processes``), renewed by a thread.

Why a thread of its own: the loop may wait minutes in IMAP IDLE, or an
LMTP server may have nothing to do for hours; the process still lives, and
``pbem status`` must be able to say so from its row, whatever the loop is
doing. What the process is doing is the loop's to say (``describe``, asked
at every beat).

The first beat is written before :meth:`Heartbeat.start` returns, so a
process is listed as soon as it serves; :meth:`Heartbeat.stop` deletes the
row (a clean stop is not a death). A killed process leaves its row, which
readers count as stopped once :data:`HEARTBEAT_EXPIRY` has passed since its
last beat (at once when it was a process of their own host that no longer
runs, ``pbem.holders.gone``); rows silent for :data:`FORGET_AFTER` are
deleted by any beating process, so a host that kills processes for months
does not collect them.

A database that cannot be reached makes a beat fail: that is logged at
DEBUG only (the process's outages say it once, ``pbem.daemon.outages``),
and the next beat tries again.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from pbem import __version__
from pbem.holders import host_name, process_name
from pbem.store.processes import Process, beat, expiry_of, forget, forget_older

log = logging.getLogger("pbem.daemon")

HEARTBEAT_INTERVAL = 15.0  # seconds between beats
HEARTBEAT_EXPIRY = expiry_of(HEARTBEAT_INTERVAL)  # a process silent this long counts as stopped (one minute)
FORGET_AFTER = timedelta(days=1)  # a stopped process's row is shown this long, then deleted
FORGET_EVERY = 3600.0  # seconds between looks for such rows


class Heartbeat:
    """The row of this process (``role``: ``run``, ``lmtp`` or ``poll``): ``start``, then ``stop``.

    ``describe`` says what the process is doing, in a few words for ``pbem status``.
    """

    def __init__(self, db: Any, role: str, clock: Callable[[], datetime], *,
                 describe: Callable[[], str] = lambda: "", interval: float = HEARTBEAT_INTERVAL) -> None:
        self.db = db
        self.role = role
        self.clock = clock
        self.interval = interval
        self.name = process_name(role)
        self.describe = describe
        self._started: datetime | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._forgot = -FORGET_EVERY  # time.monotonic() of the last look for old rows

    def start(self) -> None:
        """The first beat now, then one every ``interval`` seconds from a thread."""
        self._started = self.clock()
        self.beat()
        self._thread = threading.Thread(target=self._run, name="pbem-heartbeat", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """A clean stop: no more beats, and the row goes (no reader will take this process for a dead one)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10.0)
        try:
            with self.db.transaction() as session:
                forget(session, self.name)
        except SQLAlchemyError as exc:  # the row ages out instead
            log.debug("heartbeat row not deleted: %s", exc)

    def beat(self) -> bool:
        """Write the row (``seen`` now, what it does); whether it was written."""
        now = self.clock()
        try:
            doing = self.describe()
        except Exception:  # the words are a courtesy: a bug there must not stop the beats
            doing = "?"
        started = self._started or now
        process = Process(self.name, self.role, host_name(), os.getpid(), __version__, started, now,
                          now + expiry_of(self.interval), doing)
        try:
            with self.db.transaction() as session:
                beat(session, process)
                if time.monotonic() - self._forgot >= FORGET_EVERY:
                    self._forgot = time.monotonic()
                    forgotten = forget_older(session, now - FORGET_AFTER)
                    if forgotten:
                        log.info("%d process(es) stopped over a day ago no longer listed", forgotten)
        except SQLAlchemyError as exc:
            log.debug("heartbeat not written: %s", exc)
            return False
        return True

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.beat()
