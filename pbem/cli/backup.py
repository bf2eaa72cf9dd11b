"""`pbem backup FILE` and `pbem restore FILE`: a copy of the database taken while games run, and putting it back.

SQLite is copied with its online backup API (``pbem.store.backup``),
PostgreSQL with ``pg_dump``/``pg_restore`` run by pbem (``pbem.store.pgbackup``):
either way the copy is owner-only (it holds every seat's reply token) and a
restore ends the same, the copy migrated to this pbem's schema and the
leases and claims of the processes of the moment of the backup let go.
``pbem restore --forget-processes`` without FILE does only that last part,
after a database was put back by other means (``pg_restore`` run by hand, a
provider's snapshot). A restore refuses while a moderator process holds the
inbox or the deadline checks (it would go on writing into the database being
replaced), unless ``--force``.
"""
from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer
from sqlalchemy.engine import URL
from sqlalchemy.exc import SQLAlchemyError

from pbem.cli.base import app, echo, fail, handled, options_of
from pbem.cli.gather import gather
from pbem.config import Config, database_url, load_config
from pbem.store import Database
from pbem.store.backup import backup_sqlite, describe, forget_processes, restore_sqlite, sqlite_file
from pbem.store.db import normalise_url, safe_url
from pbem.store.pgbackup import backup_postgres, describe_dump, restore_by_hand, restore_postgres
from pbem.store.schema import current_revisions


def _full(url: URL) -> str:
    """The URL as the database is opened with (its password too: never printed)."""
    return url.render_as_string(hide_password=False)


@app.command("backup")
@handled
def backup_command(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(metavar="FILE", help="Where to write the copy (a new file).")],
    force: Annotated[bool, typer.Option("--force", help="Replace FILE if it exists.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing when all went well (for cron, "
                                                              "which mails what a job prints).")] = False,
) -> None:
    """Copy the database to FILE while the moderator runs (SQLite's online backup; PostgreSQL: pg_dump).

    The copy is consistent (one moment of the database), owner-only (it holds
    the players' reply tokens) and checked before it takes FILE's name.
    Errors are printed whether or not --quiet is given.
    """

    options = options_of(ctx)
    url = normalise_url(database_url(options.database, options.config))
    path = sqlite_file(url)
    if path is not None:
        done = backup_sqlite(path, file, force=force)
        target, size, games, revision = done.path, done.size, done.games, done.revision
    else:
        target, size, contents = backup_postgres(url, file, force=force)
        games, revision = contents.games, contents.revision
    if not quiet:
        echo(f"backup of {safe_url(url)} written to {target}: {size} bytes, {games} game(s), schema revision "
             f"{revision}")


@app.command("restore")
@handled
def restore_command(
    ctx: typer.Context,
    file: Annotated[Path | None, typer.Argument(metavar="FILE", help="A backup written by pbem backup.",
                                                show_default=False)] = None,
    force: Annotated[bool, typer.Option("--force", help="Restore even while a moderator process seems to run "
                                                        "(or the current database cannot be opened).")] = False,
    forget: Annotated[bool, typer.Option("--forget-processes",
                                         help="Without FILE: the database was put back by other means (pg_restore, "
                                              "a snapshot) with every pbem process stopped; only migrate it and let "
                                              "go of the old processes' leases and claims.")] = False,
) -> None:
    """Replace the database with the backup FILE (SQLite: a pbem backup; PostgreSQL: a pg_dump archive).

    Stop the moderator first: the restore refuses while a process reads the
    inbox or checks deadlines. The copy is migrated to this pbem's schema.
    Mail handled after the backup was taken is not handled again (it has left
    the inbox): tell the players whose orders were undone.
    """

    options = options_of(ctx)
    config = load_config(options.config)
    url = normalise_url(database_url(options.database, options.config))
    if file is None and not forget:
        fail("give FILE (a backup written by pbem backup), or --forget-processes after putting the database "
             "back by other means")
    path = sqlite_file(url)
    if file is not None and path is not None:  # refuse what is no pbem backup before anything is touched
        describe(file)
    elif file is not None:
        describe_dump(file, restore_by_hand(url, str(file)))
    elif path is not None and not path.exists():
        fail(f"no database at {path}: nothing to let go of")
    if file is not None and not force:  # without FILE the leases are the copy's: they tell nothing of now
        _refuse_while_running(url, config, path)
    done = ""
    if file is not None and path is not None:
        revision, games = restore_sqlite(file, path)
        done = f"restored {file} into {safe_url(url)}: {games} game(s), schema revision {revision}; "
    elif file is not None:
        contents, dropped = restore_postgres(file, url)
        done = (f"restored {file} into {safe_url(url)}: {contents.games} game(s), schema revision "
                f"{contents.revision}" + (f" (dropped the tables it has not: {', '.join(dropped)})" if dropped else "")
                + "; ")
    restored = Database(_full(url))  # migrates the copy to this pbem's schema
    try:
        with restored.transaction() as session:
            leases, messages, mails = forget_processes(session, datetime.now(UTC))
    finally:
        restored.dispose()
    echo(f"{done or safe_url(url) + ': '}migrated to this pbem's schema; {leases} lease(s), {messages} message "
         f"claim(s) and {mails} mail claim(s) of the old processes let go")
    echo("Start the moderator again; pbem status shows where each game stands.")


def _refuse_while_running(url: URL, config: Config, path: Path | None) -> None:
    """Stop here while a moderator process holds the inbox or the deadline checks of the current database, or
    beats in it (``pbem.store.processes``: a pbem lmtp holds no lease while another checks the deadlines).

    The database is opened without migrating it: it may be a newer pbem's (a
    rollback restores the backup taken before the upgrade over it).
    """

    if path is not None and not path.exists():
        return
    current = Database(_full(url), create_tables=False)
    try:
        if not current_revisions(current.engine):
            return  # no pbem schema yet (a new, empty database): no process runs on it
        report = gather(current, config, games=False)
    except SQLAlchemyError as exc:
        fail(f"cannot tell whether a moderator process runs on {safe_url(url)} "
             f"({str(getattr(exc, 'orig', None) or exc).strip().splitlines()[0]}): stop every pbem process, "
             "then give --force")
    finally:
        current.dispose()
    busy = [lease for lease in (report.reader.reader, report.reader.ticker) if lease is not None and lease.held]
    if busy:
        fail(f"a moderator process is running on this database ({busy[0].holder} holds {busy[0].name} until "
             f"{busy[0].until:%Y-%m-%d %H:%M} UTC): stop it first (e.g. systemctl stop pbem), or give --force")
    alive = [view.process for view in report.processes if view.alive]  # one holding no lease: a pbem lmtp
    if alive:
        fail(f"a moderator process is running on this database ({alive[0].name}, last heartbeat "
             f"{alive[0].seen:%Y-%m-%d %H:%M:%S} UTC): stop it first (e.g. systemctl stop pbem), or give --force")
