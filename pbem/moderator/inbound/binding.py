"""Which move a player's mail answers, and whether its orders may still be applied then.

A mail is only ever matched to a seat; without more, a reply re-sent by a
client, a mail delayed in a queue, or an answer to last week's prompt would
be applied to whatever the seat must decide *now*: a nation moved on the
strength of a position that no longer stands. So every mail we send to a
seat says the move it was written at, twice: its Message-ID carries the
move (``pbem.mail.move_of_message_id``), which the reply's ``In-Reply-To``/
``References`` bring back, and its subject starts ``[GAME] Move N:``, which
survives clients that drop the references (and re-sends with a new
Message-ID). The rule:

* A mail that names no move of ours (a fresh mail with a ``TOKEN`` line) is
  applied as it is: its writer looked at no particular position.
* A mail answering the current move is applied.
* A mail answering an earlier move is applied only when the decision it
  answered is still the open one: the seat's first pending decision has the
  same kind and nation now as then, and the seat has played nothing since
  then but donations and standing orders. That happens when only other
  players moved meanwhile (a reply that crossed someone's investment); the
  player is told which move their orders were applied at.
* Otherwise (the seat decided since, the decision changed, or the game
  master took the move back) nothing is applied and the player is told which
  move they answered, where the game is, and what they must decide now.
* Mail made only of questions (STATUS, BOARD, OPTIONS, HISTORY, HELP) is
  answered whatever move it names: it changes nothing.

The references win over the subject (a player may edit a subject, rarely a
header); among several of our ids the highest move counts.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Any

from engine.core.log import LogEntry, replay
from pbem.games import GameKind
from pbem.mail import InboundMessage
from pbem.mail.outbound import move_of_message_id

#: ``[GAME] Move N: …``, the frame of every subject of a mail to a seat (``move_subject``); "Move" in the
#: seat's language (``Ход 17``, ``Ruch 17``), and a player may have changed language since: any one word.
_SUBJECT_MOVE = re.compile(r"\[(?P<game>[^\]]+)\]\s*[^\W\d_]+ (?P<move>\d+):")  # the word in any language


class Verdict(Enum):
    CURRENT = "current"  # no move named, or the current one: apply
    SAME_DECISION = "same decision"  # an earlier move, its decision still open: apply, and say so
    STALE = "stale"  # the position answered is gone: apply nothing, explain


@dataclass(frozen=True)
class Binding:
    """The move a mail answers (None: none named) and what follows for its orders."""

    move: int | None
    verdict: Verdict


def answered_move(message: InboundMessage, game: str, domain: str, welcomes: frozenset[str] = frozenset()) -> int | None:
    """The move of ours the mail answers: the highest in its references, else its subject's tag.

    ``welcomes`` are the ids of the welcome mails (the game's thread root and
    the seat's own): every reply refers to them, and a reply to the welcome
    itself answers no position (the welcome asks nothing), so they bind nothing.
    """
    ids = [i for i in (message.in_reply_to, *message.references) if i and i not in welcomes]
    moves = [m for m in (move_of_message_id(i, game, domain=domain) for i in ids) if m is not None]
    if moves:
        return max(moves)
    if any(i in welcomes for i in (message.in_reply_to, *message.references) if i):
        return None  # a reply in the game's thread with none of our later mails: to the welcome
    tag = _SUBJECT_MOVE.search(message.subject or "")
    if tag and tag.group("game").strip().lower() == game.lower():
        return int(tag.group("move"))
    return None


def judge(kind: GameKind, setup: Any, log: list[LogEntry[Any]], now: Any, player: str,
          move: int | None) -> Binding:
    """Whether orders written at ``move`` may be applied to the position ``now`` (see the module docstring)."""
    current = kind.shown_move(now)
    if move is None or move == current:
        return Binding(move, Verdict.CURRENT)
    if move > current or move > len(log):  # the game master took moves back since
        return Binding(move, Verdict.STALE)
    asked = _first_decision_key(kind, replay(kind, setup, log[:move]), player)
    if asked is None or asked != _first_decision_key(kind, now, player):
        return Binding(move, Verdict.STALE)
    if any(entry.player == player and not kind.is_side_action(entry.action) for entry in log[move:]):
        return Binding(move, Verdict.STALE)
    return Binding(move, Verdict.SAME_DECISION)


def _first_decision_key(kind: GameKind, state: Any, player: str) -> tuple[str, str | None] | None:
    if state.finished:
        return None
    decisions = [d for d in kind.pending(state) if d.player == player]
    return (decisions[0].kind, decisions[0].subject) if decisions else None
