"""`pbem observer add|list|remove`: people who follow a game's public reports by mail without a seat."""
from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import typer

from pbem.cli.base import app, echo, handled, options_of
from pbem.cli.style import PlainGroup
from pbem.config import load_config
from pbem.moderator.notify.observers import Sender, add, listing, remove
from pbem.render.text import utc_stamp

observer_app = typer.Typer(help="Observers: people who get a game's public reports by mail and do not play.",
                           cls=PlainGroup, no_args_is_help=True, pretty_exceptions_show_locals=False)
app.add_typer(observer_app, name="observer")


@observer_app.command("add")
@handled
def observer_add(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The game.")],
    email: Annotated[str, typer.Argument(metavar="EMAIL", help="The observer's e-mail address.")],
) -> None:
    """Add an observer: they get a welcome with the position, then the public report after each move."""
    options = options_of(ctx)
    moderator = load_config(options.config).moderator
    sender = Sender(moderator.address, moderator.domain, moderator.name) if moderator is not None else None
    done = add(options.moderator().db, name, email, sender, datetime.now(UTC))
    echo(f"{done.email} now observes game {done.game}; they leave by replying STOP to any of its mails.")
    echo("A welcome mail with the position is queued." if done.welcomed else
         "No mail is configured ([moderator] address): they get mail once it is.")


@observer_app.command("list")
@handled
def observer_list(ctx: typer.Context, name: Annotated[str, typer.Argument(help="The game.")]) -> None:
    """List a game's observers."""
    game, rows = listing(options_of(ctx).moderator().db, name)
    if not rows:
        echo(f"Game {game} has no observers (pbem observer add {game} EMAIL adds one).")
        return
    echo(f"Observers of game {game}:")
    for row in rows:
        echo(f"  {row.email} (since {utc_stamp(row.added)})")


@observer_app.command("remove")
@handled
def observer_remove(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The game.")],
    email: Annotated[str, typer.Argument(metavar="EMAIL", help="The observer's e-mail address.")],
) -> None:
    """Take an observer off a game; no mail is sent to them."""
    remove(options_of(ctx).moderator().db, name, email, datetime.now(UTC))
    echo(f"{email.strip().lower()} no longer observes game {name}.")
