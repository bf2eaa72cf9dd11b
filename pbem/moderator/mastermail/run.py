"""Doing one master line: the very function the host's CLI command calls, with the same mail context.

So every mail a command sends (the players' notices, a forced move's
reports) is written by the one composer, exactly as from the CLI. A line
that cannot be done is refused with the command's own reason; the lines
before it stand and the lines after it are still tried (each is a command
of its own, as each CLI call is).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pbem.errors import PbemError
from pbem.games import kind_of
from pbem.moderator.gamemaster import force, pause, replace, resend, resume, set_game, undo
from pbem.moderator.gamemaster.common import GameMasterError, MailContext, _transaction
from pbem.moderator.gamemaster.ending import end_game
from pbem.moderator.gamemaster.extending import extend
from pbem.moderator.mastermail.lines import Command, MasterLine
from pbem.moderator.mastermail.roster import eject, promote
from pbem.store import Database, find_game
from pbem.store.masters import masters_of

USAGE = {  # what is legal, told with a refused line (commands, not words: they stay as typed)
    Command.PAUSE: "PAUSE", Command.RESUME: "RESUME", Command.FORCE: "FORCE <player> <orders>",
    Command.UNDO: "UNDO", Command.REPLACE: "REPLACE <player> <address> [<new name>]",
    Command.RESEND: "RESEND [<player>]", Command.EXTEND: "EXTEND <hours>", Command.END: "END GAME",
    Command.SET: "SET <key>=<value> ...", Command.PROMOTE: "PROMOTE <address>",
    Command.EJECT: "EJECT <address>", Command.HELP: "HELP MASTER",
}


@dataclass(frozen=True)
class Answer:
    """What became of one line (``core/master_answer.j2``: ``what`` picks the sentence, ``values`` fill it)."""

    line: MasterLine
    what: str
    values: dict[str, Any] = field(default_factory=dict)

    @property
    def done(self) -> bool:
        return self.what not in ("refused", "unknown", "help")


@dataclass(frozen=True)
class Master:
    """Who runs the line: the game, the master's address, the mail settings of the CLI's commands."""

    db: Database
    game: str
    kind: str  # the game's kind: a refused forced order is told in its words
    email: str
    mail: MailContext
    now: datetime


def run_line(master: Master, line: MasterLine) -> Answer:
    """Do ``line`` (see the module docstring); never raises for a command that cannot be done."""
    if line.command is None:
        return Answer(line, "unknown", {"commands": ", ".join(USAGE.values())})
    try:
        return _run(master, line, line.command, line.rest.split())
    except PbemError as exc:  # the reason the CLI would print, and what is legal
        return Answer(line, "refused", {"reason": str(exc), "usage": USAGE[line.command]})


def _run(master: Master, line: MasterLine, command: Command, words: list[str]) -> Answer:
    db, name, mail, now = master.db, master.game, master.mail, master.now
    if command is Command.HELP:
        return Answer(line, "help")
    if command is Command.PAUSE:
        return Answer(line, "paused", {"mailed": pause(db, name, mail=mail, now=now).mailed})
    if command is Command.RESUME:
        return Answer(line, "resumed", {"mailed": resume(db, name, mail=mail, now=now).mailed})
    if command is Command.UNDO:
        undone = undo(db, name, mail=mail, now=now)
        return Answer(line, "undone", {"move": undone.entry.version + 1, "player": undone.entry.player,
                                       "order": undone.order})
    if command is Command.FORCE:
        _need(words, 2)
        player, _, orders = line.rest.partition(" ")
        forced = force(db, name, player, orders.strip(), mail=mail, now=now)
        played = forced.played
        refusal = played.refusal
        return Answer(line, "forced", {
            "player": played.player, "applied": len(played.applied),
            "refusal": "" if refusal is None else kind_of(master.kind).error(played.state, played.player, refusal,
                                                                              game=name).strip()})
    if command is Command.REPLACE:
        _need(words, 2)
        old, email = words[0], words[1]
        new_name = words[2] if len(words) > 2 else old
        taken = replace(db, name, old, new_name, email, mail=mail, now=now)
        return Answer(line, "replaced", {"old": taken.old, "new": taken.new, "email": taken.email})
    if command is Command.RESEND:
        resent = resend(db, name, words[0] if words else None, mail=mail, now=now)
        return Answer(line, "resent", {"count": len(resent.mails)})
    if command is Command.EXTEND:
        _need(words, 1)
        extended = extend(db, name, _hours(words[0]), mail=mail, now=now)
        return Answer(line, "extended", {"hours": f"{extended.hours:g}", "mailed": extended.mailed})
    if command is Command.END:
        if [w.upper() for w in words] != ["GAME"]:
            raise GameMasterError("END GAME ends the game (END alone ends a mail)")
        ended = end_game(db, name, mail=mail, now=now)
        return Answer(line, "ended", {"move": ended.move, "mailed": ended.mailed})
    if command is Command.SET:
        _need(words, 1)
        return Answer(line, "set", {"changes": "; ".join(set_game(db, name, words).changed)})
    _need(words, 1)
    with _transaction(db) as session:
        game = find_game(session, name)
        if command is Command.PROMOTE:
            named = promote(session, game, words[0], master.email, mail.identity(), now)
            return Answer(line, "promoted", {"email": named.email})
        if len(masters_of(session, game)) <= 1:
            raise GameMasterError("the last master of a game cannot be ejected by mail (the host may remove it)")
        return Answer(line, "ejected", {"email": eject(session, game, words[0], now).email})


def _hours(word: str) -> float:
    try:
        return float(word.lower().removesuffix("h"))
    except ValueError:
        raise GameMasterError(f"{word!r} is no number of hours") from None


def _need(words: list[str], count: int) -> None:
    if len(words) < count:
        raise GameMasterError("missing words")
