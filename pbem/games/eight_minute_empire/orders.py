"""Eight-Minute Empire's order language: ``BID 3``, ``TAKE 2``, ``PLACE 12 x2, 5``, ``MOVE 12-13-14``, ``CITY 13``,
``DESTROY red 13``, ``DONE``, and the report requests every game knows (STATUS, BOARD, OPTIONS, HISTORY, HELP).

Regions are the map's numbers, written ``12`` or ``r12``; armies are named by
their player's name or colour. A message is read line by line; the first
refused line stops it and the lines before it stand.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from engine.eight_minute_empire.actions import Action, Bid, City, Destroy, Done, Move, Place, PlaceNeutral, Take
from engine.eight_minute_empire.model import NEUTRAL, State
from pbem.games.kind import match_player

COLOURS = ("red", "blue", "green", "yellow", "purple")
QUERIES = ("status", "board", "options", "history", "help")
KEYWORDS = ("bid", "take", "place", "move", "city", "destroy", "done", "pass", "neutral", *QUERIES)
_REGION = re.compile(r"^r?(\d{1,2})$", re.IGNORECASE)
_COUNT = re.compile(r"^x(\d{1,2})$", re.IGNORECASE)


class OrderError(ValueError):
    """A line that is no order of this game: the reason and what could be written instead."""

    def __init__(self, reason: str, legal: tuple[str, ...] = ()) -> None:
        super().__init__(reason)
        self.reason = reason
        self.legal = legal


@dataclass(frozen=True)
class QueryOrder:
    """A report request among the orders."""

    kind: str
    topic: str | None = None
    count: int | None = None


def colour_of(state: State, player: str) -> str:
    return COLOURS[state.seating.index(player)]


def looks_like_order(text: str) -> bool:
    """Whether a line starts with one of our keywords (else it may be a greeting or a name)."""
    word = text.split(maxsplit=1)[0].lower() if text.split() else ""
    return word in KEYWORDS or any(k.startswith(word) for k in KEYWORDS if len(word) >= 3)


def parse(state: State, text: str) -> Action | QueryOrder:
    words = text.split(maxsplit=1)
    keyword, rest = words[0].lower(), (words[1] if len(words) > 1 else "").strip()
    if keyword in QUERIES:
        return _query(keyword, rest)
    if keyword == "bid":
        return Bid(_number(rest, "BID takes a number of coins, e.g. BID 3."))
    if keyword == "take":
        return Take(_number(rest, "TAKE takes the place of a card in the row, 1 to 6, e.g. TAKE 2."))
    if keyword == "place":
        return Place(tuple(_place_item(item) for item in _items(rest, "PLACE 12 x2, 5")))
    if keyword == "move":
        return Move(tuple(_path(item) for item in _items(rest, "MOVE 12-13-14, 12-9")))
    if keyword == "city":
        return City(_region(rest))
    if keyword == "destroy":
        return Destroy(tuple(_target(state, item) for item in _items(rest, "DESTROY red 13")))
    if keyword in ("done", "pass"):
        return Done()
    if keyword == "neutral":
        return PlaceNeutral(_region(rest))
    raise OrderError(f"{words[0]!r} is no order of Eight-Minute Empire.",
                     ("BID n", "TAKE n", "PLACE 12", "MOVE 12-13", "CITY 12", "DESTROY red 12", "DONE", "HELP"))


def _query(keyword: str, rest: str) -> QueryOrder:
    if keyword == "help":
        return QueryOrder("help", rest.lower() or None)
    if keyword == "history" and rest:
        return QueryOrder("history", count=_number(rest, "HISTORY takes a number of moves, e.g. HISTORY 5."))
    return QueryOrder(keyword)


def _number(text: str, how: str) -> int:
    if not text.isdigit():
        raise OrderError(how)
    return int(text)


def _items(text: str, example: str) -> list[str]:
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise OrderError(f"Say where, e.g. {example}.")
    return items


def _region(text: str) -> int:
    match = _REGION.match(text.strip())
    if match is None or not 1 <= int(match.group(1)) <= 25:
        raise OrderError(f"{text.strip()!r} is no region: regions are 1 to 25 (12 or r12).")
    return int(match.group(1))


def _place_item(item: str) -> tuple[int, int]:
    words = item.split()
    count = 1
    if len(words) == 2 and (match := _COUNT.match(words[1])):
        count = int(match.group(1))
    elif len(words) != 1:
        raise OrderError(f"{item!r}: write a region and, for several armies, x and a number: 12 x2.")
    return _region(words[0]), count


def _path(item: str) -> tuple[int, ...]:
    regions = tuple(_region(part) for part in re.split(r"\s*-\s*|\s+to\s+", item.strip()) if part)
    if len(regions) < 2:
        raise OrderError(f"{item!r}: a move goes from one region to the next, e.g. 12-13 or 12-13-14.")
    return regions


def _target(state: State, item: str) -> tuple[str, int]:
    words = item.split()
    if len(words) != 2:
        raise OrderError(f"{item!r}: name whose army and where, e.g. DESTROY red 13 or DESTROY ann 13.")
    return _player(state, words[0]), _region(words[1])


def _player(state: State, text: str) -> str:
    if text.lower() == NEUTRAL:
        return NEUTRAL
    found = match_player(text, state.seating)
    if found is not None:
        return found
    colours = {colour_of(state, p): p for p in state.seating}
    if text.lower() in colours:
        return colours[text.lower()]
    named = ", ".join(f"{p} ({colour_of(state, p)})" for p in state.seating)
    raise OrderError(f"{text!r} names no player; players: {named}.")
