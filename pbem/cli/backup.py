"""`pbem backup FILE` and `pbem restore FILE`: a copy of the database taken while games run, and putting it back.

SQLite is copied with its online backup API (``pbem.store.backup``), safe
while ``pbem run`` writes. PostgreSQL has its own tools: both commands print
the ``pg_dump``/``pg_restore`` line for the configured URL (no password in it)
and exit 2, because doing it for the game master would mean handling the
database password here. A restore refuses while a moderator process holds
the inbox or the deadline checks (it would go on writing into the database
being replaced), unless ``--force``.
"""
from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from pbem.cli.base import EXIT_ERROR, app, echo, fail, handled, options_of
from pbem.config import database_url, load_config
from pbem.store import Database
from pbem.store.db import normalise_url, safe_url


def _postgres(verb: str, line: str, then: str) -> NoReturn:
    typer.echo(f"pbem {verb} copies SQLite databases only; this database is PostgreSQL. Run instead:", err=True)
    typer.echo(f"  {line}", err=True)
    typer.echo(f"({then} The password is not in the line: pg_dump and pg_restore read PGPASSWORD or ~/.pgpass.)",
               err=True)
    raise typer.Exit(EXIT_ERROR)


@app.command("backup")
@handled
def backup_command(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(metavar="FILE", help="Where to write the copy (a new file).")],
    force: Annotated[bool, typer.Option("--force", help="Replace FILE if it exists.")] = False,
) -> None:
    """Copy the database to FILE while the moderator runs (SQLite; PostgreSQL: prints the pg_dump line).

    The copy is consistent (one moment of the database), owner-only (it holds
    the players' reply tokens) and checked before it takes FILE's name.
    """
    from pbem.store.backup import backup_sqlite, pg_dump_line, sqlite_file

    options = options_of(ctx)
    url = normalise_url(database_url(options.database, options.config))
    path = sqlite_file(url)
    if path is None:
        _postgres("backup", pg_dump_line(url, str(file)),
                  "Take it while the moderator runs: pg_dump reads one consistent snapshot.")
    done = backup_sqlite(path, file, force=force)
    echo(f"backup of {safe_url(url)} written to {done.path}: {done.size} bytes, {done.games} game(s), "
         f"schema revision {done.revision}")


@app.command("restore")
@handled
def restore_command(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(metavar="FILE", help="A backup written by pbem backup.")],
    force: Annotated[bool, typer.Option("--force", help="Restore even while a moderator process seems to run "
                                                        "(or the current database cannot be opened).")] = False,
) -> None:
    """Replace the database with the backup FILE (SQLite; PostgreSQL: prints the pg_restore line).

    Stop the moderator first: the restore refuses while a process reads the
    inbox or checks deadlines. The copy is migrated to this pbem's schema.
    Mail handled after the backup was taken is not handled again (it has left
    the inbox): tell the players whose orders were undone.
    """
    from pbem.mailflow.status import gather
    from pbem.store.backup import describe, forget_processes, pg_restore_line, restore_sqlite, sqlite_file

    options = options_of(ctx)
    config = load_config(options.config)
    url = normalise_url(database_url(options.database, options.config))
    path = sqlite_file(url)
    if path is None:
        _postgres("restore", pg_restore_line(url, str(file)),
                  "Stop every pbem process first; pg_restore replaces the tables in one transaction.")
    describe(file)  # refuse what is no pbem database before anything is touched
    if path.exists() and not force:
        current = Database(str(url))
        try:
            reader = gather(current, config, games=False).reader
        finally:
            current.dispose()
        busy = [lease for lease in (reader.reader, reader.ticker) if lease is not None and lease.held]
        if busy:
            fail(f"a moderator process is running on this database ({busy[0].holder} holds {busy[0].name} until "
                 f"{busy[0].until:%Y-%m-%d %H:%M} UTC): stop it first (e.g. systemctl stop pbem), or give --force")
    revision, games = restore_sqlite(file, path)
    restored = Database(str(url))  # migrates the copy to this pbem's schema
    try:
        with restored.transaction() as session:
            leases, messages, mails = forget_processes(session, datetime.now(UTC))
    finally:
        restored.dispose()
    echo(f"restored {file} into {safe_url(url)}: {games} game(s), schema revision {revision} (migrated to this "
         f"pbem's); {leases} lease(s), {messages} message claim(s) and {mails} mail claim(s) of the old "
         "processes let go")
    echo("Start the moderator again; pbem status shows where each game stands.")
