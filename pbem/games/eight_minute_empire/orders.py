"""Eight-Minute Empire's order language: ``BID 3``, ``TAKE 2``, ``PLACE 12 x2, 5``, ``MOVE 12-13-14``, ``CITY 13``,
``DESTROY red 13``, ``DONE``, and the report requests every game knows (STATUS, BOARD, OPTIONS, HISTORY, HELP).

The canonical forms of ``ORDERS-eight-minute-empire.md`` work exactly as
written; on top, the parser forgives what people write by mail: aliases
(BUILD for CITY, KILL for DESTROY, PASS for DONE, see ``keywords``), items
in natural word order (``PLACE 2 armies in 12``, ``DESTROY 13 red``, see
``orderitems``), numbers as words, and a card taken by its number
(``TAKE card 37``). What could be read two ways, or is misspelt, is refused
with what to write instead, never guessed: a guess would spend a turn on an
order the player did not give. A message is read line by line; the first
refused line stops it and the lines before it stand. The reasons given are
worded in ``templates/eight_minute_empire/_refusals.j2``.
"""
from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass

from engine.eight_minute_empire.actions import Action, Bid, City, Destroy, Done, Move, Place, PlaceNeutral, Take
from engine.eight_minute_empire.model import NEUTRAL, State
from pbem.games.eight_minute_empire import names, orderitems
from pbem.games.eight_minute_empire.keywords import (
    QUERIES,
    close_to_keyword,
    number,
    ordinal,
    read_keyword,
    suggestions,
    without_please,
)
from pbem.games.eight_minute_empire.orderitems import OrderError, refusal
from pbem.games.kind import match_player

__all__ = ["COLOURS", "OrderError", "QueryOrder", "colour_of", "is_query", "looks_like_order", "parse"]

COLOURS = ("red", "blue", "green", "yellow", "purple")
_FRAGMENT = re.compile(r"^(?:r|region\s*)?\d{1,2}\s*(?:$|[-,>x\u2013\u2192]|to\b|and\b)", re.IGNORECASE)


@dataclass(frozen=True)
class QueryOrder:
    """A report request among the orders."""

    kind: str
    topic: str | None = None
    count: int | None = None


def colour_of(state: State, player: str) -> str:
    return COLOURS[state.seating.index(player)]


def looks_like_order(text: str) -> bool:
    """Whether a line is meant as an order, so that it is refused if wrong rather than set aside as courtesy.

    True for a keyword or alias, a prefix of one, a near miss of one ("tkae 2",
    refused with "did you mean TAKE?"), and a line that starts with regions
    ("12-9" after a ";"), which lacks only its order word.
    """
    first = text.split()[0] if text.split() else ""
    return close_to_keyword(names.english(text)) or names.near_keyword(first) or bool(_FRAGMENT.match(text.strip()))


def is_query(text: str) -> bool:
    """Whether the line asks for a report (STATUS, BOARD or MAP, OPTIONS, HISTORY, HELP) and changes nothing."""
    found = read_keyword(names.english(text))
    return found is not None and found[0] in QUERIES


def parse(state: State, text: str) -> Action | QueryOrder:
    """One order as written, read against ``state`` (for the row and the players' names and colours); in the
    seat's language or in English (``names.english``)."""
    original = without_please(text).rstrip(".")
    text = names.english(original, state.seating, tuple(colour_of(state, p) for p in state.seating))
    found = read_keyword(text)
    if found is None:
        raise OrderError(_unknown(text))
    keyword, written, rest = found
    if keyword in QUERIES:
        return _query(keyword, rest)
    try:
        return READERS[keyword](state, rest)
    except OrderError as exc:
        raise OrderError(_two_orders(written, rest, original) or exc.reason, exc.legal) from None


def _unknown(text: str) -> str:
    """Why a line is no order: a near keyword to suggest, or a line of regions without its order word."""
    word = text.split()[0] if text.split() else text
    if _FRAGMENT.match(text.strip()):
        line = text.strip()
        return refusal("no_order_word", line, bool(re.search(r"-|>|\bto\b", line)))
    return refusal("no_such_order", word, names.suggestions(word) or suggestions(word))


def _two_orders(written: str, rest: str, original: str) -> str | None:
    """The reason to give when an item is another order ("TAKE 3, MOVE 12-13"): one order per line or per ';'.

    The first item is never one ("BUILD city 13", "TAKE place 2"), nor is a
    NEUTRAL item, which names the neutral armies ("DESTROY red 13, neutral 5").
    The reason quotes the line as written (``original``: in the seat's
    language, ``rest`` being its English reading, word for word).
    """
    parts = re.split(r"(,|\band\b|&)", rest, flags=re.IGNORECASE)  # items at even places, separators between
    words = original.split()
    shown_written, shown_rest = " ".join(words[:len(written.split())]), " ".join(words[len(written.split()):])
    shown = re.split(r"(,|\band\b|&)", shown_rest, flags=re.IGNORECASE)
    if len(shown) != len(parts):
        shown_written, shown = written, parts
    for index in range(2, len(parts), 2):
        found = read_keyword(parts[index])
        if found is not None and found[0] != "neutral":
            before = "".join(shown[:index - 1]).strip()
            return refusal("another_order", shown[index].strip(), shown_written, before)
    return None


def _query(keyword: str, rest: str) -> QueryOrder:
    rest = rest.strip().rstrip("?").strip()
    if keyword == "help":
        return QueryOrder("help", rest.lower() or None)
    if keyword == "history" and rest:
        words = rest.split()
        count = number(words[0])
        if count is None or len(words) > 2 or (len(words) == 2 and words[1].lower() not in ("moves", "events")):
            raise OrderError(refusal("history_count"))
        return QueryOrder("history", count=count)
    return QueryOrder(keyword)


# --- one reader per order: (state, the text after the keyword) -> the action ----------------------------


_COINS = re.compile(r"(\S+?)\s*(?:c|coins?|gold)?", re.IGNORECASE)


def _bid(state: State, rest: str) -> Action:
    """``BID 3``, ``BID 3 coins``, ``BID three``, ``BID nothing``."""
    match = _COINS.fullmatch(rest.strip())
    word = match.group(1).lower() if match else ""
    coins = 0 if word in ("nothing", "none", "nil") else number(word)
    if coins is None:
        raise OrderError(refusal("bid_number", rest.strip()))
    return Bid(coins)


_BY_PLACE = re.compile(r"^(?:the\s+)?(?:card\s+)?(?:at\s+|in\s+|from\s+)?(?:place|position|pos|slot)\s+(\w+)"
                       r"(?:\s+card)?$", re.IGNORECASE)
_BY_ORDINAL = re.compile(r"^(?:the\s+)?(\w+)(?:\s+card)?(?:\s+(?:of|in|from)\s+the\s+row)?$", re.IGNORECASE)
_BY_CARD = re.compile(r"^(?:the\s+)?(?:card\s*(?:#|no\.?\s*|number\s+)?|#\s*)(\d{1,3})$", re.IGNORECASE)


def _take(state: State, rest: str) -> Action:
    """``TAKE 2`` (the place), ``TAKE second``, ``TAKE place 2``; ``TAKE card 37`` or ``TAKE #37`` (the card)."""
    text = rest.strip()
    if card := _BY_CARD.match(text):
        return Take(_place_of_card(state, int(card.group(1)), explicit="#" in text))
    for pattern, read in ((_BY_PLACE, number), (_BY_ORDINAL, _place_word)):
        if (match := pattern.match(text)) and (place := read(match.group(1))) is not None:
            return Take(_checked_place(state, place))
    raise OrderError(refusal("take_what", len(state.row)))


def _place_word(word: str) -> int | None:
    found = number(word)
    return found if found is not None else ordinal(word)


def _checked_place(state: State, place: int) -> int:
    """A place as written; a number beyond the row that is a card there is refused with both readings."""
    if place > len(state.row) and place in state.row:
        at = state.row.index(place) + 1
        raise OrderError(refusal("place_beyond_row", len(state.row), place, at))
    return place


def _place_of_card(state: State, card: int, *, explicit: bool) -> int:
    """The place of card ``card`` in the row; refused when it is not there, or when "card 3" could be place 3."""
    if card not in state.row:
        raise OrderError(refusal("card_not_in_row", card, state.row))
    place = state.row.index(card) + 1
    if not explicit and card <= len(state.row) and place != card:
        raise OrderError(refusal("card_or_place", card, place, state.row[card - 1]))
    return place


def _place(state: State, rest: str) -> Action:
    """``PLACE 12 x2, 5``, ``PLACE 2 armies in 12``, ``PLACE 12 12``; ``PLACE neutral 5`` in the neutral setup."""
    words = rest.split()
    if words and words[0].lower() == NEUTRAL:
        return _neutral(state, " ".join(words[1:]))
    return Place(tuple(orderitems.place_item(item) for item in orderitems.items(rest, "PLACE 12 x2, 5")))


def _move(state: State, rest: str) -> Action:
    """``MOVE 12-13-14, 12-9``, ``MOVE 12 to 13``, ``MOVE 12->13``, ``MOVE 2 armies 12-13``."""
    items = orderitems.items(rest, "MOVE 12-13-14, 12-9")
    return Move(tuple(p for item in items for p in orderitems.path(item)))


_CITY = re.compile(r"^(?:an?\s+)?(?:new\s+)?(?:city\s+)?(?:in|at|on)?\s*(?P<r>.*)$", re.IGNORECASE)
_NEUTRAL = re.compile(r"^(?:an?\s+|one\s+)?(?:army\s+)?(?:in|at|on|to)?\s*(?P<r>.*)$", re.IGNORECASE)


def _city(state: State, rest: str) -> Action:
    """``CITY 13``, ``CITY in 13``, ``BUILD a city in region 13``."""
    match = _CITY.match(rest.strip())
    assert match is not None  # the pattern matches every text
    return City(_one_region(match.group("r"), "CITY 13 or BUILD a city in 13"))


def _neutral(state: State, rest: str) -> Action:
    """``NEUTRAL 5``, ``NEUTRAL army in 5`` (and ``PLACE neutral 5``)."""
    match = _NEUTRAL.match(rest.strip())
    assert match is not None  # the pattern matches every text
    return PlaceNeutral(_one_region(match.group("r"), "NEUTRAL 5"))


def _one_region(text: str, example: str) -> int:
    if not text.strip():
        raise OrderError(refusal("say_where", example))
    return orderitems.region(text)


def _destroy(state: State, rest: str) -> Action:
    """``DESTROY red 13, ann 9``, ``DESTROY 13 red``, ``DESTROY the red army in 13``, ``DESTROY red 13 x2``."""
    found = []
    for item in orderitems.items(rest, "DESTROY red 13"):
        who, region, armies = orderitems.target(item)
        found += [(_player(state, who), region)] * armies
    return Destroy(tuple(found))


def _done(state: State, rest: str) -> Action:
    """``DONE``, ``PASS``, ``SKIP``, ``DECLINE``, ``END TURN``: whatever follows is a comment."""
    return Done()


def _player(state: State, text: str) -> str:
    """A player by name or colour (any case), or ``neutral``; a near miss is refused with the closest names."""
    if text.lower() == NEUTRAL:
        return NEUTRAL
    found = match_player(text, state.seating)
    if found is not None:
        return found
    colours = {colour_of(state, p): p for p in state.seating}
    if text.lower() in colours:
        return colours[text.lower()]
    words = [*state.seating, *(names.colour(c) for c in colours), names.player(NEUTRAL)]
    near = difflib.get_close_matches(text.lower(), [w.lower() for w in words], n=1, cutoff=0.6)
    raise OrderError(refusal("no_player", text, tuple((p, names.colour(colour_of(state, p))) for p in state.seating),
                             near[0] if near else None))


READERS: dict[str, Callable[[State, str], Action]] = {
    "bid": _bid, "take": _take, "place": _place, "move": _move, "city": _city, "destroy": _destroy, "done": _done,
    "neutral": _neutral,
}
