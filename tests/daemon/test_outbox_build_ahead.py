"""The outbox builds each mail while the relay reads the one before (``SmtpSender.send_wire``'s ``meanwhile``).

A mail with the board's picture takes about as long to build as a relay takes
to read it; the sender now does the one while the other happens. These tests
use a relay that holds its answer to a mail until the client has done
something, answering 451 (try later) when that never happens: a client that
waited for the answer first would be refused.
"""
from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from pbem.daemon import sender as outbox_sender
from pbem.daemon.sender import deliver_due
from pbem.mail import SmtpSender, TransientSendError, WireMail
from pbem.mail.settings import SmtpSettings
from pbem.store import Database
from pbem.store.outbox import OutboxRow, OutboxStatus, QueuedMail, queue_mail
from tests.mailflowkit import config_for
from tests.smtpservers import RecordingHandler, running_relay

NOW = datetime(2030, 6, 3, 12, 0, tzinfo=UTC)
FROM = config_for().moderator
HOLD = 5.0  # seconds the relay holds its answer for the client's work


class HoldingHandler(RecordingHandler):
    """Answers a mail's DATA only once ``ready(number of mails received so far)`` is true, 451 after ``HOLD``."""

    def __init__(self) -> None:
        super().__init__()
        self.ready: Callable[[int], bool] = lambda received: True
        self.held: list[bool] = []  # per mail: whether the client's work came while the answer waited

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        deadline = time.monotonic() + HOLD
        while not self.ready(len(self.received)) and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        came = self.ready(len(self.received))
        self.held.append(came)
        if not came:
            return "451 4.3.0 the client never did its work"
        return await super().handle_DATA(server, session, envelope)


@pytest.fixture
def holding() -> Iterator[tuple[HoldingHandler, SmtpSettings]]:
    handler = HoldingHandler()
    with running_relay(handler) as relay:
        yield handler, relay.settings()


def wire(to: str) -> WireMail:
    return WireMail("pbem@games.test", (to,), f"To: {to}\r\nSubject: s\r\n\r\nhello\r\n".encode())


def test_meanwhile_runs_while_the_relay_reads_the_mail(holding: tuple[HoldingHandler, SmtpSettings]) -> None:
    handler, settings = holding
    done = threading.Event()
    handler.ready = lambda received: done.is_set()
    calls: list[int] = []
    with SmtpSender(settings) as sender:
        sender.send_wire(wire("ann@example.org"), meanwhile=lambda: (calls.append(1), done.set()) and None)
    assert calls == [1] and handler.held == [True]
    assert [r.rcpt_tos for r in handler.received] == [("ann@example.org",)]


@pytest.mark.slow
def test_without_meanwhile_nothing_waits_for_it(holding: tuple[HoldingHandler, SmtpSettings]) -> None:
    """The holding relay itself: a client that does nothing meanwhile is refused (so the test above means what it says)."""
    handler, settings = holding
    handler.ready = lambda received: False
    with SmtpSender(settings) as sender, pytest.raises(TransientSendError, match="451"):
        sender.send_wire(wire("ann@example.org"))


def queue(db: Database, message_ids: list[str]) -> None:
    with db.transaction() as session:
        for n, message_id in enumerate(message_ids):
            queue_mail(session, QueuedMail(recipient=f"p{n}@example.org", purpose="report", created=NOW,
                                           message_id=message_id, subject="s", body="b"))


def statuses(db: Database) -> list[str]:
    with db.transaction() as session:
        return [row.status for row in session.exec(select(OutboxRow).order_by(OutboxRow.id)).all()]


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The Message-IDs of the mails the sender built, in the order it built them."""
    made: list[str] = []
    original = outbox_sender._message

    def spy(row: OutboxRow, picture: Any, moderator: Any) -> WireMail:
        made.append(row.message_id)
        return original(row, picture, moderator)

    monkeypatch.setattr(outbox_sender, "_message", spy)
    return made


def test_the_next_mail_is_built_while_the_relay_reads_the_one_before(
        tmp_path: Path, holding: tuple[HoldingHandler, SmtpSettings], built: list[str]) -> None:
    handler, settings = holding
    ids = [f"<ahead-{n}@games.test>" for n in range(4)]
    handler.ready = lambda received: len(built) >= min(received + 2, len(ids))  # this mail's and the next one's
    db = Database(f"sqlite:///{tmp_path / 'ahead.db'}")
    queue(db, ids)
    report = deliver_due(db, SmtpSender(settings), NOW, moderator=FROM)
    assert (report.sent, report.retried) == (4, 0)
    assert built == ids  # each built once, in order
    assert handler.held == [True] * 4
    db.dispose()


def test_a_mail_that_cannot_be_built_between_two_is_failed_and_the_others_go(
        tmp_path: Path, holding: tuple[HoldingHandler, SmtpSettings], built: list[str]) -> None:
    """The bad mail is found while the relay reads the first; it is marked failed in its turn, after the first."""
    handler, settings = holding
    ids = ["<ahead-0@games.test>", "not a message id", "<ahead-2@games.test>"]
    db = Database(f"sqlite:///{tmp_path / 'ahead.db'}")
    queue(db, ids)
    report = deliver_due(db, SmtpSender(settings), NOW, moderator=FROM)
    assert (report.sent, report.failed, report.retried) == (2, 1, 0)
    assert statuses(db) == [OutboxStatus.SENT, OutboxStatus.FAILED, OutboxStatus.SENT]
    assert built == ids
    assert [str(r.message["Message-ID"]) for r in handler.received] == [ids[0], ids[2]]
    db.dispose()


def test_a_bug_in_building_the_next_mail_leaves_the_mail_sent_marked(
        tmp_path: Path, holding: tuple[HoldingHandler, SmtpSettings], monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug (not a mail that cannot be built) ends the run as before, at its row's turn: the mail the relay
    was reading meanwhile is marked sent, the rest stays queued for the next run."""
    _, settings = holding
    ids = [f"<ahead-{n}@games.test>" for n in range(3)]
    original = outbox_sender._message

    def broken(row: OutboxRow, picture: Any, moderator: Any) -> WireMail:
        if row.message_id == ids[1]:
            raise RuntimeError("a bug")
        return original(row, picture, moderator)

    monkeypatch.setattr(outbox_sender, "_message", broken)
    db = Database(f"sqlite:///{tmp_path / 'ahead.db'}")
    queue(db, ids)
    with pytest.raises(RuntimeError, match="a bug"):
        deliver_due(db, SmtpSender(settings), NOW, moderator=FROM)
    assert statuses(db) == [OutboxStatus.SENT, OutboxStatus.QUEUED, OutboxStatus.QUEUED]
    db.dispose()
