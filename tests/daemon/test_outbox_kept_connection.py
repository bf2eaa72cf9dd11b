"""The outbox over a kept SMTP connection: ``deliver_due(keep_open=True)`` and ``pbem run``'s sender thread.

The sender thread keeps its connection between runs of the outbox for up to ``KEEP_OPEN`` seconds, so that
the mail of order after order goes over one connection; a connection the relay dropped meanwhile is opened
anew without losing or doubling a mail; a "too many messages" 421 on it still holds every sender back.
"""
from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from sqlmodel import select

from pbem.config import Limits
from pbem.daemon import MailFlow, workers
from pbem.daemon.sender import deliver_due
from pbem.daemon.sendlimits import waiting_reason
from pbem.daemon.workers import Sender
from pbem.mail import SmtpSender
from pbem.store import Database
from pbem.store.outbox import OutboxRow, QueuedMail, queue_mail
from tests.loopback import free_port
from tests.mailflowkit import config_for, wait_until
from tests.smtpservers import CountingHandler


class Relay:
    """A counting aiosmtpd that can be restarted on its port (a relay that dropped every client)."""

    def __init__(self) -> None:
        self.port = free_port()
        self.handlers = [CountingHandler()]
        self._controller: Any = self._start()

    def _start(self) -> Any:
        controller = Controller(self.handlers[-1], hostname="127.0.0.1", port=self.port)
        controller.start()
        return controller

    @property
    def handler(self) -> CountingHandler:
        return self.handlers[-1]

    def restart(self) -> None:
        self._controller.stop()
        self.handlers.append(CountingHandler())
        self._controller = self._start()

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
        self._controller = None

    def received(self) -> list[str]:
        return [str(r.message["Message-ID"]) for h in self.handlers for r in h.received]

    def config(self) -> Any:
        return config_for(smtp={"host": "127.0.0.1", "port": self.port, "security": "none", "timeout": 5})


@pytest.fixture
def relay() -> Iterator[Relay]:
    running = Relay()
    try:
        yield running
    finally:
        running.stop()


def queue(db: Database, first: int, count: int, when: datetime) -> list[str]:
    ids = [f"<kept-{n}@games.test>" for n in range(first, first + count)]
    with db.transaction() as session:
        for n, message_id in zip(range(first, first + count), ids, strict=True):
            queue_mail(session, QueuedMail(recipient=f"p{n}@example.org", purpose="report", created=when,
                                           message_id=message_id, subject="s", body="b"))
    return ids


def statuses(db: Database) -> list[str]:
    with db.transaction() as session:
        return [row.status for row in session.exec(select(OutboxRow).order_by(OutboxRow.id)).all()]


NOW = datetime(2030, 6, 3, 12, 0, tzinfo=UTC)
FROM = config_for().moderator


def test_kept_open_two_runs_share_one_connection(tmp_path: Path, relay: Relay) -> None:
    db = Database(f"sqlite:///{tmp_path / 'kept.db'}")
    sender = SmtpSender(relay.config().require_smtp())
    first = queue(db, 0, 3, NOW)
    assert deliver_due(db, sender, NOW, moderator=FROM, keep_open=True).sent == 3
    assert sender.idle_for() is not None
    second = queue(db, 3, 3, NOW)
    assert deliver_due(db, sender, NOW, moderator=FROM, keep_open=True).sent == 3
    assert relay.handler.ehlos == 1 and relay.received() == first + second
    third = queue(db, 6, 1, NOW)
    assert deliver_due(db, sender, NOW, moderator=FROM).sent == 1  # not kept: closed at the end
    assert sender.idle_for() is None
    assert relay.received() == first + second + third
    db.dispose()


def test_kept_open_a_relay_that_dropped_us_gets_the_mail_once_on_a_new_connection(tmp_path: Path,
                                                                                   relay: Relay) -> None:
    db = Database(f"sqlite:///{tmp_path / 'kept.db'}")
    sender = SmtpSender(relay.config().require_smtp())
    first = queue(db, 0, 2, NOW)
    deliver_due(db, sender, NOW, moderator=FROM, keep_open=True)
    relay.restart()  # every client dropped, as servers drop idle ones
    second = queue(db, 2, 2, NOW)
    report = deliver_due(db, sender, NOW, moderator=FROM, keep_open=True)
    sender.close()
    assert (report.sent, report.retried, report.unavailable) == (2, 0, None)
    assert relay.received() == first + second  # each once
    assert [h.ehlos for h in relay.handlers] == [1, 1]
    assert statuses(db) == ["sent"] * 4
    db.dispose()


def test_kept_open_a_too_many_421_still_holds_every_sender(tmp_path: Path, relay: Relay) -> None:
    """A 421 on the kept connection is tried once on a new one; the relay says it again: a limit, no attempt charged."""
    db = Database(f"sqlite:///{tmp_path / 'kept.db'}")
    sender = SmtpSender(relay.config().require_smtp())
    queue(db, 0, 1, NOW)
    deliver_due(db, sender, NOW, moderator=FROM, keep_open=True)
    relay.handler.replies["MAIL"] = "421 4.7.0 Too many messages, slow down"
    queue(db, 1, 2, NOW)
    report = deliver_due(db, sender, NOW, moderator=FROM, keep_open=True)
    assert (report.sent, report.retried, report.waiting) == (0, 0, 2)
    assert report.held is not None and "slow down" in report.held
    assert relay.handler.ehlos == 2 and sender.idle_for() is None
    with db.transaction() as session:
        assert waiting_reason(session, Limits(), NOW) is not None
        assert [row.attempts for row in session.exec(select(OutboxRow).order_by(OutboxRow.id)).all()] == [1, 0, 0]
    db.dispose()


@pytest.mark.slow
def test_the_sender_thread_keeps_its_connection_between_runs_then_lets_it_go(
        tmp_path: Path, relay: Relay, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers, "KEEP_OPEN", 1.0)
    db = Database(f"sqlite:///{tmp_path / 'kept.db'}")
    flow = MailFlow(relay.config(), db, apply_inline=False)
    thread = Sender(flow, interval=60.0)
    thread.start()
    try:
        now = datetime.now(UTC) - timedelta(seconds=1)
        first = queue(db, 0, 2, now)
        thread.wake()
        wait_until(lambda: len(relay.received()) == 2, 20.0)
        second = queue(db, 2, 2, now)
        thread.wake()
        wait_until(lambda: len(relay.received()) == 4, 20.0)
        assert relay.handler.ehlos == 1  # one connection for both runs
        assert relay.received() == first + second
        wait_until(lambda: thread._smtp is not None and thread._smtp.idle_for() is None, 20.0)
        third = queue(db, 4, 1, now)
        thread.wake()
        wait_until(lambda: len(relay.received()) == 5, 20.0)
        assert relay.handler.ehlos == 2 and relay.received() == first + second + third
    finally:
        thread.stop()
        db.dispose()
    assert thread._smtp is not None and thread._smtp.idle_for() is None  # QUIT when stopped


def test_kept_open_a_relay_gone_since_the_last_run_is_unavailable_and_charges_nothing(tmp_path: Path,
                                                                                       relay: Relay) -> None:
    """The run checks the kept connection first: the relay is down, so every mail waits, no attempt charged."""
    db = Database(f"sqlite:///{tmp_path / 'kept.db'}")
    sender = SmtpSender(relay.config().require_smtp())
    queue(db, 0, 1, NOW)
    deliver_due(db, sender, NOW, moderator=FROM, keep_open=True)
    relay.stop()
    queue(db, 1, 2, NOW)
    report = deliver_due(db, sender, NOW, moderator=FROM, keep_open=True)
    assert report.unavailable is not None and "connection refused" in report.unavailable
    assert (report.sent, report.retried, report.waiting) == (0, 0, 2)
    with db.transaction() as session:
        rows = session.exec(select(OutboxRow).order_by(OutboxRow.id)).all()
        assert [(row.status, row.attempts, row.claimed_by) for row in rows] == [("sent", 1, ""), ("queued", 0, ""),
                                                                                 ("queued", 0, "")]
    db.dispose()
