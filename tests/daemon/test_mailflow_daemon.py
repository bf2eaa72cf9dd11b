"""``pbem run`` (the daemon: IDLE, polling, reconnecting, stopping), ``pbem poll --once``, ``pbem check``,
and the crash points (``PBEM_CRASH_AT``), against Dovecot and aiosmtpd."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from pbem.config import load_config
from pbem.crash import ENV, EXIT_CODE, POINTS
from pbem.daemon import Daemon, MailFlow, poll_once
from pbem.daemon import loop as daemon_module
from pbem.daemon.mailbox import Mailbox
from pbem.mail import MailboxError
from pbem.moderator.inbound.handler import DatabaseUnavailable
from pbem.store import Database
from pbem.store.inqueue import counts, failed_messages, retry_failed
from tests.mailflowkit import Table, mailbox_config_text, wait_until
from tests.mailservers import DovecotAccount, secret_command
from tests.smtpservers import SMTP_TOKEN, SMTP_USER, SmtpServer

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def setup(tmp_path: Path, dovecot: DovecotAccount, smtpd: SmtpServer) -> Iterator[tuple[Table, Path]]:
    url = f"sqlite:///{tmp_path / 'daemon.db'}"
    path = tmp_path / "pbem.toml"
    path.write_text(mailbox_config_text(dovecot, smtpd, url))
    table = Table(Database(url), load_config(path, {}))
    table.create(players=2, now=datetime.now(UTC))  # the daemon runs on the real clock
    yield table, path
    table.db.dispose()


def run_in_thread(daemon: Daemon) -> threading.Thread:
    thread = threading.Thread(target=daemon.run, daemon=True)
    thread.start()
    return thread


# --- the daemon -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("idle", [True, False], ids=["idle", "polling"])
@pytest.mark.slow
def test_the_daemon_answers_mail_as_it_arrives(setup: tuple[Table, Path], dovecot: DovecotAccount,
                                               smtpd: SmtpServer, idle: bool) -> None:
    table, _ = setup
    flow = MailFlow(table.config, table.db, moderator=table.moderator,
                    inbox_factory=lambda: Mailbox(table.config.require_imap(), use_idle=None if idle else False))
    daemon = Daemon(flow, outbox_interval=5.0, wait_slice=0.5)
    thread = run_in_thread(daemon)
    try:
        wait_until(lambda: len(smtpd.received) >= 3)  # the welcome mails, from the outbox timer
        inbox = flow.open_inbox()
        assert inbox.uses_idle is idle
        inbox.close()
        start = time.monotonic()
        dovecot.append(table.mail_from("ann", "RONDEL investor\n"))
        wait_until(lambda: len(smtpd.received) >= 5)  # ann's report, bob's report with his prompt
        assert time.monotonic() - start < 5.0
        assert table.log_length() == 1
        wait_until(lambda: dovecot.uids("INBOX") == [])
    finally:
        daemon.stop()
        thread.join(timeout=5)
    assert not thread.is_alive()
    assert daemon.connects == 1


def test_the_daemon_reconnects_with_backoff(setup: tuple[Table, Path], dovecot: DovecotAccount,
                                            smtpd: SmtpServer) -> None:
    table, _ = setup
    attempts: list[float] = []

    def flaky() -> Mailbox:
        attempts.append(time.monotonic())
        if len(attempts) <= 2:
            raise MailboxError("cannot connect to the IMAP server: connection refused")
        return Mailbox(table.config.require_imap())

    flow = MailFlow(table.config, table.db, moderator=table.moderator, inbox_factory=flaky)
    daemon = Daemon(flow, outbox_interval=5.0, min_backoff=0.1, max_backoff=1.0, wait_slice=0.3)
    dovecot.append(table.mail_from("ann", "RONDEL investor\n"))
    thread = run_in_thread(daemon)
    try:
        wait_until(lambda: table.log_length() == 1)
    finally:
        daemon.stop()
        thread.join(timeout=5)
    assert len(attempts) >= 3
    assert attempts[2] - attempts[1] >= attempts[1] - attempts[0] > 0.05  # the waits grow


def test_a_database_outage_leaves_the_mail_in_the_inbox(setup: tuple[Table, Path], dovecot: DovecotAccount,
                                                        smtpd: SmtpServer,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    table, _ = setup
    uid = dovecot.append(table.mail_from("ann", "RONDEL investor\n"))

    def unavailable(*args: Any, **kwargs: Any) -> Any:
        raise DatabaseUnavailable("database unavailable: connection refused")

    monkeypatch.setattr(daemon_module, "receive", unavailable)
    flow = MailFlow(table.config, table.db, moderator=table.moderator)
    report = poll_once(flow)
    assert report.problems == ["database unavailable: connection refused"] and not report.ok
    assert dovecot.uids("INBOX") == [uid] and dovecot.uids("failed") == []
    monkeypatch.undo()
    assert poll_once(flow).ok
    assert dovecot.uids("INBOX") == [] and table.log_length() == 1


def test_a_message_that_breaks_the_handling_is_set_aside(setup: tuple[Table, Path], dovecot: DovecotAccount,
                                                         smtpd: SmtpServer,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    table, _ = setup
    original = table.moderator.submit_in

    def buggy(session: Any, game: Any, player: str, text: str, state: Any = None) -> Any:
        if "BOOM" in text:
            raise RuntimeError("a bug in the moderator")
        return original(session, game, player, text, state=state)

    monkeypatch.setattr(table.moderator, "submit_in", buggy)
    bad = dovecot.append(table.mail_from("ann", "BOOM\n"))
    dovecot.append(table.mail_from("ann", "RONDEL investor\n"))
    report = poll_once(MailFlow(table.config, table.db, moderator=table.moderator))
    assert report.inbox is not None and report.inbox.failed == []
    assert [o.outcome for o in report.inbox.outcomes] == ["failed", "applied"]  # the next mail was handled all the same
    assert "a bug in the moderator" in report.inbox.outcomes[0].reason
    assert dovecot.uids("failed") == [] and dovecot.uids("INBOX") == [] and len(dovecot.uids("processed")) == 2
    assert any("set aside" in r.message for r in caplog.records)
    assert table.inbound()[0].outcome == "applied"  # the broken one is not recorded: it may be retried
    with table.db.transaction() as session:  # it waits in the queue, set aside, for the game master
        (kept,) = failed_messages(session)
        assert kept.uid == bad and "a bug in the moderator" in kept.last_error
        assert retry_failed(session) == 1
    monkeypatch.undo()
    again = poll_once(MailFlow(table.config, table.db)).inbox
    assert again is not None and [o.outcome for o in again.outcomes] == ["refused"]  # BOOM is no order


# --- the CLI -------------------------------------------------------------------------------------------


def test_poll_once_and_game_new_from_the_cli(tmp_path: Path, dovecot: DovecotAccount,
                                             smtpd: SmtpServer) -> None:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    path = tmp_path / "pbem.toml"
    path.write_text(mailbox_config_text(dovecot, smtpd, url))
    runner = CliRunner()
    env = {"PBEM_DATABASE_URL": "", "PBEM_CONFIG": ""}
    result = runner.invoke(app, ["--config", str(path), "game", "new", "cli", "--player", "ann:ann@example.org",
                                 "--player", "bob:bob@example.org", "--deal", "russia=ann", "--seed", "7"], env=env)
    assert result.exit_code == 0, result.output
    assert "welcome mails with each seat's reply token queued for ann@example.org, bob@example.org" in result.stdout
    result = runner.invoke(app, ["--config", str(path), "poll", "--once"], env=env)
    assert result.exit_code == 0, result.output
    assert "inbox: 0 message(s) handled" in result.stdout and "outbox: 3 sent" in result.stdout
    assert len(smtpd.received) == 3
    result = runner.invoke(app, ["--config", str(path), "poll", "--once", "--quiet"], env=env)
    assert result.exit_code == 0 and result.stdout == ""
    result = runner.invoke(app, ["--config", str(path), "poll", "--quiet"], env=env)  # one pass is the default
    assert result.exit_code == 0 and result.stdout == ""
    result = runner.invoke(app, ["poll", "--once"], env=env)
    assert result.exit_code == 2 and "no configuration file" in result.stderr


def test_check_says_what_works(tmp_path: Path, dovecot: DovecotAccount, smtpd: SmtpServer) -> None:
    path = tmp_path / "pbem.toml"
    path.write_text(mailbox_config_text(dovecot, smtpd, f"sqlite:///{tmp_path / 'c.db'}"))
    result = CliRunner().invoke(app, ["--config", str(path), "check"])
    assert result.exit_code == 0, result.output
    for text in ("login ok as " + dovecot.user, "mailbox 'INBOX' exists", "IDLE supported",
                 "processed folder 'processed' missing: created on first use", "SMTP 127.0.0.1",
                 "no login configured", "IMAP and SMTP work."):
        assert text in result.stdout
    assert dovecot.password not in result.stdout


def test_check_fails_plainly_without_showing_the_password(tmp_path: Path, dovecot: DovecotAccount,
                                                          smtpd: SmtpServer) -> None:
    path = tmp_path / "pbem.toml"
    path.write_text(mailbox_config_text(dovecot, smtpd, f"sqlite:///{tmp_path / 'c.db'}", password="Wrong-Secret-123"))
    smtpd_port = smtpd.port
    text = path.read_text().replace(f"port = {smtpd_port}", "port = 1")
    path.write_text(text)
    result = CliRunner().invoke(app, ["--config", str(path), "check"])
    assert result.exit_code == 1
    assert "refused the login" in result.stdout and "connection refused" in result.stdout
    assert "IMAP does NOT work; SMTP does NOT work." in result.stdout
    assert "Wrong-Secret-123" not in result.output


def maildir_config_text(directory: Path, smtp: SmtpServer) -> str:
    """A moderator whose inbox is the Maildir ``directory/Maildir`` (not made here), sending through ``smtp``."""
    database, maildir = directory / "m.db", directory / "Maildir"
    return (f'[moderator]\naddress = "pbem@games.test"\n\n[database]\nurl = "sqlite:///{database}"\n\n'
            f'[maildir]\npath = "{maildir}"\n\n'
            f'[smtp]\nhost = "{smtp.host}"\nport = {smtp.port}\nsecurity = "none"\ntimeout = 10\n')


def test_check_of_a_maildir_creates_nothing_and_names_the_maildir(tmp_path: Path, smtpd: SmtpServer) -> None:
    """``pbem check`` "changes nothing": it made the Maildir with its folders and UID index (as the calling
    user, who may not be the moderator's), and called a Maildir "IMAP"."""
    path = tmp_path / "pbem.toml"
    path.write_text(maildir_config_text(tmp_path, smtpd))
    maildir = tmp_path / "Maildir"
    result = CliRunner().invoke(app, ["--config", str(path), "check"])
    assert result.exit_code == 0, result.output
    assert not maildir.exists()
    assert f"Maildir {maildir}: missing: created on first use" in result.stdout
    assert "IMAP" not in result.stdout and "The Maildir and SMTP work." in result.stdout
    (tmp_path / "Maildir" / "new").mkdir(parents=True)  # a Maildir the MTA began: pbem completes it itself
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    result = CliRunner().invoke(app, ["--config", str(path), "check"])
    assert result.exit_code == 0, result.output
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    assert "processed folder 'processed' missing: created on first use" in result.stdout
    (tmp_path / "Maildir").chmod(0o500)  # the calling user could not write in it (root can: skip then)
    try:
        if not os.access(tmp_path / "Maildir", os.W_OK):
            result = CliRunner().invoke(app, ["--config", str(path), "check"])
            assert result.exit_code == 1 and "The Maildir does NOT work; SMTP works." in result.stdout
    finally:
        (tmp_path / "Maildir").chmod(0o700)


def test_poll_quiet_prints_nothing_when_it_sent_mail(tmp_path: Path, smtpd: SmtpServer) -> None:
    """Cron mails whatever a command prints: ``poll --quiet`` printed "outbox: 2 sent" at every send."""
    path = tmp_path / "pbem.toml"
    path.write_text(maildir_config_text(tmp_path, smtpd))
    table = Table(Database(f"sqlite:///{tmp_path / 'm.db'}"), load_config(path, {}))
    table.create(players=2, now=datetime.now(UTC))
    result = CliRunner().invoke(app, ["--config", str(path), "poll", "--quiet"], env={"PBEM_CONFIG": ""})
    assert result.exit_code == 0, result.output
    assert len(smtpd.received) == len(table.outbox()) > 0 and result.stdout == ""
    table.db.dispose()


def xoauth2_config(account: DovecotAccount, smtp: SmtpServer, db: str, imap_command: str, smtp_command: str) -> str:
    """Both servers by XOAUTH2, each token printed by a helper command."""
    return mailbox_config_text(account, smtp, db, imap_login=f'auth = "xoauth2"\npassword_command = "{imap_command}"',
                               smtp_login=f'username = "{SMTP_USER}"\nauth = "xoauth2"\n'
                                          f'password_command = "{smtp_command}"')


def test_check_logs_in_by_xoauth2_with_tokens_from_helpers(tmp_path: Path, dovecot_oauth2: DovecotAccount,
                                                            smtpd: SmtpServer) -> None:
    imap_token = dovecot_oauth2.access_token()
    imap_helper, smtp_helper = secret_command(tmp_path, imap_token, "imap"), secret_command(tmp_path, SMTP_TOKEN)
    path = tmp_path / "pbem.toml"
    path.write_text(xoauth2_config(dovecot_oauth2, smtpd, f"sqlite:///{tmp_path / 'c.db'}",
                                   imap_helper.command, smtp_helper.command))
    result = CliRunner().invoke(app, ["--config", str(path), "check"])
    assert result.exit_code == 0, result.output
    how = "(with XOAUTH2, secret from password_command)"
    assert f"login ok as {dovecot_oauth2.user} {how}" in result.stdout
    assert f"login ok as {SMTP_USER} {how}" in result.stdout
    assert (imap_helper.runs, smtp_helper.runs) == (1, 1)
    assert imap_token not in result.output and SMTP_TOKEN not in result.output
    assert smtpd.handler.xoauth2_logins == ["ok"]


def test_check_says_which_helper_failed_without_its_output(tmp_path: Path, dovecot_oauth2: DovecotAccount,
                                                           smtpd: SmtpServer) -> None:
    path = tmp_path / "pbem.toml"
    path.write_text(xoauth2_config(dovecot_oauth2, smtpd, f"sqlite:///{tmp_path / 'c.db'}",
                                   "echo Leaked-Token-1; exit 1", "echo Stale-Token-2"))
    result = CliRunner().invoke(app, ["--config", str(path), "check"])
    assert result.exit_code == 1
    assert "[imap] password_command failed: exit status 1" in result.stdout
    assert f"refused the XOAUTH2 login of '{SMTP_USER}'" in result.stdout and "may have expired" in result.stdout
    assert "Leaked-Token-1" not in result.output and "Stale-Token-2" not in result.output


# --- processes: SIGTERM and the crash points -------------------------------------------------------------


def pbem(config: Path, *args: str, env: dict[str, str] | None = None, **kwargs: Any) -> subprocess.Popen[str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "PBEM_CONFIG": "", "PBEM_DATABASE_URL": ""}
    environment.pop(ENV, None)
    environment.update(env or {})
    return subprocess.Popen([sys.executable, "-m", "pbem.cli", "--config", str(config), *args], cwd=ROOT,
                            env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)


@pytest.mark.slow
def test_run_stops_cleanly_on_sigterm(setup: tuple[Table, Path], dovecot: DovecotAccount,
                                      smtpd: SmtpServer) -> None:
    table, path = setup
    process = pbem(path, "run", "--log-level", "INFO")
    try:
        wait_until(lambda: len(smtpd.received) >= 3, timeout=20)  # it runs: the welcomes went out
        time.sleep(0.3)  # now it waits in IDLE
        signalled = time.monotonic()
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=10)
        stopped_in = time.monotonic() - signalled
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, stderr
    assert stopped_in < 3.0, stopped_in
    assert "SIGTERM received: stopping" in stderr and "pbem moderator stopped" in stderr
    assert "(IDLE)" in stderr
    assert dovecot.password not in stderr and "Traceback" not in stderr


def test_run_at_debug_logs_no_reply_token(setup: tuple[Table, Path], dovecot: DovecotAccount,
                                          smtpd: SmtpServer) -> None:
    """imapclient's protocol log (every command, every fetched mail) and aiosmtpd's are held at warnings:
    ``pbem run --log-level DEBUG`` reads an order addressed to a token and logs no token."""
    table, path = setup
    tokens = [table.token(player) for player in ("ann", "bob")]
    process = pbem(path, "run", "--log-level", "DEBUG")
    try:
        wait_until(lambda: len(smtpd.received) >= 3, timeout=20)  # the welcomes
        player, order = table.an_order()
        dovecot.append(table.mail_from(player, order + "\n"))
        wait_until(lambda: table.log_length() == 1, timeout=20)
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert "applied" in stderr  # the log was there
    assert [line for line in stderr.splitlines() if any(token in line for token in tokens)] == []


@pytest.mark.slow
def test_a_crash_after_the_commit_before_the_move_applies_nothing_twice(
        setup: tuple[Table, Path], dovecot: DovecotAccount, smtpd: SmtpServer) -> None:
    table, path = setup
    uid = dovecot.append(table.mail_from("ann", "RONDEL investor\n"))
    process = pbem(path, "poll", "--once", env={ENV: "after_commit_before_move"})
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == EXIT_CODE, stderr
    assert dovecot.uids("INBOX") == [uid]  # not moved ...
    with table.db.transaction() as session:  # ... but committed to the inbound queue
        assert counts(session) == {"waiting": 1}
    assert table.log_length() == 0 and smtpd.received == []  # not handled yet
    report = poll_once(MailFlow(table.config, table.db, moderator=table.moderator))  # the restart
    assert report.inbox is not None and report.inbox.recovered == 1
    assert [o.outcome for o in report.inbox.outcomes] == ["applied"]  # once: the queued copy, not a second one
    assert table.log_length() == 1 and dovecot.uids("INBOX") == [] and report.outbox.sent == 5
    again = poll_once(MailFlow(table.config, table.db, moderator=table.moderator))
    assert again.inbox is not None and again.inbox.outcomes == [] and table.log_length() == 1


@pytest.mark.slow
def test_a_crash_mid_send_delivers_at_least_once(setup: tuple[Table, Path], smtpd: SmtpServer) -> None:
    table, path = setup
    process = pbem(path, "poll", "--once", env={ENV: "mid_send:2"})
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == EXIT_CODE, stderr
    assert len(smtpd.received) == 2  # accepted by the server, the second not marked sent
    report = poll_once(MailFlow(table.config, table.db, moderator=table.moderator))
    assert report.outbox.sent == 2
    ids = [r.message["Message-ID"] for r in smtpd.received]
    assert len(ids) == 4 and len(set(ids)) == 3  # one mail twice, with the same Message-ID
    assert all(r.status == "sent" for r in table.outbox())


def test_the_crash_points_are_named_in_one_place() -> None:
    assert POINTS == ("after_fetch", "after_commit_before_move", "mid_transaction", "after_apply_before_render",
                      "mid_render", "mid_send")
    sources = "".join(p.read_text() for p in (ROOT / "pbem").rglob("*.py"))
    for point in POINTS:
        assert f'crash_point("{point}")' in sources
