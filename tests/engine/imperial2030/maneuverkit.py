"""What the maneuver rules' tests share (test_rules_maneuver.py, test_rules_maneuver_canals.py): where the
maneuver decision lets a unit go, the army move an action made, the maneuver's step."""
from __future__ import annotations

from engine.imperial2030.actions import ArmyMove, FleetMove
from engine.imperial2030.events import ArmyMoved
from engine.imperial2030.model import ManeuverStep, Stance
from tests.helpers import BOARD, one, options

HOSTILE, FRIENDLY = Stance.HOSTILE, Stance.FRIENDLY

# Regions touching the Indian Ocean (board data), used by the New Delhi example.
INDIAN_OCEAN_SHORE = set(BOARD.lands_of["indianocean"])


def fleet_dests(state, origin: str) -> set[str]:
    """Where the maneuver decision lets a fleet in ``origin`` go now (R-DECIDE-1)."""
    return {a.dest for a in options(state) if isinstance(a, FleetMove) and a.origin == origin}


def army_dests(state, origin: str) -> set[str]:
    """Where the maneuver decision lets an army in ``origin`` go now (R-DECIDE-1)."""
    return {a.dest for a in options(state) if isinstance(a, ArmyMove) and a.origin == origin}


def moved(events) -> ArmyMoved:
    return one(events, ArmyMoved)


def step_of(state) -> ManeuverStep:
    assert isinstance(state.step, ManeuverStep), state.step
    return state.step


