"""Sending limits: the outbox stays under what the mail provider lets the account send, and waits, never drops.

``[limits] max_mails_per_hour`` / ``max_mails_per_day`` (``pbem.daemon.sendlimits``): a hundred queued
mails with a limit of ten an hour: ten go out, ninety wait, queued, and go in the hours after. A relay that
answers "too many messages" (452, 421) holds every sender back for a while, and charges the mail no attempt.
"""
from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlmodel import select

from pbem.cli.gather import gather
from pbem.config import Limits
from pbem.daemon.sender import deliver_due
from pbem.daemon.sendlimits import waiting_reason
from pbem.mail import SmtpSender
from pbem.store import Database
from pbem.store.outbox import OutboxRow, QueuedMail, queue_mail
from tests.mailflowkit import config_for
from tests.smtpservers import SmtpServer

NOW = datetime(2030, 6, 3, 12, 0, tzinfo=UTC)
FROM = config_for().moderator


def queued_db(tmp_path: Path, count: int) -> Database:
    db = Database(f"sqlite:///{tmp_path / 'limits.db'}")
    with db.transaction() as session:
        for n in range(count):
            queue_mail(session, QueuedMail(recipient=f"p{n % 5}@example.org", purpose="report", created=NOW,
                                           message_id=f"<limit-{n}@games.test>", subject="s", body="b"))
    return db


def statuses(db: Database) -> dict[str, int]:
    with db.transaction() as session:
        rows = session.exec(select(OutboxRow)).all()
    found: dict[str, int] = {}
    for row in rows:
        found[row.status] = found.get(row.status, 0) + 1
    return found


def test_a_hundred_mails_with_ten_an_hour_ten_go_ninety_wait_none_lost(tmp_path: Path,
                                                                      smtpd: SmtpServer) -> None:
    db = queued_db(tmp_path, 100)
    limits = Limits(max_mails_per_hour=10)
    report = deliver_due(db, SmtpSender(smtpd.settings()), NOW, moderator=FROM, limits=limits)
    assert report.sent == 10 and len(smtpd.received) == 10
    assert report.held is not None and "10 mails an hour" in report.held
    assert statuses(db) == {"sent": 10, "queued": 90}
    again = deliver_due(db, SmtpSender(smtpd.settings()), NOW + timedelta(minutes=59), moderator=FROM, limits=limits)
    assert again.sent == 0 and statuses(db) == {"sent": 10, "queued": 90}  # the hour is not over
    with db.transaction() as session:
        assert "sending again at 2030-06-03 13:00" in (waiting_reason(session, limits, NOW) or "")
    later = deliver_due(db, SmtpSender(smtpd.settings()), NOW + timedelta(hours=1, minutes=1), moderator=FROM,
                        limits=limits)
    assert later.sent == 10 and statuses(db) == {"sent": 20, "queued": 80}
    sent = [str(r.message["Message-ID"]) for r in smtpd.received]
    assert sent == [f"<limit-{n}@games.test>" for n in range(20)]  # oldest first, each once
    db.dispose()


def test_the_day_limit_holds_too(tmp_path: Path, smtpd: SmtpServer) -> None:
    db = queued_db(tmp_path, 30)
    limits = Limits(max_mails_per_hour=10, max_mails_per_day=15)
    deliver_due(db, SmtpSender(smtpd.settings()), NOW, moderator=FROM, limits=limits)
    report = deliver_due(db, SmtpSender(smtpd.settings()), NOW + timedelta(hours=2), moderator=FROM, limits=limits)
    assert report.sent == 5 and report.held is not None and "a day" in report.held
    assert statuses(db) == {"sent": 15, "queued": 15}
    db.dispose()


def test_a_too_many_answer_holds_every_sender_and_costs_no_attempt(tmp_path: Path,
                                                                   smtpd: SmtpServer) -> None:
    db = queued_db(tmp_path, 5)
    smtpd.reply("DATA", "452 4.5.3 Too many messages sent today, try again later")
    report = deliver_due(db, SmtpSender(smtpd.settings()), NOW, moderator=FROM)
    assert report.sent == 0 and report.retried == 0 and report.held is not None and "slow down" in report.held
    with db.transaction() as session:
        rows = session.exec(select(OutboxRow)).all()
        assert {(row.status, row.attempts, row.last_error) for row in rows} == {("queued", 0, "")}
        assert "slow down" in (waiting_reason(session, Limits(), NOW + timedelta(minutes=5)) or "")
    smtpd.reply("DATA", "250 OK")
    held = deliver_due(db, SmtpSender(smtpd.settings()), NOW + timedelta(minutes=5), moderator=FROM)
    assert held.sent == 0 and held.held is not None  # the hold lasts, whoever sends
    after = deliver_due(db, SmtpSender(smtpd.settings()), NOW + timedelta(minutes=16), moderator=FROM)
    assert after.sent == 5 and statuses(db) == {"sent": 5}
    db.dispose()


def test_a_421_that_speaks_of_a_rate_is_a_limit_too(tmp_path: Path, smtpd: SmtpServer) -> None:
    db = queued_db(tmp_path, 2)
    smtpd.reply("RCPT", "421 4.7.0 Rate limit exceeded for this account")
    report = deliver_due(db, SmtpSender(smtpd.settings()), NOW, moderator=FROM)
    assert report.held is not None and report.retried == 0 and statuses(db) == {"queued": 2}
    db.dispose()


def test_an_ordinary_temporary_failure_is_retried_as_before(tmp_path: Path, smtpd: SmtpServer) -> None:
    db = queued_db(tmp_path, 1)
    smtpd.reply("DATA", "451 4.3.0 Local error in processing")
    report = deliver_due(db, SmtpSender(smtpd.settings()), NOW, moderator=FROM)
    assert report.retried == 1 and report.held is None
    with db.transaction() as session:
        (row,) = session.exec(select(OutboxRow)).all()
        assert row.attempts == 1 and "Local error" in row.last_error
    db.dispose()


def test_pbem_status_says_why_mail_waits(tmp_path: Path, smtpd: SmtpServer) -> None:
    db = queued_db(tmp_path, 12)
    limits = Limits(max_mails_per_hour=10)
    deliver_due(db, SmtpSender(smtpd.settings()), NOW, moderator=FROM, limits=limits)
    config = config_for(limits={"max_mails_per_hour": 10})
    report = gather(db, config, NOW + timedelta(minutes=1), games=False)
    assert report.outbox.due == 2 and report.outbox.held_by_limit is not None
    assert "10 mails an hour" in report.outbox.held_by_limit
    db.dispose()
