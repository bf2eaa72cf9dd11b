"""The figures a monitor reads from the database (``pbem.store.figures``), on SQLite and PostgreSQL: each queued
mail in exactly one state, the ages of the oldest waiting message and mail, and nothing when all is done."""
from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import select

from pbem.store import Database
from pbem.store.figures import OutboxFigures, QueueFigures, outbox_figures, queue_figures
from pbem.store.inqueue import QueuedMessageRow, enqueue, set_aside
from pbem.store.outbox import QueuedMail, mark_failed, mark_retry, mark_sent_many, queue_mail

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def db(db_url: str) -> Iterator[Database]:
    database = Database(db_url)
    yield database
    database.dispose()


def mail(number: int, created: datetime) -> QueuedMail:
    return QueuedMail(f"p{number}@example.org", "report", f"<m{number}@pbem.test>", "subject", "body",
                      created=created)


def test_an_empty_database_shows_nothing_waiting(db: Database) -> None:
    with db.transaction() as session:
        assert queue_figures(session, NOW) == QueueFigures(0, 0, 0, 0.0)
        assert outbox_figures(session, NOW) == OutboxFigures(0, 0, 0, 0, 0, 0.0)


def test_the_queue_counts_waiting_and_set_aside_mail_and_the_oldest_age(db: Database) -> None:
    with db.transaction() as session:
        for number, minutes in ((1, 10), (2, 3), (3, 30)):
            enqueue(session, QueuedMessageRow(message_key=f"<k{number}@x>", route=f"key:{number}", raw=b"x",
                                              source="lmtp", received=NOW - timedelta(minutes=minutes)))
    with db.transaction() as session:
        oldest = session.exec(select(QueuedMessageRow.id).where(QueuedMessageRow.message_key == "<k3@x>")).one()
        set_aside(session, oldest or 0, "a bug")
    with db.transaction() as session:
        figures = queue_figures(session, NOW)
    assert (figures.waiting, figures.claimed, figures.set_aside) == (2, 0, 1)
    assert figures.oldest_age == 600.0  # the set-aside one waits for the game master, not for a worker


def test_each_queued_mail_is_due_retrying_or_later_and_sent_mail_counts_for_an_hour(db: Database) -> None:
    with db.transaction() as session:
        rows = [queue_mail(session, mail(n, NOW - timedelta(minutes=60 - n))) for n in range(1, 7)]
        session.flush()
        rows[1].next_attempt = NOW + timedelta(minutes=15)  # put off (the relay's hold)
        mark_retry(session, rows[2], NOW, "451 try later")
        mark_failed(session, rows[3], NOW, "550 no such user")
        mark_sent_many(session, [rows[4].id or 0], NOW - timedelta(minutes=5))
        mark_sent_many(session, [rows[5].id or 0], NOW - timedelta(hours=2))
    with db.transaction() as session:
        figures = outbox_figures(session, NOW)
    assert (figures.due, figures.later, figures.retrying, figures.failed, figures.sent_recently) == (1, 1, 1, 1, 1)
    assert figures.oldest_age == 59 * 60.0  # the first mail, queued still
