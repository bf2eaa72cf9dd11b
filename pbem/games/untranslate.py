"""A translated line of mail read back into the English the templates write, through the catalogue itself.

Why: a bot seeds its choices with what its prompt says of the position (see
``pbem.games.eight_minute_empire.bot.decision_key``). Seeded with the Russian
words, a seed played another game in Russian than in English; seeded with
the same lines read back into English, a seed plays one game in every
language. The catalogue (``pbem/locale/<code>/LC_MESSAGES/pbem.mo``, the same
one the mail was written with) is read in reverse: each translation becomes
a pattern whose placeholders catch the values, each value is read back the
same way (a card inside the row's line, a count inside a sentence), and the
English message is filled with them. Plural forms come back by the English
rule (one, else many). A text that no translation matches is left as it is:
names, numbers, regions and the order language's items read the same in
every language.

A heading is printed upper case (``d.title|upper``): read ``caseless``, the
translations match whatever their case, and the English comes back as the
catalogue writes it (the caller upper-cases it as the template did).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from babel.messages.mofile import read_mo

from pbem.languages import SOURCE, Language, speaking
from pbem.render.env import DOMAIN, LOCALE_DIR
from pbem.render.text import plain

_PLACEHOLDER = re.compile(r"%\((\w+)\)([sd])|%%")
_BETWEEN = re.compile(r"%\(\w+\)[sd]")  # what splits a translation into the pieces a matching text holds
_NEST = 6  # how deep values are read back (a card's uses inside a card inside the row's line)


@dataclass(frozen=True)
class _Entry:
    """One translation as patterns (its values caught shortest first, and longest first), and the English it
    stands for (the plural's two forms for a count)."""

    patterns: tuple[re.Pattern[str], ...]
    english: tuple[str, ...]
    weight: int  # the translation's own letters: the more, the surer a match
    literal: str  # the translation's longest piece between placeholders: a text without it cannot match


def _pattern(translation: str, lazy: bool, caseless: bool) -> re.Pattern[str]:
    parts: list[str] = []
    seen: set[str] = set()
    last = 0
    for match in _PLACEHOLDER.finditer(translation):
        parts.append(re.escape(translation[last:match.start()]))
        name, kind = match.group(1), match.group(2)
        if name is None:
            parts.append("%")
        elif name in seen:
            parts.append(f"(?P={name})")
        else:
            seen.add(name)
            parts.append(rf"(?P<{name}>\d+)" if kind == "d" else rf"(?P<{name}>.+{'?' if lazy else ''})")
        last = match.end()
    parts.append(re.escape(translation[last:]))
    return re.compile("".join(parts), re.DOTALL | (re.IGNORECASE if caseless else 0))


@lru_cache(maxsize=2 * len(Language))
def _catalogue(language: Language, caseless: bool) -> tuple[dict[str, str], tuple[_Entry, ...]]:
    """(a translation without placeholders -> its English, the others as patterns, surest first); caseless:
    the translations' keys case-folded, their patterns ignoring case."""
    with (LOCALE_DIR / language.value / "LC_MESSAGES" / f"{DOMAIN}.mo").open("rb") as compiled:
        catalogue = read_mo(compiled)
    fixed: dict[str, str] = {}
    entries: list[_Entry] = []
    with speaking(language):  # the translation as a mail prints it (typographic signs as ASCII)
        for message in catalogue:
            ids = tuple(message.id) if isinstance(message.id, (tuple, list)) else (message.id,)
            strings = tuple(message.string) if isinstance(message.string, (tuple, list)) else (message.string,)
            if not ids[0]:
                continue
            for string in (plain(s) for s in strings if s):
                if _PLACEHOLDER.search(string) is None and len(ids) == 1:
                    fixed.setdefault(string.casefold() if caseless else string, ids[0])
                else:
                    weight = len(_PLACEHOLDER.sub("", string))
                    literal = max(_BETWEEN.split(string.replace("%%", "%")), key=len)
                    if weight:  # a translation of placeholders alone ("%(name)s") would match any text
                        entries.append(_Entry((_pattern(string, True, caseless), _pattern(string, False, caseless)),
                                              tuple(ids), weight, literal.casefold() if caseless else literal))
    entries.sort(key=lambda entry: -entry.weight)
    return fixed, tuple(entries)


def _fill(english: str, values: dict[str, str]) -> str:
    def value(match: re.Match[str]) -> str:
        return "%" if match.group(1) is None else values.get(match.group(1), match.group(0))
    return _PLACEHOLDER.sub(value, english)


def message(text: str, language: Language, caseless: bool = False) -> str | None:
    """``text`` in English when it is one message of ``language``'s catalogue, its values read back too;
    None when no message matches it. ``caseless``: whatever the case it is printed in (a heading)."""
    if language is SOURCE:
        return text
    return _read(text, language, 0, caseless)[0]


def english(text: str, language: Language) -> str:
    """``text`` read back into English (see the module docstring); a list that no message makes (the
    templates' ``join(", ")``) item by item; as it is when nothing matches."""
    if language is SOURCE:
        return text
    return _value(text, language, 0)[0]


@lru_cache(maxsize=65536)
def _read(text: str, language: Language, depth: int, caseless: bool = False) -> tuple[str | None, int]:
    """(the English of the message ``text`` is, or None; how many of its letters nothing read back).

    Of the messages that match, the one that leaves the fewest letters unread
    wins (a name or a region is left in every reading alike): ``набор армии 2``
    is the action ``набор армии`` and the amount ``2``, not ``набор`` and
    ``армии 2``.
    """
    fixed, entries = _catalogue(language, caseless)
    key = text.casefold() if caseless else text
    if key in fixed:
        return fixed[key], 0
    best: tuple[str | None, int] = (None, sum(ch.isalpha() for ch in text))
    if depth >= _NEST:
        return best
    for entry in entries:
        if entry.literal not in key:
            continue
        for pattern in entry.patterns:
            found = pattern.fullmatch(text)
            if found is None:
                continue
            read = {name: _value(value, language, depth + 1, caseless)
                    for name, value in found.groupdict().items()}
            left = sum(unread for _, unread in read.values())
            if best[0] is None or left < best[1]:
                values = {name: english_value for name, (english_value, _) in read.items()}
                form = 0
                if len(entry.english) > 1:  # a count: the English singular for one, else the plural
                    form = 0 if next((v for v in found.groupdict().values() if v.isdigit()), "") == "1" else 1
                best = (_fill(entry.english[form], values), left)
            if best[1] == 0:
                return best
    return best


def _value(text: str, language: Language, depth: int, caseless: bool = False) -> tuple[str, int]:
    """A placeholder's value read back: a message, or a list of them, or the text as it is (a name, a
    number); with the letters left unread."""
    found, left = _read(text, language, depth, caseless)
    if ", " in text and left and depth < _NEST:
        items = [_value(item, language, depth + 1, caseless) for item in text.split(", ")]
        listed = sum(unread for _, unread in items)
        if listed < left:
            return ", ".join(item for item, _ in items), listed
    return (text if found is None else found), left
