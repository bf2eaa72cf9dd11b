"""Imperial 2030's names and order words in the seat's language (issue 30).

The names (nations, regions, rondel spaces, canals) and the order keywords are
words a player reads and writes, so they are translated by the same catalogues
as every sentence: ``templates/imperial2030/_names.j2`` lists them, each a
``pgettext`` call with a context per kind of thing (``imperial2030 region``,
``imperial2030 keyword``, ...). A template rather than an extraction method of
our own: Babel's Jinja extractor already reads it, the translators see the
names among the mails' words, and the test of unmarked English checks it like
any template. The template is rendered once in English (its msgids: the board's
names and the order language's keywords as ``format`` writes them) and once in
the seat's language; the two lists, position by position, pair each English
word with its translation.

English stays the order language of every seat: the parser accepts a seat's
own words besides the English ones (``names`` adds the translated names to
the spellings of each thing; ``keywords`` the translated keywords;
:func:`to_english` turns the small words after a keyword, TO, VIA, HOSTILE
..., into the English the readers expect), and the orders printed for a seat
(``format``) use its words. In an English mail nothing changes: there is no
lexicon, and every function here gives the English back.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from engine.imperial2030.board import Board
from pbem.languages import SOURCE, Language, folded, spoken
from pbem.render.env import environment

TEMPLATE = "imperial2030/_names.j2"
_LISTS = ("nations", "regions", "region_also", "spaces", "space_also", "canals", "keywords", "upgrade_to",
          "keyword_also", "captions")


@dataclass(frozen=True, slots=True)
class Lexicon:
    """One language's words, each by the English it stands for."""

    names: dict[str, str]  # nations and regions by their English name (a nation and a region never share one)
    spaces: dict[str, str]  # rondel spaces by the English name of their kind ("Production")
    canals: dict[str, str]  # "Suez"
    keywords: dict[str, str]  # order keywords and small words as the order language writes them ("NO FIGHT", "far")
    upgrade_to: str  # UPGRADE's TO, where the language says it otherwise (Russian НА)
    also: dict[str, tuple[str, ...]]  # other spellings a player may write, by the English name or keyword
    captions: dict[str, str] = field(default_factory=dict)  # the board art's other words ("Panama canal")

    def spellings(self, english: str) -> tuple[str, ...]:
        """The language's spellings of a name or keyword: its word, then the other accepted ones."""
        word = self.names.get(english) or self.spaces.get(english) or self.canals.get(english) \
            or self.keywords.get(english)
        return ((word,) if word else ()) + self.also.get(english, ())


def _lists(language: Language) -> dict[str, list[str]]:
    module = environment(language).get_template(TEMPLATE).module
    return {name: [str(word) for word in getattr(module, name)] for name in _LISTS}


@lru_cache(maxsize=len(Language))
def lexicon(language: Language) -> Lexicon | None:
    """``language``'s words, or None for English (the source: every word is its own)."""
    if language is SOURCE:
        return None
    english, local = _lists(SOURCE), _lists(language)

    def paired(*names: str) -> dict[str, str]:
        return {e: t for name in names for e, t in zip(english[name], local[name], strict=True)}

    also: dict[str, tuple[str, ...]] = {}
    for name in ("region_also", "space_also", "keyword_also"):
        for e, t in zip(english[name], local[name], strict=True):
            also[e] = also.get(e, ()) + tuple(part.strip() for part in t.split(",") if part.strip())
    return Lexicon(paired("nations", "regions"), paired("spaces"), paired("canals"), paired("keywords"),
                   local["upgrade_to"][0], also, paired("captions"))


def current() -> Lexicon | None:
    """The lexicon of the language being written or read (``pbem.languages.spoken``)."""
    return lexicon(spoken())


def _said(table: Callable[[Lexicon], Mapping[str, str]], english: str) -> str:
    """``english`` as ``table`` of the language being written has it (itself in English or where it has none)."""
    lex = current()
    return table(lex).get(english, english) if lex else english


def word(english: str) -> str:
    """An order keyword or small word (``ARMY``, ``TO``, ``far``) in the language being written."""
    return _said(lambda lex: lex.keywords, english)


def name(english: str) -> str:
    """A nation's or region's name (the board's English name) in the language being written."""
    return _said(lambda lex: lex.names, english)


def space(english: str) -> str:
    """A rondel space's name (the board's English, ``Taxation``) in the language being written."""
    return _said(lambda lex: lex.spaces, english)


def canal(english: str) -> str:
    """A canal (``Suez``) in the language being written."""
    return _said(lambda lex: lex.canals, english)


# The small words after a keyword, each by the English the readers expect. ATTACK's IN and UPGRADE's TO come
# first where a language has one word for two (Russian В for TO and IN, НА in UPGRADE).
_SMALL = ("TO", "IN", "VIA", "HOSTILE", "FRIENDLY", "ATTACK", "FACTORY", "CLEAR", "far", "army", "fleet", "nothing")
_TOKEN = re.compile(r"[^\s,;]+")


@lru_cache(maxsize=4 * len(Language))
def _small_words(language: Language, keyword: str) -> dict[str, str]:
    lex = lexicon(language)
    if lex is None:
        return {}
    found: dict[str, str] = {}
    if keyword == "upgrade":
        found[folded(lex.upgrade_to)] = "TO"
    for english in (("IN",) if keyword == "attack" else ()) + _SMALL:
        for spelling in lex.spellings(english):
            found.setdefault(folded(spelling), english)
    return found


def to_english(keyword: str, rest: str) -> str:
    """The words after ``keyword`` (a ``Keyword`` value) with the seat's small words in English.

    ``АРМИЯ Париж В Мумбай ВРАЖДЕБНАЯ`` reaches the reader of ARMY as
    ``Париж TO Мумбай HOSTILE``; the names stay as written (``names`` knows
    them in every language). Only whole words are replaced: no name of the
    map holds one of these words alone.
    """
    words = _small_words(spoken(), keyword)
    if not words:
        return rest
    return _TOKEN.sub(lambda m: words.get(folded(m.group()), m.group()), rest)


def shown(board: Board, id: str) -> str:
    """A nation, region or rondel space of ``board`` by its id, named in the language being written
    (``moscow`` -> ``Москва``, ``production_2`` -> ``Производство``); in English the board's own name."""
    english = board.name(id)
    return space(english) if id in board.rondel_by_id else name(english)


@lru_cache(maxsize=len(Language))
def _own_words(language: Language) -> frozenset[str]:
    """The words only ``language`` writes among ours (none of English's), folded: ``армия``, ``paryż``."""
    lex = lexicon(language)
    if lex is None:
        return frozenset()
    english = {folded(w) for text in (*lex.names, *lex.spaces, *lex.canals, *lex.keywords) for w in text.split()}
    local = (*lex.names.values(), *lex.spaces.values(), *lex.canals.values(), *lex.keywords.values(),
             lex.upgrade_to, *(w for words in lex.also.values() for w in words))
    return frozenset(folded(w) for text in local for w in text.split()) - english


def written_in(texts: Iterable[str]) -> Language:
    """The language ``texts`` (a seat's orders) are written in, by their words: the language being read when
    they hold none of another's.

    Orders that wait for another player's answer go on while that player's
    mail is read, in that player's language; they are read in their own
    (``apply``), which the game alone cannot look up.
    """
    words = [folded(w) for text in texts for w in _TOKEN.findall(text)]
    scores = {language: sum(w in _own_words(language) for w in words) for language in Language}
    best = max(scores.values())
    if best == 0 or scores[spoken()] == best:
        return spoken()
    return next(language for language in Language if scores[language] == best)


def end_reason(board: Board, reason: str) -> str:
    """The engine's reason the game ended (``Europe reached 25 power points``) with the nation named in the
    language being written, for the templates that word it (``_view_words.j2``'s ``ended``)."""
    lex = current()
    if lex is None:
        return reason
    for nation in board.nations:
        if reason.startswith(f"{nation.name} reached "):
            return lex.names.get(nation.name, nation.name) + reason[len(nation.name):]
    return reason
