"""``pbem lmtp``: an MTA hands mail over LMTP; it is committed to the inbound queue before ``250``.

The server is the real one (aiosmtpd's LMTP), the client Python's
``smtplib.LMTP`` as an MTA would speak it, the relay for our answers a real
aiosmtpd. What must hold: an order delivered over LMTP is applied and
answered; an address other than the moderator's is refused at RCPT; a
message whose transaction fails gets a temporary error, and the client's
second delivery is applied once; a bounce of our mail counts against the
seat and is not answered.
"""
from __future__ import annotations

import os
import re
import signal
import smtplib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import col, select
from typer.testing import CliRunner

from pbem.cli import app
from pbem.daemon import MailFlow
from pbem.daemon import lmtp as lmtp_module
from pbem.daemon.lmtp import LmtpController, LmtpHandler, start_lmtp
from pbem.daemon.workers import Appliers
from pbem.moderator.inbound.handler import DatabaseUnavailable
from pbem.store import Database
from pbem.store.inqueue import counts
from pbem.store.models import SeatRow
from tests import bouncesamples
from tests.loopback import free_port, lmtp_delivered
from tests.mailflowkit import MODERATOR, Table, config_for, wait_until
from tests.smtpservers import SmtpServer

ROOT = Path(__file__).resolve().parents[2]




class Rig:
    """One game, a MailFlow whose workers apply what the LMTP server queues, and the server."""

    def __init__(self, directory: Path, smtp: SmtpServer) -> None:
        config = config_for(smtp={"host": smtp.host, "port": smtp.port, "security": "none", "timeout": 10})
        self.table = Table(Database(f"sqlite:///{directory / 'lmtp.db'}"), config)
        self.table.create(players=2, now=datetime.now(UTC))
        self.flow = MailFlow(config, self.table.db, moderator=self.table.moderator, apply_inline=False)
        self.appliers = Appliers(self.flow, 2, poll=0.2)
        self.flow.on_queued(self.appliers.wake)
        self.port = free_port()
        self.server: LmtpController | None = None

    def start(self) -> None:
        self.appliers.start()
        self.server = start_lmtp(LmtpHandler(self.table.db, self.table.config, self.flow.clock,
                                             self.flow.wake_workers), "127.0.0.1", self.port)

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
        self.appliers.stop()
        self.table.db.dispose()

    def deliver(self, raw: bytes, to: str) -> dict[str, tuple[int, bytes]]:
        client = smtplib.LMTP("127.0.0.1", self.port)
        try:
            return client.sendmail("ann@example.org", [to], raw)
        finally:
            client.quit()


@pytest.fixture
def rig(tmp_path: Path, smtpd: SmtpServer) -> Iterator[Rig]:
    r = Rig(tmp_path, smtpd)
    r.start()
    yield r
    r.stop()


def test_an_order_over_lmtp_is_applied_and_answered(rig: Rig, smtpd: SmtpServer) -> None:
    t = rig.table
    player, order = t.an_order()
    rig.flow.deliver()  # the welcome mails
    before = len(smtpd.received)
    assert rig.deliver(t.mail_from(player, order + "\n"), t.reply_to(player)) == {}  # {}: every recipient took it
    wait_until(lambda: t.log_length() == 1)
    wait_until(lambda: len(smtpd.received) > before)  # the worker delivers what the order caused at once
    assert [r.outcome for r in t.inbound()] == ["applied"]
    with t.db.transaction() as session:
        assert counts(session) == {}  # handled: gone from the queue in the same commit


def test_lmtp_refuses_every_address_but_the_moderators(rig: Rig) -> None:
    t = rig.table
    with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
        rig.deliver(t.mail_from("ann", "PASS\n"), "someone@elsewhere.example")
    (code, text), = refused.value.recipients.values()
    assert code == 550 and b"moderator only" in text
    with pytest.raises(smtplib.SMTPRecipientsRefused):
        rig.deliver(t.mail_from("ann", "PASS\n"), "other+token@games.test")
    assert t.inbound() == []


def test_a_failed_transaction_answers_451_and_the_redelivery_is_applied_once(
        rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    t = rig.table
    player, order = t.an_order()
    raw = t.mail_from(player, order + "\n")

    def unavailable(*args: Any, **kwargs: Any) -> Any:
        raise DatabaseUnavailable("database unavailable: connection refused")

    monkeypatch.setattr(lmtp_module, "receive", unavailable)
    with pytest.raises(smtplib.SMTPDataError) as temporary:
        rig.deliver(raw, t.reply_to(player))
    assert temporary.value.smtp_code == 451  # the MTA keeps the mail and tries again
    assert t.log_length() == 0 and t.inbound() == []
    monkeypatch.undo()
    assert rig.deliver(raw, t.reply_to(player)) == {}  # the MTA's second try
    assert rig.deliver(raw, t.reply_to(player)) == {}  # and a third, after a lost 250: known, not applied again
    wait_until(lambda: t.log_length() == 1)
    time.sleep(0.3)
    assert t.log_length() == 1 and [r.outcome for r in t.inbound()] == ["applied"]


def test_a_postfix_bounce_over_lmtp_counts_against_the_seat_and_is_not_answered(rig: Rig, smtpd: SmtpServer) -> None:
    """The relay took our mail; the DSN comes back from the null sender, as a host's Postfix hands it over."""
    rig.flow.deliver()  # the welcome mails, through the real relay
    sent = [mail for mail in smtpd.received if "ann@example.org" in mail.rcpt_tos]
    before = len(smtpd.received)
    client = smtplib.LMTP("127.0.0.1", rig.port)
    try:  # MAIL FROM:<>, as every DSN comes
        assert client.sendmail("", [MODERATOR], bouncesamples.postfix_failed(sent[-1].data, "ann@example.org")) == {}
    finally:
        client.quit()
    wait_until(lambda: [r.outcome for r in rig.table.inbound()] == ["bounce"], what="the bounce handled")
    with rig.table.db.transaction() as session:
        assert session.exec(select(SeatRow.bounces).where(col(SeatRow.name) == "ann")).one() == 1
    rig.flow.deliver()
    assert len(smtpd.received) == before


@pytest.mark.slow
def test_pbem_lmtp_runs_until_terminated(tmp_path: Path, smtpd: SmtpServer) -> None:
    """The command as an MTA's transport: welcome mails out, an order in over LMTP, its answers out."""
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    config = tmp_path / "pbem.toml"
    config.write_text(f'[moderator]\naddress = "pbem@games.test"\n\n[database]\nurl = "{url}"\n\n'
                      f'[smtp]\nhost = "{smtpd.host}"\nport = {smtpd.port}\nsecurity = "none"\n')
    table = Table(Database(url), config_for(smtp={"host": smtpd.host, "port": smtpd.port, "security": "none"}))
    table.create(players=2, now=datetime.now(UTC))
    port = free_port()
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "PBEM_CONFIG": "", "PBEM_DATABASE_URL": ""}
    process = subprocess.Popen([sys.executable, "-m", "pbem.cli", "--config", str(config), "lmtp", "--listen",
                                f"127.0.0.1:{port}", "--outbox-interval", "1"], cwd=ROOT, env=environment,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: len(smtpd.received) >= 2)  # the welcomes
        player, order = table.an_order()
        raw = table.mail_from(player, order + "\n")
        wait_until(lambda: lmtp_delivered(port, raw, table.reply_to(player)))
        wait_until(lambda: len(smtpd.received) >= 4)
        assert table.log_length() == 1
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, stderr
    assert "LMTP server listening" in stderr and "Traceback" not in stderr
    table.db.dispose()


def test_pbem_lmtp_logs_no_reply_token_and_no_connection_chatter(tmp_path: Path, smtpd: SmtpServer) -> None:
    """The real ``pbem lmtp`` at its most talkative (``--log-level DEBUG``, JSON lines): aiosmtpd's own log
    (``mail.log``) wrote every LMTP command, ``RCPT TO:<pbem+TOKEN@...>`` included, and the connection's
    comings and goings; docs/running.md promises no token in the log."""
    url = f"sqlite:///{tmp_path / 'quiet.db'}"
    config = tmp_path / "pbem.toml"
    config.write_text(f'[moderator]\naddress = "pbem@games.test"\n\n[database]\nurl = "{url}"\n\n'
                      f'[smtp]\nhost = "{smtpd.host}"\nport = {smtpd.port}\nsecurity = "none"\n')
    table = Table(Database(url), config_for(smtp={"host": smtpd.host, "port": smtpd.port, "security": "none"}))
    table.create(players=2, now=datetime.now(UTC))
    tokens = [table.token(player) for player in ("ann", "bob")]
    port = free_port()
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "PBEM_CONFIG": "", "PBEM_DATABASE_URL": ""}
    process = subprocess.Popen([sys.executable, "-m", "pbem.cli", "--config", str(config), "lmtp", "--listen",
                                f"127.0.0.1:{port}", "--outbox-interval", "1", "--log-level", "DEBUG",
                                "--log-format", "json"], cwd=ROOT, env=environment,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: len(smtpd.received) >= 2)  # the welcomes
        player, order = table.an_order()
        wait_until(lambda: lmtp_delivered(port, table.mail_from(player, order + "\n"), table.reply_to(player)))
        wait_until(lambda: len(smtpd.received) >= 4)
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    table.db.dispose()
    lines = stderr.splitlines()
    assert any("LMTP: message" in line for line in lines)  # the log was captured, at DEBUG
    assert [line for line in lines if any(token in line for token in tokens)] == []
    assert [line for line in lines if '"logger": "mail.' in line] == []  # aiosmtpd's chatter


def test_a_second_pbem_lmtp_on_a_busy_port_says_so_in_one_line(tmp_path: Path, smtpd: SmtpServer) -> None:
    """Another process (a first ``pbem lmtp``) listens on the port: one line saying so, no traceback."""
    config = tmp_path / "pbem.toml"
    config.write_text(f'[moderator]\naddress = "pbem@games.test"\n\n[database]\nurl = "sqlite:///{tmp_path / "b.db"}"\n'
                      f'\n[smtp]\nhost = "{smtpd.host}"\nport = {smtpd.port}\nsecurity = "none"\n')
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "PBEM_CONFIG": "", "PBEM_DATABASE_URL": ""}
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "pbem.cli", "--config", str(config), "lmtp", "--listen",
                               f"127.0.0.1:{port}"], cwd=ROOT, env=environment, capture_output=True, text=True,
                              timeout=60)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    said = [line for line in done.stderr.splitlines() if "error" in line.lower()]
    assert len(said) == 1, done.stderr
    assert f"127.0.0.1:{port}" in said[0] and "in use" in said[0], said


def test_pbem_lmtp_help_points_to_the_page_with_the_postfix_lines() -> None:
    """``pbem lmtp --help`` sent hosts to docs/running.md, which has no Postfix line: docs/hosting.md has them."""
    result = CliRunner().invoke(app, ["lmtp", "--help"], env={"COLUMNS": "300", "TERM": "dumb"})
    pages = re.findall(r"docs/[\w-]+\.md", result.stdout)
    assert pages, result.stdout
    assert all("transport_maps" in (ROOT / page).read_text(encoding="utf-8") for page in pages), pages
