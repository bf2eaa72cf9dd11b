"""Eight-Minute Empire's words in the seat's language: order keywords, colours, goods, the neutral player.

The translations live in the catalogues like every sentence, one message
context per kind of word (``eight_minute_empire keyword``, ``... colour``,
``... good``, ``... player``), written as dict literals in
``templates/eight_minute_empire/_names.j2``: a template, rather than an
extraction method of our own, because pybabel's Jinja extractor already
reads ``pgettext`` there, and the templates that print names import the
same dicts, so one table serves printing and parsing.

Orders are read in the seat's language *and* in English: ``english`` turns
the seat's keywords, colours and neutral word back into the English order
language before the English parser reads the line (case, accents and the
Russian ё forgiven, a Cyrillic х read as the count's x), so every rule of
the order language is written once. ``localized`` does the reverse for the
ready-to-copy orders a seat reads. English seats are left exactly as before.
"""
from __future__ import annotations

import difflib
import re
from functools import lru_cache
from typing import Any

from pbem.languages import SOURCE, Language, folded, spoken
from pbem.render.env import environment

TEMPLATE = "eight_minute_empire/_names.j2"
# English keyword -> the keyword the parser reads (``keywords.SPELLINGS``): PASS is an alias of DONE.
CANONICAL = {"PASS": "DONE"}
_WORD = re.compile(r"[^\W\d_]+'?")  # letters, and an Italian apostrophe ("CITTA'")
_CYRILLIC_X = re.compile(r"(?<=\d)\s*[\u0445\u0425](?=\s*\d)|(?<![^\W\d_])[\u0445\u0425](?=\d)")
_ENGLISH_KEYWORD = re.compile(r"^\s*([A-Z]+)\b")


def _table(name: str, language: Language) -> dict[str, str]:
    module: Any = environment(language).get_template(TEMPLATE).module
    return {english: str(word) for english, word in getattr(module, name).items()}


def keyword(english: str) -> str:
    """An order keyword (``TAKE``) as the text being written spells it (Russian ``ВЗЯТЬ``)."""
    return _table("keywords", spoken()).get(english, english)


def colour(english: str) -> str:
    """A player's colour (``red``) in the language being written (Russian ``красный``)."""
    return _table("colours", spoken()).get(english, english)


def good(english: str) -> str:
    """A good (``carrot``, ``wild``) in the language being written (Russian ``морковь``)."""
    return _table("goods", spoken()).get(english, english)


def player(english: str) -> str:
    """The neutral player's word (``neutral``) in the language being written (Russian ``нейтральные``)."""
    return _table("players", spoken()).get(english, english)


def _stem(word: str, language: Language) -> str:
    """What a colour or "neutral" keeps through its endings: Russian красный -> красн, Polish czerwony ->
    czerwon (the glossary: players vary the adjective's ending with the noun they think of)."""
    if language is Language.RU:
        return word[:-2] if len(word) >= 5 else word
    return word[:-1] if len(word) >= 4 else word


@lru_cache(maxsize=len(Language))
def _reading(language: Language) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """(folded keyword -> English keyword, stem of a colour or neutral -> English word, folded HELP topic ->
    English topic) of ``language``."""
    keywords = {folded(word): CANONICAL.get(english, english)
                for table in ("keywords", "also") for english, word in _table(table, language).items()}
    words = {_stem(folded(word), language): english
             for table in ("colours", "players") for english, word in _table(table, language).items()}
    topics = {folded(word): english for english, word in _table("topics", language).items()}
    return keywords, words, topics


def _colour_word(word: str, language: Language) -> str | None:
    """The English colour or ``neutral`` a word of the seat's language is a form of, else None."""
    probe = folded(word)
    for stem, english in _reading(language)[1].items():
        if probe.startswith(stem) and len(probe) - len(stem) <= 4:
            return english
    return None


def english(text: str, players: tuple[str, ...] = (), colours: tuple[str, ...] | None = None) -> str:
    """An order line written in the seat's language as the English order language writes it.

    A keyword counts where an order or an item starts (the line's start,
    after ',' or ';', there unless it is a player's name: Polish STAN is
    STATUS, and may be a Stan) and as HELP's topic (an order or one of the
    topics of ``_names.j2``); a colour or the neutral word
    anywhere, unless it is a player's name, and of the colours only those in
    play (``colours``, all if None), so that a refusal quotes a colour nobody
    plays as the player wrote it. Words the language does not know are left
    as written, so English orders pass unchanged.
    """
    language = spoken()
    if language is SOURCE:
        return text
    keywords = _reading(language)[0]
    names = {folded(p) for p in players}
    text = _CYRILLIC_X.sub("x", text)
    out: list[str] = []
    last = 0
    after_help = False
    for match in _WORD.finditer(text):
        word = match.group(0)
        before = "".join([*out, text[last:match.start()]]).rstrip()
        starts = not before or before.endswith((",", ";"))
        probe = folded(word.rstrip("'"))
        replaced = None
        if (starts or after_help) and probe in keywords and not (before and probe in names):
            replaced = keywords[probe] if starts else keywords[probe].lower()
        elif after_help and probe in _reading(language)[2]:
            replaced = _reading(language)[2][probe]
        elif probe not in names:
            replaced = _colour_word(word, language)
            if colours is not None and replaced not in (*colours, "neutral"):
                replaced = None
        after_help = starts and replaced == "HELP"
        out += [text[last:match.start()], replaced if replaced is not None else word]
        last = match.end()
    return "".join([*out, text[last:]])


def suggestions(word: str) -> tuple[str, ...]:
    """The seat's keywords (as printed) that ``word`` may be a slip for: a prefix of them or close; at most three."""
    language = spoken()
    if language is SOURCE:
        return ()
    probe = folded(word.rstrip(".:,"))
    printed = {folded(w): w for w in _table("keywords", language).values()}
    found = [w for f, w in printed.items() if len(probe) >= 2 and f.startswith(probe) and f != probe]
    found += [printed[f] for f in difflib.get_close_matches(probe, list(printed), n=3, cutoff=0.7)]
    return tuple(dict.fromkeys(found))[:3]


def near_keyword(word: str) -> bool:
    """Whether ``word`` is a prefix (three letters or more) or a close slip of one of the seat's keywords."""
    probe = folded(word.rstrip(".:,"))
    if spoken() is SOURCE or not probe:
        return False
    spellings = list(_reading(spoken())[0])
    return (len(probe) >= 3 and any(s.startswith(probe) for s in spellings)) or bool(
        difflib.get_close_matches(probe, spellings, n=1, cutoff=0.8))


def localized(order: str) -> str:
    """A ready-to-copy English order line (``TAKE 3; DESTROY neutral 5``) in the language being written
    (``ВЗЯТЬ 3; РАЗГРОМ нейтральные 5``): each order's keyword and the neutral player's word; regions,
    counts and players' names are the same in every language."""
    if spoken() is SOURCE:
        return order
    parts = []
    for part in order.split("; "):
        part = _ENGLISH_KEYWORD.sub(lambda m: m.group(0).replace(m.group(1), keyword(m.group(1))), part, count=1)
        parts.append(re.sub(r"\bneutral\b", player("neutral"), part))
    return "; ".join(parts)
