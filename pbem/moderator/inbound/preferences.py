"""A player's mail preferences in their mail: ``MAIL EVERY|TURN|ROUND|DAILY``, ``BOARD ON|OFF``,
``LANGUAGE <language>`` (the command in each language: ``ЯЗЫК русский``, ``JĘZYK PL``, ``IDIOMA ES``, ``LINGUA
IT``), ``VACATION UNTIL <date>|OFF``, and the core's own reports ``HISTORY ALL`` and ``HISTORY FROM <move>``.

Read by the moderator core before the game reads the orders, the same for
every game: such a line is taken out of the message (its place left blank,
so the other lines keep their numbers) and never reaches the game's order
language. A line that starts like one but is not right refuses the whole
message, changing nothing, as any refused order does: a :class:`Refusal`,
told by ``templates/core/preference_refusal.j2``; the confirmation is
``templates/core/mail_preferences.j2``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import Enum

from pbem.languages import Language, is_command_word, label, labels, language_named
from pbem.moderator.inbound.words import Until, said
from pbem.store.mailprefs import MailMode

_LINE = re.compile(r"^\s*(mail|board|vacation)\b\s*(.*?)\s*[.!]?\s*$", re.IGNORECASE)
_HISTORY = re.compile(r"^\s*history\s+(?:(all)|from\s+(?:move\s+)?(\d{1,6}))\s*[.!?]?\s*$", re.IGNORECASE)
_LANGUAGE = re.compile(r"^\s*(\w+)\s*(.*?)\s*[.!]?\s*$")
_UNTIL = re.compile(r"^until\s+(\d{4}-\d{2}-\d{2})(?:[ t](\d{1,2}:\d{2}))?(?:\s*utc)?$", re.IGNORECASE)
SIGNATURE = "-- "
MODES = tuple(m.value.upper() for m in MailMode)


class Wrong(Enum):
    """What is wrong with a preference line (the words: ``templates/core/preference_refusal.j2``)."""

    MAIL_MODE = "mail_mode"  # MAIL and no mode it knows
    BOARD_WORDS = "board_words"  # BOARD and neither ON nor OFF
    VACATION_WORDS = "vacation_words"  # VACATION and neither UNTIL <date> nor OFF
    VACATION_PAST = "vacation_past"  # a vacation that ends before now
    VACATION_TOO_LONG = "vacation_too_long"  # longer than the game allows
    LANGUAGE_NAME = "language_name"  # LANGUAGE and no language the moderator writes


@dataclass(frozen=True)
class Refusal:
    """Why a message's preference line refuses the whole message, as values for its template."""

    wrong: Wrong
    line: int = 0  # the line's number in the message (words not understood)
    written: str = ""  # and the line as written
    until: Until | None = None  # a vacation's end (VACATION_PAST, VACATION_TOO_LONG)
    days: int = 0  # the game's longest vacation (VACATION_TOO_LONG)
    latest: str = ""  # the latest end allowed now, a UTC stamp (VACATION_TOO_LONG)
    modes: tuple[str, ...] = MODES
    languages: tuple[str, ...] = field(default_factory=labels)

    def text(self) -> str:
        """The refusal as the player reads it, also kept as the message's record."""
        return said("preference_refusal", refusal=self)


@dataclass(frozen=True)
class Preferences:
    """What a message asks of the player's mail, and the message without those lines."""

    body: str
    mode: MailMode | None = None
    board: bool | None = None
    refusal: Refusal | None = None  # when a preference line is wrong
    away_until: datetime | None = None  # VACATION UNTIL <date>: back at the end of that day (or at that time)
    back: bool = False  # VACATION OFF
    history_from: int | None = None  # HISTORY ALL (0) or HISTORY FROM <move>: answered by the core
    language: Language | None = None  # LANGUAGE <language>

    @property
    def any(self) -> bool:
        return (self.mode is not None or self.board is not None or self.refusal is not None or self.vacation
                or self.history_from is not None or self.language is not None)

    @property
    def vacation(self) -> bool:
        return self.away_until is not None or self.back

    def told(self) -> str:
        """The confirmation for the reply (the vacation is confirmed by the inbound flow, which checks it)."""
        return said("mail_preferences", mode=self.mode, board=self.board,
                    language=label(self.language) if self.language is not None else None)


def _vacation(value: str) -> tuple[datetime | None, bool] | None:
    """(until, back) of a VACATION line's words, or None when they are not understood."""
    if value in ("off", "end", "over"):
        return None, True
    match = _UNTIL.match(value)
    if match is None:
        return None
    try:
        day = datetime.strptime(match.group(1), "%Y-%m-%d").replace(tzinfo=UTC)
        if match.group(2) is None:
            return day + timedelta(days=1), False  # "until the 24th": away all of that day
        hours, minutes = (int(part) for part in match.group(2).split(":"))
        return day.replace(hour=hours, minute=minutes), False
    except ValueError:
        return None


def read_preferences(body: str) -> Preferences:
    lines = body.split("\n")
    mode: MailMode | None = None
    board: bool | None = None
    away: datetime | None = None
    back = False
    history_from: int | None = None
    language: Language | None = None
    for index, raw in enumerate(lines):
        if raw.startswith(SIGNATURE.rstrip()) and raw.strip() in ("--", "-- "):
            break
        if raw.lstrip().startswith(">"):
            continue
        asked = _HISTORY.match(raw)
        if asked is not None:
            history_from = 0 if asked.group(1) else int(asked.group(2))
            lines[index] = ""
            continue
        spoken = _LANGUAGE.match(raw)
        if spoken is not None and is_command_word(spoken.group(1)):
            language = language_named(spoken.group(2))
            if language is None:
                return Preferences(body, refusal=Refusal(Wrong.LANGUAGE_NAME, index + 1, raw.strip()))
            lines[index] = ""
            continue
        match = _LINE.match(raw)
        if match is None:
            continue
        word, value = match.group(1).lower(), match.group(2).lower()
        if word == "board" and not value:
            continue  # BOARD alone asks for the board: the game answers it
        if word == "vacation":
            found = _vacation(value)
            if found is None:
                return Preferences(body, refusal=Refusal(Wrong.VACATION_WORDS, index + 1, raw.strip()))
            away, back = found
        elif word == "mail":
            if value not in {m.value for m in MailMode}:
                return Preferences(body, refusal=Refusal(Wrong.MAIL_MODE, index + 1, raw.strip()))
            mode = MailMode(value)
        elif value in ("on", "off"):
            board = value == "on"
        else:
            return Preferences(body, refusal=Refusal(Wrong.BOARD_WORDS, index + 1, raw.strip()))
        lines[index] = ""
    return Preferences("\n".join(lines), mode, board, away_until=away, back=back, history_from=history_from,
                       language=language)
