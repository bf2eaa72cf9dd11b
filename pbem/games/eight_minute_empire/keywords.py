"""The words of Eight-Minute Empire's orders: keywords with their aliases, number words, and near misses.

One table says which spellings name which order, so that the parser, the
test for "is this line an order or a greeting" (``looks_like_order``), the
"did you mean" suggestions and HELP all agree. A misspelt keyword is never
guessed at: it is refused with the closest spellings, because a wrong guess
would spend a player's turn on an order they did not write.
"""
from __future__ import annotations

import difflib
import re

# spelling -> the canonical keyword (lower case); a spelling of two words is matched as a whole.
SPELLINGS: dict[str, str] = {
    "bid": "bid",
    "take": "take", "buy": "take", "pick": "take",
    "place": "place", "add": "place", "deploy": "place", "put": "place",
    "move": "move",
    "city": "city", "build": "city",
    "destroy": "destroy", "kill": "destroy", "remove": "destroy",
    "done": "done", "pass": "done", "skip": "done", "decline": "done", "finish": "done", "finished": "done",
    "end turn": "done", "end action": "done",
    "neutral": "neutral",
    "status": "status", "board": "board", "map": "board", "options": "options", "history": "history",
    "help": "help",
}
QUERIES = frozenset({"status", "board", "options", "history", "help"})
# canonical -> its other spellings, for HELP and the docs
ALIASES: dict[str, tuple[str, ...]] = {
    keyword: tuple(s for s, k in SPELLINGS.items() if k == keyword and s != keyword)
    for keyword in dict.fromkeys(SPELLINGS.values())
}

NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                "twelve", "thirteen", "fourteen")
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "leftmost": 1}
_ORDINAL = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)$")
_GLUED = re.compile(r"^([a-z]+)(\d.*)$")  # "take2": the keyword and its first argument run together
_PLEASE = re.compile(r"^(?:please|pls|plz|kindly)[,:]?\s+(?=\S)", re.IGNORECASE)  # "Please TAKE 2"
_PUNCTUATION = ".:,?"
MIN_PREFIX = 3  # "des" for DESTROY; shorter prefixes are too often another word
NEAR = 0.8  # a first word this close to a keyword is an order (misspelt), even on a line without a number
NEAR_WITH_NUMBER = 0.7  # "tkae 2": a line that also holds a number may be further off
_NOT_ORDERS = re.compile(r"^(?:take care|take it easy)\b")  # courtesy that starts with a keyword


def number(word: str) -> int | None:
    """A whole number written in digits or as a word up to fourteen ("3", "three"); None otherwise."""
    word = word.lower()
    if word.isdigit():
        return int(word)
    if word in NUMBER_WORDS:
        return NUMBER_WORDS.index(word)
    return None


def ordinal(word: str) -> int | None:
    """A place in the row written as an ordinal ("second", "2nd", "leftmost"); None otherwise."""
    word = word.lower()
    if word in ORDINALS:
        return ORDINALS[word]
    match = _ORDINAL.match(word)
    return int(match.group(1)) if match else None


def without_please(text: str) -> str:
    """The order without a "please" before it (one after it is dropped by the mail reader)."""
    return _PLEASE.sub("", text.strip())


def read_keyword(text: str) -> tuple[str, str, str] | None:
    """(canonical keyword, the words as written, the rest) if ``text`` starts with a spelling of one; else None.

    Case does not matter, a ":" or "," or "." after the keyword is dropped
    ("TAKE: 2", "DONE."), and "take2" is read as "take 2".
    """
    words = without_please(text).split()
    if not words:
        return None
    two = " ".join(w.lower() for w in words[:2]).rstrip(_PUNCTUATION)
    if len(words) >= 2 and " " in two and two in SPELLINGS:
        return SPELLINGS[two], " ".join(words[:2]), " ".join(words[2:])
    first = words[0].lower().rstrip(_PUNCTUATION)
    if first in SPELLINGS:
        return SPELLINGS[first], words[0], " ".join(words[1:])
    glued = _GLUED.match(first)
    if glued and glued.group(1) in SPELLINGS:
        return SPELLINGS[glued.group(1)], words[0], " ".join([glued.group(2), *words[1:]])
    return None


def suggestions(word: str, cutoff: float = 0.7) -> tuple[str, ...]:
    """Spellings (upper case) that ``word`` may be a slip for: a prefix of them, close, or its letters swapped.

    At most three, the closest first; for a prefix, every spelling it begins.
    """
    probe = word.lower().rstrip(_PUNCTUATION)
    if not probe:
        return ()
    single = sorted((s for s in SPELLINGS if " " not in s), key=lambda s: s != SPELLINGS[s])  # keywords first
    found = [s for s in single if len(probe) >= 2 and s.startswith(probe) and s != probe]
    close = difflib.get_close_matches(probe, single, n=3, cutoff=cutoff)
    best = difflib.SequenceMatcher(None, probe, close[0]).ratio() if close else 1.0
    found += [s for s in close if difflib.SequenceMatcher(None, probe, s).ratio() >= best - 0.1]  # not far behind
    found += [s for s in single if len(probe) >= 3 and sorted(s) == sorted(probe)]  # "bdi" -> BID
    unique = list(dict.fromkeys(found))
    return tuple(s.upper() for s in unique[:3])


def close_to_keyword(text: str) -> bool:
    """Whether ``text`` starts like an order: a keyword, a prefix of one, or a near miss of one.

    A near miss counts only when it is close enough not to be a name or a
    greeting ("Will" is not KILL, "Kate" is not TAKE); on a line holding a
    number ("tkae 2") it may be a little further off.
    """
    lowered = " ".join(without_please(text).lower().split())
    if _NOT_ORDERS.match(lowered):
        return False
    if read_keyword(text) is not None:
        return True
    word = lowered.split(maxsplit=1)[0].rstrip(_PUNCTUATION) if lowered else ""
    single = [s for s in SPELLINGS if " " not in s]
    if len(word) >= MIN_PREFIX and any(s.startswith(word) for s in single):
        return True
    cutoff = NEAR_WITH_NUMBER if any(ch.isdigit() for ch in lowered) else NEAR
    close = difflib.get_close_matches(word, single, n=1, cutoff=cutoff)
    swapped = any(ch.isdigit() for ch in lowered) and any(sorted(s) == sorted(word) for s in single)
    return bool(close) or (len(word) >= 3 and swapped)


def spellings_of(keyword: str) -> tuple[str, ...]:
    """The canonical keyword and its aliases, upper case ("CITY", "BUILD")."""
    return (keyword.upper(), *(a.upper() for a in ALIASES.get(keyword, ())))
