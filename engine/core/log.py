"""The log: the truth of a game is its setup plus the accepted actions in order.

Snapshots are caches; ``replay`` rebuilds any state from the setup and the
log, and refuses a log whose entries were not made against the versions they
name (a gap or a duplicate means the log was damaged).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from engine.core.errors import IllegalAction

if TYPE_CHECKING:
    from engine.core.protocol import Rules

A = TypeVar("A")
S = TypeVar("S")
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class LogEntry(Generic[A]):
    """One accepted action and the state version it was made against."""

    player: str
    action: A
    version: int


def check_versions(entries: Iterable[LogEntry[A]], start: int) -> None:
    """Raise ``ValueError`` unless the entries' versions run ``start, start+1, ...`` without a gap."""
    for expected, entry in enumerate(entries, start):
        if entry.version != expected:
            raise ValueError(f"log entry made against version {entry.version}, expected {expected}")


def replay(rules: Rules[S, T, A, Any], setup: S, log: Iterable[LogEntry[A]]) -> T:
    """The state a log leads to; ``IllegalAction`` if any entry does not apply at its version."""
    state, _ = rules.new_game(setup)
    for entry in log:
        if entry.version != rules.version(state):
            raise IllegalAction(f"log entry made against version {entry.version}, "
                                f"state is at {rules.version(state)}", code="log_version",
                                values={"entry": entry.version, "state": rules.version(state)})
        state, _ = rules.apply(state, entry.player, entry.action)
    return state
