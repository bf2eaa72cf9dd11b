"""The log: the truth of a game is its setup plus the accepted actions in order.

Snapshots are caches; ``replay`` rebuilds any state from the setup and the
log, and refuses a log whose entries were not made against the versions they
name (a gap or a duplicate means the log was damaged).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

A = TypeVar("A")


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
