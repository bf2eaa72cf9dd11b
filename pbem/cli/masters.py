"""`pbem game master add|remove|list`: the host names a game's masters, who then run it by mail;
`pbem extend` and `pbem end`, which masters may also mail.

The host's CLI keeps every power; a master gets its own reply token in a
welcome mail and runs the game with the commands of docs/game-master.md
("By mail").
"""
from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import typer

from pbem.cli.base import app, echo, game_app, handled, options_of
from pbem.cli.master import gm_mail, gm_when, mails_line
from pbem.cli.style import PlainGroup
from pbem.moderator.gamemaster.ending import end_game
from pbem.moderator.gamemaster.extending import extend
from pbem.moderator.mastermail.roster import host_add, host_list, host_remove

master_app = typer.Typer(help="A game's masters: addresses that run the game by mail, each with its own token.",
                         cls=PlainGroup, no_args_is_help=True, pretty_exceptions_show_locals=False)
game_app.add_typer(master_app, name="master")


def name_masters(ctx: typer.Context, name: str, emails: list[str]) -> None:
    """Name each of ``emails`` a master of game ``name`` and say whether its welcome (with the token) is queued."""
    for email in emails:
        named = host_add(options_of(ctx).moderator().db, name, email, gm_mail(ctx), datetime.now(UTC))
        echo(f"{named.email} is now a master of game {named.game}; "
             + ("a welcome mail with their token is queued." if named.welcomed else
                "no mail is configured ([moderator] address): they get no token until one is added again."))


@master_app.command("add")
@handled
def master_add(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The game.")],
    email: Annotated[str, typer.Argument(metavar="EMAIL", help="The master's e-mail address.")],
) -> None:
    """Name a game master: they get a token by mail and may PAUSE, FORCE, UNDO, REPLACE... by mail."""
    name_masters(ctx, name, [email])


@master_app.command("remove")
@handled
def master_remove(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The game.")],
    email: Annotated[str, typer.Argument(metavar="EMAIL", help="The master's e-mail address.")],
) -> None:
    """Take a master's powers away: their token stops working."""
    removed = host_remove(options_of(ctx).moderator().db, name, email, datetime.now(UTC))
    echo(f"{removed} is no longer a master of game {name}.")


@master_app.command("list")
@handled
def master_list(ctx: typer.Context, name: Annotated[str, typer.Argument(help="The game.")]) -> None:
    """List a game's masters and who named each."""
    rows = host_list(options_of(ctx).moderator().db, name)
    if not rows:
        echo(f"Game {name} has no master: alerts go to [moderator] game_master, if set.")
    for email, by in rows:
        echo(f"{email} (named by {by})")


@app.command("extend")
@handled
def extend_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The game.")],
    hours: Annotated[float, typer.Argument(help="The hours more for the decisions pending now.")],
) -> None:
    """Give the decisions pending now more time; every player is told the new deadlines."""
    mail = gm_mail(ctx)
    done = extend(options_of(ctx).moderator().db, name, hours, mail=mail)
    echo(" ".join([f"Game {name}: {hours:g} hours more.", *mails_line(mail, done.mailed)]))
    for d in done.deadlines:
        echo(f"  {d.player} ({d.kind}): deadline {gm_when(d.due)}")


@app.command("end")
@handled
def end_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The game.")],
) -> None:
    """End a game now, before its rules do: no more orders are taken; every player is told."""
    mail = gm_mail(ctx)
    done = end_game(options_of(ctx).moderator().db, name, mail=mail)
    echo(" ".join([f"Game {name} ended at move {done.move}.", *mails_line(mail, done.mailed)]))
