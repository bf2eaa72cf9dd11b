"""The plain mails a game gets when it writes none of its own: report, prompt, refusal, welcome, end, status.

A third game's author should see a whole game played by mail before they
write a line of text: ``pbem.games.basekind.BaseKind`` answers every mail
member with these, built from what the game already says for the core (its
``narrate``, ``standing``, ``legal_orders``, ``decision_words``,
``default_order``), laid out by ``templates/core/kind/``. The options come in
the one block every game prints (``templates/core/options.j2``), so the
generic bot (``pbem.games.optionsbot``) plays any such game. A game replaces
any of them with its own templates when it wants more (both built-in games
do).

This module holds the typed views the templates get and renders them; what
goes in them is ``BaseKind``'s to decide.
"""
from __future__ import annotations

from dataclasses import dataclass

from pbem.render.env import render


@dataclass(frozen=True)
class Plain:
    """What every plain mail shows: whose game, which move, for whom, and where the game stands."""

    title: str  # the kind's title, the banner's first words
    game: str
    move: int  # the move shown (``shown_move``)
    reader: str | None  # the seat the mail is for; None for BOARD (anyone may read it)
    standing: tuple[str, ...] = ()  # where the game stands, as the reader may see it (one paragraph each)
    told: tuple[str, ...] = ()  # what happened, as the reader may read it (``narrate``)


@dataclass(frozen=True)
class Decision:
    """One decision a prompt asks: its words, the game's note on it, the ready-to-copy orders, the default."""

    words: str
    about: tuple[str, ...]
    options: tuple[str, ...]
    default: str | None


@dataclass(frozen=True)
class Prompt(Plain):
    decisions: tuple[Decision, ...] = ()
    deadline: str = ""


@dataclass(frozen=True)
class Refusal(Plain):
    reason: str = ""
    line_number: int | None = None
    line: str = ""
    applied: tuple[tuple[int, str], ...] = ()
    not_applied: tuple[tuple[int, str], ...] = ()
    legal: tuple[str, ...] = ()


@dataclass(frozen=True)
class Welcome(Plain):
    players: str = ""  # the seats, in words
    reply_to: str | None = None
    mail_note: str = ""  # the core's items on how much mail the seat gets (already rendered)


def report(view: Plain) -> str:
    return render("core/kind/report.j2", v=view)


def prompt(view: Prompt) -> str:
    return render("core/kind/prompt.j2", v=view)


def refusal(view: Refusal) -> str:
    return render("core/kind/refusal.j2", v=view)


def welcome(view: Welcome) -> str:
    return render("core/kind/welcome.j2", v=view)


def game_end(view: Plain) -> str:
    return render("core/kind/game_end.j2", v=view)


def standing(view: Plain) -> str:
    """The answer to STATUS (a reader) or BOARD (no reader)."""
    return render("core/kind/standing.j2", v=view)


def final_scores(scores: tuple[tuple[str, int], ...]) -> str:
    return render("core/kind/final_scores.j2", scores=scores).strip()
