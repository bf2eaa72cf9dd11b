"""A player's mail preferences in their mail: ``MAIL EVERY|TURN|ROUND|DAILY`` and ``BOARD ON|OFF``.

Read by the moderator core before the game reads the orders, the same for
every game: such a line is taken out of the message (its place left blank,
so the other lines keep their numbers) and never reaches the game's order
language. A line that starts like one but is not right refuses the whole
message, changing nothing, as any refused order does.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from pbem.store.mailprefs import MailMode

_LINE = re.compile(r"^\s*(mail|board)\b\s*(.*?)\s*[.!]?\s*$", re.IGNORECASE)
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

    @property
    def any(self) -> bool:
        return self.mode is not None or self.board is not None or self.refusal is not None

    def told(self) -> str:
        """The confirmation for the reply."""
        said = []
        if self.mode is not None:
            said.append(f"Your mail is now {self.mode.value.upper()}: {MEANING[self.mode]}.")
        if self.board is not None:
            said.append("Reports now " + ("carry the board." if self.board else "leave the board out (send "
                                          "BOARD to get it once, BOARD ON to have it again)."))
        return "\n".join(["YOUR MAIL", *said]) + "\n"


def read_preferences(body: str) -> Preferences:
    lines = body.split("\n")
    mode: MailMode | None = None
    board: bool | None = None
    for index, raw in enumerate(lines):
        if raw.startswith(SIGNATURE.rstrip()) and raw.strip() in ("--", "-- "):
            break
        if raw.lstrip().startswith(">"):
            continue
        match = _LINE.match(raw)
        if match is None:
            continue
        word, value = match.group(1).lower(), match.group(2).lower()
        if word == "board" and not value:
            continue  # BOARD alone asks for the board: the game answers it
        if word == "mail":
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
    return Preferences("\n".join(lines), mode, board)
