"""Cutting the body of an email into order lines.

Real mail carries more than orders: quoted history, signatures, greetings
after an ``END``. Only what the player meant as orders survives, each with the
line number the player sees in the message, so that a refusal can point at it.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass

COMMENT = "#"
QUOTE = ">"
SEPARATOR = ";"
SIGNATURE = "--"  # "-- " by convention; a bare "--" too, because mail clients strip trailing spaces
# Phones' "smart punctuation" turns a typed "--" into a dash: the signature all the same.
SIGNATURES = frozenset({SIGNATURE, "\u2014", "\u2013", "\u2013\u2013"})
END = "end"

# Typographic characters a phone or word processor puts where the player typed plain ones.
_TYPOGRAPHY = str.maketrans({
    "\u00a0": " ", "\u2007": " ", "\u202f": " ", "\u200b": "", "\ufeff": "",  # odd spaces, zero-width
    "\u2018": "'", "\u2019": "'", "\u201b": "'", "\u2032": "'",  # single quotes, prime
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"',
    "\uff1b": ";", "\u037e": ";",  # full-width and Greek semicolons
})
# HTML left in a plain-text body (some webmail and phone clients): line breaks and blocks separate
# orders like ";", other tags go, entities are decoded (so "&gt; RONDEL investor" is a quoted line).
_HTML_BREAK = re.compile(r"<\s*(?:br|/?p|/?div|/?li|/?tr)\b[^<>]*>", re.IGNORECASE)
_HTML_TAG = re.compile(r"</?(?:a|b|i|u|s|em|strong|span|font|small|big|code|pre|tt|blockquote|ul|ol|table|tbody|td|th|"
                       r"html|body|head|meta|o:p)\b[^<>]*>", re.IGNORECASE)  # not "<province>" copied from HELP
_HTML_ENTITY = re.compile(r"&(?:[a-z]{2,8}|#[0-9]{1,5}|#x[0-9a-f]{1,4});", re.IGNORECASE)
# A list marker before an order: "1. RONDEL taxation", "2) PASS", "* BUY China 9", "\u2022 DONE".
_LIST_MARKER = re.compile(r"^(?:[-*+\u2022\u00b7\u2013]|[0-9]{1,2}[.)])\s+")
_QUOTES = "\"'`"
_TRAILING = re.compile(r"\s*!+$")  # "DONE!": punctuation of a sentence, not of the order
# "STATUS?", "OPTIONS?": a question mark after a report request (but "RONDEL taxation?" is no order).
_QUERY_QUESTION = re.compile(r"^(?:status|board|options|history|help)\b[^?]*\?+$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class MessageLine:
    """One order as written: its 1-based line number in the message and its text (trimmed)."""

    number: int
    text: str

    def __str__(self) -> str:
        return f"line {self.number}: {self.text}"


def clean_line(raw: str) -> str:
    """One raw line of a mail body with the noise of mail clients removed (it keeps its place)."""
    line = raw.translate(_TYPOGRAPHY)
    if "<" in line:
        line = _HTML_TAG.sub("", _HTML_BREAK.sub(SEPARATOR, line))
    if "&" in line and _HTML_ENTITY.search(line):
        line = html.unescape(line).translate(_TYPOGRAPHY)
    return line.strip()


def clean_order(text: str) -> str:
    """One order as written, without a list marker, wrapping quotes, a final "!" or a report's "?"."""
    order = _LIST_MARKER.sub("", text.strip())
    if len(order) > 2 and order[0] in _QUOTES and order[-1] in _QUOTES and order[1:-1].strip():
        order = order[1:-1].strip()  # "RONDEL taxation" copied with its quotes
    if _QUERY_QUESTION.match(order):
        order = order.rstrip("?")
    return _TRAILING.sub("", order).strip() or order


def split_message(text: str) -> list[MessageLine]:
    """The orders of a message, in order.

    One order per line, several on a line separated by ``;``; blank lines,
    ``#`` comments (whole lines, or the end of a line) and ``>`` quoted lines
    are skipped; a signature line (``-- ``, or the dash a phone makes of it)
    or a line ``END`` ends the orders. Orders from one line share its number.
    The noise of mail clients is dropped first (``clean_line``: typographic
    quotes and spaces, HTML tags and entities) and around each order
    (``clean_order``: "1." list markers, wrapping quotes, a final "!", a "?"
    after a report request).
    """
    result: list[MessageLine] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw.strip() in SIGNATURES:
            break
        stripped = clean_line(raw)
        if stripped in SIGNATURES or stripped.casefold() == END:
            break
        if stripped.startswith(QUOTE):
            continue
        content = stripped.split(COMMENT, 1)[0]
        for part in content.split(SEPARATOR):
            order = clean_order(part) if part.strip() else ""
            if order:
                result.append(MessageLine(number, order))
    return result
