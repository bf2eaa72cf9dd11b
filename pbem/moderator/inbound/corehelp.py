"""HELP on the moderator's own commands (``MAIL``, ``BOARD ON|OFF``, ``PRESS``, ``VACATION``, ``HISTORY ALL``,
``TOKEN``, ``LANGUAGE``), beside each game's HELP on its orders.

Why here and not in each game: those lines are read by the core before any
game sees the message (``preferences``, ``press``, ``vacation``, the token
in ``pbem.mail.inbound``), the same in every game, so their help is the
core's too. A game's ``HELP`` answer gets the list of them below its orders;
``HELP MAIL``, ``HELP PRESS``, ``HELP VACATION`` and ``HELP TOKEN`` are
answered here alone (a game's order language would take ``press`` for a
misspelt ``PASS``); ``HELP BOARD`` and ``HELP HISTORY`` keep the game's page
on that report and add the core's ``BOARD ON|OFF`` and ``HISTORY ALL|FROM``.
The words are in ``templates/core/help.j2`` (what each MAIL mode means: ``templates/core/mail_mode.j2``).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pbem.languages import is_command_word, labels
from pbem.moderator.inbound.words import said
from pbem.render.env import render
from pbem.store.mailprefs import MailMode
from pbem.store.settings import GameSettings

TEMPLATE = "core/help.j2"
OWN = frozenset({"mail", "press", "vacation", "token", "language"})  # answered by the core alone
ADDED = frozenset({"board", "map", "history"})  # the game's page on the report, then the core's part


@dataclass(frozen=True)
class HelpContext:
    """What the core's help says of this seat and game: its BOARD choice and the game's press and vacation."""

    board_on: bool
    settings: GameSettings


def topic_of(topic: str | None) -> str | None:
    """The core's topic a ``HELP`` topic names (its first word, case and a trailing dot ignored), else None."""
    words = (topic or "").strip().rstrip(".?!").lower().split()
    if words and is_command_word(words[0]):
        return "language"  # HELP ЯЗЫК, HELP IDIOMA: the command's word in any language
    return words[0] if words else None


def answer_help(topic: str | None, game_answer: Callable[[], str], context: HelpContext) -> str:
    """The answer to ``HELP [topic]``: the game's (``game_answer``) with the core's part, or the core's alone."""
    core = topic_of(topic)
    if core in OWN:
        return _core(core, context)
    if core is None:
        return game_answer().rstrip("\n") + "\n\n" + _core("commands", context)
    if core in ADDED:
        return game_answer().rstrip("\n") + "\n\n" + _core("board" if core == "map" else core, context)
    return game_answer()


def _core(topic: str, context: HelpContext) -> str:
    return render(TEMPLATE, strict=True, topic=topic, board_on=context.board_on, press=context.settings.press,
                  vacation=context.settings.vacation, vacation_days=context.settings.vacation_cap_days,
                  modes=[(mode.value.upper(), said("mail_mode", mode=mode)) for mode in MailMode],
                  languages=labels())
