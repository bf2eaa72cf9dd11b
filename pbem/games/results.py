"""What a message of orders did, in terms every game shares.

A game's order language (``GameKind.run_message``) reads a player's message
against the state and answers with a ``MessageOutcome``; the moderator logs
its entries, stores its waiting lines, and hands its parts to the mail flow
and the CLI. Game values inside (actions, events, decisions, states) are the
game's own and opaque here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.core.log import LogEntry

StoredLines = dict[str, tuple[tuple[int, str], ...]]  # player -> (line number, text) of lines held back


@dataclass(frozen=True)
class MessageLine:
    """One line of a message as written: its 1-based line number and its text (trimmed)."""

    number: int
    text: str

    def __str__(self) -> str:
        return f"line {self.number}: {self.text}"


@dataclass(frozen=True)
class AppliedLine:
    """One order of the message that stands: the line it came from, its actions and what they did."""

    line_number: int
    line: str
    actions: tuple[Any, ...]
    events: tuple[Any, ...]
    narration: tuple[str, ...]
    implicit: bool = False  # the order the end of the message added (``line`` is then e.g. "DONE")


@dataclass(frozen=True)
class Refusal:
    """Why the message stopped: the failing line, the reason, what is legal now, what was not applied.

    ``waiting_for`` names the pending decisions (as text) when the sender had
    nothing to decide at that point.
    """

    reason: str
    line_number: int | None = None
    line: str | None = None
    legal: tuple[str, ...] = ()
    suggestions: tuple[str, ...] = ()
    not_applied: tuple[tuple[int, str], ...] = ()
    waiting_for: tuple[str, ...] = ()
    kind: str = "refused"


@dataclass(frozen=True)
class Query:
    """A report asked for among the orders (STATUS, OPTIONS, BOARD, HISTORY, HELP)."""

    line_number: int
    line: str
    kind: str
    topic: str | None = None
    count: int | None = None


@dataclass(frozen=True)
class Waiting:
    """The rest of ``player``'s message, held until ``asked`` answers the open ``question``.

    ``lines`` may be empty: the message's last order raised the question, and
    only the end of the message waits.
    """

    player: str
    asked: str
    question: str
    lines: tuple[tuple[int, str], ...] = ()

    @property
    def text(self) -> str:
        """'waiting for bob (…) — these lines will be applied once answered'."""
        then = ("these lines will be applied once answered" if self.lines
                else "the maneuver ends once answered")
        return f"waiting for {self.asked} ({self.question}) \u2014 {then}"


@dataclass(frozen=True)
class Resumed:
    """Waiting lines of ``player`` that an answer in this message set going again.

    ``refusal`` is set when a waiting line was refused (the answer made it
    illegal): the lines from it on are dropped. ``waiting`` is set when the
    lines stopped at a new question.
    """

    player: str
    applied: tuple[AppliedLine, ...]
    refusal: Refusal | None
    waiting: Waiting | None = None
    queries: tuple[Query, ...] = ()


@dataclass(frozen=True)
class MessageOutcome:
    """A whole message read against a state: what to log, what to store, what to tell.

    ``entries`` continue the log exactly from the state's version; ``waiting``
    is the game's complete set of held-back lines after the message (empty
    once the game is over); ``pending`` the game's own pending decisions.
    """

    state: Any
    applied: tuple[AppliedLine, ...]
    entries: tuple[LogEntry[Any], ...]
    refusal: Refusal | None
    queries: tuple[Query, ...]
    waiting: StoredLines
    sender_waiting: Waiting | None
    resumed: tuple[Resumed, ...]
    pending: tuple[Any, ...] = ()
    events: tuple[Any, ...] = ()
    ignored: tuple[MessageLine, ...] = ()  # courtesy lines not read as orders ("Thanks, Alice")
