"""The first word(s) of an order: which order it is.

Keywords are a closed, typed set so that the parser dispatches on an enum,
never on loose strings, and so that an unknown keyword can be answered with
the closest real ones ("RONDLE" -> "did you mean RONDEL?"). ``Role.UNSUPPORTED``
marks an order of ORDERS.md that the engine cannot carry out yet, so that a
player is told "not available yet" rather than "not an order"; since the
maneuver arrived, every order of the language is supported.

A seat whose language is not English may write each keyword in that language
as well (``keys_of``: ``АРМИЯ``, ``ZNISZCZ``), and is answered with its
language's keywords (``shown``); English ones are read for every seat.
"""
from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from enum import StrEnum

from pbem.games.imperial2030.orders.errors import OrderSyntaxError
from pbem.games.imperial2030.orders.lexicon import current
from pbem.games.imperial2030.orders.names import normalise
from pbem.games.imperial2030.orders.reasons import Reason, why

MIN_PREFIX = 3  # "ROND", "UPG": shorter prefixes of keywords are too easily a typo of another


class Role(StrEnum):
    ORDER = "order"  # becomes an engine action
    QUERY = "query"  # asks for a report, changes nothing
    UNSUPPORTED = "unsupported"  # part of the language, not of this engine yet


class Keyword(StrEnum):
    RONDEL = "rondel"
    BUILD = "build"
    PRODUCE = "produce"
    IMPORT = "import"
    BUY = "buy"
    UPGRADE = "upgrade"
    PASS = "pass"
    FORCE = "force"
    NO_FORCE = "no force"
    DONATE = "donate"
    HELP = "help"
    STATUS = "status"
    BOARD = "board"
    OPTIONS = "options"
    HISTORY = "history"
    FLEET = "fleet"
    ARMY = "army"
    ATTACK = "attack"
    DESTROY = "destroy"
    DONE = "done"
    FIGHT = "fight"
    NO_FIGHT = "no fight"
    ALLOW = "allow"
    DENY = "deny"
    STANDING = "standing"

    @property
    def text(self) -> str:
        """As written in the canonical form: upper case."""
        return self.value.upper()


@dataclass(frozen=True, slots=True)
class KeywordSpec:
    keyword: Keyword
    role: Role
    usage: str  # the canonical form, shown in syntax errors and help
    aliases: tuple[str, ...] = ()

    @property
    def keys(self) -> tuple[str, ...]:
        return (normalise(self.keyword.value),) + tuple(normalise(a) for a in self.aliases)


SPECS: tuple[KeywordSpec, ...] = (
    KeywordSpec(Keyword.RONDEL, Role.ORDER, "RONDEL <space>  (investor, import, production [far], maneuver [far], "
                                            "taxation, factory)"),
    KeywordSpec(Keyword.BUILD, Role.ORDER, "BUILD <city>"),
    KeywordSpec(Keyword.PRODUCE, Role.ORDER, "PRODUCE  or  PRODUCE <province>, <province>, ..."),
    KeywordSpec(Keyword.IMPORT, Role.ORDER, "IMPORT  or  IMPORT <army|fleet> <province>, ...  (e.g. IMPORT 2 army "
                                            "Moscow, fleet Vladivostok)"),
    KeywordSpec(Keyword.BUY, Role.ORDER, "BUY <nation> <value>", ("invest",)),
    KeywordSpec(Keyword.UPGRADE, Role.ORDER, "UPGRADE <nation> <old value> TO <new value>"),
    KeywordSpec(Keyword.PASS, Role.ORDER, "PASS  (the passive answer: no investment, no force, NO FIGHT, ALLOW; "
                                          "DONE in one's own maneuver)", ("skip", "no investment", "no bond")),
    KeywordSpec(Keyword.FORCE, Role.ORDER, "FORCE"),
    KeywordSpec(Keyword.NO_FORCE, Role.ORDER, "NO FORCE", ("dont force", "don't force")),
    KeywordSpec(Keyword.DONATE, Role.ORDER, "DONATE <amount> TO <nation>"),
    KeywordSpec(Keyword.HELP, Role.QUERY, "HELP [topic]"),
    KeywordSpec(Keyword.STATUS, Role.QUERY, "STATUS"),
    KeywordSpec(Keyword.BOARD, Role.QUERY, "BOARD"),
    KeywordSpec(Keyword.OPTIONS, Role.QUERY, "OPTIONS"),
    KeywordSpec(Keyword.HISTORY, Role.QUERY, "HISTORY [n]"),
    KeywordSpec(Keyword.FLEET, Role.ORDER, "FLEET <from> TO <to> [ATTACK <nation>]", ("f",)),  # "F Rome - Med"
    KeywordSpec(Keyword.ARMY, Role.ORDER, "ARMY <from> TO <to> [HOSTILE|FRIENDLY] [ATTACK <nation> [ARMY|FLEET]] "
                                          "[VIA <sea>, <sea>, ...]", ("a",)),
    KeywordSpec(Keyword.ATTACK, Role.ORDER, "ATTACK <nation> [ARMY|FLEET] IN <region>"),
    KeywordSpec(Keyword.DESTROY, Role.ORDER, "DESTROY FACTORY <province>"),
    KeywordSpec(Keyword.DONE, Role.ORDER, "DONE", ("end maneuver", "end manoeuvre", "finish")),
    KeywordSpec(Keyword.FIGHT, Role.ORDER, "FIGHT [<nation>] [ARMY|FLEET]", ("battle",)),
    KeywordSpec(Keyword.NO_FIGHT, Role.ORDER, "NO FIGHT", ("dont fight", "don't fight", "no battle")),
    KeywordSpec(Keyword.ALLOW, Role.ORDER, "ALLOW", ("permit",)),
    KeywordSpec(Keyword.DENY, Role.ORDER, "DENY", ("refuse",)),
    KeywordSpec(Keyword.STANDING, Role.ORDER, "STANDING <order>  or  STANDING CLEAR  (orders: ALLOW|DENY [<nation>] "
                                              "[<canal>], FIGHT|NO FIGHT [<nation>], FORCE|NO FORCE [<nation>]; "
                                              "e.g. STANDING ALLOW Europe Suez)"),
)
SPEC_BY_KEYWORD: dict[Keyword, KeywordSpec] = {s.keyword: s for s in SPECS}


def keys_of(spec: KeywordSpec) -> tuple[str, ...]:
    """Every spelling of ``spec``'s keyword a seat may write: the English ones, and its language's (issue 30)."""
    lex = current()
    if lex is None:
        return spec.keys
    return spec.keys + tuple(normalise(s) for s in lex.spellings(spec.keyword.text))


def shown(keyword: Keyword) -> str:
    """``keyword`` as the seat reads it: in its language (``ARMY`` -> ``АРМИЯ``), in English ``keyword.text``."""
    lex = current()
    return lex.keywords.get(keyword.text, keyword.text) if lex else keyword.text

_WORD = re.compile(r"\S+")
_COLON = re.compile(r"^\s*([^\W\d_](?:[^\W\d_]|')*)\s*[:,](?=\s|$)")  # "RONDEL: taxation", "PASS, thanks"

# How close a misspelt first word must be to a keyword to be suggested: keywords of the orders legal
# now may be further off ("fite" -> FIGHT when a battle is asked) than others ("let" is not "FLEET").
NEAR_LEGAL = 0.6
NEAR = 0.75
NEAR_SHORT = 0.8  # words under four letters


@dataclass(frozen=True, slots=True)
class Split:
    """An order text cut into its keyword and the rest, spacing of the rest kept."""

    spec: KeywordSpec
    rest: str


def read_keyword(text: str, preferred: Callable[[], Collection[Keyword]] | None = None) -> Split:
    """Find the keyword at the start of ``text`` (one or two words, an alias or a unique prefix).

    A colon or comma after the first word is read as a space ("RONDEL: taxation").
    ``preferred`` gives the keywords of the orders legal now, asked for only
    when suggestions for an unknown word are needed (see ``suggest_keywords``).
    """
    text = _COLON.sub(r"\1 ", text, count=1)
    words = list(_WORD.finditer(text))
    if not words:
        raise OrderSyntaxError(why(Reason.EMPTY_ORDER))
    for count in (3, 2, 1):  # longest spelling first: "don't force" before "don't"
        if len(words) < count:
            continue
        key = normalise(" ".join(w.group() for w in words[:count]))
        for spec in SPECS:
            if key in keys_of(spec):
                return Split(spec, text[words[count - 1].end():].strip())
    first = normalise(words[0].group())
    if len(first) >= MIN_PREFIX:
        fits = [s for s in SPECS if any(k.startswith(first) for k in keys_of(s))]
        if len(fits) == 1:
            return Split(fits[0], text[words[0].end():].strip())
        if fits:
            raise OrderSyntaxError(why(Reason.KEYWORD_COULD_BE, word=words[0].group(),
                                       keywords=[shown(s.keyword) for s in fits]),
                                   suggestions=[shown(s.keyword) for s in fits])
    raise OrderSyntaxError(why(Reason.NOT_AN_ORDER, word=words[0].group()),
                           suggestions=suggest_keywords(text, preferred() if preferred else ()))


def _first_words() -> dict[str, tuple[Keyword, ...]]:
    """The first word of each spelling of two or more words, and the keywords it begins."""
    found: dict[str, list[Keyword]] = {}
    for spec in SPECS:
        for spelling in (spec.keyword.value, *spec.aliases):
            words = spelling.split()
            if len(words) > 1 and spec.keyword not in found.setdefault(normalise(words[0]), []):
                found[normalise(words[0])].append(spec.keyword)
    return {word: tuple(keywords) for word, keywords in found.items()}


_FIRST_WORDS = _first_words()


def suggest_keywords(text: str, preferred: Collection[Keyword] = ()) -> tuple[str, ...]:
    """Keywords spelled closest to the first word (or two) of ``text``, those in ``preferred`` first.

    The first word of a keyword of several words comes first ("NO" -> NO FIGHT, NO FORCE), then
    close spellings; a keyword of ``preferred`` (the orders legal now) needs
    to be less close than others.
    """
    words = text.split()
    owner = {k: s.keyword for s in SPECS for k in keys_of(s)}
    found: list[Keyword] = []
    for probe in (normalise(" ".join(words[:2])), normalise(words[0]) if words else ""):
        if not probe:
            continue
        starting = list(_FIRST_WORDS.get(probe, ()))  # "NO" -> NO FORCE, NO FIGHT; not "HI" -> HISTORY
        scored = []
        for key, keyword in owner.items():
            ratio = difflib.SequenceMatcher(None, probe, key).ratio()
            need = NEAR_LEGAL if keyword in preferred else NEAR if len(probe) >= 4 else NEAR_SHORT
            if ratio >= need:
                scored.append((-ratio, keyword))
        close = [keyword for _, keyword in sorted(scored, key=lambda item: item[0])]
        for group in (starting, close):
            for keyword in sorted(group, key=lambda k: k not in preferred):  # stable: legal ones first
                if keyword not in found:
                    found.append(keyword)
    return tuple(shown(k) for k in found[:4])
