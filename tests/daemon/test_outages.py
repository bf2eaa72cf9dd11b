"""A relay or a database that is down: one warning per outage, growing waits, one line when it is back,
each naming what was down; and ``pbem status`` names a relay that cannot be reached.

Before: a warning twice a second per process, as often a try; ``pbem status``
showed "3 due now" and no error; and after a database outage the log said
"SMTP relay reachable again". The daemon here is the one ``pbem lmtp`` and
``pbem run`` without an inbox run: its loop, the sender thread and the
workers, on the real clock, with short waits.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from pbem.cli.gather import gather, report_json, report_lines
from pbem.config import Config
from pbem.daemon import Daemon, MailFlow, poll_once
from pbem.daemon.outages import Outages, Service
from pbem.daemon.workers import Appliers, Sender
from pbem.mail import SmtpSender
from pbem.mail.settings import ImapSettings, Security, maildir_settings
from pbem.store import Database
from tests.loopback import free_port
from tests.mailflowkit import Table, config_for, wait_until
from tests.smtpservers import RecordingHandler, _controller

WAITS = {"min_backoff": 0.2, "max_backoff": 1.0}  # the waits between tries: 0.2, 0.4, 0.8, 1.0, 1.0 ...


class Running:
    """A daemon without an inbox (as ``pbem lmtp`` runs it): its loop, its sender and one worker."""

    def __init__(self, table: Table, config: Config) -> None:
        self.flow = MailFlow(config, table.db, moderator=table.moderator, apply_inline=False)
        self.opened = 0
        factory = self.flow.sender_factory

        def counting() -> SmtpSender:
            sender = factory()
            opening = sender.open

            def open_counted() -> None:
                self.opened += 1
                opening()

            sender.open = open_counted  # type: ignore[method-assign]
            return sender

        self.flow.sender_factory = counting
        self.daemon = Daemon(self.flow, outbox_interval=1.0, wait_slice=0.2, read_inbox=False, **WAITS)
        self.sender = Sender(self.flow, 1.0)
        self.flow.on_sending(self.sender.wake)
        self.appliers = Appliers(self.flow, 1, poll=0.2)
        self.flow.on_queued(self.appliers.wake)
        self.thread = threading.Thread(target=self.daemon.run, daemon=True)

    def __enter__(self) -> Running:
        self.sender.start()
        self.appliers.start()
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.daemon.stop()
        self.thread.join(10)
        self.appliers.stop()
        self.sender.stop()


@pytest.fixture
def relay_port() -> int:
    return free_port()


@pytest.fixture
def table(db_url: str, relay_port: int) -> Iterator[Table]:
    """A game on SQLite, and on PostgreSQL, whose relay is not listening yet."""
    config = config_for(smtp={"host": "127.0.0.1", "port": relay_port, "security": "none", "timeout": 5})
    t = Table(Database(db_url), config)
    t.create(players=2, now=datetime.now(UTC))  # the welcomes are due now
    yield t
    t.db.dispose()


def said(caplog: pytest.LogCaptureFixture, level: int, *words: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == level and all(w in r.getMessage() for w in words)]


def test_a_relay_down_is_said_once_tried_ever_less_often_and_said_back(
        table: Table, relay_port: int, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    with Running(table, table.config) as running:
        time.sleep(3.0)  # nobody listens on the relay's port
        tries_while_down = running.opened
        handler = RecordingHandler()
        relay = _controller(handler, relay_port)
        relay.start()
        try:
            wait_until(lambda: len(handler.received) == len(table.outbox()), timeout=10, what="the mail sent")
        finally:
            relay.stop()
    assert 2 <= tries_while_down <= 7, tries_while_down  # at 0, 0.2, 0.6, 1.4, 2.4 s; twice a second was 15
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "the SMTP relay cannot be reached" in warnings[0], warnings
    assert len(said(caplog, logging.INFO, "the SMTP relay works again")) == 1


def test_after_a_database_outage_the_log_names_the_database(
        table: Table, relay_port: int, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    handler = RecordingHandler()
    relay = _controller(handler, relay_port)
    relay.start()
    down = threading.Event()
    transaction = table.db.transaction

    def unreachable(*args: Any, **kwargs: Any) -> Any:
        if down.is_set():
            raise OperationalError("SELECT 1", {}, Exception("connection refused"))
        return transaction(*args, **kwargs)

    caplog.set_level(logging.INFO)
    try:
        with Running(table, table.config):
            wait_until(lambda: len(handler.received) == len(table.outbox()), what="the welcomes")
            monkeypatch.setattr(table.db, "transaction", unreachable)
            down.set()
            time.sleep(3.0)
            down.clear()
            wait_until(lambda: said(caplog, logging.INFO, "works again"), timeout=10, what="the line saying so")
            time.sleep(0.5)
    finally:
        relay.stop()
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "the database cannot be reached" in warnings[0], warnings
    assert said(caplog, logging.INFO, "works again") == [m for m in said(caplog, logging.INFO, "the database works again")]
    assert len(said(caplog, logging.INFO, "works again")) == 1
    assert not [r for r in caplog.records if "SMTP" in r.getMessage() and r.levelno >= logging.INFO]


def test_status_names_the_relay_that_cannot_be_reached(table: Table, relay_port: int) -> None:
    flow = MailFlow(table.config, table.db, moderator=table.moderator)
    assert flow.deliver().unavailable is not None  # nobody listens: the welcomes wait
    report = gather(table.db, table.config)
    text = "\n".join(report_lines(report))
    assert "DOWN: the SMTP relay cannot be reached since" in text and "connection refused" in text, text
    assert "due now (waiting for the SMTP relay)" in text
    [outage] = report_json(report)["outages"]
    assert outage["service"] == "smtp" and "connection refused" in outage["error"]
    handler = RecordingHandler()
    relay = _controller(handler, relay_port)
    relay.start()
    try:
        again = MailFlow(table.config, table.db, moderator=table.moderator)  # another process, or the next poll
        assert again.deliver().sent == len(table.outbox())
    finally:
        relay.stop()
    report = gather(table.db, table.config)
    assert "DOWN" not in "\n".join(report_lines(report)) and report_json(report)["outages"] == []


def test_the_waits_grow_to_their_cap_and_start_again_after_an_outage() -> None:
    now = [0.0]
    outages = Outages(first_wait=1.0, max_wait=8.0, clock=lambda: now[0])
    assert [outages.down(Service.RELAY, "refused") for _ in range(6)] == [1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    assert outages.wait_left(Service.RELAY) == 8.0 and outages.wait_left(Service.DATABASE) == 0.0
    now[0] = 5.0
    assert outages.wait_left(Service.RELAY) == 3.0
    outages.up(Service.RELAY)
    assert outages.wait_left(Service.RELAY) == 0.0 and outages.down(Service.RELAY, "refused") == 1.0


def test_a_poll_that_cannot_read_the_inbox_leaves_an_outage_status_names_and_the_next_poll_clears(
        table: Table, tmp_path: Path) -> None:
    """Before: ``pbem poll`` (cron) said the error and wrote nothing, so ``pbem status`` showed no outage."""
    closed = free_port()
    unreadable = Config(**{**vars(table.config), "imap": ImapSettings(host="127.0.0.1", port=closed, security=Security.NONE,
                                                                      username="pbem", password="secret",
                                                                      timeout=2)})
    report = poll_once(MailFlow(unreadable, table.db, moderator=table.moderator))
    assert report.problems and not report.ok
    text = "\n".join(report_lines(gather(table.db, unreadable)))
    assert "DOWN: the inbox cannot be reached since" in text, text
    readable = Config(**{**vars(table.config), "maildir": maildir_settings({"path": str(tmp_path / "inbox")})})
    assert poll_once(MailFlow(readable, table.db, moderator=table.moderator)).inbox is not None
    assert "DOWN: the inbox" not in "\n".join(report_lines(gather(table.db, readable)))
