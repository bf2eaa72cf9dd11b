"""The codes of Eight-Minute Empire's refusals: one a sentence the engine words (``IllegalAction.code``).

The engine keeps its English sentence; the moderator says the same refusal in the player's language from the
code and its values (``templates/eight_minute_empire/_engine_reasons.j2``, one macro a code, named by the value),
so a code must never change its meaning once a sentence has it.
"""
from __future__ import annotations

from enum import StrEnum

#: The code of ``engine.core.log.replay``'s refusal of an entry made against another version (shared by games).
LOG_VERSION = "log_version"


class Refused(StrEnum):
    """One sentence each; the values each takes are named where it is raised (``engine/eight_minute_empire/game.py``)."""

    PLAYER_COUNT = "player_count"
    AGE_ORDER = "age_order"
    NEUTRAL_TWO_PLAYERS = "neutral_two_players"
    GAME_OVER = "game_over"
    NOT_A_PLAYER = "not_a_player"
    NOT_YOUR_TURN = "not_your_turn"
    NEUTRAL_FIRST = "neutral_first"
    NO_REGION = "no_region"
    BID_FIRST = "bid_first"
    BID_RANGE = "bid_range"
    TAKE_FIRST = "take_first"
    ROW_PLACES = "row_places"
    CARD_COSTS = "card_costs"
    CHOSE_OTHER = "chose_other"
    USED_UP = "used_up"
    CARD_CANNOT = "card_cannot"
    PLACE_WHERE = "place_where"
    PLACE_COUNT = "place_count"
    SUPPLY = "supply"
    MOVE_TWO_REGIONS = "move_two_regions"
    ARMIES_MOVED_AWAY = "armies_moved_away"
    NO_ARMY_TO_MOVE = "no_army_to_move"
    NOT_NEXT_TO = "not_next_to"
    MOVE_STEPS = "move_steps"
    CITY_NEEDS_ARMY = "city_needs_army"
    CITIES_BUILT = "cities_built"
    DESTROY_COUNT = "destroy_count"
    NO_ARMY_OF = "no_army_of"
