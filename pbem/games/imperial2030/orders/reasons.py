"""Why an order is refused, as a typed reason: the words are the template's (``templates/imperial2030/_refusals.j2``).

The order layer raises with a ``Why`` (a ``Reason`` and its values) rather than with a sentence, so that a
refusal can be said in the player's language while the code that refuses keeps to what went wrong; a
translation catalogue finds the sentences in the template, one macro a reason.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pbem.games.imperial2030.sayings import say

TEMPLATE = "_refusals"


class Reason(StrEnum):
    """One macro of ``_refusals.j2`` each; the values each takes are named on the macro's line."""

    WHICH_SPACE = "which_space"
    WHICH_CITY = "which_city"
    IMPORT_COUNT = "import_count"
    ARMY_OR_FLEET = "army_or_fleet"
    WHERE_UNIT = "where_unit"
    LIST_ENDS = "list_ends"
    EMPTY_ITEM = "empty_item"
    WHICH_NATION = "which_nation"
    BUY_PARTS = "buy_parts"
    UPGRADE_PARTS = "upgrade_parts"
    DONATE_PARTS = "donate_parts"
    FROM_AND_TO = "from_and_to"
    FROM_WHERE = "from_where"
    TO_WHERE = "to_where"
    NOT_A_WORD = "not_a_word"
    WRITTEN_TWICE = "written_twice"
    ATTACK_WHICH = "attack_which"
    FLEET_ATTACKS_FLEETS = "fleet_attacks_fleets"
    ONE_STANCE = "one_stance"
    TAKES_NOTHING = "takes_nothing"
    VIA_WHICH = "via_which"
    ATTACK_WHOM = "attack_whom"
    WHICH_REGION = "which_region"
    WHICH_FACTORY = "which_factory"
    WHICH_STANDING = "which_standing"
    NOT_STANDING = "not_standing"
    HISTORY_COUNT = "history_count"
    NOT_YET = "not_yet"
    ASKS_REPORT = "asks_report"
    NAME_MISSING = "name_missing"
    SAME_SPELLING = "same_spelling"
    WRITE_MORE = "write_more"
    NAMES_NO = "names_no"
    ONE_SPACE = "one_space"
    ONLY_ONE_SPACE = "only_one_space"
    EMPTY_ORDER = "empty_order"
    KEYWORD_COULD_BE = "keyword_could_be"
    NOT_AN_ORDER = "not_an_order"
    NO_ORDERS = "no_orders"


@dataclass(frozen=True, slots=True)
class Why:
    """A reason and its values; ``usage`` (an order's canonical form) adds "Write: <usage>." to the sentence."""

    reason: Reason
    values: dict[str, Any] = field(default_factory=dict)
    usage: str | None = None

    @property
    def text(self) -> str:
        """The reason as the player reads it."""
        said = say(TEMPLATE, self.reason.value, **self.values)
        return said if self.usage is None else f"{said} {say(TEMPLATE, 'write', usage=self.usage)}"


def why(reason: Reason, **values: Any) -> Why:
    """``Why(reason, values)`` written as a call: ``why(Reason.IMPORT_COUNT, count=12)``."""
    return Why(reason, values)


class Among(StrEnum):
    """The kinds of ``noun`` in ``_refusals.j2``: what a typed name was looked for among."""

    NATION = "nation"
    REGION = "region"
    SEA = "sea"
    CANAL = "canal"
    UNIT_KIND = "unit_kind"
    RONDEL_SPACE = "rondel_space"
    HOME_CITY = "home_city"  # of a nation, as are the four below
    HOME_PROVINCE = "home_province"
    OWN_ARMY = "own_army"
    OWN_FLEET = "own_fleet"
    OWN_UNIT = "own_unit"
    OWN_SEA = "own_sea"
    FLEET_REACH = "fleet_reach"  # of a region: where a fleet there can go, as for an army below
    ARMY_REACH = "army_reach"


@dataclass(frozen=True, slots=True)
class Noun:
    """What a typed name was looked for among ("home city of Russia"): its kind and the name of the nation or
    region it belongs to; a refusal says it, so a name is never looked for among words the template lacks."""

    kind: Among
    of: str = ""
