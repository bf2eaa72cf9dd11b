"""Backing up and restoring a PostgreSQL database with ``pg_dump`` and ``pg_restore`` (``pbem backup``, ``pbem restore``).

Why pbem runs them instead of printing their lines for the host to run: a
dump holds every seat's reply token, and a ``pg_dump --file`` run in a shell
with the usual umask leaves it readable by every user of the machine; and a
restore is not finished when ``pg_restore`` returns: the leases and claims
in the copy belong to the processes of the moment of the backup, and must be
let go as after an SQLite restore (``pbem.store.backup.forget_processes``).

- A backup is written by ``pg_dump --format=custom`` (one consistent
  snapshot, taken while the moderator runs) into a file created owner-only
  beside the target first (``pg_dump`` keeps the mode of the file it
  truncates), checked (it is read back with ``pg_restore``), and renamed
  over the target at the end.
- A restore first reads the archive's table list and its schema revision
  (refusing what is no pbem database, or a newer pbem's), then runs
  ``pg_restore --clean --if-exists --single-transaction --no-owner``: the
  tables of the backup replace the live ones in one transaction, owned by
  the user pbem connects as. Tables the backup has not (made by a newer
  pbem, before a rollback) are dropped afterwards, so that the database
  holds what the backup holds, as an SQLite restore replaces the whole file.
- The password of the URL goes to the tools in ``PGPASSWORD`` (never on the
  command line, where ``ps`` shows it); without one they read ``~/.pgpass``.
- Where the tools are not installed (the container image has none), the
  refusal gives the line to run elsewhere: ``(umask 077 && pg_dump ...)``,
  so that the dump is private there too.
"""
from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import inspect, text
from sqlalchemy.engine import URL
from sqlalchemy.exc import SQLAlchemyError

from pbem.errors import StoreError
from pbem.privatefiles import create_private_file
from pbem.store.db import Database, safe_url
from pbem.store.schema import current_revisions, refuse_newer

REQUIRED_TABLES = ("alembic_version", "games")  # what makes a dump a pbem database's
INSTALL_HINT = "Debian, Ubuntu: apt install postgresql-client"
_TABLE_ENTRY = re.compile(r"^\d+; \d+ \d+ TABLE (\S+) (\S+) ")  # a line of pg_restore --list
_COPY = re.compile(r"^COPY (?:\S+\.)?(\w+) \(.*\) FROM stdin;$")


@dataclass(frozen=True)
class DumpContents:
    tables: frozenset[str]
    revision: str  # the schema revision in the dump
    games: int


def _options(url: URL) -> list[str]:
    options = []
    if url.host:
        options.append(f"--host={url.host}")
    if url.port:
        options.append(f"--port={url.port}")
    if url.username:
        options.append(f"--username={url.username}")
    return options


def _dump_arguments(url: URL, file: str) -> list[str]:
    return ["pg_dump", "--format=custom", f"--file={file}", *_options(url), url.database or ""]


def _restore_arguments(url: URL, file: str) -> list[str]:
    return ["pg_restore", "--clean", "--if-exists", "--single-transaction", "--no-owner", *_options(url),
            f"--dbname={url.database or ''}", file]


def pg_dump_line(url: URL, file: str) -> str:
    """The shell line that backs up the database of ``url`` to ``file`` owner-only, for a host without pbem's
    ``pg_dump`` at hand (no password: ``pg_dump`` takes it from ``PGPASSWORD`` or ``~/.pgpass``)."""
    return f"(umask 077 && {shlex.join(_dump_arguments(url, file))})"


def pg_restore_line(url: URL, file: str) -> str:
    """The ``pg_restore`` command that puts a ``pg_dump`` file back into the database of ``url``."""
    return shlex.join(_restore_arguments(url, file))


def _tool(name: str, instead: str = "") -> str:
    """The path of a PostgreSQL tool; when it is missing, ``StoreError`` saying what to run where it is."""
    path = shutil.which(name)
    if path is None:
        raise StoreError(f"{name} is not installed here ({INSTALL_HINT})" + (f"; or run where it is: {instead}"
                                                                               if instead else ""))
    return path


def restore_by_hand(url: URL, file: str) -> str:
    """What a host without ``pg_restore`` here runs instead of ``pbem restore FILE``."""
    return f"{pg_restore_line(url, file)}, then: pbem restore --forget-processes"


def _run(arguments: list[str], what: str, url: URL | None = None) -> str:
    """Run a PostgreSQL tool (with the password of ``url`` in its environment); its output, or ``StoreError``."""
    environment = dict(os.environ)
    if url is not None and url.password:
        environment["PGPASSWORD"] = str(url.password)
    try:
        done = subprocess.run(arguments, env=environment, capture_output=True, text=True, check=False)
    except OSError as exc:
        raise StoreError(f"{what} failed: {exc}") from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        reason = lines[0] if lines else f"exit status {done.returncode}"
        raise StoreError(f"{what} failed: {re.sub(r'^(pg_[a-z]+: )?(error: )?', '', reason.strip())}")
    return done.stdout


def describe_dump(path: Path, instead: str = "") -> DumpContents:
    """What a ``pg_dump`` archive holds; ``StoreError`` when it is none, or no pbem database, or a newer pbem's.

    ``instead``: the line to run elsewhere when ``pg_restore`` is not installed here.
    """
    if not path.is_file():
        raise StoreError(f"no such file: {path}")
    tool = _tool("pg_restore", instead)
    listing = _run([tool, "--list", str(path)], f"reading {path} (is it a pg_dump archive, written by pbem backup?)")
    tables = frozenset(m.group(2) for line in listing.splitlines() if (m := _TABLE_ENTRY.match(line)))
    missing = [t for t in REQUIRED_TABLES if t not in tables]
    if missing:
        raise StoreError(f"{path} is not a pbem database (no table {', '.join(missing)})")
    data = _run([tool, "--data-only", "--table=alembic_version", "--table=games", "--file=-", str(path)],
                f"reading {path}")
    rows: dict[str, list[str]] = {"alembic_version": [], "games": []}
    table: str | None = None
    for line in data.splitlines():
        if table is None:
            if (m := _COPY.match(line)) and m.group(1) in rows:
                table = m.group(1)
        elif line == "\\.":
            table = None
        else:
            rows[table].append(line)
    revisions = [line.split("\t")[0] for line in rows["alembic_version"]]
    refuse_newer(revisions, f"the backup {path}", "upgrade pbem to restore it")
    return DumpContents(tables, ", ".join(revisions) or "none", len(rows["games"]))


def _refuse_newer_database(url: URL) -> None:
    """A backup of a database this pbem could not restore is refused, as on SQLite."""
    db = Database(url.render_as_string(hide_password=False), create_tables=False)
    try:
        refuse_newer(current_revisions(db.engine), f"the database {safe_url(url)}")
    except SQLAlchemyError as exc:
        raise StoreError(f"cannot open database {safe_url(url)}: "
                         f"{str(getattr(exc, 'orig', None) or exc).strip().splitlines()[0]}") from None
    finally:
        db.dispose()


def backup_postgres(url: URL, target: Path, *, force: bool = False) -> tuple[Path, int, DumpContents]:
    """Dump the database of ``url`` into ``target``, owner-only; (target, its size in bytes, what it holds)."""
    if target.is_dir():
        raise StoreError(f"{target} is a folder: give a file name")
    if target.exists() and not force:
        raise StoreError(f"{target} exists already: give another file, or --force to replace it")
    if not target.parent.is_dir():
        raise StoreError(f"no folder {target.parent} for the backup")
    tool = _tool("pg_dump", pg_dump_line(url, str(target)))
    _refuse_newer_database(url)
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    _remove(partial)
    create_private_file(partial)  # pg_dump truncates it and keeps its mode: never readable by others
    try:
        _run([tool, *_dump_arguments(url, str(partial))[1:]], f"pg_dump of {safe_url(url)}", url)
        contents = describe_dump(partial)
        os.replace(partial, target)
    finally:
        _remove(partial)
    return target, target.stat().st_size, contents


def restore_postgres(dump: Path, url: URL) -> tuple[DumpContents, list[str]]:
    """Replace the database of ``url`` with the archive ``dump``; (what it held, the tables dropped that it lacked).

    Open the database with ``Database`` afterwards: that migrates it to this
    pbem's schema; then let go of the old processes (``forget_processes``).
    """
    contents = describe_dump(dump, restore_by_hand(url, str(dump)))
    tool = _tool("pg_restore", restore_by_hand(url, str(dump)))
    _run([tool, *_restore_arguments(url, str(dump))[1:]], f"pg_restore into {safe_url(url)}", url)
    db = Database(url.render_as_string(hide_password=False), create_tables=False)
    dropped: list[str] = []
    try:
        with db.engine.begin() as connection:
            quote = connection.dialect.identifier_preparer.quote
            dropped = sorted(set(inspect(connection).get_table_names()) - contents.tables)
            for name in dropped:
                connection.execute(text(f"DROP TABLE IF EXISTS {quote(name)} CASCADE"))
    except SQLAlchemyError as exc:
        raise StoreError(f"restored {dump}, but could not drop the tables it has not ({', '.join(dropped)}): "
                         f"{str(getattr(exc, 'orig', None) or exc).strip().splitlines()[0]}") from None
    finally:
        db.dispose()
    return contents, dropped


def _remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
