"""`pbem site [DIR] [--game NAME ...] [--serve HOST:PORT]`: the games' public pages, written to a folder.

The pages are static files (``pbem.moderator.site.write``): any web server
serves the folder. ``--serve`` serves it from this process for a look
(Python's ``http.server``: for a look on the host's own machine, not for
the world: put nginx or caddy in front, docs/hosting.md).
"""
from __future__ import annotations

import functools
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Annotated, Any

import typer

from pbem.cli.base import app, echo, fail, handled, options_of
from pbem.config import load_config
from pbem.moderator.site.write import write_site


@app.command("site")
@handled
def site(
    ctx: typer.Context,
    folder: Annotated[Path | None, typer.Argument(metavar="DIR", help="Where the pages go (default: [site] dir).")]
    = None,
    games: Annotated[list[str] | None, typer.Option("--game", metavar="NAME",
                                                    help="Only this game's pages (and the index); repeatable.")]
    = None,
    serve: Annotated[str | None, typer.Option(metavar="HOST:PORT",
                                              help="Then serve the folder here for a look (127.0.0.1:8080).")]
    = None,
) -> None:
    """Write every game's public page: the board, whose turn and by when, the players, the history move by move.

    What every player may see and nothing else: no sealed bid before all are in, no address, no token. The
    moderator keeps the pages up to date after each move when the configuration names [site] dir.
    """
    options = options_of(ctx)
    target = folder or load_config(options.config).site.dir
    if target is None:
        fail("name the folder: pbem site DIR (or set [site] dir in the configuration)")
    where = _address(serve) if serve else None
    done = write_site(options.moderator().db, target, tuple(games or ()))
    echo(f"{done.games} game(s) written to {target}: {done.files} file(s) changed, {done.pictures} picture(s) drawn.")
    if where is not None:
        _serve(target, where)


def _address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        fail(f"--serve wants HOST:PORT (127.0.0.1:8080), not {text!r}")
    return host.strip("[]"), int(port)


class _Quiet(SimpleHTTPRequestHandler):
    """The folder's files, one line on the terminal per request."""

    def log_message(self, format: str, *args: Any) -> None:
        echo(f"{self.address_string()} {format % args}")


def _serve(folder: Path, where: tuple[str, int]) -> None:
    handler = functools.partial(_Quiet, directory=str(folder))
    with ThreadingHTTPServer(where, handler) as server:
        echo(f"Serving {folder} at http://{where[0]}:{where[1]}/ (Ctrl-C stops).")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            echo("Stopped.")
