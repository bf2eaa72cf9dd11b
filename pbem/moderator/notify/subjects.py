"""What a mail to a seat says it is about: its subject, the decision it asks for, and that decision's deadline.

Every subject of a mail to a seat starts ``[GAME] Move N:`` (:func:`move_subject`):
a reply carries the move back, and ``pbem.moderator.inbound.binding`` reads it
to tell which position the orders were written at. A prompt's subject says
what is asked (:func:`prompt_subject`), and its ``X-PBEM-Decision`` header the
kind of the decision (:func:`decision_kind`).
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from engine.core.decisions import Pending
from pbem.games import GameKind
from pbem.store.settings import GameSettings


def move_subject(game: str, move: int, text: str) -> str:
    """The subject of a mail to a seat about ``move``: a reply carries the move back (module docstring)."""
    return f"[{game}] Move {move}: {text}"


def prompt_subject(kind: GameKind, game: str, state: Any, decision: Pending, suffix: str = "") -> str:
    """'[g1] Move 16: please choose a rondel space for Russia': the move, then what is asked."""
    return move_subject(game, kind.shown_move(state), f"please {kind.decision_words(state, decision)}{suffix}")


def reply_subject(subject: str, fallback: str) -> str:
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
