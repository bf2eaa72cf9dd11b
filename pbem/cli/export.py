"""`pbem export`: a game's whole history as JSON or as a chronicle to read (pbem.moderator.gamemaster.export)."""
from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from pbem.cli.base import app, echo, fail, handled, options_of
from pbem.moderator.gamemaster import export_game, export_json, export_text


class ExportFormat(StrEnum):
    """What the export is written as: JSON for programs, text for people."""

    JSON = "json"
    TEXT = "text"


@app.command("export")
@handled
def export_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The game.")],
    form: Annotated[
        ExportFormat,
        typer.Option("--format", help="json: every action with its JSON, to replay; text: a chronicle to read."),
    ] = ExportFormat.JSON,
    public: Annotated[
        bool,
        typer.Option("--public", help="For publishing: no e-mail addresses, no sealed answers of an open round, "
                                      "no setup (with its seed) before the game is over."),
    ] = False,
    output: Annotated[
        Path | None,
        typer.Option("--output", metavar="FILE", show_default=False,
                     help="Write the export to FILE instead of printing it."),
    ] = None,
) -> None:
    """Export a game's history: setup, seats, every move with its order and what it told, final scores."""
    done = export_game(options_of(ctx).moderator().db, name, public=public)
    if form is ExportFormat.JSON:
        text = json.dumps(export_json(done), indent=2, ensure_ascii=False) + "\n"
    else:
        text = export_text(done)
    if output is None:
        typer.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write {output}: {exc.strerror or exc}")
    echo(f"Game {name} exported to {output} ({form.value}{', public' if public else ''}; "
         f"{len(done.actions)} moves).")
