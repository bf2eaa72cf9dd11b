"""What the moderator needs to know of a pending decision, whatever the game.

A game's engine keeps its own, richer decision type (typed options, costs);
``Rules.pending`` summarises each as a ``Pending`` for the moderator: who must
answer, what kind of decision it is (a name the game's words and deadlines
know), and whether it is sealed.

Sealed decisions are answered by several players at once, in secret (a bid).
The engine lists one ``Pending`` per player of a sealed round, with
``answered`` set once that player has answered; the moderator uses
``answered`` only to know whom to remind and whom a deadline's default applies
to, and never tells it to anyone else before the round is complete.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Pending:
    """One decision the game waits for.

    ``kind`` is the game's decision name (also a deadline kind and the
    ``X-PBEM-Decision`` header); ``subject`` the id of what it is about
    ("russia"), or None; ``has_default`` whether a passive default exists for
    an expired deadline (otherwise the game master steps in). ``detail`` is
    the game's own decision, which the moderator only hands back to the game
    (to word it, to take its default).
    """

    player: str
    kind: str
    subject: str | None = None
    has_default: bool = True
    sealed: bool = False
    answered: bool = False
    out_of_turn: bool = False  # asked of a player outside the turn order (a question, an investment)
    detail: Any = field(default=None, compare=False, repr=False)
