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
"""
from __future__ import annotations

import re
import typing
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

_BRACES = re.compile(r"\{([^{}]+)\}")


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


class PlainGroup(TyperGroup):
    """A group (``pbem``, ``pbem game`` …) whose own help shows plain placeholders."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain_all(super().get_params(ctx))


def plain_commands(app: typer.Typer) -> None:
    """Make every command of ``app`` and of its sub-apps a :class:`PlainCommand` (call once all are added)."""
    for info in app.registered_commands:
        if info.cls in (None, TyperCommand):
            info.cls = PlainCommand
    for group in app.registered_groups:
        if group.typer_instance is not None:
            plain_commands(group.typer_instance)
