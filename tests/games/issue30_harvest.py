"""The engine refusals real positions raise, gathered for the issue-30 tests of each game.

The engine's own rule tests and the order tests raise nearly every refusal the engine words; running their
test functions with ``IllegalAction.__init__`` watched collects each refusal as it was raised (its English
``reason``, ``code`` and ``values``), so that a game's test can say each code's template sentence over a real
position instead of over values made up for it. A test function that needs a fixture other than its
``parametrize`` arguments is left out; a failing one is ignored (it is run and judged in its own module).
"""
from __future__ import annotations

import ast
import importlib
import inspect
import itertools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest.mock import patch

from engine.core.errors import IllegalAction

ROOT = Path(__file__).resolve().parents[2]
RAISERS = ("IllegalAction", "NotYourDecision", "GameFinished")


def _calls(func: Callable[..., Any]) -> Iterator[dict[str, Any]]:
    """Every set of arguments ``func``'s ``parametrize`` marks give it; nothing when it needs a fixture."""
    wanted = list(inspect.signature(func).parameters)
    choices: list[list[dict[str, Any]]] = []
    for mark in getattr(func, "pytestmark", []):
        if mark.name != "parametrize":
            continue
        names = mark.args[0] if not isinstance(mark.args[0], str) else [n.strip() for n in mark.args[0].split(",")]
        rows = []
        for value in mark.args[1]:
            if type(value).__name__ == "ParameterSet":  # pytest.param(...)
                row = tuple(value.values)
            else:
                row = tuple(value) if len(names) > 1 else (value,)
            rows.append(dict(zip(names, row, strict=True)))
        choices.append(rows)
    given = {n for rows in choices for row in rows for n in row}
    if set(wanted) - given:
        return
    for combo in itertools.product(*choices):
        merged: dict[str, Any] = {}
        for part in combo:
            merged.update(part)
        yield merged


def harvest(modules: tuple[str, ...]) -> list[IllegalAction]:
    """Every ``IllegalAction`` raised while the test functions of ``modules`` run."""
    raised: list[IllegalAction] = []
    original = IllegalAction.__init__

    def watched(self: IllegalAction, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        raised.append(self)

    with patch.object(IllegalAction, "__init__", watched):
        for name in modules:
            module = importlib.import_module(name)
            for attr, func in sorted(vars(module).items()):
                if not attr.startswith("test_") or not inspect.isfunction(func):
                    continue
                for arguments in _calls(func):
                    try:
                        func(**arguments)
                    except Exception:
                        continue
    return raised


def raise_sites(folder: str) -> list[tuple[str, int, bool]]:
    """Every call of an engine refusal under ``engine/<folder>``: (file, line, whether it names a code).

    A call names a code with ``code=`` or by passing a ``Cause`` (a helper's call or a name bound to one): a
    first argument that is a string or an f-string is a sentence without a code.
    """
    found = []
    for path in sorted((ROOT / "engine" / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            callee = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if callee not in RAISERS:
                continue
            coded = any(k.arg == "code" for k in node.keywords) or (
                bool(node.args) and not isinstance(node.args[0], ast.Constant | ast.JoinedStr | ast.BinOp))
            found.append((str(path.relative_to(ROOT)), node.lineno, coded))
    return found


def refusal_of(call: Callable[[], object]) -> IllegalAction:
    """The refusal ``call`` raises (a test's position made to raise one)."""
    try:
        call()
    except IllegalAction as exc:
        return exc
    raise AssertionError("no refusal")
