"""The items of Eight-Minute Empire's orders: regions, counts of armies, paths and whose army.

Players write ``PLACE 12 x2`` but also ``PLACE 2 armies in 12``;
``DESTROY red 13`` but also ``DESTROY 13 red`` or ``DESTROY the red army in
region 13``. Each item is cut into tokens of a few kinds (a number, a marked
region, a count, the word "army", a preposition, another word) and the
string of their kinds is matched against the few shapes an item may have.
That keeps every accepted form listed in one place, and anything else is
refused: a number that could be a count or a region (``PLACE 2 12``) is
never guessed. The reasons given are in
``templates/eight_minute_empire/_refusals.j2`` (``refusal``).
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pbem.games.eight_minute_empire.keywords import number
from pbem.games.eight_minute_empire.viewmodels import say

REGIONS = range(1, 26)  # the four-continent map's regions (R8-PIECE-2)


class OrderError(ValueError):
    """A line that is no order of this game: the reason and what could be written instead."""

    def __init__(self, reason: str, legal: tuple[str, ...] = ()) -> None:
        super().__init__(reason)
        self.reason = reason
        self.legal = legal


def refusal(reason: str, *facts: str | int | tuple[object, ...] | None) -> str:
    """Why a line is refused, in the player's words: the macro ``reason`` of ``_refusals.j2`` told ``facts``."""
    return say("_refusals", reason, *facts)


@dataclass(frozen=True, slots=True)
class Token:
    """One word of an item and its kind: N number, R marked region, C count, A "army", P preposition, W word."""

    kind: str
    text: str
    value: int = 0


_REGION_WORD = re.compile(r"\b(?:region|reg|r)\s*(?=\d)", re.IGNORECASE)  # "region 12", "r 12" -> "r12"
_TIMES = re.compile(r"(\d)\s*[x\u00d7*]\s*(\d)", re.IGNORECASE)  # "12x2", "12 x 2" -> "12 x2"
_MARKED = re.compile(r"^r(\d{1,3})$")
_COUNT = re.compile(r"^(?:[x\u00d7*](\d{1,2})|(\d{1,2})x)$")
_ITEMS = re.compile(r"\s*(?:,|&|\band\b)\s*", re.IGNORECASE)
_STEP = re.compile(r"\s*(?:->|=>|\u2192|>|-|\u2013|\u2014|\bto\b)\s*", re.IGNORECASE)
_MOVE_COUNT = re.compile(r"^(?:(?P<n>\w+)\s+(?:army|armies)\s+)?(?:from\s+)?(?P<path>.*?)"
                         r"(?:\s*[x\u00d7*]\s*(?P<x>\d{1,2})|\s+(?P<y>\d{1,2})x|\s+(?P<t>twice|thrice))?$",
                         re.IGNORECASE)
ARMY_WORDS = frozenset({"army", "armies", "troop", "troops", "unit", "units"})
PREPOSITIONS = frozenset({"in", "at", "to", "into", "on", "from", "of"})
TIMES_WORDS = {"twice": 2, "thrice": 3}


def items(text: str, example: str) -> list[str]:
    """The items of a list: separated by ``,`` (or "and", "&"); at least one."""
    found = [item for item in _ITEMS.split(text.strip()) if item.strip()]
    if not found:
        raise OrderError(refusal("say_where", example))
    return found


def tokens(text: str) -> list[Token]:
    text = _TIMES.sub(r"\1 x\2", _REGION_WORD.sub("r", text.replace("(", " ").replace(")", " ")))
    found = []
    for raw in text.split():
        word = raw.lower().removesuffix("'s").strip(".:")
        if word == "the" or not word:
            continue
        found.append(_token(word))
    return found


def _token(word: str) -> Token:
    if marked := _MARKED.match(word):
        return Token("R", word, int(marked.group(1)))
    if (value := number(word)) is not None or word in ("a", "an"):
        return Token("N", word, 1 if value is None else value)
    if counted := _COUNT.match(word):
        return Token("C", word, int(counted.group(1) or counted.group(2)))
    if word in TIMES_WORDS:
        return Token("C", word, TIMES_WORDS[word])
    if word in ARMY_WORDS:
        return Token("A", word)
    return Token("P" if word in PREPOSITIONS else "W", word)


def shape(forms: Sequence[str], found: list[Token]) -> dict[str, list[Token]] | None:
    """The named parts of the first form (a regex over the tokens' kinds) the tokens fit; None if none."""
    kinds = "".join(t.kind for t in found)
    for form in forms:
        match = re.fullmatch(form, kinds)
        if match:
            return {name: found[match.start(name):match.end(name)] for name in match.groupdict()
                    if match.start(name) >= 0}
    return None


def region(text: str | Token) -> int:
    """A region number from ``12``, ``r12``, ``R12`` or ``region 12``, checked to be on the map."""
    found = [text] if isinstance(text, Token) else tokens(text)
    if len(found) != 1 or found[0].kind not in "NR" or found[0].text in ("a", "an"):
        shown = text.text if isinstance(text, Token) else text.strip()
        raise OrderError(refusal("no_region", shown))
    value = found[0].value
    if value not in REGIONS:
        raise OrderError(refusal("off_the_map", value))
    return value


def count(parts: dict[str, list[Token]], item: str) -> int:
    """The number of armies an item names ("2 armies", "x2"), 1 if none; never both, never 0."""
    given = [parts[name][0].value for name in ("n", "c") if name in parts]
    if len(given) > 1:
        raise OrderError(refusal("count_twice", item))
    if given and given[0] < 1:
        raise OrderError(refusal("count_zero", item))
    return given[0] if given else 1


PLACE_FORMS = (
    r"(?P<n>N)A?P(?P<r>[NR])(?P<c>C)?",  # 2 in 12, 2 armies in 12, an army to r12
    r"(?P<n>N)A(?P<r>[NR])(?P<c>C)?",  # 2 armies 12
    r"A?P?(?P<r>[NR])(?P<c>C)?",  # 12, in 12, 12 x2, army in region 12
    r"(?P<c>C)P?(?P<r>[NR])",  # x2 12, x2 in 12
    r"(?P<rs>[NR]{2,})",  # 12 12: the same region twice is two armies
)


def place_item(item: str) -> tuple[int, int]:
    """(region, armies) of one item of PLACE."""
    parts = shape(PLACE_FORMS, tokens(item))
    if parts is None:
        raise OrderError(refusal("place_form", item))
    if "rs" in parts:
        regions = {region(t) for t in parts["rs"]}
        if len(regions) > 1:
            numbers = " ".join(t.text for t in parts["rs"])
            raise OrderError(refusal("count_or_regions", numbers))
        return regions.pop(), len(parts["rs"])
    return region(parts["r"][0]), count(parts, item)


def path(item: str) -> tuple[tuple[int, ...], ...]:
    """The paths of one item of MOVE: ``12-13-14``; ``12 to 13``; ``2 armies 12-13`` or ``12-13 x2`` twice."""
    match = _MOVE_COUNT.match(item.strip())
    assert match is not None  # the pattern matches every text
    body = match.group("path").strip()
    counts = [c for c in (_army_count(match.group("n"), item), match.group("x") or match.group("y"),
                          TIMES_WORDS.get((match.group("t") or "").lower())) if c is not None]
    if len(counts) > 1:
        raise OrderError(refusal("move_count_twice", item))
    times = int(counts[0]) if counts else 1
    parts = _STEP.split(body) if _STEP.search(body) else body.split()
    for part in parts:
        if len(tokens(part)) > 1:
            raise OrderError(refusal("not_one_region", part))
    regions = tuple(region(part) for part in parts if part)
    if len(regions) < 2:
        raise OrderError(refusal("move_too_short", item))
    if times < 1:
        raise OrderError(refusal("count_zero", item))
    return (regions,) * times


def _army_count(word: str | None, item: str) -> int | None:
    if word is None:
        return None
    value = 1 if word.lower() in ("a", "an") else number(word)
    if value is None:
        raise OrderError(refusal("army_count_word", item, word))
    return value


DESTROY_FORMS = (
    r"(?P<n>N)?(?P<w>W+)(?P<a>A)?P?(?P<r>[NR])(?P<c>C)?",  # red 13, the red army in 13, 2 red armies in 13
    r"(?P<r>[NR])(?P<w>W+)(?P<c>C)?",  # 13 red, 13 red x2
    r"(?P<n>N)?(?P<a>A)P(?P<w>W+)P(?P<r>[NR])(?P<c>C)?",  # an army of red in 13
)


def target(item: str) -> tuple[str, int, int]:
    """(whose army as written, region, how many) of one item of DESTROY."""
    parts = shape(DESTROY_FORMS, tokens(item))
    if parts is None:
        raise OrderError(refusal("destroy_form", item))
    if "n" in parts and "a" not in parts and parts["n"][0].text not in ("a", "an"):
        raise OrderError(refusal("count_or_region", item, parts["n"][0].text))
    return " ".join(t.text for t in parts["w"]), region(parts["r"][0]), count(parts, item)
