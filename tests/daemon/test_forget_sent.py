"""Sent mail keeps its envelope, not its text, after ``[limits] keep_sent_mail_days`` (docs/running.md, "How big
the database grows"): the texts were nearly all of a database, and nothing reads them once the mail has gone."""
from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pbem.config import DEFAULT_KEEP_SENT_MAIL_DAYS, parse_config
from pbem.daemon import loop
from pbem.daemon.loop import forgetting_task
from pbem.errors import ConfigError
from pbem.store import Database
from pbem.store.outbox import FORGOTTEN, OutboxRow, OutboxStatus, forget_sent_texts

NOW = datetime(2030, 6, 3, 12, 0, tzinfo=UTC)
_ids = itertools.count(1)


@pytest.fixture
def db(tmp_path: Path) -> Database:
    database = Database(f"sqlite:///{tmp_path / 'forget.db'}")
    database.create_tables()
    return database


def a_mail(db: Database, status: str, sent_days_ago: float | None, **headers: object) -> int:
    with db.transaction() as session:
        row = OutboxRow(recipient="ann@example.org", purpose="report", message_id=f"<m{next(_ids)}@games.test>",
                        subject="[g1] Move 3: report", body="The whole report\n" * 40,
                        headers={"reply_to": "pbem+tok@games.test", **headers}, status=status,
                        sent=None if sent_days_ago is None else NOW - timedelta(days=sent_days_ago),
                        created=NOW - timedelta(days=sent_days_ago or 0), next_attempt=NOW)
        session.add(row)
        session.flush()
        assert row.id is not None
        return row.id


def row_of(db: Database, row_id: int) -> OutboxRow:
    with db.transaction() as session:
        row = session.get(OutboxRow, row_id)
        assert row is not None
        return row


def test_a_mail_sent_before_the_retention_keeps_its_envelope_not_its_text_nor_its_file(db: Database) -> None:
    old = a_mail(db, OutboxStatus.SENT, 31, attachment={"filename": "history.txt", "text": "x" * 5000},
                 press_writer=7)
    with db.transaction() as session:
        assert forget_sent_texts(session, NOW - timedelta(days=30)) == 1
    row = row_of(db, old)
    assert row.body == FORGOTTEN and "attachment" not in row.headers
    assert (row.recipient, row.subject, row.status, row.message_id.startswith("<m")) == (
        "ann@example.org", "[g1] Move 3: report", OutboxStatus.SENT, True)
    assert row.headers["press_writer"] == 7 and row.headers["reply_to"]  # a reply to a press mail still finds its writer


def test_recent_queued_and_failed_mail_keep_their_text(db: Database) -> None:
    kept = [a_mail(db, OutboxStatus.SENT, 29), a_mail(db, OutboxStatus.QUEUED, None),
            a_mail(db, OutboxStatus.FAILED, None)]
    with db.transaction() as session:
        assert forget_sent_texts(session, NOW - timedelta(days=30)) == 0
    assert all(row_of(db, row_id).body.startswith("The whole report") for row_id in kept)


def test_texts_are_dropped_a_batch_at_a_time_and_never_twice(db: Database) -> None:
    for _ in range(5):
        a_mail(db, OutboxStatus.SENT, 40)
    counts = []
    for _ in range(4):
        with db.transaction() as session:
            counts.append(forget_sent_texts(session, NOW - timedelta(days=30), limit=2))
    assert counts == [2, 2, 1, 0]


def test_the_daemons_task_drops_old_texts_once_an_hour(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    config = parse_config({"limits": {"keep_sent_mail_days": 30}}, None, {})
    task = forgetting_task(config, db)
    assert task is not None
    monkeypatch.setattr(loop, "FORGET_BATCH", 2)  # several transactions in one look
    old = [a_mail(db, OutboxStatus.SENT, 31) for _ in range(3)]
    task(NOW)
    assert all(row_of(db, row_id).body == FORGOTTEN for row_id in old)
    later = a_mail(db, OutboxStatus.SENT, 31)
    task(NOW)  # within the hour: not looked for again
    assert row_of(db, later).body != FORGOTTEN


def test_keep_sent_mail_days_defaults_to_a_month_and_zero_keeps_every_text() -> None:
    assert parse_config({}, None, {}).limits.keep_sent_mail_days == DEFAULT_KEEP_SENT_MAIL_DAYS == 30
    assert forgetting_task(parse_config({"limits": {"keep_sent_mail_days": 0}}, None, {}), None) is None


def test_a_negative_retention_is_refused_with_its_key() -> None:
    with pytest.raises(ConfigError, match="keep_sent_mail_days"):
        parse_config({"limits": {"keep_sent_mail_days": -1}}, None, {})
