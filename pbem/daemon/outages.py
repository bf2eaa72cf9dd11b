"""What a moderator process cannot reach: one warning per outage, growing waits, one line when it is back.

Why: a relay or a database that is down for an hour must not write a
warning twice a second from every thread of every process, nor be tried
that often; and the line that says it is back must name what was down.
One :class:`Outages` per process (``MailFlow.outages``), shared by its
threads (the reader, the workers, the sender, the LMTP server):

* :meth:`Outages.down` at every failed try: the first one of an outage is
  logged as a warning, the later ones only at DEBUG; it returns how long to
  wait before the next try, doubling from ``FIRST_WAIT`` to ``MAX_WAIT``.
  :meth:`Outages.wait_left` tells every thread of the process how much of
  that wait is left, so that none of them tries sooner.
* :meth:`Outages.up` at a successful try: one INFO line when it had been
  down, saying for how long.

The SMTP relay's and the inbox's outages are also written to the database
(``pbem.store.outages``) through ``record``, so that ``pbem status`` can name
them from any host; a database outage is not (nothing could be written).
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING

from sqlalchemy.exc import SQLAlchemyError

from pbem.holders import holder_name
from pbem.store.outages import report_down, report_up

if TYPE_CHECKING:
    from pbem.store import Database

log = logging.getLogger("pbem.daemon")

FIRST_WAIT = 1.0  # seconds before the second try
MAX_WAIT = 60.0  # seconds: the longest wait between two tries (mail waits at most that long once it is back)


class Service(StrEnum):
    """What can be down; the value is the key of its row in ``pbem.store.outages``."""

    RELAY = "smtp"
    DATABASE = "database"
    INBOX = "inbox"

    @property
    def words(self) -> str:
        return {"smtp": "the SMTP relay", "database": "the database", "inbox": "the inbox"}[self.value]


RECORDED = (Service.RELAY, Service.INBOX)  # written to the database for ``pbem status``


@dataclass
class _Outage:
    since: float  # time.monotonic() of the first failed try
    wait: float  # seconds between the last failed try and the next one
    retry_at: float  # time.monotonic() after which the next try may be made
    error: str


Record = Callable[[Service, str | None], None]  # (service, error of a failed try | None: it works again)


def _no_record(service: Service, error: str | None) -> None:
    """Without a database to write to."""


def recorder(db: Database, clock: Callable[[], datetime]) -> Record:
    """A ``record`` that writes to ``db`` (``pbem.store.outages``), for ``pbem status``; a database that is
    down too is not written to (it says so itself)."""
    def record(service: Service, error: str | None) -> None:
        try:
            with db.transaction() as session:
                if error is None:
                    report_up(session, service.value)
                else:
                    report_down(session, service.value, error, holder_name(service.value), clock())
        except SQLAlchemyError as exc:
            log.debug("the outage of %s is not recorded: %s", service.words, str(exc).strip().splitlines()[:1])

    return record


class Outages:
    """The outages one process sees; thread-safe. ``record`` writes the RECORDED ones to the database."""

    def __init__(self, *, first_wait: float = FIRST_WAIT, max_wait: float = MAX_WAIT,
                 clock: Callable[[], float] = time.monotonic, record: Record = _no_record) -> None:
        self.first_wait = first_wait
        self.max_wait = max_wait
        self.clock = clock
        self.record = record
        self._lock = threading.Lock()
        self._down: dict[Service, _Outage] = {}
        self._known: set[Service] = set()  # seen working or down since this process started

    def down(self, service: Service, error: str) -> float:
        """A try of ``service`` failed with ``error``: seconds to wait before the next try (see the module)."""
        now = self.clock()
        with self._lock:
            outage = self._down.get(service)
            if outage is None:
                outage = self._down[service] = _Outage(now, self.first_wait, now + self.first_wait, error)
                first = True
            else:
                outage.wait = min(self.max_wait, outage.wait * 2)
                outage.retry_at, outage.error, first = now + outage.wait, error, False
            self._known.add(service)
            wait = outage.wait
        if first:
            log.warning("%s cannot be reached: %s; trying again with growing waits (at most %g s), "
                        "and saying so when it works again", service.words, error, self.max_wait)
        else:
            log.debug("%s still cannot be reached: %s; next try in %g s", service.words, error, wait)
        if service in RECORDED:
            self.record(service, error)
        return wait

    def up(self, service: Service) -> None:
        """A try of ``service`` worked: said once when it had been down."""
        with self._lock:
            outage = self._down.pop(service, None)
            first_look = service not in self._known
            self._known.add(service)
        if outage is not None:
            log.info("%s works again (it could not be reached for %s)", service.words,
                     _duration(self.clock() - outage.since))
        if service in RECORDED and (outage is not None or first_look):  # a row another run left is let go too
            self.record(service, None)

    def wait_left(self, service: Service) -> float:
        """Seconds before the next try of ``service`` may be made (0: now, it is not known to be down)."""
        with self._lock:
            outage = self._down.get(service)
            return 0.0 if outage is None else max(0.0, outage.retry_at - self.clock())

    def error(self, service: Service) -> str | None:
        """The last error of ``service`` while it is down (None: it is not known to be down)."""
        with self._lock:
            outage = self._down.get(service)
            return None if outage is None else outage.error


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
