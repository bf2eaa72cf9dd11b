"""`pbem status`: is the moderator running, what waits in the queues, whom each game waits for.

The exit code is for monitoring (a cron check, a container's health check):
0 a moderator process of the role the configuration needs is alive (its
heartbeat is recent: a ``pbem run`` reading the inbox, or a ``pbem lmtp``
when mail comes by LMTP), 1 none is, 2 the database or the configuration
cannot be used. What is read and how: ``pbem.cli.gather``.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from sqlalchemy.exc import SQLAlchemyError

from pbem.cli.base import app, echo, fail, handled, options_of
from pbem.cli.gather import gather, report_json, report_lines
from pbem.config import database_url, load_config
from pbem.store.db import normalise_url

EXIT_NOT_RUNNING = 1


@app.command("status")
@handled
def status_command(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print it as JSON, for scripts (keys: docs/running.md).")]
    = False,
    no_games: Annotated[bool, typer.Option("--no-games", help="Leave out the games (cheaper: a health check "
                                                              "every few seconds need not open every game).")]
    = False,
) -> None:
    """Is a moderator running? Every process, what waits in the queue and the outbox, whom each game waits for.

    Exit code 0 while a moderator process of the needed role lives (pbem run
    with an inbox, pbem lmtp without one), 1 when none does (for monitoring
    scripts), 2 when the database or the configuration cannot be used.
    """
    options = options_of(ctx)
    config = load_config(options.config)
    url = normalise_url(database_url(options.database, options.config))
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:") \
            and not Path(url.database).exists():  # opening it would create an empty one
        fail(f"no database at {url.database}: is this the moderator's configuration? (see: pbem --help)")
    db = options.moderator().db
    try:
        report = gather(db, config, games=not no_games)
    except SQLAlchemyError as exc:
        fail(f"cannot read {db.display_url}: {str(getattr(exc, 'orig', None) or exc).strip().splitlines()[0]}")
    if as_json:
        echo(json.dumps(report_json(report), indent=2, ensure_ascii=False))
    else:
        for line in report_lines(report):
            echo(line)
    if not report.ok:
        raise typer.Exit(EXIT_NOT_RUNNING)
