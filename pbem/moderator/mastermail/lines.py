"""Reading a master's mail: one command a line, as the master wrote it (English words, like order keywords)."""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from pbem.games.messagetext import COMMENT, ENDS, QUOTE, SIGNATURES, clean_line, is_courtesy


class Command(StrEnum):
    """The master commands by mail (docs/game-master.md, "By mail"); each names the CLI command it runs."""

    PAUSE = "PAUSE"  # pbem pause
    RESUME = "RESUME"  # pbem resume
    FORCE = "FORCE"  # pbem force GAME PLAYER ORDERS
    UNDO = "UNDO"  # pbem undo
    REPLACE = "REPLACE"  # pbem replace GAME OLD NEW EMAIL
    RESEND = "RESEND"  # pbem resend [--player]
    EXTEND = "EXTEND"  # pbem extend GAME HOURS
    END = "END"  # END GAME: pbem end GAME (END alone ends the mail, as in a player's)
    SET = "SET"  # pbem game set GAME KEY=VALUE...
    PROMOTE = "PROMOTE"  # pbem game master add (an observer becomes a master)
    EJECT = "EJECT"  # pbem game master remove
    HELP = "HELP"  # HELP MASTER: the commands


@dataclass(frozen=True)
class MasterLine:
    number: int  # 1-based, among the master's own lines
    text: str  # as written
    command: Command | None  # None: no command of ours
    rest: str  # the words after the command


def read_lines(body: str) -> list[MasterLine]:
    """The master's own lines, each read: as a player's mail is read (``pbem.games.messagetext``), quoted lines,
    ``#`` comments, blank lines and the words around the commands (a greeting, thanks, the "… wrote:" line
    of a reply) are left out, and a signature or a line ``END`` ends them (``END GAME`` is a command)."""
    found: list[MasterLine] = []
    for raw in body.splitlines():
        if raw.strip() in SIGNATURES:
            break
        line = clean_line(raw)
        if line in SIGNATURES or line.casefold() in ENDS:
            break
        if not line or line.startswith((QUOTE, COMMENT)):
            continue
        word, _, rest = line.partition(" ")
        command = Command.__members__.get(word.upper())
        if command is None and (is_courtesy(line) or line.endswith(("wrote:", "writes:"))):
            continue
        found.append(MasterLine(len(found) + 1, line, command, rest.strip()))
    return found
