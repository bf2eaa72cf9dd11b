"""The database and the mail folders hold every seat's reply token: only their owner may read them.

Each test runs under the common umask 022, which would make new files 0644 and folders 0755.
"""
from __future__ import annotations

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
from pbem.mail.maildir import MaildirInbox
from pbem.mailhub import MailHub
from pbem.private import exposure_warnings
from pbem.store import Database


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
