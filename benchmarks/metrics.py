"""Metrics scrape benchmark: what one look at the metrics page costs, with a small and a large outbox.

A page reads the inbound queue and the outbox at every scrape
(``pbem.daemon.metrics``), and a busy host keeps a month of sent mail
(``[limits] keep_sent_mail_days``): does a scrape stay cheap with a hundred
thousand sent mails? For each size N a fresh database (SQLite in a temporary
directory, or the ``--database`` URL of an empty database: a moderator's own
is refused) gets N sent mails spread
over the last 30 days, 50 queued mails (due, retrying, later), 20 received
mails waiting and 2 set aside, inserted in bulk; then ``--repeats`` scrapes
are timed (the whole page, as the HTTP server renders it, without HTTP) and
the median counts. Printed, one line per size, and last:

``metrics scrape, 100000 sent mails / 1000: R``
    the median scrape over the large outbox divided by the one over the small.
    The goal: a scrape well under 50 ms at 100,000 sent mails, and R <= 3
    (the counts are indexed: sent mail of long ago costs little).

Usage:

    python benchmarks/metrics.py [--small 1000] [--large 100000] [--repeats 31] [--database URL]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from prometheus_client import generate_latest  # noqa: E402
from sqlalchemy import insert  # noqa: E402
from sqlmodel import select  # noqa: E402

from pbem.config import Limits  # noqa: E402
from pbem.daemon.metrics import registry_for  # noqa: E402
from pbem.store import Database  # noqa: E402
from pbem.store.inqueue import QueuedMessageRow, QueueStatus  # noqa: E402
from pbem.store.outbox import OutboxRow, OutboxStatus  # noqa: E402

NOW = datetime.now(UTC)
BATCH = 5000  # rows per INSERT


def fill(db: Database, sent: int) -> None:
    """``sent`` sent mails over 30 days, 50 queued, 20 received mails waiting and 2 set aside."""
    with db.transaction() as session:
        if session.exec(select(OutboxRow.id).limit(1)).first() or session.exec(select(QueuedMessageRow.id)
                                                                               .limit(1)).first():
            sys.exit(f"{db.display_url} holds mail already: give an empty database")
    rows = []
    for number in range(sent + 50):
        queued = number >= sent
        moment = NOW - timedelta(days=30) * (number / max(1, sent)) if not queued else NOW - timedelta(minutes=5)
        rows.append(dict(recipient=f"p{number % 500}@example.org", purpose="report", message_id=f"<b{number}@bench>",
                         subject="move", body="text " * 40, headers={}, game_id=None, version=0,
                         status=OutboxStatus.QUEUED if queued else OutboxStatus.SENT,
                         attempts=1 if queued and number % 3 == 0 else 0,
                         next_attempt=moment + (timedelta(minutes=10) if queued and number % 3 == 1 else timedelta()),
                         last_error="", created=moment, sent=None if queued else moment, picture_id=None,
                         claimed_by=""))
    with db.transaction() as session:
        for start in range(0, len(rows), BATCH):
            session.execute(insert(OutboxRow), rows[start:start + BATCH])
        session.execute(insert(QueuedMessageRow), [
            dict(message_key=f"<in{n}@bench>", route=f"key:{n}", raw=b"x", source="lmtp", mailbox="lmtp",
                 uidvalidity=0, uid=0, status=QueueStatus.FAILED if n < 2 else QueueStatus.WAITING, claimed_by="",
                 lease_until=None, attempts=0, last_error="", received=NOW - timedelta(seconds=n))
            for n in range(22)])


def scrape_ms(db: Database, repeats: int) -> float:
    registry = registry_for(db, Limits(max_mails_per_hour=500, max_mails_per_day=5000))
    generate_latest(registry)  # the first look warms the connection pool and the statements
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        generate_latest(registry)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--small", type=int, default=1000)
    parser.add_argument("--large", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=31)
    parser.add_argument("--database", help="the URL of an empty database to fill (one size: --small is skipped)")
    options = parser.parse_args(argv)
    figures = {}
    with tempfile.TemporaryDirectory() as folder:
        for size in (options.small, options.large) if options.database is None else (options.large,):
            url = options.database or f"sqlite:///{Path(folder) / f'metrics-{size}.db'}"
            db = Database(url)
            try:
                fill(db, size)
                figures[size] = scrape_ms(db, options.repeats)
            finally:
                db.dispose()
            print(f"metrics scrape, {size} sent mails ({db.url.get_backend_name()}): {figures[size]:.1f} ms",
                  flush=True)
    if options.small in figures:
        print(f"metrics scrape, {options.large} sent mails / {options.small}: "
              f"{figures[options.large] / figures[options.small]:.2f}")


if __name__ == "__main__":
    main()
