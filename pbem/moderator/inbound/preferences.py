"""A player's mail preferences in their mail: ``MAIL EVERY|TURN|ROUND|DAILY``, ``BOARD ON|OFF``,
``VACATION UNTIL <date>|OFF``, and the core's own reports ``HISTORY ALL`` and ``HISTORY FROM <move>``.

Read by the moderator core before the game reads the orders, the same for
every game: such a line is taken out of the message (its place left blank,
so the other lines keep their numbers) and never reaches the game's order
language. A line that starts like one but is not right refuses the whole
message, changing nothing, as any refused order does.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from pbem.store.mailprefs import MailMode

_LINE = re.compile(r"^\s*(mail|board|vacation)\b\s*(.*?)\s*[.!]?\s*$", re.IGNORECASE)
_HISTORY = re.compile(r"^\s*history\s+(?:(all)|from\s+(?:move\s+)?(\d{1,6}))\s*[.!?]?\s*$", re.IGNORECASE)
_UNTIL = re.compile(r"^until\s+(\d{4}-\d{2}-\d{2})(?:[ t](\d{1,2}:\d{2}))?(?:\s*utc)?$", re.IGNORECASE)
SIGNATURE = "-- "
MODES = ", ".join(m.value.upper() for m in MailMode)
MEANING = {
    MailMode.EVERY: "a report after every move",
    MailMode.TURN: "a mail only when you must decide, with everything since your last mail",
    MailMode.ROUND: "a digest when a round ends, and a mail when you must decide",
    MailMode.DAILY: "a digest once a day, and a mail when you must decide",
}


@dataclass(frozen=True)
class Preferences:
    """What a message asks of the player's mail, and the message without those lines."""

    body: str
    mode: MailMode | None = None
    board: bool | None = None
    refusal: str | None = None  # "line 2: MAIL WEEKLY: ..." when a preference line is wrong
    away_until: datetime | None = None  # VACATION UNTIL <date>: back at the end of that day (or at that time)
    back: bool = False  # VACATION OFF
    history_from: int | None = None  # HISTORY ALL (0) or HISTORY FROM <move>: answered by the core

    @property
    def any(self) -> bool:
        return (self.mode is not None or self.board is not None or self.refusal is not None or self.vacation
                or self.history_from is not None)

    @property
    def vacation(self) -> bool:
        return self.away_until is not None or self.back

    def told(self) -> str:
        """The confirmation for the reply (the vacation is confirmed by the inbound flow, which checks it)."""
        said = []
        if self.mode is not None:
            said.append(f"Your mail is now {self.mode.value.upper()}: {MEANING[self.mode]}.")
        if self.board is not None:
            said.append("Reports now " + ("carry the board." if self.board else "leave the board out (send "
                                          "BOARD to get it once, BOARD ON to have it again)."))
        return "\n".join(["YOUR MAIL", *said]) + "\n" if said else ""


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
        match = _LINE.match(raw)
        if match is None:
            continue
        word, value = match.group(1).lower(), match.group(2).lower()
        if word == "board" and not value:
            continue  # BOARD alone asks for the board: the game answers it
        if word == "vacation":
            found = _vacation(value)
            if found is None:
                return Preferences(body, refusal=f"line {index + 1}: {raw.strip()}: write VACATION UNTIL "
                                                 "2030-12-24 (a date, UTC; or with a time: 2030-12-24 18:00) "
                                                 "or VACATION OFF.")
            away, back = found
        elif word == "mail":
            if value not in {m.value for m in MailMode}:
                return Preferences(body, refusal=f"line {index + 1}: {raw.strip()}: write MAIL and one of "
                                                 f"{MODES}.")
            mode = MailMode(value)
        elif value in ("on", "off"):
            board = value == "on"
        else:
            return Preferences(body, refusal=f"line {index + 1}: {raw.strip()}: write BOARD ON or BOARD OFF "
                                             "(or BOARD alone to get the board now).")
        lines[index] = ""
    return Preferences("\n".join(lines), mode, board, away_until=away, back=back, history_from=history_from)
