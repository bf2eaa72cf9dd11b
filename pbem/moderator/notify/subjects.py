"""What a mail to a seat says it is about: its subject, the decision it asks for, and that decision's deadline.

Every subject of a mail to a seat starts ``[GAME] Move N:`` (:func:`move_subject`):
a reply carries the move back, and ``pbem.moderator.inbound.binding`` reads it
to tell which position the orders were written at. A prompt's subject says
what is asked (:func:`prompt_subject`), and its ``X-PBEM-Decision`` header the
kind of the decision (:func:`decision_kind`).

The words after the frame are templates (``core/mail_subjects.j2``, picked by
:class:`MailSubject`; the game master's in ``core/subjects.j2``), marked for
translation. The frames ``[GAME] Move N:`` and ``[GAME]`` and a reply's
``Re:`` stay here, untranslated: the reader of replies matches them as they are.
"""
from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from engine.core.decisions import Pending
from pbem.games import GameKind
from pbem.render.env import render_phrase
from pbem.store.settings import GameSettings

MAIL_SUBJECTS = "core/mail_subjects.j2"


class MailSubject(StrEnum):
    """Which mail's subject ``core/mail_subjects.j2`` words (its comment says when each is sent and the values
    it takes): the caller names the mail, the template holds its words."""

    PROMPT = "prompt"
    GAME_OVER = "game_over"
    WELCOME = "welcome"
    IS_OVER = "is_over"
    IS_PAUSED = "is_paused"
    YOUR_MESSAGE = "your_message"
    TO_MODERATOR = "to_moderator"
    SPOOFED = "spoofed"
    WAITING_REFUSED = "waiting_refused"
    NOT_APPLIED = "not_applied"
    YOUR_ORDERS = "your_orders"
    YOUR_QUESTIONS = "your_questions"
    YOUR_MAIL = "your_mail"
    PRESS_SIGNED = "press_signed"
    PRESS_ANONYMOUS = "press_anonymous"
    VACATION = "vacation"
    UNREACHABLE = "unreachable"
    MOVE = "move"  # the frame's "Move 17" (move_subject)
    CONFIRM = "confirm"  # a command by mail waits for its sender's reply (pbem.moderator.inbound.judge)
    SEAT_GIVEN_UP = "seat_given_up"  # to the game master: a player gave up their seat (RESIGN by mail)


def mail_subject(subject: MailSubject, /, **values: Any) -> str:
    """A subject's words, one line (``core/mail_subjects.j2``): a header line is never wrapped, so
    ``render_phrase`` and not the mail body's ``render``."""
    return render_phrase(MAIL_SUBJECTS, subject=subject, **values)


def move_subject(game: str, move: int, text: str) -> str:
    """The subject of a mail to a seat about ``move``: a reply carries the move back (module docstring)."""
    return f"[{game}] {mail_subject(MailSubject.MOVE, move=move)}: {text}"


def game_subject(game: str, subject: MailSubject, /, **values: Any) -> str:
    """The subject of a mail about the game and no move (``[g1] Game over``): the tag alone, which a reply's
    reader compares with the game's name (module docstring), then the words of ``subject``."""
    return f"[{game}] {mail_subject(subject, **values)}"


def prompt_subject(kind: GameKind, game: str, state: Any, decision: Pending, short: str = "") -> str:
    """'[g1] Move 16: please choose a rondel space for Russia': the move, then what is asked; ``short``, a
    game master's notice that carries the prompt, goes in brackets after the question."""
    return move_subject(game, kind.shown_move(state),
                        mail_subject(MailSubject.PROMPT, what=kind.decision_words(state, decision), short=short))


def reply_subject(subject: str, fallback: str) -> str:
    """The subject of a reply to a mail: its own, ``Re:`` once, so the player's thread holds together (and a
    move it named still reads back); ``fallback`` when it had none."""
    subject = " ".join(subject.split())
    if not subject:
        return fallback
    return subject if subject.lower().startswith("re:") else f"Re: {subject}"


def decision_deadline(settings: GameSettings, decision: Pending, since: datetime) -> datetime | None:
    """When ``decision``, pending since ``since``, expires: ``since`` + the game's hours for its kind.

    The same rule as ``pbem.moderator.deadlines`` (a kind without hours, or with 0 or
    fewer, has no deadline); the prompt mailed with the move that raised the
    decision shows it, counted from that move.
    """
    hours = settings.hours_for(decision.kind)
    if hours is None or hours <= 0:
        return None
    return since + timedelta(hours=float(hours))


def decisions_of(kind: GameKind, state: Any, player: str) -> tuple[Pending, ...]:
    """The decisions ``player`` must take now, first first (none once the game is over).

    A sealed answer already given is no decision to take: the player is not
    prompted again for it (they may still change it, as the prompt said).
    """
    if state.finished:
        return ()
    return tuple(d for d in kind.pending(state) if d.player == player and not d.answered)


def decision_kind(kind: GameKind, state: Any, player: str) -> str | None:
    """The game's name of the first decision ``player`` must take now (``X-PBEM-Decision``), or None."""
    decisions = decisions_of(kind, state, player)
    return decisions[0].kind if decisions else None
