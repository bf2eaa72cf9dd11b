"""Backing up and restoring an SQLite database while games run (``pbem backup``, ``pbem restore``).

Why SQLite's online backup API and not a file copy: the moderator keeps its
database in WAL mode, so the newest commits may live in ``pbem.db-wal``
until a checkpoint; copying ``pbem.db`` alone can give a file that misses
them, or a torn one. The backup API copies the pages as one read
transaction sees them: a consistent snapshot, taken while the daemon goes on
writing (in WAL mode a reader blocks no writer).

- A backup is written to a temporary file beside the target and renamed over
  it at the end, so the target is never a half-written database. It is
  owner-only (it holds every seat's reply token, ``pbem.privatefiles``), in
  rollback-journal mode (one self-contained file), and checked
  (``PRAGMA quick_check``) before it is renamed into place.
- A restore checks that the file is a pbem database this pbem can migrate,
  then copies it into the configured database with the same API (so the
  live database's own WAL is handled by SQLite, not overwritten beside it);
  the caller then opens it, which migrates it (``Database``), and calls
  :func:`forget_processes`: leases and claims in the copy belong to the
  processes of the moment of the backup.
- PostgreSQL is copied with its own tools, ``pg_dump`` and ``pg_restore``
  (``pbem.store.pgbackup``); :func:`forget_processes` is the same after both.
"""
from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from urllib.request import pathname2url

from sqlalchemy import delete
from sqlalchemy.engine import URL
from sqlmodel import Session

from pbem.errors import StoreError
from pbem.privatefiles import create_private_file
from pbem.store.inqueue import reclaim as reclaim_messages
from pbem.store.leases import LeaseRow
from pbem.store.moves import forget_claims
from pbem.store.outbox import reclaim as reclaim_mail
from pbem.store.processes import ProcessRow
from pbem.store.schema import refuse_newer

REQUIRED_TABLES = ("alembic_version", "games")  # what makes a file a pbem database
SIDE_FILES = ("-wal", "-shm", "-journal")


@dataclass(frozen=True)
class BackupDone:
    path: Path
    size: int  # bytes
    games: int
    revision: str  # the schema revision in the copy


def sqlite_file(url: URL) -> Path | None:
    """The file of an SQLite URL; None for any other database. An in-memory database has none to back up."""
    if url.get_backend_name() != "sqlite":
        return None
    if url.database in (None, "", ":memory:"):
        raise StoreError("an in-memory SQLite database has nothing to back up or restore")
    return Path(url.database)


@contextlib.contextmanager
def _connection(path: Path, *, read_only: bool = False) -> Iterator[sqlite3.Connection]:
    """A plain sqlite3 connection (closed at the end; ``with sqlite3.connect`` only ends a transaction)."""
    try:
        if read_only:
            connection = sqlite3.connect(f"file:{pathname2url(str(path.resolve()))}?mode=ro", uri=True, timeout=30)
        else:
            connection = sqlite3.connect(path, timeout=30)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open {path}: {exc}") from None
    try:
        yield connection
    finally:
        connection.close()


def _tables(connection: sqlite3.Connection) -> set[str]:
    return {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _quick_check(connection: sqlite3.Connection, path: Path) -> None:
    verdict = [row[0] for row in connection.execute("PRAGMA quick_check")]
    if verdict != ["ok"]:
        raise StoreError(f"{path} is damaged: {'; '.join(str(v) for v in verdict[:3])}")


def describe(path: Path) -> tuple[str, int]:
    """(schema revision, number of games) of a pbem database file; ``StoreError`` when it is none.

    The revision must be one this pbem knows: a backup made by a newer pbem
    cannot be migrated back, and is refused before anything is overwritten.
    """
    if not path.is_file():
        raise StoreError(f"no such file: {path}")
    try:
        with _connection(path, read_only=True) as connection:
            missing = [t for t in REQUIRED_TABLES if t not in _tables(connection)]
            if missing:
                raise StoreError(f"{path} is not a pbem database (no table {', '.join(missing)})")
            _quick_check(connection, path)
            revisions = [row[0] for row in connection.execute("SELECT version_num FROM alembic_version")]
            games = int(connection.execute("SELECT count(*) FROM games").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path} is not a pbem database: {exc}") from None
    refuse_newer(revisions, f"the backup {path}", "upgrade pbem to restore it")
    return ", ".join(revisions) or "none", games


def backup_sqlite(source: Path, target: Path, *, force: bool = False) -> BackupDone:
    """Copy the database ``source`` to ``target`` with the online backup API (safe while the daemon writes)."""
    if not source.is_file():
        raise StoreError(f"no database at {source}: nothing to back up")
    if target.resolve() == source.resolve():
        raise StoreError(f"{target} is the database itself: give another file")
    if target.is_dir():
        raise StoreError(f"{target} is a folder: give a file name")
    if target.exists() and not force:
        raise StoreError(f"{target} exists already: give another file, or --force to replace it")
    if not target.parent.is_dir():
        raise StoreError(f"no folder {target.parent} for the backup")
    with _connection(source, read_only=True) as origin:  # this pbem cannot restore a newer pbem's copy
        try:
            revisions = [row[0] for row in origin.execute("SELECT version_num FROM alembic_version")]
        except sqlite3.DatabaseError:
            revisions = []  # no pbem database: describe() names what is wrong
    refuse_newer(revisions, f"the database {source}")
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    _remove(partial)
    create_private_file(partial)
    try:
        with _connection(source) as origin, _connection(partial) as copy:
            origin.backup(copy)  # all pages in one step: one read transaction, one consistent snapshot
            copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, whatever the source's mode
            _quick_check(copy, partial)
        revision, games = describe(partial)
        for suffix in SIDE_FILES:  # a -wal left by an older file of that name must not be applied to this one
            _remove(target.with_name(target.name + suffix))
        os.replace(partial, target)
    except sqlite3.Error as exc:
        raise StoreError(f"backup of {source} failed: {exc}") from None
    finally:
        _remove(partial)
        for suffix in SIDE_FILES:
            _remove(partial.with_name(partial.name + suffix))
    return BackupDone(target, target.stat().st_size, games, revision)


def restore_sqlite(backup: Path, target: Path) -> tuple[str, int]:
    """Copy the pbem database ``backup`` over the database ``target`` (created owner-only if missing).

    Returns the backup's (schema revision, games). Open the target with
    ``Database`` afterwards: that migrates it to this pbem's schema.
    """
    revision, games = describe(backup)
    if backup.resolve() == target.resolve():
        raise StoreError(f"{backup} is the configured database itself")
    if not target.parent.is_dir():
        raise StoreError(f"no folder {target.parent} for the database")
    create_private_file(target)
    try:
        with _connection(backup, read_only=True) as origin, _connection(target) as live:
            origin.backup(live)
    except sqlite3.Error as exc:
        raise StoreError(f"restore into {target} failed: {exc}") from None
    return revision, games


def forget_processes(session: Session, now: datetime) -> tuple[int, int, int]:
    """After a restore: no process holds a lease or a claim of the copy (they held them when it was taken).

    Returns (leases, queued messages, outgoing mails) let go; the moves still to tell are anyone's at once too,
    and the heartbeats of the copy's processes go (none of them runs on it).
    """
    session.execute(delete(ProcessRow))
    leases = session.execute(delete(LeaseRow))
    messages = reclaim_messages(session, lambda holder: True)
    mails = reclaim_mail(session, lambda holder: True, now)
    forget_claims(session, lambda holder: True)
    return int(leases.rowcount), messages, mails  # type: ignore[attr-defined]  # a CursorResult at run time


def _remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
