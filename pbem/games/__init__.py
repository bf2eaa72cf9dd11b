"""The games this moderator can run, by kind name: what the game master chooses from.

A stored game records its kind (``games.kind``); ``pbem game new --kind`` and
``pbem kinds`` read this registry. Today it holds Imperial 2030 alone, and
holds only what the game master picks from (a title, the player counts, the
variants). The narrow interface behind which each game's rules, order
language, views and bot will sit (ARCHITECTURE, "One moderator, several
games") grows here, kind by kind.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.imperial2030.model import Variant
from pbem.errors import PbemError

DEFAULT_KIND = "imperial2030"


class UnknownKind(PbemError):
    """No game of that kind is known to this moderator."""


@dataclass(frozen=True)
class GameKind:
    """One game this moderator can run, as the game master chooses it."""

    name: str  # stored with every game of this kind
    title: str  # in mails and help
    min_players: int
    max_players: int
    variants: tuple[str, ...]

    @property
    def players(self) -> str:
        return f"{self.min_players}-{self.max_players}"


KINDS: dict[str, GameKind] = {
    DEFAULT_KIND: GameKind(DEFAULT_KIND, "Imperial 2030", 2, 6, tuple(v.value for v in Variant)),
}


def kind_named(name: str) -> GameKind:
    """The kind called ``name`` (case and hyphens ignored); ``UnknownKind`` naming those that exist."""
    key = name.strip().lower().replace("-", "").replace("_", "")
    for kind in KINDS.values():
        if kind.name.replace("-", "").replace("_", "") == key:
            return kind
    raise UnknownKind(f"no game of kind {name!r}; the kinds are: " + ", ".join(KINDS))
