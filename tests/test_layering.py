"""The seam between the moderator and its games, checked from the source (ARCHITECTURE: "One moderator, several
games"): the moderator core names no game's modules, a game names no part of the moderator core, the engine
does no I/O layer imports at all, and ``engine.core`` knows no game."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ENGINE_GAMES = sorted(p.name for p in (ROOT / "engine").iterdir() if p.is_dir() and (p / "__init__.py").exists()
                      and p.name != "core")
PBEM_GAMES = sorted(p.name for p in (ROOT / "pbem" / "games").iterdir() if p.is_dir()
                    and (p / "__init__.py").exists())
# What a game's own modules may use of the moderator's package: the seam itself and the shared text tools.
GAME_MAY_USE = ("pbem.games", "pbem.render", "pbem.errors")


def modules(folder: str) -> dict[str, set[str]]:
    """Source file (relative) -> the modules it imports (absolute names; relative imports resolved)."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / folder).rglob("*.py")):
        relative = path.relative_to(ROOT)
        package = ".".join(relative.with_suffix("").parts[:-1])
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parent, base] if base else parent)
                names.add(base)
                names.update(f"{base}.{alias.name}" for alias in node.names)
        found[str(relative)] = names
    return found


def game_of(name: str) -> str | None:
    """The game a module belongs to ('imperial2030'), or None for the moderator and the shared engine."""
    parts = name.split(".")
    if parts[0] == "engine" and len(parts) > 1 and parts[1] in ENGINE_GAMES:
        return parts[1]
    if parts[:2] == ["pbem", "games"] and len(parts) > 2 and parts[2] in PBEM_GAMES:
        return parts[2]
    return None


def file_game(path: str) -> str | None:
    return game_of(path.removesuffix(".py").replace("/", "."))


def is_within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_there_are_games_on_both_sides_of_the_seam() -> None:
    assert "imperial2030" in ENGINE_GAMES and "imperial2030" in PBEM_GAMES


@pytest.mark.slow
def test_the_moderator_core_imports_no_games_modules() -> None:
    """Outside engine/<kind>/ and pbem/games/<kind>/ nothing names a game's modules: the registry finds them."""
    offenders = [f"{path}: {name}" for folder in ("pbem", "engine") for path, names in modules(folder).items()
                 if file_game(path) is None for name in sorted(names) if game_of(name) is not None]
    assert offenders == []


def test_engine_core_imports_no_game_and_no_moderator() -> None:
    offenders = [f"{path}: {name}" for path, names in modules("engine/core").items() for name in sorted(names)
                 if game_of(name) is not None or is_within(name, ("pbem",))]
    assert offenders == []


def test_no_engine_imports_the_moderator() -> None:
    offenders = [f"{path}: {name}" for path, names in modules("engine").items() for name in sorted(names)
                 if is_within(name, ("pbem", "jinja2", "sqlmodel", "sqlalchemy", "typer"))]
    assert offenders == []


def test_a_game_imports_no_part_of_the_moderator_core() -> None:
    """A game kind uses the seam (pbem.games), the shared text tools and errors; never the store, mail, CLI."""
    offenders = [f"{path}: {name}" for path, names in modules("pbem/games").items() if file_game(path) is not None
                 for name in sorted(names) if is_within(name, ("pbem",)) and not is_within(name, GAME_MAY_USE)]
    assert offenders == []


def test_no_game_imports_another() -> None:
    offenders = [f"{path}: {name}" for folder in ("pbem/games", "engine") for path, names in modules(folder).items()
                 if (own := file_game(path)) is not None for name in sorted(names)
                 if (other := game_of(name)) is not None and other != own]
    assert offenders == []
