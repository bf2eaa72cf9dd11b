"""Plain text for mail: at most 78 columns, words wrapped with hanging indents; pure ASCII in English.

Mail in English stays pure ASCII, as it always was (``asciify``); mail in
another language keeps that language's letters (ą, ё, ñ) and writes the
typographic signs as ASCII still (``plain``), in UTF-8. Columns are counted
in characters, not bytes: a Cyrillic letter takes one column as a Latin one.
"""
from __future__ import annotations

import re
import textwrap
import unicodedata
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from functools import lru_cache

from babel.dates import format_date

from pbem.languages import SOURCE, spoken

MAX_WIDTH = 78

# Common typographic characters a player's mail client may put into a quoted order line.
_REPLACEMENTS = {
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"',
    "\u2013": "-", "\u2014": "--", "\u2212": "-", "\u2026": "...", "\u00a0": " ",
    "\u00d7": "x", "\u00df": "ss", "\u00e6": "ae", "\u00c6": "AE", "\u00f8": "o", "\u00d8": "O",
    "\u0142": "l", "\u0141": "L", "\u0131": "i", "\u2022": "*", "\t": " ",
}


_SIGNS = {ch: ascii for ch, ascii in _REPLACEMENTS.items() if not ch.isalpha()}


def asciify(text: str) -> str:
    """The text in pure ASCII: accents dropped (``Brasília`` -> ``Brasilia``), other letters as ``?``."""
    if text.isascii():
        return text
    out = []
    for ch in text:
        if ch.isascii():
            out.append(ch)
            continue
        if ch in _REPLACEMENTS:
            out.append(_REPLACEMENTS[ch])
            continue
        base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
        out.append(base if base and base.isascii() else "?")
    return "".join(out)


def plain(text: str) -> str:
    """The text as mail in the language being written shows it (the module doc): ASCII in English; else the
    letters kept, typographic signs as ASCII, anything else that is not a letter or a digit as ``?``."""
    if text.isascii():
        return text
    if spoken() is SOURCE:
        return asciify(text)
    return _NOT_PLAIN.sub(_plain_sign, text)


# What ``plain`` may have to change, found in C: a character neither ASCII nor a letter or digit (``\w`` is
# ``str.isalnum`` and the underscore, which is ASCII). Why: a report in Russian is some 11,000 characters,
# each looked at in Python in 1 ms; the letters, the most of them, are passed over here in a sixth of it.
_NOT_PLAIN = re.compile(r"[^\x00-\x7f\w]")


def _plain_sign(found: re.Match[str]) -> str:
    """A character ``_NOT_PLAIN`` found, as ``plain`` writes it: a combining accent kept, a sign as ASCII."""
    ch = found.group()
    return ch if unicodedata.combining(ch) else _SIGNS.get(ch, "?")


def is_plain(line: str) -> bool:
    """Whether ``line`` is already as :func:`plain` would write it."""
    return line.isascii() or plain(line) == line


def wrap(text: str, indent: int | str = 0, first: int | str | None = None, width: int = MAX_WIDTH) -> str:
    """One paragraph wrapped to ``width``: ``indent`` for every line, ``first`` for the first if given.

    Long words (an email address, a long order) are broken only when they
    cannot fit on a line of their own. Remembered (bounded): a move's report
    to every seat wraps mostly the same paragraphs, and wrapping was a tenth
    of the time a move took; the language is part of what is remembered
    (``plain`` keeps its letters).
    """
    return _wrapped(text, indent, first, width, spoken())


@lru_cache(maxsize=8192)
def _wrapped(text: str, indent: int | str, first: int | str | None, width: int, language: str) -> str:
    rest = " " * indent if isinstance(indent, int) else indent
    head = rest if first is None else (" " * first if isinstance(first, int) else first)
    text = " ".join(plain(text).split())
    if not text:
        return head.rstrip()
    return textwrap.fill(text, width=width, initial_indent=head, subsequent_indent=rest,
                         break_long_words=True, break_on_hyphens=False)


def bullet(text: str, indent: int = 2, mark: str = "- ", width: int = MAX_WIDTH) -> str:
    """A wrapped list item: ``  - text`` with continuation lines under the text."""
    return wrap(text, indent=indent + len(mark), first=" " * indent + mark, width=width)


def join_words(parts: Iterable[str], last: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = [p for p in parts if p]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {last} " + items[-1]


def plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count} {word if count == 1 else many or word + 's'}"


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` columns, ending in ``~`` when cut."""
    return text if len(text) <= width else text[: max(width - 1, 0)] + "~"


def finish(text: str, width: int = MAX_WIDTH) -> str:
    """The last safety net before mail: ``plain`` text, no line wider than ``width``, no trailing blanks.

    Templates already keep to the limits; a line that does not (a very long
    player name, say) is wrapped here rather than sent too wide.
    """
    lines = []
    for line in plain(text).splitlines():
        line = line.rstrip()
        while len(line) > width:
            cut = line.rfind(" ", 0, width + 1)
            if cut <= len(line) - len(line.lstrip()):
                cut = width
            lines.append(line[:cut].rstrip())
            indent = len(line) - len(line.lstrip())
            line = " " * min(indent + 2, 20) + line[cut:].lstrip()
        lines.append(line)
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    compact: list[str] = []
    for line in lines:  # never more than one blank line in a row
        if line or (compact and compact[-1]):
            compact.append(line)
    return "\n".join(compact) + "\n"


def problems(text: str, width: int = MAX_WIDTH) -> list[str]:
    """Lines of ``text`` that break the mail limits (for tests and strict rendering)."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if len(line) > width:
            found.append(f"line {number} is {len(line)} columns: {line!r}")
        if not is_plain(line):
            found.append(f"line {number} is not plain text in its language: {line!r}")
        if line != line.rstrip():
            found.append(f"line {number} has trailing blanks: {line!r}")
    return found


def pair(left: str, right: str, indent: int = 4, column: int = 36, width: int = MAX_WIDTH) -> str:
    """``left`` in a column of ``column`` characters, ``right`` beside it (wrapped under itself).

    A ``left`` too long for its column gets a line of its own, ``right`` then
    follows on the next line, still aligned.
    """
    left = plain(left)
    right = " ".join(plain(right).split())
    head = " " * indent + left
    hang = " " * (indent + column)
    if not right:
        return head
    if len(left) <= column - 2:
        return textwrap.fill(right, width=width, initial_indent=head.ljust(indent + column), subsequent_indent=hang,
                             break_on_hyphens=False)
    return head + "\n" + textwrap.fill(right, width=width, initial_indent=hang, subsequent_indent=hang,
                                       break_on_hyphens=False)


def note_block(title: str, paragraphs: Iterable[str]) -> str:
    """A headed block of wrapped paragraphs put above a report or prompt (ASCII, 78 columns)."""
    head = f"{title.upper()}\n{'-' * len(title)}\n"
    return head + "\n\n".join(wrap(p, 2) for p in paragraphs if p) + "\n\n"


def utc_stamp(moment: datetime) -> str:
    """'2030-06-03 12:00 UTC': how every mail and command tells a time (a naive time is UTC, as SQLite keeps it)."""
    moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def due_stamp(moment: datetime) -> str:
    """'Tuesday 2030-06-04 12:00 UTC': a deadline as a player reads it, the weekday in the language being written
    (CLDR's names, by Babel: 'вторник', 'wtorek', 'martes', 'martedì'); the date stays ISO, which every reader
    reads the same way. A naive time is UTC, as SQLite keeps it."""
    moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    language = spoken()
    day = moment.strftime("%A") if language is SOURCE else format_date(moment, "EEEE", locale=language.value)
    return f"{day} {utc_stamp(moment)}"


def until_stamp(moment: datetime) -> str:
    """'the end of 2030-12-24 (UTC)' for midnight UTC, else :func:`utc_stamp`: how the end of an absence is told.

    ``VACATION UNTIL 2030-12-24`` means all of that day, so it is kept as the
    next midnight; told as '2030-12-25 00:00 UTC', it read as a day too late.
    """
    moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    if (moment.hour, moment.minute, moment.second, moment.microsecond) == (0, 0, 0, 0):
        return f"the end of {moment - timedelta(days=1):%Y-%m-%d} (UTC)"
    return utc_stamp(moment)
