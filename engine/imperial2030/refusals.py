"""The codes of Imperial 2030's refusals: one a sentence the engine words (``IllegalAction.code``).

The engine keeps its English sentence; the moderator says the same refusal in the player's language from the
code and its values (``templates/imperial2030/_engine_reasons.j2``, one macro a code, named by the value). The
values are ids and numbers, never names: the moderator names them as its views do.
"""
from __future__ import annotations

from enum import StrEnum

#: The code of a log replay's refusal of an entry made against another version (shared by games).
LOG_VERSION = "log_version"


class Refused(StrEnum):
    """One sentence each (a unit kind's sentences are one code: the template words each kind)."""

    NOT_RONDEL_SPACE = "not_rondel_space"
    MARKER_STAYS = "marker_stays"
    TOO_FAR = "too_far"
    MOVE_COSTS = "move_costs"
    INVESTOR_INTEREST = "investor_interest"
    GAME_OVER = "game_over"
    NOT_A_PLAYER = "not_a_player"
    NOT_YOURS = "not_yours"
    WRONG_KIND = "wrong_kind"
    DONATE_NOT_GOVERNED = "donate_not_governed"
    GOVERN_NONE = "govern_none"
    DONATE_RANGE = "donate_range"
    LOG_VERSION = "log_version"
    NOT_A_NATION = "not_a_nation"
    NOT_A_CANAL = "not_a_canal"
    INVESTMENT_ONLY = "investment_only"
    ONLY_NATION = "only_nation"
    BOND_NOT_IN_STOCK = "bond_not_in_stock"
    NO_BOND_HELD = "no_bond_held"
    UPGRADE_HIGHER = "upgrade_higher"
    UPGRADE_COSTS = "upgrade_costs"
    BOND_COSTS = "bond_costs"
    SETUP_BOND = "setup_bond"
    NOT_ON_MAP = "not_on_map"
    NOT_HOME_CITY = "not_home_city"
    HAS_FACTORY = "has_factory"
    HOSTILE_ARMY = "hostile_army"
    TREASURY_SHORT = "treasury_short"
    ONE_UNIT_EACH = "one_unit_each"
    NO_FACTORY_PRODUCES = "no_factory_produces"
    NO_SUPPLY = "no_supply"
    IMPORT_MAX = "import_max"
    IMPORT_COSTS = "import_costs"
    IMPORT_SUPPLY = "import_supply"
    NOT_HOME_PROVINCE = "not_home_province"
    NO_PORT = "no_port"
    MANEUVER_ORDERS = "maneuver_orders"
    CANAL_QUESTION = "canal_question"
    FIGHT_QUESTION = "fight_question"
    QUESTION_FOR = "question_for"
    CANNOT_FIGHT = "cannot_fight"
    FLEETS_FIRST = "fleets_first"
    NO_FLEET_MOVES = "no_fleet_moves"
    FLEET_CANNOT_REACH = "fleet_cannot_reach"
    NO_ARMY_MOVES = "no_army_moves"
    ARMY_CANNOT_GO = "army_cannot_go"
    NO_CONVOY = "no_convoy"
    ARMY_CANNOT_REACH = "army_cannot_reach"
    SAY_STANCE = "say_stance"
    NOT_OTHER_NATION = "not_other_nation"
    SEA_FLEETS_ONLY = "sea_fleets_only"
    NO_TARGET = "no_target"
    NO_UNIT_STILL = "no_unit_still"
    NO_FACTORY_DESTROY = "no_factory_destroy"
