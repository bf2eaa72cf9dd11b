"""The database and the mail folders hold every seat's reply token: only their owner may read them.
The mail passwords and access tokens, on the other hand, are written nowhere, and logged nowhere.

Each test runs under the common umask 022, which would make new files 0644 and folders 0755.
"""
from __future__ import annotations

import base64
import os
import smtplib
import stat
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import text
from typer.testing import CliRunner

from pbem.cli import app
from pbem.mail.hub import MailHub
from pbem.mail.maildir import MaildirInbox
from pbem.privatefiles import exposure_warnings
from pbem.store import Database
from tests.mailservers import DovecotAccount, secret_command
from tests.smtpservers import SMTP_TOKEN, SMTP_USER, SmtpServer


@pytest.fixture(autouse=True)
def common_umask() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_sqlite_database_and_its_wal_files_are_owner_only(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'pbem.db'}")
    with db.engine.connect() as conn:
        conn.execute(text("PRAGMA journal_mode=WAL"))
        conn.execute(text("CREATE TABLE t (x INTEGER)"))
        conn.commit()
        assert mode(tmp_path / "pbem.db") == 0o600
        assert mode(tmp_path / "pbem.db-wal") == 0o600
        assert mode(tmp_path / "pbem.db-shm") == 0o600
    db.dispose()


def test_an_existing_database_keeps_its_mode_but_is_named_in_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "pbem.db"
    path.touch(mode=0o644)
    os.chmod(path, 0o644)
    Database(f"sqlite:///{path}").dispose()
    assert mode(path) == 0o644
    (warning,) = exposure_warnings([path])
    assert str(path) in warning and f"chmod 600 {path}" in warning


def test_the_moderators_maildir_its_folders_and_index_are_owner_only(tmp_path: Path) -> None:
    maildir = tmp_path / "mail" / "moderator"
    with MaildirInbox(maildir) as inbox:
        inbox.fetch_new(None)
    for folder in (tmp_path / "mail", maildir, maildir / "new", maildir / ".processed", maildir / ".processed" / "cur",
                   maildir / ".failed"):
        assert mode(folder) == 0o700, folder
    for path in maildir.iterdir():
        if path.is_file():
            assert mode(path) == 0o600, path
    assert list(exposure_warnings([maildir])) == []


def test_mail_the_hub_delivers_is_owner_only(tmp_path: Path) -> None:
    with MailHub(tmp_path / "hub", fsync=False) as hub:
        mail = EmailMessage()
        mail["From"], mail["To"], mail["Subject"] = "pbem@demo.pbem", "ann@demo.pbem", "token inside"
        mail.set_content("Reply to pbem+secret@demo.pbem\n")
        with smtplib.SMTP("127.0.0.1", hub.port, local_hostname="localhost", timeout=10) as smtp:
            smtp.send_message(mail)
    box = tmp_path / "hub" / "ann@demo.pbem"
    assert mode(tmp_path / "hub") == 0o700 and mode(box) == 0o700 and mode(box / "new") == 0o700
    (delivered,) = list((box / "new").iterdir())
    assert mode(delivered) == 0o600


def test_pbem_poll_warns_at_start_when_the_database_is_readable_by_others(tmp_path: Path) -> None:
    database = tmp_path / "pbem.db"
    Database(f"sqlite:///{database}").dispose()
    os.chmod(database, 0o644)
    config = tmp_path / "pbem.toml"
    config.write_text(f'[moderator]\naddress = "pbem@games.test"\n[maildir]\npath = "{tmp_path / "inbox"}"\n'
                      '[smtp]\nhost = "127.0.0.1"\nport = 9\nsecurity = "none"\ntimeout = 2\n')
    result = CliRunner().invoke(app, ["--database", f"sqlite:///{database}", "--config", str(config), "poll",
                                      "--once"])
    assert f"chmod 600 {database}" in result.stderr, result.output


def test_tokens_from_helpers_are_neither_stored_nor_logged(tmp_path: Path, dovecot_oauth2: DovecotAccount,
                                                           smtpd: SmtpServer) -> None:
    """A whole ``pbem poll`` with both logins by XOAUTH2, logging at DEBUG: the tokens the helpers print are in
    no output and in no file pbem wrote (database, journal), and only the helpers' own stores hold them."""
    imap_token = dovecot_oauth2.access_token()
    imap_helper, smtp_helper = secret_command(tmp_path, imap_token, "imap"), secret_command(tmp_path, SMTP_TOKEN)
    database = tmp_path / "pbem.db"
    config = tmp_path / "pbem.toml"
    config.write_text(f'[moderator]\naddress = "pbem@games.test"\n[database]\nurl = "sqlite:///{database}"\n'
                      f'[imap]\nhost = "{dovecot_oauth2.host}"\nport = {dovecot_oauth2.port}\nsecurity = "none"\n'
                      f'username = "{dovecot_oauth2.user}"\nauth = "xoauth2"\n'
                      f'password_command = "{imap_helper.command}"\ntimeout = 10\n'
                      f'[smtp]\nhost = "{smtpd.host}"\nport = {smtpd.port}\nsecurity = "none"\n'
                      f'username = "{SMTP_USER}"\nauth = "xoauth2"\npassword_command = "{smtp_helper.command}"\n'
                      'timeout = 10\n')
    runner = CliRunner()
    created = runner.invoke(app, ["--config", str(config), "game", "new", "g1", "--player", "ann:ann@example.org",
                                  "--player", "bob:bob@example.org", "--seed", "1"])
    assert created.exit_code == 0, created.output
    assert (imap_helper.runs, smtp_helper.runs) == (0, 0)  # creating a game logs in nowhere
    result = runner.invoke(app, ["--config", str(config), "poll", "--once", "--log-level", "DEBUG"])
    assert result.exit_code == 0, result.output
    assert smtpd.received and f"outbox: {len(smtpd.received)} sent" in result.stdout
    assert (imap_helper.runs, smtp_helper.runs) == (1, 1)
    secrets = [imap_token, SMTP_TOKEN]
    secrets += [base64.b64encode(f"user={user}\x01auth=Bearer {token}\x01\x01".encode()).decode()
                for user, token in ((dovecot_oauth2.user, imap_token), (SMTP_USER, SMTP_TOKEN))]
    for secret in secrets:
        assert secret not in result.output and secret not in created.output
    stores = {imap_helper.store, smtp_helper.store}
    written = [path for path in tmp_path.rglob("*") if path.is_file() and path not in stores]
    assert database in written
    for path in written:
        content = path.read_bytes()
        assert not any(secret.encode() in content for secret in secrets), path
