"""The four-continent map, the deck and the tables, loaded once from ``maps/eight-minute-empire.json``.

Every fact the rules need that is not a rule (adjacency, card actions, goods
charts, coins and cards per player count) is data, checked when loaded: a
fault names the file and the entry.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Any

from engine.core.errors import EngineError

MAP_FILE = Path(__file__).resolve().parent.parent.parent / "maps" / "eight-minute-empire.json"
WILD = "wild"


class MapError(EngineError):
    """The map data is wrong: the message names the file, the entry and the fault."""


class ActionKind(StrEnum):
    PLACE = "place"  # R8-ACT-1
    MOVE = "move"  # R8-ACT-2
    WATER = "water"  # R8-ACT-3
    CITY = "city"  # R8-ACT-4
    DESTROY = "destroy"  # R8-ACT-5


@dataclass(frozen=True, slots=True)
class CardAction:
    kind: ActionKind
    amount: int


@dataclass(frozen=True, slots=True)
class Card:
    id: int
    good: str  # a goods name, or "wild"
    symbols: int
    actions: tuple[CardAction, ...]
    join: str  # "" (one action), "/" (one of them) or "+" (both, in either order): R8-ACT-6
    five_players: bool


@dataclass(frozen=True)
class Board:
    start: int
    regions: tuple[int, ...]
    continents: dict[str, tuple[int, ...]]
    land: dict[int, frozenset[int]]
    water: dict[int, frozenset[int]]  # dashed sea lines only
    row_costs: tuple[int, ...]
    coins: dict[int, int]
    cards_at_end: dict[int, int]
    armies: int
    cities: int
    start_armies: int
    goods: dict[str, tuple[int, ...]]  # symbols needed for 1, 2, 3 and 5 points
    goods_points: tuple[int, ...]
    cards: dict[int, Card]

    def continent_of(self, region: int) -> str:
        return next(name for name, regions in self.continents.items() if region in regions)

    def neighbours(self, region: int, *, water: bool) -> frozenset[int]:
        """Regions one step away: over land, and across a sea line too when ``water`` (R8-ACT-2/3)."""
        near = self.land.get(region, frozenset())
        return near | self.water.get(region, frozenset()) if water else near

    def deck(self, players: int) -> tuple[int, ...]:
        """R8-SETUP-1: every card, without the five-player ones below five players (in id order)."""
        return tuple(c.id for c in self.cards.values() if players == 5 or not c.five_players)


def _links(pairs: list[list[int]], regions: tuple[int, ...], what: str) -> dict[int, frozenset[int]]:
    links: dict[int, set[int]] = {r: set() for r in regions}
    for a, b in pairs:
        if a not in links or b not in links or a == b:
            raise MapError(f"{MAP_FILE.name}: {what} link {a}-{b} names no region (or a region twice)")
        links[a].add(b)
        links[b].add(a)
    return {r: frozenset(n) for r, n in links.items()}


def _card(data: dict[str, Any], goods: dict[str, tuple[int, ...]]) -> Card:
    where = f"{MAP_FILE.name}: card {data.get('id')}"
    if data["good"] != WILD and data["good"] not in goods:
        raise MapError(f"{where}: unknown good {data['good']!r}")
    actions = tuple(CardAction(ActionKind(kind), int(amount)) for kind, amount in data["actions"])
    if data["join"] not in ("", "/", "+") or (len(actions) > 1) != bool(data["join"]):
        raise MapError(f"{where}: two actions need '/' or '+', one action neither")
    return Card(int(data["id"]), data["good"], int(data["symbols"]), actions, data["join"], bool(data["five_players"]))


def load_board(path: Path = MAP_FILE) -> Board:
    data = json.loads(path.read_text(encoding="utf-8"))
    regions = tuple(int(r) for r in data["regions"])
    continents = {name: tuple(int(r) for r in members) for name, members in data["continents"].items()}
    if sorted(r for members in continents.values() for r in members) != sorted(regions):
        raise MapError(f"{path.name}: every region must lie in exactly one continent")
    goods = {name: tuple(int(n) for n in chart) for name, chart in data["goods"].items()}
    cards = {card.id: card for card in (_card(c, goods) for c in data["cards"])}
    return Board(
        start=int(data["start_region"]), regions=regions, continents=continents,
        land=_links(data["land"], regions, "land"), water=_links(data["water"], regions, "water"),
        row_costs=tuple(int(c) for c in data["row_costs"]),
        coins={int(k): int(v) for k, v in data["coins"].items()},
        cards_at_end={int(k): int(v) for k, v in data["cards_at_end"].items()},
        armies=int(data["armies"]), cities=int(data["cities"]), start_armies=int(data["start_armies"]),
        goods=goods, goods_points=tuple(int(p) for p in data["goods_points"]), cards=cards,
    )


@lru_cache(maxsize=1)
def default_board() -> Board:
    return load_board()
