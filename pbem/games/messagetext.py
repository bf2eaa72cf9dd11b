"""Cutting the body of an email into order lines: the same for every game's order language.

Real mail carries more than orders: quoted history, signatures, greetings
after an ``END``. Only what the player meant as orders survives, each with the
line number the player sees in the message, so that a refusal can point at it.
Whether a line "looks like an order" (and so is never set aside as a greeting
or a signed name) is the game's to say: ``split_orders`` takes that test.
"""
from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pbem.games.results import MessageLine

__all__ = ["MessageLine", "SplitMessage", "clean_line", "clean_order", "split_orders"]

LooksLikeOrder = Callable[[str], bool]

COMMENT = "#"
# Later in a line "#" starts a comment too, unless a digit follows: "TAKE #37" names a card by its number.
_TRAILING_COMMENT = re.compile(r"#(?!\d)")
QUOTE = ">"
SEPARATOR = ";"
SIGNATURE = "--"  # "-- " by convention; a bare "--" too, because mail clients strip trailing spaces
# Phones' "smart punctuation" turns a typed "--" into a dash: the signature all the same.
SIGNATURES = frozenset({SIGNATURE, "\u2014", "\u2013", "\u2013\u2013"})
END = "end"
# END in each language of the mail (pbem.languages): the glossaries' words; a seat's English END works too.
ENDS = frozenset({END, "конец", "koniec", "fin", "fine"})

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
# "STATUS please", "PASS, thanks", "BUILD Kolkatta please": courtesy at the end of an order, not a word of it.
_POLITE_END = re.compile(r"(?<=\S)[\s,]+(?:please|pls|plz|thanks|thank you|thx|ta|пожалуйста|спасибо|proszę|prosze|"
                         r"dziękuję|dziekuje|dzięki|dzieki|por favor|gracias|per favore|grazie)[\s.!]*$", re.IGNORECASE)
# "STATUS?", "OPTIONS?": a question mark after a report request (but "RONDEL taxation?" is no order).
_QUERY_QUESTION = re.compile(r"^(?:status|board|options|history|help|статус|поле|опции|история|помощь|stan|plansza|opcje|"
                             r"historia|pomoc|estado|tablero|opciones|historial|ayuda|stato|tabellone|opzioni|storia|"
                             r"aiuto)\b[^?]*\?+$", re.IGNORECASE)


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
    order = _POLITE_END.sub("", order)
    if _QUERY_QUESTION.match(order):
        order = order.rstrip("?")
    return _TRAILING.sub("", order).strip() or order


# Courtesy around the orders: greetings before, thanks and a name after. Only whole lines (or whole
# ";"-parts, as HTML line breaks become) that do not look like an order count (see ``_looks_like_order``).
_GREETING = re.compile(r"^(?:hi|hello|hey|hallo|hola|salut|moin|ciao|dear|good (?:morning|afternoon|evening|day)|"
                       r"greetings|buongiorno|bonjour|guten (?:morgen|tag)|привет|здравствуйте|добрый (?:день|вечер)|"
                       r"cześć|czesc|dzień dobry|dzien dobry|witam|buenos días|buenos dias|buenas|salve)\b[\w .'-]{0,40}"
                       r"[,.!:]*$", re.IGNORECASE)
_CLOSING = re.compile(r"^(?:thanks?|thank you|thx|ty|tia|cheers|regards|best|best regards|best wishes|kind regards|"
                      r"warm regards|all the best|bye|goodbye|see you|cu|ciao|grazie|danke|merci|gracias|cordially|"
                      r"sincerely|yours|love|good luck|gl|have fun|enjoy|спасибо|с уважением|удачи|пока|pozdrawiam|"
                      r"dziękuję|dziekuje|dzięki|dzieki|powodzenia|saludos|un saludo|suerte|saluti|cordiali saluti|"
                      r"buona fortuna)\b[\w .,'!-]{0,60}$", re.IGNORECASE)


def is_courtesy(text: str) -> bool:
    """A greeting or a closing ("Hi Bob,", "Thanks, Alice"): words around commands, set aside, not refused."""
    return bool(_GREETING.match(text) or _CLOSING.match(text))


# A signed name: one to three capitalised words or initials ("Alice", "Ann B.", "J.-P. Roux"), not
# "Mumbai HOSTILE" (the rest of an order broken by a phone) nor "london".
_NAME = re.compile(r"^[A-Z\u00c0-\u00de][a-z\u00df-\u00ff.'-]*(?: [A-Z\u00c0-\u00de][a-z\u00df-\u00ff.'-]*){0,2}[.!]?$")


@dataclass(frozen=True, slots=True)
class SplitMessage:
    """A message cut into its orders and the courtesy lines around them that were not read as orders."""

    orders: tuple[MessageLine, ...]
    ignored: tuple[MessageLine, ...] = ()


def split_orders(text: str, looks_like_order: LooksLikeOrder) -> SplitMessage:
    """The orders of a message, in order, and the courtesy lines set aside.

    One order per line, several on a line separated by ``;``; blank lines,
    ``#`` comments (whole lines, or the end of a line) and ``>`` quoted lines
    are skipped; a signature line (``-- ``, or the dash a phone makes of it)
    or a line ``END`` (or its word in the seat's language: ``КОНЕЦ``, ``KONIEC``, ``FIN``, ``FINE``) ends the
    orders. Orders from one line share its number.
    The noise of mail clients is dropped first (``clean_line``: typographic
    quotes and spaces, HTML tags and entities) and around each order
    (``clean_order``: "1." list markers, wrapping quotes, a final "!", a "?"
    after a report request, a "please" or "thanks" at the end).

    People write to people: "Hi all," before the orders, "Thanks, Alice"
    after them, rarely with the ``-- `` of a signature. So a part that does
    not look like an order (``looks_like_order``, the game's test: a keyword,
    its prefix, a close misspelling) is set aside quietly, not
    refused, when it is

    * a greeting or a closing ("Hi Bob,", "Cheers", "Thanks, Alice"), anywhere;
    * or, once some order came before and no later part looks like an order,
      separated from the orders: after a blank line, after a courtesy part,
      or the message's very last part when it reads as a name ("Alice").

    Anything else that is not an order (chatter between orders, a paragraph
    followed by more orders) stays in and is refused with its line number, as
    is every part that starts like an order ("Build Kolkatta please").
    """
    parts: list[MessageLine | None] = []  # None: a blank line, which separates
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw.strip() in SIGNATURES:
            break
        stripped = clean_line(raw)
        if stripped in SIGNATURES or stripped.casefold() in ENDS:
            break
        if not stripped:
            parts.append(None)
        if stripped.startswith(QUOTE):
            continue
        if stripped.startswith(COMMENT):
            continue
        content = _TRAILING_COMMENT.split(stripped, 1)[0]
        for part in content.split(SEPARATOR):
            order = clean_order(part) if part.strip() else ""
            if order:
                parts.append(MessageLine(number, order))
    return _set_courtesy_aside(parts, looks_like_order)


def _set_courtesy_aside(parts: Sequence[MessageLine | None], looks_like_order: LooksLikeOrder) -> SplitMessage:
    lines = [p for p in parts if p is not None]
    orderish = [looks_like_order(line.text) for line in lines]
    later_order = [any(orderish[i + 1:]) for i in range(len(lines))]
    orders: list[MessageLine] = []
    ignored: list[MessageLine] = []
    separated = False  # a blank line or a courtesy part since the last order kept
    index = 0
    for part in parts:
        if part is None:
            separated = separated or bool(orders)
            continue
        i, index = index, index + 1
        if not orderish[i]:
            courtesy = bool(_GREETING.match(part.text) or _CLOSING.match(part.text))
            last = i == len(lines) - 1
            trailing = bool(orders) and not later_order[i] and (
                separated or (last and bool(_NAME.match(part.text))))
            if courtesy or trailing:
                ignored.append(part)
                separated = separated or bool(orders)
                continue
        orders.append(part)
        separated = False
    return SplitMessage(tuple(orders), tuple(ignored))
