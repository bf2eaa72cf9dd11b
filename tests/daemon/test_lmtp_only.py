"""A configuration without an inbox: mail comes by LMTP (``pbem lmtp``), nothing else to read.

Such a configuration is correct (docs/hosting.md: "No ``[imap]`` section is
needed"), so ``pbem check`` passes it, and ``pbem run`` and ``pbem poll``
work with it: they handle what the LMTP server queued, check the deadlines
and deliver the outbox, and say that mail comes by LMTP. That makes the cron
fallback (``pbem poll`` while no ``pbem lmtp`` runs) and "``pbem lmtp`` plus
``pbem run --workers N``" possible.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from pbem.config import load_config
from pbem.daemon.intake import Received, receive
from pbem.store import Database
from pbem.store.inqueue import counts
from tests.mailflowkit import Table, wait_until
from tests.smtpservers import SmtpServer

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def lmtp_only(tmp_path: Path, smtpd: SmtpServer) -> Iterator[tuple[Table, Path]]:
    """A game, and a configuration with [moderator], [database] and [smtp]: no [imap], no [maildir]."""
    url = f"sqlite:///{tmp_path / 'lmtp-only.db'}"
    path = tmp_path / "pbem.toml"
    path.write_text(f'[moderator]\naddress = "pbem@games.test"\n\n[database]\nurl = "{url}"\n\n'
                    f'[smtp]\nhost = "{smtpd.host}"\nport = {smtpd.port}\nsecurity = "none"\ntimeout = 10\n')
    table = Table(Database(url), load_config(path, {}))
    table.create(players=2, now=datetime.now(UTC))
    yield table, path
    table.db.dispose()


def queue_by_lmtp(table: Table, player: str, body: str) -> None:
    """What ``pbem lmtp`` does with a player's mail: into the inbound queue, the token from RCPT TO."""
    raw = table.mail_from(player, body)
    receive(table.db, table.config, [Received(raw, "lmtp", "lmtp", token=table.token(player))], datetime.now(UTC))


def test_check_passes_a_configuration_without_an_inbox(lmtp_only: tuple[Table, Path]) -> None:
    _, path = lmtp_only
    result = CliRunner().invoke(app, ["--config", str(path), "check"], env={"PBEM_CONFIG": ""})
    assert result.exit_code == 0, result.output
    assert "FAIL" not in result.stdout and "IMAP" not in result.stdout
    assert "mail comes by LMTP" in result.stdout and "SMTP works" in result.stdout


def test_poll_without_an_inbox_handles_the_queue_and_sends(lmtp_only: tuple[Table, Path],
                                                           smtpd: SmtpServer) -> None:
    """The cron fallback: what ``pbem lmtp`` queued is handled and answered by ``pbem poll``."""
    table, path = lmtp_only
    player, order = table.an_order()
    queue_by_lmtp(table, player, order + "\n")
    result = CliRunner().invoke(app, ["--config", str(path), "poll"], env={"PBEM_CONFIG": ""})
    assert result.exit_code == 0, result.output
    assert "mail comes by LMTP" in result.stdout and "1 queued message(s) handled (1 applied)" in result.stdout
    assert table.log_length() == 1 and len(smtpd.received) == len(table.outbox())
    with table.db.transaction() as session:
        assert counts(session) == {}
    quiet = CliRunner().invoke(app, ["--config", str(path), "poll", "--quiet"], env={"PBEM_CONFIG": ""})
    assert quiet.exit_code == 0 and quiet.stdout == ""


def test_run_without_an_inbox_handles_what_lmtp_queued(lmtp_only: tuple[Table, Path],
                                                       smtpd: SmtpServer) -> None:
    """``pbem lmtp`` plus ``pbem run``: the run process handles the queue, the deadlines and the outbox."""
    table, path = lmtp_only
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "PBEM_CONFIG": "", "PBEM_DATABASE_URL": ""}
    process = subprocess.Popen([sys.executable, "-m", "pbem.cli", "--config", str(path), "run", "--outbox-interval",
                                "1"], cwd=ROOT, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    try:
        wait_until(lambda: len(smtpd.received) >= len(table.outbox()) > 0, what="the welcomes")
        player, order = table.an_order()
        queue_by_lmtp(table, player, order + "\n")
        wait_until(lambda: table.log_length() == 1, what="the order applied")
        wait_until(lambda: len(smtpd.received) == len(table.outbox()), what="its answers sent")
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, stderr
    assert "mail comes by LMTP" in stderr and "Traceback" not in stderr


def test_check_send_test_without_an_inbox_says_why_it_cannot(lmtp_only: tuple[Table, Path]) -> None:
    """The round trip waits for its mail in the inbox; without one it said "no [imap] section" as a FAIL."""
    _, path = lmtp_only
    result = CliRunner().invoke(app, ["--config", str(path), "check", "--send-test", "me@example.org"],
                                env={"PBEM_CONFIG": ""})
    assert result.exit_code == 2 and "[imap]" not in result.output
    assert "mail comes by LMTP" in result.stderr and len(result.stderr.strip().splitlines()) == 1
