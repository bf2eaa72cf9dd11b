"""The game master's command line (Typer): this package holds its commands, one module per group.

    pbem game new NAME --player NAME:EMAIL ... [--deal NATION=PLAYER ...] [--seed N] [--variant V ...]
    pbem game list
    pbem order NAME --as PLAYER "TEXT"     (TEXT "-" reads standard input)
    pbem state NAME [--json]
    pbem board NAME                        the ASCII world board, as players get it
    pbem report NAME --for PLAYER          that player's turn report (and prompt, if they must decide)
    pbem export NAME [--format json|text] [--public] [--output FILE]
                                           a game's whole history, to replay or to publish
    pbem site [DIR] [--game NAME] [--serve HOST:PORT]
                                           every game's public page (board, turn, players, history)
    pbem init [--provider P] [--address A] a first, commented pbem.toml for a mail provider (asks what is missing)
    pbem run                               the moderator daemon: IMAP IDLE in, SMTP out (pbem.daemon)
    pbem poll                              for cron: the inbox once, the outbox once
    pbem check                             can we reach the IMAP and SMTP servers of the config?
    pbem status [--json] [--no-games]      is a moderator running? queues, outbox, whom each game waits for
    pbem backup FILE [--force]             a consistent copy of the SQLite database, taken while games run
    pbem restore FILE [--force]            put a backup back (stop the moderator first)
    pbem game show NAME                    seats, whose turn, deadlines, waiting lines, last moves, outbox
    pbem game set NAME KEY=VALUE ...       a running game's settings: deadlines, reminders, mail, press, absences
    pbem force NAME --as PLAYER "TEXT"     orders for a player by the game master (mailed like any move)
    pbem undo NAME                         take back the last move and tell everyone
    pbem replace NAME OLD NEW --email E    a new player takes a seat
    pbem pause NAME / pbem resume NAME     stop / restart a game (deadlines count again from the resume)
    pbem resend NAME [--to PLAYER]         queue the current report and prompt again
    pbem observer add|list|remove NAME [EMAIL]
                                           people who get a game's public reports without a seat
    pbem deadlines tick                    reminders, passive defaults and alerts that are due, once
    pbem demo [--players N] [--seed S] [--humans NAME ...] [--dir DIR]
                                           a whole game by email on this machine: hub, moderator, bots
    pbem mailhub --root DIR [--port N]     a local mail hub: SMTP on loopback, one Maildir per address
    pbem bot --maildir DIR --smtp HOST:PORT --address ADDR [--strategy S] [--seed N]
                                           a bot player answering its prompts by mail
    pbem mail reply --dir DIR --as NAME ["ORDERS"]
                                           a person's answer in a demo game (no ORDERS: show the prompt)

Global options ``--database URL`` and ``--config FILE`` come before the
command. Exit codes: 0 done, 1 an order was refused, 2 a usage or setup error
(unknown game, bad ``--player``, bad deal, unreachable database). Tracebacks
never show local variables, so a database password cannot leak into a log.
"""
from __future__ import annotations

import typer
from typer.models import CommandInfo, TyperInfo

from pbem.cli import (  # noqa: F401  (their commands register on the apps)
    backup,
    demo,
    export,
    init,
    mailserver,
    master,
    masters,
    observers,
    play,
    postfix,
    site,
    status,
)
from pbem.cli.base import EXIT_ERROR, EXIT_REFUSED, Options, app, game_app
from pbem.cli.style import plain_commands

__all__ = ["EXIT_ERROR", "EXIT_REFUSED", "PANELS", "Options", "app", "game_app", "main"]


# --- how `pbem --help` reads: commands in panels, in the order of use; plain placeholders -------------------

PANELS: dict[str, tuple[str, ...]] = {
    "Play and inspect": ("game", "order", "state", "board", "report", "export", "site", "kinds"),
    "Game master": ("force", "undo", "replace", "pause", "resume", "extend", "end", "resend", "observer"),
    "Mail server": ("init", "check", "run", "lmtp", "postfix-maps", "poll", "status", "backup", "restore", "deadlines",
                    "inbox"),
    "Demo": ("demo", "mail", "mailhub", "bot"),
}
_ORDER = [name for names in PANELS.values() for name in names]
GAME_COMMANDS = ("new", "list", "show", "set")  # `pbem game --help`, in the order of use too


def _arrange_help(typer_app: typer.Typer) -> None:
    panel_of = {name: panel for panel, names in PANELS.items() for name in names}
    items: list[CommandInfo | TyperInfo] = [*typer_app.registered_commands, *typer_app.registered_groups]
    for item in items:
        item.rich_help_panel = panel_of[item.name or ""]
    typer_app.registered_commands.sort(key=lambda info: _ORDER.index(info.name or ""))
    typer_app.registered_groups.sort(key=lambda info: _ORDER.index(info.name or ""))  # shown after the commands
    game_app.registered_commands.sort(key=lambda info: GAME_COMMANDS.index(info.name or ""))
    plain_commands(typer_app)


_arrange_help(app)


def main() -> None:
    app()
