"""The sentences of events that random games rarely raise, said by templates/imperial2030/_narration.j2.

narrate.py folds money and picks the sentence; the words are the template's (issue 28). These events read
as they did when the sentences were Python f-strings, byte for byte (but "2 armies": the plural was "armys" in the Python).
"""
from __future__ import annotations

import pytest

from engine.imperial2030.events import (
    Account,
    AccountKind,
    Event,
    FlagCardDealt,
    FlagRemoved,
    GameEnded,
    GovernmentChanged,
    InvestorCardPassed,
    MoneyMoved,
    NationSkipped,
    Reason,
    StandingChanged,
    UnitsPlaced,
)
from engine.imperial2030.model import StandingKind, StandingOrder, UnitKind
from pbem.games.imperial2030.narrate import narrate, standing_text
from pbem.games.imperial2030.sayings import say
from tests.helpers import standard_game

BOARD = standard_game().board
BANK, USA, ANN, BOB = (Account(AccountKind.BANK), Account(AccountKind.TREASURY, "usa"),
                       Account(AccountKind.CASH, "ann"), Account(AccountKind.CASH, "bob"))


@pytest.mark.parametrize(("events", "told"), [
    ([FlagRemoved("usa", "mexico", "brazil")], ["USA's flag in Mexico was removed: Brazil has no flag left to place."]),
    ([StandingChanged("ann", StandingOrder(StandingKind.ALLOW, "europe", "suez"))],
     ["ann set a standing order: always allow Europe through Suez."]),
    ([StandingChanged("ann", None)], ["ann cleared all standing orders."]),
    ([GovernmentChanged("usa", None, "ann")], ["ann forms the government of USA."]),
    ([InvestorCardPassed(None, "bob")], ["bob takes the investor card."]),
    ([NationSkipped("china")], ["China has no government and is skipped."]),
    ([FlagCardDealt("india", "cleo")], ["cleo holds the flag card of India."]),
    ([MoneyMoved(BANK, ANN, 2, Reason.STARTING_CASH), MoneyMoved(BANK, BOB, 2, Reason.STARTING_CASH)],
     ["Each player received 2 starting cash."]),
    ([MoneyMoved(BANK, ANN, 2, Reason.STARTING_CASH), MoneyMoved(BANK, BOB, 3, Reason.STARTING_CASH)],
     ["ann received 2 starting cash.", "bob received 3 starting cash."]),
    ([MoneyMoved(ANN, USA, 4, Reason.DONATION)], ["ann donated 4 to USA."]),
    ([MoneyMoved(BANK, ANN, 4, Reason.INVESTOR_CARD)], ["ann received 4 with the investor card."]),
    ([MoneyMoved(BANK, USA, 1, Reason.IMPORT)], ["The bank paid 1 to the treasury of USA (import)."]),
    ([MoneyMoved(ANN, Account(AccountKind.TREASURY, None), 1, Reason.IMPORT)],
     ["Ann paid 1 to the treasury of nobody (import)."]),
    ([MoneyMoved(USA, BANK, 3, Reason.IMPORT), UnitsPlaced("usa", UnitKind.ARMY, "newyork", 2, True),
      UnitsPlaced("usa", UnitKind.FLEET, "neworleans", 3, True), UnitsPlaced("usa", UnitKind.ARMY, "chicago", 1, True)],
     ["USA imported 2 armies in New York, 3 fleets in New Orleans and an army in Chicago (paid 3)."]),
    ([UnitsPlaced("usa", UnitKind.FLEET, "newyork", 1, False)], ["USA produced a fleet in New York."]),
    ([MoneyMoved(USA, ANN, 3, Reason.INTEREST), MoneyMoved(ANN, ANN, 1, Reason.INTEREST_SHORTFALL)],
     ["USA paid interest: 4 to ann (ann made up 1 from own cash)."]),
    ([GameEnded("a nation reached 25 power points", (("ann", 40), ("bob", 31)))],
     ["The game is over: a nation reached 25 power points. Final scores: ann 40, bob 31. ann wins."]),
])
def test_rare_events_read_as_before(events: list[Event], told: list[str]) -> None:
    assert narrate(BOARD, events) == told


def test_a_standing_order_is_told_to_its_owner_only() -> None:
    events = [StandingChanged("ann", StandingOrder(StandingKind.NO_FIGHT, None, None))]
    assert narrate(BOARD, events, viewer="ann") == ["ann set a standing order: never fight any nation."]
    assert narrate(BOARD, events, viewer="bob") == []


@pytest.mark.parametrize(("kind", "told"), [
    (StandingKind.FIGHT, "always fight every nation"),
    (StandingKind.DENY, "always deny every nation passage through the canals"),
    (StandingKind.FORCE, "force every nation to stop on Investor whenever allowed"),
    (StandingKind.NO_FORCE, "never force any nation to stop on Investor"),
])
def test_standing_orders_in_words(kind: StandingKind, told: str) -> None:
    assert standing_text(BOARD, StandingOrder(kind, None, None)) == told


@pytest.mark.parametrize(("macro", "values", "text"), [
    ("step", {"kind": "investment_round", "value": None}, "in an investment round"),
    ("step", {"kind": "action", "value": "taxation"}, "on Taxation"),
    ("game_over", {"reason": "Russia reached 25 power points"}, "The game is over: Russia reached 25 power points."),
    ("round", {"round": 3}, "Round 3."),
    ("turn", {"round": 2, "nation": "USA", "gov": None, "step": "maneuvering"},
     "Round 2: USA's turn (no government), maneuvering."),
    ("further_space", {"costs": [("RU", 2), ("CN", 3)]}, "A further space now costs: RU 2, CN 3."),
    ("further_space", {"costs": [("RU", 2), ("CN", 2)]}, "A further space now costs: 2 for every nation."),
    ("off_rondel", {"off": []}, ""),
    ("problem", {"kind": "UnknownName"}, "names something unknown here"),
    ("problem", {"kind": "RuntimeError"}, "was refused"),
    ("variants", {"variants": []}, "standard rules"),
    ("variants", {"variants": ["expert", "no investor card"]}, "variants: expert, no investor card"),
    ("bonds", {"bonds": []}, "none yet"),
    ("bonds", {"bonds": [("Russia 9", 4), ("China 2", 1)]}, "Russia 9 (interest 4), China 2 (interest 1)"),
    ("details", {"nation": "USA", "factories": [], "flags": ["Cuba", "Mexico"], "hostile": [("Mexico", 2), ("Cuba", 1)]},
     "USA: no factories; flags Cuba and Mexico; hostile armies in Mexico (2) and Cuba."),
    ("tie", {"first": "ann", "second": "bob", "score": 40, "same": ["USA", "China"], "nation": "India", "power": 12,
             "a": 9, "b": 6},
     "ann and bob both scored 40. A tie goes to the larger bond holding in the most powerful nation, then in the "
     "next (equal power in turn order). Both hold the same in USA and China. In India (12 power points) ann holds "
     "9 against 6, so ann ranks first."),
    ("tie", {"first": "ann", "second": "bob", "score": 40, "same": [], "nation": None, "power": 0, "a": 0, "b": 0},
     "ann and bob both scored 40. A tie goes to the larger bond holding in the most powerful nation, then in the "
     "next (equal power in turn order). Both hold the same in every nation, so seating order puts ann first."),
])
def test_the_view_models_words_read_as_before(macro: str, values: dict[str, object], text: str) -> None:
    """viewmodels.py's few words (whose turn, what a decision asks, the rondel's costs) are _view_words.j2's."""
    assert say("_view_words", macro, **values) == text
