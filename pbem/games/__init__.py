"""The games this moderator can run, by kind name: the registry the moderator core asks.

A stored game records its kind (``games.kind``); everything the moderator
needs of that game — setup, rules, order language, narration, views, help, a
bot — comes from the ``GameKind`` registered under that name
(``pbem.games.kind``). The moderator core imports no game's modules: it asks
``kind_of(name)``. The built-in kinds are loaded on first use, so importing
the core stays cheap; tests may add a kind of their own with ``registered``.
"""
from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from pbem.errors import PbemError
from pbem.games.kind import Bot, GameKind, NewGame, SetupChoices

DEFAULT_KIND = "imperial2030"

# kind name -> "module:attribute" of a factory that builds its GameKind
BUILT_IN = {
    "imperial2030": "pbem.games.imperial2030.kind:Imperial2030",
    "eight-minute-empire": "pbem.games.eight_minute_empire.kind:EightMinuteEmpire",
}

__all__ = ["BUILT_IN", "Bot", "DEFAULT_KIND", "GameKind", "KINDS", "NewGame", "SetupChoices", "UnknownKind",
           "kind_named", "kind_of", "registered"]


class UnknownKind(PbemError):
    """No game of that kind is known to this moderator."""


class _Registry(Mapping[str, GameKind]):
    """Kind name -> ``GameKind``, built-in kinds created on first use (one instance per process)."""

    def __init__(self) -> None:
        self._kinds: dict[str, GameKind] = {}
        self._loaded = False

    def _load(self) -> dict[str, GameKind]:
        if not self._loaded:
            for name, target in BUILT_IN.items():
                module, attribute = target.split(":")
                self._kinds.setdefault(name, getattr(importlib.import_module(module), attribute)())
            self._loaded = True
        return self._kinds

    def __getitem__(self, name: str) -> GameKind:
        return self._load()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())

    def add(self, kind: GameKind) -> None:
        self._load()[kind.info.name] = kind

    def remove(self, name: str) -> None:
        self._load().pop(name, None)


KINDS = _Registry()


def kind_of(name: str) -> GameKind:
    """The kind stored as ``name`` with a game; ``UnknownKind`` if this moderator does not know it."""
    try:
        return KINDS[name]
    except KeyError:
        raise UnknownKind(f"this moderator cannot run games of kind {name!r}; it knows: "
                          + ", ".join(KINDS)) from None


def kind_named(name: str) -> GameKind:
    """The kind called ``name`` as a person types it (case and hyphens ignored); ``UnknownKind`` otherwise."""
    key = name.strip().lower().replace("-", "").replace("_", "")
    for kind in KINDS.values():
        if kind.info.name.replace("-", "").replace("_", "") == key:
            return kind
    raise UnknownKind(f"no game of kind {name!r}; the kinds are: " + ", ".join(KINDS))


@contextmanager
def registered(kind: GameKind) -> Iterator[GameKind]:
    """``kind`` known to this process for the duration of the block (tests bring their own games)."""
    KINDS.add(kind)
    try:
        yield kind
    finally:
        KINDS.remove(kind.info.name)
