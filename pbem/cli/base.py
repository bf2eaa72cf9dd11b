"""The CLI's frame: the Typer apps, the global options, error handling and the parsing of arguments."""
from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar, cast

import typer

from engine.core.errors import EngineError
from pbem import __version__
from pbem.cli.style import PlainGroup
from pbem.config import database_url
from pbem.errors import BadSetup, PbemError
from pbem.games import GameKind
from pbem.languages import Language, language_named
from pbem.moderator.games import Moderator
from pbem.store import Database
from pbem.store.schema import head_revisions

EXIT_REFUSED = 1
EXIT_ERROR = 2

app = typer.Typer(
    name="pbem",
    help="Play-by-email moderator for board games (Imperial 2030 and Eight-Minute Empire; `pbem kinds` lists them): "
         "the game master's tools.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    cls=PlainGroup,
)
game_app = typer.Typer(help="Create, list and show games, and set a running game's settings.",
                       no_args_is_help=True, pretty_exceptions_show_locals=False, cls=PlainGroup)
app.add_typer(game_app, name="game")


# --- global options and error handling ------------------------------------------------------


@dataclass
class Options:
    """The global options, resolved lazily: a command that needs no database opens none."""

    database: str | None = None
    config: Path | None = None
    _moderator: Moderator | None = field(default=None, repr=False)

    def moderator(self) -> Moderator:
        if self._moderator is None:
            self._moderator = Moderator(Database(database_url(self.database, self.config)))
        return self._moderator

    def close(self) -> None:
        if self._moderator is not None:
            self._moderator.db.dispose()


def _print_version(value: bool) -> None:
    """pbem's version and the schema revision it migrates a database to (the minor part follows it)."""
    if value:
        typer.echo(f"pbem {__version__} (database schema {', '.join(head_revisions())})")
        raise typer.Exit()


@app.callback()
def main_options(
    ctx: typer.Context,
    database: Annotated[
        str | None,
        typer.Option("--database", metavar="URL", show_default=False,
                     help="Database URL, e.g. sqlite:///./pbem.db or postgresql+psycopg://user@host/db "
                          "(default: $PBEM_DATABASE_URL, else the url of the config file's database table, "
                          "else sqlite:///./pbem.db)"),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option("--config", metavar="FILE", show_default=False,
                     help="TOML configuration file (default: $PBEM_CONFIG)."),
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", is_eager=True, callback=_print_version, help="Print pbem's version and exit."),
    ] = False,
) -> None:
    options = Options(database, config)
    ctx.obj = options
    ctx.call_on_close(options.close)


F = TypeVar("F", bound=Callable[..., Any])


def handled(command: F) -> F:
    """Print the moderator layer's errors as one clear line on stderr and exit 2, without a traceback."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except (PbemError, EngineError) as exc:
            fail(str(exc))

    return cast(F, wrapper)


def fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(EXIT_ERROR)


def options_of(ctx: typer.Context) -> Options:
    obj = ctx.find_object(Options)
    return obj if obj is not None else Options()


# --- parsing the game master's arguments -------------------------------------------------------


def parse_variant(kind: GameKind, text: str) -> str:
    """A rule variant of ``kind`` by name; a bad one is refused repeating it, with the names that exist."""
    name = text.strip().lower()
    if name not in kind.info.variants:
        raise BadSetup(f"--variant {text!r} is no variant; the variants are " + ", ".join(kind.info.variants))
    return name


def parse_player(text: str) -> tuple[str, str]:
    """NAME:EMAIL of ``--player`` (a language after a second colon is :func:`player_language`'s)."""
    name, sep, rest = text.partition(":")
    email, _, language = rest.partition(":")
    if not sep or not name.strip() or not email.strip() or (language and language_named(language) is None):
        raise BadSetup(f"--player must be NAME:EMAIL or NAME:EMAIL:LANGUAGE (e.g. ann:ann@example.org:ru; "
                       f"languages: {', '.join(lang.value for lang in Language)}), not {text!r}")
    return name.strip(), email.strip()


def player_language(text: str) -> Language | None:
    """The language of ``--player NAME:EMAIL:LANGUAGE``, if it names one."""
    parts = text.split(":")
    return language_named(parts[2]) if len(parts) > 2 else None


def parse_deal(text: str) -> tuple[str, str]:
    nation, sep, player = text.partition("=")
    if not sep or not nation.strip() or not player.strip():
        raise BadSetup(f"--deal must be NATION=PLAYER (e.g. russia=ann), not {text!r}")
    return nation.strip(), player.strip()



# --- rendering ----------------------------------------------------------------------------------


def echo(text: str = "") -> None:
    typer.echo(text)
