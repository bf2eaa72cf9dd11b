"""Upgrade and rollback: a database migrated by a newer pbem is refused in one line by every command.

A newer pbem migrates the database when it first opens it; an older pbem
started on that database afterwards (a rollback of the package, a second
host not upgraded) must neither write into a schema it does not know nor
fail with a traceback: every command that opens the database says, in one
line, which pbem wrote it, which pbem this is, and what to do. The
database is stamped here as a newer pbem leaves it: at a revision this pbem
has no file for.

The version's meaning (docs/running.md, "Upgrading"): the minor part is the
number of the newest schema revision, so the version alone tells whether an
upgrade migrates the database and whether a rollback needs the backup.
"""
from __future__ import annotations

import re
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect, text
from typer.testing import CliRunner

import pbem
from pbem.cli import app
from pbem.errors import SchemaTooNew, StoreError
from pbem.moderator import Moderator
from pbem.store import Database, schema

ROOT = Path(__file__).resolve().parents[2]
FUTURE = "0099"  # a revision of a pbem far ahead (release 0.99)
PLAYERS = [("ann", "ann@example.org"), ("bob", "bob@example.org")]


def cli(url: str, *args: str, config: Path | None = None) -> Any:
    env = {"PBEM_DATABASE_URL": url, "PBEM_CONFIG": str(config) if config else ""}
    return CliRunner().invoke(app, list(args), env=env)


def stamp(url: str, revision: str) -> None:
    """Leave the database as a newer pbem would: its schema at a revision this pbem has no file for."""
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            connection.execute(text("UPDATE alembic_version SET version_num = :revision"), {"revision": revision})
            connection.execute(text("CREATE TABLE newer_things (id INTEGER PRIMARY KEY)"))
    finally:
        engine.dispose()


def revision_of(url: str) -> list[str]:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return [row[0] for row in connection.execute(text("SELECT version_num FROM alembic_version"))]
    finally:
        engine.dispose()


@pytest.fixture
def newer(db_url: str, tmp_path: Path) -> str:
    """A database with a game in it, then migrated by a newer pbem (SQLite and PostgreSQL)."""
    moderator = Moderator(Database(db_url))
    moderator.create_game("g1", PLAYERS, deal=[("russia", "ann")], seed=1)
    moderator.db.dispose()
    stamp(db_url, FUTURE)
    return db_url


def mail_config(tmp_path: Path) -> Path:
    """A whole mail configuration (a Maildir inbox, an SMTP relay nobody listens on): run, poll, lmtp start."""
    path = tmp_path / "pbem.toml"
    path.write_text('[moderator]\naddress = "moderator@example.org"\n[maildir]\npath = "inbox"\n'
                    '[smtp]\nhost = "127.0.0.1"\nport = 9\nsecurity = "none"\n')
    return path


COMMANDS = [
    ("game", "list"), ("game", "show", "g1"), ("game", "set", "g1", "reminders=12"),
    ("game", "new", "g2", "--player", "ann:ann@example.org", "--player", "bob:bob@example.org"),
    ("order", "g1", "--as", "ann", "RONDEL investor"), ("state", "g1", "--json"), ("board", "g1"),
    ("report", "g1", "--for", "ann"), ("force", "g1", "--as", "ann", "RONDEL investor"), ("undo", "g1"),
    ("pause", "g1"), ("resume", "g1"), ("resend", "g1"), ("replace", "g1", "ann", "cat", "--email", "c@example.org"),
    ("export", "g1"), ("observer", "list", "g1"), ("deadlines", "tick"), ("inbox",), ("inbox", "retry"),
    ("status",), ("status", "--json"), ("run",), ("poll",), ("lmtp", "--listen", "127.0.0.1:0"),
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_every_command_refuses_a_database_of_a_newer_pbem_in_one_line(newer: str, tmp_path: Path,
                                                                      command: tuple[str, ...]) -> None:
    result = cli(newer, *command, config=mail_config(tmp_path))
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr[-3000:]
    line = lines[0]
    assert line.startswith("error: ") and "Traceback" not in result.output
    assert f"revision {FUTURE}" in line and "pbem 0.99" in line  # the newer pbem, by its version
    assert f"this is pbem {pbem.__version__}" in line  # this pbem, by its version
    assert "upgrade pbem" in line and "backup taken before the upgrade" in line  # what to do
    assert revision_of(newer) == [FUTURE]  # nothing was migrated back, nothing written
    assert result.stdout == ""


def test_the_database_is_refused_before_anything_is_written(newer: str) -> None:
    with pytest.raises(SchemaTooNew) as refusal:
        Database(newer)
    assert isinstance(refusal.value, StoreError)  # the CLI's one-line errors already cover it
    assert "password" not in str(refusal.value)
    assert revision_of(newer) == [FUTURE]


def test_the_version_follows_the_schema() -> None:
    """A new migration needs a new minor version (docs/running.md, "Upgrading"): this fails until it has one.

    The minor part is the newest revision's number, so a host reads from the
    version alone whether an upgrade migrates the database (and a rollback
    then needs the backup taken before it).
    """
    (head,) = schema.head_revisions()
    major, minor, patch = pbem.__version__.split(".")
    assert (major, int(minor)) == ("0", int(head)), (
        f"schema revision {head} is new: set pbem.__version__ to 0.{int(head)}.0 (pbem/__init__.py)")
    assert patch.isdigit()
    assert schema.release_of(head) == f"0.{int(head)}"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "pbem.__version__"}  # one place


def test_version_names_the_schema() -> None:
    result = CliRunner().invoke(app, ["--version"])
    (head,) = schema.head_revisions()
    assert result.exit_code == 0 and result.output.strip() == f"pbem {pbem.__version__} (database schema {head})"


def test_an_older_database_is_still_migrated(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    db = Database(url)
    schema.downgrade(db.engine, "0005")
    db.dispose()
    Database(url).dispose()
    assert revision_of(url) == list(schema.head_revisions())


def test_a_revision_that_is_no_number_is_named_as_it_is(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'odd.db'}"
    Database(url).dispose()
    stamp(url, "abc123")
    with pytest.raises(SchemaTooNew, match=re.escape("by a newer pbem (schema revision abc123); this is pbem")):
        Database(url)


def test_a_rollback_restores_the_backup_taken_before_the_upgrade(db_url: str, tmp_path: Path) -> None:
    """docs/running.md, "Upgrading": back up, upgrade (the newer pbem migrates), and to go back, this pbem
    restores the backup taken before, over the database the newer one migrated (SQLite and PostgreSQL)."""
    if db_url.startswith("postgresql") and shutil.which("pg_restore") is None:
        pytest.skip("pg_dump and pg_restore are not installed (postgresql-client)")
    moderator = Moderator(Database(db_url))
    moderator.create_game("g1", PLAYERS, deal=[("russia", "ann")], seed=1)
    moderator.db.dispose()
    backup = tmp_path / "before-upgrade.bak"
    assert cli(db_url, "backup", str(backup)).exit_code == 0
    stamp(db_url, FUTURE)  # the upgrade
    assert cli(db_url, "game", "list").exit_code == 2
    result = cli(db_url, "backup", str(tmp_path / "after.bak"))  # this pbem could not restore that copy
    assert result.exit_code == 2 and "upgrade pbem" in result.stderr and not (tmp_path / "after.bak").exists()

    result = cli(db_url, "restore", str(backup))  # the rollback
    assert result.exit_code == 0, result.output
    assert revision_of(db_url) == list(schema.head_revisions())
    listing = cli(db_url, "game", "list")
    assert listing.exit_code == 0 and "g1" in listing.stdout
    engine = create_engine(db_url)
    try:
        assert "newer_things" not in inspect(engine).get_table_names()  # the database is the backup's again
    finally:
        engine.dispose()
