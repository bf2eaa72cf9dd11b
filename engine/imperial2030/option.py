"""One legal answer to a pending decision: the action, and what choosing it costs.

A module of its own, below ``decisions``: the maneuver's listing
(``listing.maneuver_options``) builds options too, and ``maneuver`` shows
them when it refuses an order, while ``decisions`` (which gathers every
pending decision) builds on ``maneuver``.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.imperial2030.actions import Action


@dataclass(frozen=True, slots=True)
class Option:
    action: Action
    cost: int = 0  # money the choice takes from the decider's cash or the nation's treasury
    steps: int | None = None  # rondel options: spaces moved
