"""Imperial 2030's moderator-side tests share ``start``: three players at the start of a seeded game."""
from __future__ import annotations

import pytest

from engine.imperial2030.model import GameState
from tests.imperialpositions import three_players


@pytest.fixture
def start() -> GameState:
    return three_players()
