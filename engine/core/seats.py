"""A player at the table: every game seats named players with an address."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Seat:
    """A player at the table, in seating (clockwise) order."""

    name: str
    email: str = ""
