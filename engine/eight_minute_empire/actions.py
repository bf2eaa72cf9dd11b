"""What a player can do: bid, take a card, use its action step by step, end it (ORDERS: BID, TAKE, PLACE …)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Bid:
    """R8-BID-1: a sealed bid of ``coins``."""

    coins: int


@dataclass(frozen=True, slots=True)
class Take:
    """R8-TURN-1: the card at ``place`` (1 = leftmost) of the row."""

    place: int


@dataclass(frozen=True, slots=True)
class Place:
    """R8-ACT-1: (region, armies) per item."""

    items: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class Move:
    """R8-ACT-2/3: one army along each path (region, region, …)."""

    paths: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class City:
    """R8-ACT-4."""

    region: int


@dataclass(frozen=True, slots=True)
class Destroy:
    """R8-ACT-5: one army of (player, region) per item."""

    items: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class PlaceNeutral:
    """R8-VAR-2: one neutral army in ``region``."""

    region: int


@dataclass(frozen=True, slots=True)
class Done:
    """End the card's action; what is unused is lost (R8-ACT-6)."""


Action = Bid | Take | Place | Move | City | Destroy | Done | PlaceNeutral
CARD_ACTIONS = (Place, Move, City, Destroy)


def action_to_json(action: Action) -> dict[str, Any]:
    match action:
        case Bid(coins):
            return {"type": "bid", "coins": coins}
        case Take(place):
            return {"type": "take", "place": place}
        case Place(items):
            return {"type": "place", "items": [list(i) for i in items]}
        case Move(paths):
            return {"type": "move", "paths": [list(p) for p in paths]}
        case City(region):
            return {"type": "city", "region": region}
        case Destroy(items):
            return {"type": "destroy", "items": [list(i) for i in items]}
        case PlaceNeutral(region):
            return {"type": "neutral", "region": region}
    return {"type": "done"}


def action_from_json(data: dict[str, Any]) -> Action:
    kind = data.get("type")
    if kind == "bid":
        return Bid(int(data["coins"]))
    if kind == "take":
        return Take(int(data["place"]))
    if kind == "place":
        return Place(tuple((int(r), int(n)) for r, n in data["items"]))
    if kind == "move":
        return Move(tuple(tuple(int(r) for r in p) for p in data["paths"]))
    if kind == "city":
        return City(int(data["region"]))
    if kind == "destroy":
        return Destroy(tuple((str(p), int(r)) for p, r in data["items"]))
    if kind == "done":
        return Done()
    if kind == "neutral":
        return PlaceNeutral(int(data["region"]))
    raise ValueError(f"not an Eight-Minute Empire action: {data!r}")
