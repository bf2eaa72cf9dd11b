"""How the CLI's help reads: placeholders in capitals, flags without a type, one word per value.

Typer shows every value's Python type (``<str>``, ``<int range>``) and
wraps required arguments as ``{name}``; a flag such as ``--json`` or
``--help`` gets ``<bool>``, as if it took a value. A game master reads
``pbem game new NAME``, ``--seed N``, ``--json``. These classes rewrite each
command's parameters as they are shown, so no command has to repeat it:

* an argument shows its name in capitals (``NAME``), also in the usage line;
* a flag shows no placeholder at all;
* an option without a metavar of its own shows a capitalised word for its
  value, derived from its type (``N`` for numbers, ``TEXT`` otherwise;
  a choice lists its values).

A usage error (a missing argument, an unknown option or command, a value of
the wrong type) is one line on stderr, ``error: ...`` with the ``--help`` to
read, like every other error of the CLI: with Rich installed Typer would draw
the usage line, a hint and a framed panel, several lines for one mistake.
"""
from __future__ import annotations

import re
import typing
from typing import Any, NoReturn, cast

import typer
from typer.core import TyperCommand, TyperGroup

_BRACES = re.compile(r"\{([^{}]+)\}")

# click's base of every error it reports to the user (Typer raises click's errors, from its own copy of click in
# recent versions): found from the one error class Typer exports, so it is the class Typer really raises
_USER_ERROR = cast(type[Exception], next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException"))


def _plain(param: Any) -> None:
    """Give ``param`` the placeholder a person expects (see the module docstring)."""
    if getattr(param, "_pbem_plain", False):
        return
    if isinstance(param, typer.core.TyperArgument):
        if param.metavar is None:
            param.metavar = param.name.upper() if param.name else "VALUE"
        # the capitalised name says it: no "<str>" beside it (typer's own hook, replaced per parameter)
        setattr(param, "display_type_rich", lambda ctx=None: None)  # noqa: B010
    elif getattr(param, "is_flag", False) or getattr(param, "count", False):
        param.metavar = ""
    elif param.metavar is None:
        param.metavar = _value_word(param)
    param._pbem_plain = True


def _value_word(param: Any) -> str:
    desc = getattr(param, "type_descriptor", None)
    if desc is None:
        return "TEXT"
    if desc.is_choice and desc.choices:
        return "|".join(str(getattr(choice, "value", choice)) for choice in desc.choices)
    inner = typing.get_args(desc.annotation)
    base = inner[0] if desc.is_list and inner else desc.annotation
    if desc.is_ranged or base in (int, float):
        return "N"
    return "PATH" if desc.is_path else "TEXT"


def _plain_all(params: list[Any]) -> list[Any]:
    """Every parameter of a command or group shown plainly (see the module docstring)."""
    for param in params:
        _plain(param)
    return params


class PlainCommand(TyperCommand):
    """A command whose help shows plain placeholders, also in its usage line."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain_all(super().get_params(ctx))

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return [_BRACES.sub(r"\1", piece) for piece in super().collect_usage_pieces(ctx)]


def _one_line(error: Any) -> NoReturn:
    """Say a usage error in one line on stderr and exit with its code (2 for usage errors)."""
    message = " ".join(str(error.format_message()).split())
    if message and not message.endswith((".", "?", "!")):
        message += "."
    ctx = getattr(error, "ctx", None)
    hint = f" Try '{ctx.command_path} --help'." if ctx is not None else ""
    typer.echo(f"error: {message}{hint}", err=True)
    raise typer.Exit(error.exit_code)


def _help_instead(error: Exception) -> bool:
    """Typer's "no arguments: show the help", which it raises as a usage error and must stay the help."""
    return type(error).__name__ == "NoArgsIsHelpError"


class PlainGroup(TyperGroup):
    """A group (``pbem``, ``pbem game`` …) whose own help shows plain placeholders, and whose errors are one line.

    Every parsing of arguments happens in a group's ``make_context`` (its own
    options) or ``invoke`` (the command named, and that command's arguments),
    so catching there covers every command without touching one.
    """

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain_all(super().get_params(ctx))

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except _USER_ERROR as error:
            if _help_instead(error):
                raise
            _one_line(error)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except _USER_ERROR as error:
            if _help_instead(error):
                raise
            _one_line(error)


def plain_commands(app: typer.Typer) -> None:
    """Make every command of ``app`` and of its sub-apps a :class:`PlainCommand` (call once all are added)."""
    for info in app.registered_commands:
        if info.cls in (None, TyperCommand):
            info.cls = PlainCommand
    for group in app.registered_groups:
        if group.typer_instance is not None:
            plain_commands(group.typer_instance)
