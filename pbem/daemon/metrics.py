"""The metrics page a monitor scrapes (``[metrics] listen``): OpenMetrics over HTTP, in each daemon process.

``pbem run``, ``pbem lmtp`` and ``pbem poll`` start it when the
configuration (or ``--metrics-listen``) names an address; nothing listens
otherwise. A page shows two sorts of figure:

* what the database says at the moment of the scrape (:class:`StoreFigures`):
  the inbound queue's depth and the age of its oldest message, the mail set
  aside, the outbox by state and the age of its oldest unsent mail, whether
  the sending limits hold mail back, and whether the database, the SMTP
  relay and the inbox can be reached. Read at each scrape because every
  process shares the queue and the outbox: any process's page shows the
  true shared figures, and no process has to be scraped for them to be right;
* what this process did (``pbem.counters``): mails handled by outcome,
  mails sent, send failures, holds, deadline defaults and stand-in moves,
  and the order-to-mail latency. Counters start at zero with the process,
  as Prometheus expects (``rate()`` and ``increase()`` see the restart).

Why ``prometheus_client``: the exposition formats (the classic text one and
OpenMetrics, chosen by the scraper's ``Accept``), their escaping, and the
HTTP server are the library's, kept up with Prometheus; nothing here writes
the format by hand.

The page has no password (Prometheus exporters seldom do): it carries no
game name, address, token or error text, only counts by game kind and
state; it belongs on a loopback or private address all the same.
"""
from __future__ import annotations

import errno
import logging
import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, ProcessCollector, start_http_server
from prometheus_client.core import GaugeMetricFamily, InfoMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy.exc import SQLAlchemyError

from pbem import __version__, counters
from pbem.config import Limits, MetricsSettings
from pbem.daemon.outages import Outages, Service
from pbem.daemon.sendlimits import room
from pbem.errors import PbemError
from pbem.store import Database
from pbem.store.figures import outbox_figures, queue_figures
from pbem.store.models import utcnow
from pbem.store.outages import outages

log = logging.getLogger("pbem.daemon.metrics")


class CannotServeMetrics(PbemError):
    """The metrics address cannot be had (another process listens there, an address not of this host …)."""


class StoreFigures(Collector):
    """The shared figures, read from the database at each scrape (see the module docstring)."""

    def __init__(self, db: Database, limits: Limits, process_outages: Outages | None = None,
                 clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self.limits = limits
        self.outages = process_outages  # what this process found down (the database's own outage is not recorded)
        self.clock = clock

    def describe(self) -> Iterable[Metric]:
        return []  # read at each scrape only: nothing is to be done at registration

    def collect(self) -> Iterable[Metric]:
        now = self.clock()
        try:
            with self.db.transaction() as session:
                queue, outbox = queue_figures(session, now), outbox_figures(session, now)
                down = {outage.service for outage in outages(session)}
                held = room(session, self.limits, now)
            database = True
        except SQLAlchemyError as exc:
            log.debug("metrics: the database cannot be read: %s", type(exc).__name__)
            database, down = False, set()
        yield _gauge("pbem_database_up", "1 when this process could read the database at the scrape, else 0",
                     database)
        yield _gauge("pbem_relay_up", "0 when the SMTP relay could not be reached at the last try, by this process "
                     "or (as the database records it) by any other; else 1", not self._down(Service.RELAY, down))
        yield _gauge("pbem_inbox_up", "0 when the inbox (IMAP, Maildir) could not be read at the last try, by any "
                     "process; else 1", not self._down(Service.INBOX, down))
        if not database:
            return  # the shared figures are unknown: absent, not zero (an alert on them must not think all is well)
        queued = GaugeMetricFamily("pbem_inbound_queue_messages", "Received mails waiting to be handled (waiting), or "
                                   "being handled (claimed)", labels=["state"])
        queued.add_metric(["waiting"], queue.waiting)
        queued.add_metric(["claimed"], queue.claimed)
        yield queued
        yield _gauge("pbem_inbound_queue_oldest_age_seconds", "Seconds the oldest received mail not yet handled has "
                     "been in the queue (0: the queue is empty)", queue.oldest_age)
        yield _gauge("pbem_inbound_set_aside_messages", "Received mails whose handling failed, kept for the game "
                     "master (pbem inbox)", queue.set_aside)
        mails = GaugeMetricFamily("pbem_outbox_mails", "Mails in the outbox by state: due (its time has come; a "
                                  "sending limit may hold it), retrying (refused for the time being), later (not due "
                                  "yet: the relay asked us to slow down, or it was written ahead), failed "
                                  "(refused for good, kept), sent_recently (sent in the last hour)", labels=["state"])
        for state in ("due", "retrying", "later", "failed", "sent_recently"):
            mails.add_metric([state], getattr(outbox, state))
        yield mails
        yield _gauge("pbem_outbox_oldest_age_seconds", "Seconds since the oldest mail not yet sent was written "
                     "(0: nothing waits)", outbox.oldest_age)
        yield _gauge("pbem_outbox_held", "1 while a sending limit holds due mail back ([limits] max_mails_per_hour "
                     "or _per_day, or the relay asked us to slow down)", held.mails == 0)

    def _down(self, service: Service, recorded: set[str]) -> bool:
        return service.value in recorded or (self.outages is not None and self.outages.error(service) is not None)


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, value=float(value))


class _Version(Collector):
    def collect(self) -> Iterable[Metric]:
        info = InfoMetricFamily("pbem_build", "The pbem version this process runs")
        info.add_metric([], {"version": __version__})
        yield info


def registry_for(db: Database, limits: Limits, process_outages: Outages | None = None,
                 clock: Callable[[], datetime] = utcnow) -> CollectorRegistry:
    """What one process's page shows: its counters, the shared figures, its version and the process's own
    (CPU, memory, open files: ``process_*``)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(counters.REGISTRY)
    registry.register(StoreFigures(db, limits, process_outages, clock))
    registry.register(_Version())
    ProcessCollector(registry=registry)
    return registry


@dataclass
class MetricsServer:
    """The page, served by ``prometheus_client``'s HTTP server in a thread of its own."""

    server: WSGIServer
    thread: threading.Thread

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


def serve_metrics(settings: MetricsSettings, registry: CollectorRegistry) -> MetricsServer:
    """Listen on ``settings``' address (port 0: any free one); :class:`CannotServeMetrics` when it cannot."""
    try:
        server, thread = start_http_server(settings.port, settings.host, registry)
    except OSError as exc:
        why = ("the address is in use (another pbem process, or another server, listens there: give each process "
               "its own with --metrics-listen)" if exc.errno == errno.EADDRINUSE
               else os.strerror(exc.errno) if exc.errno else str(exc))
        raise CannotServeMetrics(f"cannot serve metrics on {settings.listen}: {why}") from None
    found = MetricsServer(server, thread)
    log.info("metrics served on http://%s/metrics", MetricsSettings(settings.host, found.port).listen)
    return found
