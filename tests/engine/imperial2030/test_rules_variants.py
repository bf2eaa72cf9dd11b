"""Rules section 7: the variant without investor card (R-NOCARD-1), and variants combined.

(The expert setup, R-SETUP-7, is in test_rules_setup.py; the tax-increase bonus,
R-TAX-5, in test_rules_taxation.py.)
"""
from __future__ import annotations

import pytest

from engine.imperial2030.actions import BuyBond, ForceStop, Pass, UpgradeBond
from engine.imperial2030.decisions import DecisionKind
from engine.imperial2030.errors import NotYourDecision
from engine.imperial2030.events import GovernmentChanged, InvestorCardPassed, Reason
from engine.imperial2030.model import (
    ForceStopStep,
    InvestStep,
    RondelStep,
    SetupBondsStep,
    Variant,
)
from tests.helpers import (
    FACTORY,
    IMPORT,
    INVESTOR,
    MANEUVER_1,
    MANEUVER_2,
    NAMES,
    NATIONS,
    decider,
    decision,
    move_to,
    new,
    of_type,
    options,
    paid,
    paid_to,
    play,
    refused,
    standard_game,
    swiss_bank,
    turn_of,
    with_cash,
)

NO_CARD = [Variant.NO_INVESTOR_CARD]


def no_card_game(cash: int = 20):
    """Six players, standard deal, no investor card; everybody has ``cash``."""
    return with_cash(standard_game(NO_CARD), **dict.fromkeys(NAMES, cash))


def asked_in_round(state):
    """Pass round the table; who was asked, and for which nation."""
    asked = []
    while isinstance(state.step, InvestStep):
        d = decision(state)
        asked.append((d.player, d.nation))
        state, _ = play(state, Pass())
    return asked, state


def test_r_nocard_1_the_investor_card_is_not_used():
    """R-NOCARD-1: "remove the investor card from the game"."""
    assert standard_game(NO_CARD).investor_card is None


def test_r_nocard_1_after_a_turn_its_government_then_everybody_clockwise_may_invest():
    """R-NOCARD-1: "after China has taken its turn, its government may invest in China. Then
    all other players may invest in China, starting with the player left of China's government
    and going clockwise. Then India takes its turn." (here: Russia, governed by Anna)"""
    state, _ = move_to(no_card_game(), MANEUVER_1)
    assert decision(state).kind is DecisionKind.INVESTMENT
    asked, state = asked_in_round(state)
    assert asked == [(p, "russia") for p in ("Anna", "Ben", "Cleo", "Dan", "Eva", "Finn")]
    assert state.turn.nation == "china" and isinstance(state.step, RondelStep)


def test_r_nocard_1_the_round_starts_with_the_government_wherever_it_sits():
    """R-NOCARD-1: after China's turn Ben invests first, Anna last."""
    state = turn_of(no_card_game(), "china")
    state, _ = move_to(state, MANEUVER_1)
    asked, _ = asked_in_round(state)
    assert [p for p, _ in asked] == ["Ben", "Cleo", "Dan", "Eva", "Finn", "Anna"]
    assert {n for _, n in asked} == {"china"}


def test_r_nocard_1_only_the_nation_that_just_played_can_be_invested_in():
    """R-NOCARD-1: the round after Russia's turn is an investment in Russia."""
    state, _ = move_to(no_card_game(), MANEUVER_1)
    assert {a.nation for a in options(state) if isinstance(a, BuyBond | UpgradeBond)} == {"russia"}
    error = refused(state, BuyBond("china", 4))
    assert "Russia" in error.reason


def test_r_nocard_1_one_investment_per_player_and_round():
    """R-NOCARD-1 with R-INVEST-5: Anna invests once, then Ben is asked."""
    state, _ = move_to(no_card_game(), MANEUVER_1)
    state, events = play(state, BuyBond("russia", 4))
    assert paid_to(events, Reason.BOND, "russia") == 4
    assert decider(state) == "Ben"
    with pytest.raises(NotYourDecision):
        play(state, BuyBond("russia", 6), "Anna")


def test_r_nocard_1_decision_a_swiss_bank_may_invest_in_any_nation_instead():
    """R-NOCARD-1: "players holding a Swiss bank may invest once in any nation of their
    choice" -- Decision: when their turn in the round comes."""
    state = swiss_bank(no_card_game(), "Dan", "Cleo")
    state, _ = move_to(state, MANEUVER_1)
    asked, _ = asked_in_round(state)
    assert ("Dan", None) in asked
    assert [p for p, _ in asked] == ["Anna", "Ben", "Cleo", "Dan", "Eva", "Finn"]
    while decider(state) != "Dan":
        state, _ = play(state, Pass())
    assert {a.nation for a in options(state) if isinstance(a, BuyBond)} == set(NATIONS)
    state, events = play(state, BuyBond("india", 6))
    assert paid_to(events, Reason.BOND, "india") == 6


def test_r_nocard_1_stopping_on_investor_pays_interest_only():
    """R-NOCARD-1: "on the Investor space only interest is paid": no 2 million for anybody;
    the usual round for the nation follows."""
    state, events = move_to(no_card_game(), INVESTOR)
    assert paid(events, Reason.INTEREST) == 5
    assert paid(events, Reason.INVESTOR_CARD) == 0
    assert of_type(events, InvestorCardPassed) == []
    assert decision(state).player == "Anna" and decision(state).nation == "russia"


def test_r_nocard_1_passing_investor_does_nothing():
    """R-NOCARD-1: "passing the space no longer has any special effect"."""
    state = turn_of(no_card_game(), "russia", rondel=MANEUVER_1)
    state, events = move_to(state, MANEUVER_2)
    assert paid(events, Reason.INVESTOR_CARD) == 0 and paid(events, Reason.INTEREST) == 0
    asked, _ = asked_in_round(state)
    assert {n for _, n in asked} == {"russia"}  # the ordinary round only


def test_r_nocard_1_governments_change_after_the_round():
    """R-NOCARD-1 with R-INVEST-6: Ben's Russia 12 beats Anna's 9 once the round is over."""
    state, _ = move_to(no_card_game(), MANEUVER_1)
    state, _ = play(state, Pass())  # Anna
    state, events = play(state, BuyBond("russia", 12))  # Ben
    assert of_type(events, GovernmentChanged) == []
    for _ in range(4):
        state, events = play(state, Pass())
    assert GovernmentChanged("russia", "Anna", "Ben") in events
    assert state.nations["russia"].government == "Ben"


def test_r_nocard_1_a_nation_without_bonds_is_offered_after_the_previous_nations_turn():
    """R-NOCARD-1: "if no bond of a nation was chosen at the start, its bonds may be chosen
    directly after the turn of the previous nation; the previous nation's government is the
    first to invest". 4 players, Russia and USA undealt: Russia has no bond; Europe (Dan)
    precedes it in turn order."""
    deal = {"china": "Anna", "india": "Ben", "brazil": "Cleo", "europe": "Dan"}
    state, _ = new(NAMES[:4], deal, variants=NO_CARD)
    state = with_cash(state, Anna=20, Ben=20, Cleo=20, Dan=20)
    state = turn_of(state, "europe")
    state, _ = move_to(state, MANEUVER_1)
    asked, _ = asked_in_round(state)
    assert asked == [("Dan", "europe"), ("Anna", "europe"), ("Ben", "europe"), ("Cleo", "europe"),
                     ("Dan", "russia"), ("Anna", "russia"), ("Ben", "russia"), ("Cleo", "russia")]


def test_r_nocard_1_the_first_buyer_of_a_nation_without_bonds_governs_it():
    """R-NOCARD-1 with R-INVEST-6: Dan buys Russia 6 after Europe's turn and governs Russia,
    which then plays its turn."""
    deal = {"china": "Anna", "india": "Ben", "brazil": "Cleo", "europe": "Dan"}
    state, _ = new(NAMES[:4], deal, variants=NO_CARD)
    state = with_cash(turn_of(state, "europe"), Anna=20, Ben=20, Cleo=20, Dan=20)
    state, _ = move_to(state, MANEUVER_1)
    for _ in range(4):  # the Europe round
        state, _ = play(state, Pass())
    assert decision(state).nation == "russia" and decider(state) == "Dan"
    state, _ = play(state, BuyBond("russia", 6))
    for _ in range(3):
        state, events = play(state, Pass())
    assert GovernmentChanged("russia", None, "Dan") in events
    assert state.turn.nation == "russia" and decider(state) == "Dan"


def test_r_nocard_1_with_r_rondel_5_swiss_banks_may_still_force_a_stop():
    """R-NOCARD-1 with R-RONDEL-5: stopping on Investor still pays interest, so a Swiss bank
    may still force it; engine decision (flow.force_stop_askers): without a card the asking
    starts left of the moving nation's government."""
    state = swiss_bank(swiss_bank(no_card_game(), "Dan", "Cleo"), "Ben", "Cleo")
    state = turn_of(state, "russia", rondel=FACTORY)
    state, _ = move_to(state, IMPORT)
    assert isinstance(state.step, ForceStopStep)
    assert decider(state) == "Ben"  # left of Anna
    state, _ = play(state, ForceStop(True))
    assert state.nations["russia"].rondel == INVESTOR


def test_r_nocard_1_with_r_setup_7_expert_setup_without_investor_card():
    """R-NOCARD-1 with R-SETUP-7: the variants combine; after the expert selection no one holds
    the investor card."""
    state, _ = new(NAMES[:3], variants=[Variant.EXPERT, Variant.NO_INVESTOR_CARD], start_player="Anna")
    state, _ = play(state, BuyBond("russia", 9))
    while isinstance(state.step, SetupBondsStep):
        state, _ = play(state, Pass())
    assert state.investor_card is None
    assert state.turn.nation == "russia" and decider(state) == "Anna"


def test_r_tax_5_with_r_nocard_1_variants_combine():
    """R-TAX-5 with R-NOCARD-1: "the variants can be used alone or together"."""
    state = standard_game([Variant.NO_INVESTOR_CARD, Variant.TAX_INCREASE_BONUS])
    state = turn_of(state, "russia", flags=["korea", "japan", "mongolia", "iran"])
    state, events = move_to(state, "taxation")  # income 8: 0-5 -> 8 is 2 columns
    assert paid(events, Reason.BONUS) == 2
    assert isinstance(state.step, InvestStep) and decision(state).nation == "russia"
