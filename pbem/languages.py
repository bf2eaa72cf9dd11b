"""The languages a seat's mail is written in, and which one the text being written now is for.

English is the source language: every sentence is written in English in a
template and translated by the catalogues in ``pbem/locale`` (Babel, one
``.po`` per language, compiled ``.mo`` shipped in the package; how to add
or change a translation: docs/translating.md). The printed rulebooks our
players know are Russian, Polish, Spanish and Italian.

Which language a text is rendered in is held in a context variable
(:func:`speaking`) rather than passed down as an argument. A seat's mail is
written by many hands: the moderator's own templates, the game's prompt,
report, narration and board, each through the game interface and its
helpers, dozens of calls deep. One ``with speaking(language):`` around the
writing of one seat's mail (the composer does it, ``pbem.moderator.notify``)
reaches every template rendered for that mail without widening the game
interface, and nothing rendered outside it can come out in a stale language.
"""
from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from enum import StrEnum


class Language(StrEnum):
    """A language mail can be written in, by its ISO 639-1 code (the catalogue's folder in ``pbem/locale``)."""

    EN = "en"
    RU = "ru"
    PL = "pl"
    ES = "es"
    IT = "it"


SOURCE = Language.EN  # the templates' own language: no catalogue, and mail in pure ASCII as before

# Each language as it calls itself, for lists a player reads in any language (the welcome mail, LANGUAGE's help).
ENDONYM: dict[Language, str] = {
    Language.EN: "English",
    Language.RU: "Русский",
    Language.PL: "Polski",
    Language.ES: "Español",
    Language.IT: "Italiano",
}

# The names a player may write after LANGUAGE for each language: its code, and its name in each of our languages.
_NAMES: dict[Language, tuple[str, ...]] = {
    Language.EN: ("en", "english", "английский", "angielski", "ingles", "inglese"),
    Language.RU: ("ru", "russian", "русский", "rosyjski", "ruso", "russo"),
    Language.PL: ("pl", "polish", "польский", "polski", "polaco", "polacco"),
    Language.ES: ("es", "spanish", "испанский", "hiszpanski", "espanol", "castellano", "spagnolo"),
    Language.IT: ("it", "italian", "итальянский", "wloski", "italiano"),
}

# The command itself, in each language: ``LANGUAGE RU``, ``ЯЗЫК русский``, ``JĘZYK PL``, ``IDIOMA ES``, ``LINGUA IT``.
COMMAND_WORDS: tuple[str, ...] = ("LANGUAGE", "ЯЗЫК", "JĘZYK", "IDIOMA", "LINGUA")


def folded(word: str) -> str:
    """``word`` as names are compared: case and accents forgiven, Russian ё as е, Polish ł as l."""
    word = word.casefold().replace("ё", "е").replace("ł", "l")
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


_BY_NAME: dict[str, Language] = {folded(name): language for language, names in _NAMES.items() for name in names}
_COMMANDS = frozenset(folded(word) for word in COMMAND_WORDS)


def language_named(word: str) -> Language | None:
    """The language ``word`` names (``RU``, ``русский``, ``Polski``, ``español``, ``italiano``), else None."""
    return _BY_NAME.get(folded(word.strip()))


def is_command_word(word: str) -> bool:
    """Whether ``word`` is the LANGUAGE command in one of our languages (``ЯЗЫК``, ``jezyk``, ``Idioma``)."""
    return folded(word) in _COMMANDS


# Each language's English name: an English mail is pure ASCII, so it names the languages in English.
ENGLISH_NAME: dict[Language, str] = {
    Language.EN: "English",
    Language.RU: "Russian",
    Language.PL: "Polish",
    Language.ES: "Spanish",
    Language.IT: "Italian",
}


def labels() -> tuple[str, ...]:
    """Every language as a player may choose it, for the text being written: ``RU (Русский)``, and in an
    English mail ``RU (Russian)``."""
    return tuple(f"{language.value.upper()} ({label(language)})" for language in Language)


def label(language: Language) -> str:
    """``language`` by its name as :func:`labels` gives it."""
    return (ENGLISH_NAME if spoken() is SOURCE else ENDONYM)[language]


_SPEAKING: ContextVar[Language] = ContextVar("pbem_speaking", default=SOURCE)


def spoken() -> Language:
    """The language the text being written now is for (English outside any :func:`speaking`)."""
    return _SPEAKING.get()


@contextmanager
def speaking(language: Language) -> Iterator[Language]:
    """Write in ``language`` inside the block (see the module docstring), the language before restored after."""
    token = _SPEAKING.set(language)
    try:
        yield language
    finally:
        _SPEAKING.reset(token)
