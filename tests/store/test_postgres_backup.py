"""`pbem backup` and `pbem restore` on PostgreSQL: a private dump, and a restore that ends as on SQLite.

Against the real PostgreSQL of the tests (a fresh database per test,
``tests/dbfixtures.py``) with the ``pg_dump``/``pg_restore`` of this machine.
The dump holds every seat's reply token, so it is owner-only whatever the
umask; after the restore the leases and claims of the processes that ran
when the dump was taken are let go, whether pbem ran ``pg_restore`` or the
host did (``pbem restore --forget-processes``).
"""
from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect, text
from sqlmodel import select
from typer.testing import CliRunner

from pbem.cli import app
from pbem.moderator import Moderator
from pbem.store import Database
from pbem.store.db import normalise_url
from pbem.store.leases import LeaseRow
from pbem.store.outbox import OutboxRow
from pbem.store.pgbackup import pg_restore_line
from pbem.store.schema import head_revisions
from tests.dbfixtures import fresh_postgres_url

PLAYERS = [("ann", "ann@example.org"), ("bob", "bob@example.org")]
INBOX_LEASE = "fetch:imap:pbem@mail.example:993/INBOX"

pytestmark = pytest.mark.skipif(shutil.which("pg_dump") is None or shutil.which("pg_restore") is None,
                                reason="pg_dump and pg_restore are not installed (postgresql-client)")


def cli(url: str, *args: str) -> Any:
    return CliRunner().invoke(app, list(args), env={"PBEM_DATABASE_URL": url, "PBEM_CONFIG": ""})


@pytest.fixture
def game(postgres_url: str) -> Iterator[tuple[str, Moderator]]:
    """A two-player game in progress on PostgreSQL: ann has moved, bob must invest."""
    moderator = Moderator(Database(postgres_url))
    moderator.create_game("g1", PLAYERS, deal=[("russia", "ann")], seed=1)
    assert moderator.submit("g1", "ann", "RONDEL investor").ok
    yield postgres_url, moderator
    moderator.db.dispose()


@pytest.fixture
def loose_umask() -> Iterator[None]:
    """The usual umask of a shell (files readable by everyone), as pbem backup may be run with it."""
    before = os.umask(0o022)
    yield
    os.umask(before)


def a_move_for(moderator: Moderator, player: str) -> str:
    orders = moderator.kind_of("g1").legal_orders(moderator.state("g1"), player)
    return [o for o in orders if o.split()[0] not in ("PASS", "DONE")][0]


def hold_lease(db: Database, name: str, holder: str, until: datetime) -> None:
    with db.transaction() as session:
        session.merge(LeaseRow(name=name, holder=holder, until=until))


def claim_a_mail(db: Database) -> None:
    with db.transaction() as session:
        session.add(OutboxRow(recipient="ann@example.org", purpose="report", message_id="<m1@pbem.test>",
                              subject="s", body="b", claimed_by="send@elsewhere:4242:1",
                              next_attempt=datetime.now(UTC) + timedelta(minutes=4)))


def leases_and_claims(db: Database) -> tuple[list[str], list[str]]:
    with db.transaction() as session:
        leases = [row.name for row in session.exec(select(LeaseRow)).all()]
        claims = [row.claimed_by for row in session.exec(select(OutboxRow)).all()]
    return leases, claims


def test_pbem_backup_writes_a_postgresql_dump_only_its_owner_can_read(game: tuple[str, Moderator], tmp_path: Path,
                                                                      loose_umask: None) -> None:
    url, _ = game
    backups = tmp_path / "backups"
    backups.mkdir()
    result = cli(url, "backup", str(backups / "pbem.dump"))
    assert result.exit_code == 0, result.output
    assert "1 game(s)" in result.stdout and f"schema revision {head_revisions()[0]}" in result.stdout
    dump = backups / "pbem.dump"
    assert dump.stat().st_mode & 0o777 == 0o600  # it holds every seat's reply token
    assert dump.read_bytes()[:5] == b"PGDMP"  # pg_dump's custom format
    assert [p.name for p in backups.iterdir()] == ["pbem.dump"]  # no partial file left behind
    dump.chmod(0o644)
    result = cli(url, "backup", str(dump))
    assert result.exit_code == 2 and "exists already" in result.stderr and "--force" in result.stderr
    result = cli(url, "backup", str(dump), "--force")
    assert result.exit_code == 0, result.output
    assert dump.stat().st_mode & 0o777 == 0o600  # a replaced file is private too


def test_pbem_restore_puts_a_postgresql_dump_back_and_lets_go_of_the_old_processes(game: tuple[str, Moderator],
                                                                                    tmp_path: Path) -> None:
    url, moderator = game
    at_backup = moderator.state_json("g1")
    hold_lease(moderator.db, "periodic-tasks", "lease2@elsewhere:4242:1", datetime.now(UTC) + timedelta(minutes=4))
    claim_a_mail(moderator.db)
    dump = tmp_path / "pbem.dump"
    assert cli(url, "backup", str(dump)).exit_code == 0
    with moderator.db.transaction() as session:
        session.execute(LeaseRow.__table__.delete())  # type: ignore[attr-defined]  # the moderator stopped
    move = a_move_for(moderator, "bob")
    assert moderator.submit("g1", "bob", move).ok
    assert moderator.state_json("g1") != at_backup

    result = cli(url, "restore", str(dump))
    assert result.exit_code == 0, result.output
    assert f"restored {dump}" in result.stdout and "1 game(s)" in result.stdout
    assert "1 lease(s)" in result.stdout and "1 mail claim(s)" in result.stdout
    assert leases_and_claims(moderator.db) == ([], [""])  # as after an SQLite restore
    fresh = Moderator(Database(url))
    try:
        assert fresh.state_json("g1") == at_backup
        assert fresh.submit("g1", "bob", move).ok  # the game goes on from there
    finally:
        fresh.db.dispose()


def test_pbem_restore_refuses_while_a_moderator_runs_on_postgresql(game: tuple[str, Moderator],
                                                                   tmp_path: Path) -> None:
    url, moderator = game
    dump = tmp_path / "pbem.dump"
    assert cli(url, "backup", str(dump)).exit_code == 0
    hold_lease(moderator.db, INBOX_LEASE, "lease1@elsewhere:4242:1", datetime.now(UTC) + timedelta(minutes=4))
    result = cli(url, "restore", str(dump))
    assert result.exit_code == 2 and "lease1@elsewhere:4242:1" in result.stderr and "stop it first" in result.stderr
    result = cli(url, "restore", str(dump), "--force")
    assert result.exit_code == 0, result.output
    assert leases_and_claims(moderator.db)[0] == []


def test_after_pg_restore_by_hand_forget_processes_lets_go_of_the_old_processes(game: tuple[str, Moderator],
                                                                                tmp_path: Path) -> None:
    """A host that ran pg_restore itself (the line pbem gives where pg_restore is not installed) ends the
    restore with ``pbem restore --forget-processes``."""
    url, moderator = game
    hold_lease(moderator.db, "periodic-tasks", "lease2@elsewhere:4242:1", datetime.now(UTC) + timedelta(minutes=4))
    claim_a_mail(moderator.db)
    dump = tmp_path / "pbem.dump"
    assert cli(url, "backup", str(dump)).exit_code == 0
    with moderator.db.transaction() as session:
        session.execute(LeaseRow.__table__.delete())  # type: ignore[attr-defined]  # the moderator stopped
    by_hand = subprocess.run(pg_restore_line(normalise_url(url), str(dump)), shell=True, capture_output=True,
                             text=True, timeout=120)
    assert by_hand.returncode == 0, by_hand.stderr
    assert leases_and_claims(moderator.db) == (["periodic-tasks"], ["send@elsewhere:4242:1"])  # the old ones
    result = cli(url, "restore", "--forget-processes")
    assert result.exit_code == 0, result.output
    assert "1 lease(s)" in result.stdout and "1 mail claim(s)" in result.stdout
    assert leases_and_claims(moderator.db) == ([], [""])
    result = cli(url, "restore")
    assert result.exit_code == 2 and "give FILE" in result.stderr


def test_pbem_restore_refuses_what_is_no_pbem_dump(game: tuple[str, Moderator], tmp_path: Path) -> None:
    url, moderator = game
    before = moderator.state_json("g1")
    (tmp_path / "text.dump").write_text("not a dump")
    databases = fresh_postgres_url("pbem_other")
    other = normalise_url(next(databases))  # a database of something else
    try:
        engine = create_engine(other)
        with engine.begin() as connection:
            connection.execute(text("CREATE TABLE notes (x integer)"))
        engine.dispose()
        subprocess.run(["pg_dump", "--format=custom", f"--file={tmp_path / 'other.dump'}", f"--host={other.host}",
                        f"--port={other.port}", f"--username={other.username}", str(other.database)],
                       check=True, timeout=120)
    finally:
        databases.close()
    for path, words in ((tmp_path / "text.dump", "is it a pg_dump archive"),
                        (tmp_path / "other.dump", "no table alembic_version, games"),
                        (tmp_path / "missing.dump", "no such file")):
        result = cli(url, "restore", str(path))
        assert result.exit_code == 2 and words in result.stderr, result.output
        assert len(result.stderr.splitlines()) == 1
    assert moderator.state_json("g1") == before


def test_a_restore_leaves_no_table_the_backup_has_not(game: tuple[str, Moderator], tmp_path: Path) -> None:
    """As an SQLite restore replaces the whole file: a table made after the backup (by a newer pbem) goes."""
    url, moderator = game
    dump = tmp_path / "pbem.dump"
    assert cli(url, "backup", str(dump)).exit_code == 0
    with moderator.db.engine.begin() as connection:
        connection.execute(text("CREATE TABLE newer_things (id integer PRIMARY KEY)"))
    result = cli(url, "restore", str(dump))
    assert result.exit_code == 0, result.output
    assert "dropped the tables it has not: newer_things" in result.stdout
    assert "newer_things" not in inspect(moderator.db.engine).get_table_names()
