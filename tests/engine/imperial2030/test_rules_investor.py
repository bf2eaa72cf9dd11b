"""Rules section 4, Investor: interest, the investor card, Swiss banks, investments,
governments (R-INVEST-1..8) and the FAQ answers on investing."""
from __future__ import annotations

import pytest

from engine.imperial2030.actions import (
    BuyBond,
    ChooseSpace,
    ForceStop,
    Pass,
    UpgradeBond,
)
from engine.imperial2030.decisions import DecisionKind
from engine.imperial2030.events import (
    BondBought,
    BondUpgraded,
    GovernmentChanged,
    InvestmentPassed,
    InvestorCardPassed,
    MoneyMoved,
    Reason,
)
from engine.imperial2030.model import Bond, ForceStopStep, InvestStep, RondelStep
from tests.helpers import (
    IMPORT,
    INVESTOR,
    MANEUVER_1,
    MANEUVER_2,
    NATIONS,
    TAXATION,
    decider,
    decision,
    governments,
    move_to,
    of_type,
    one,
    options,
    paid,
    paid_by,
    paid_to,
    play,
    play_all,
    refused,
    standard_game,
    swiss_bank,
    turn_of,
    with_bonds,
    with_cash,
)


def russia_at(space: str, state=None, **fields):
    """Russia (Anna) to move, its marker on ``space``; investor card with Ben."""
    return turn_of(state or standard_game(), "russia", rondel=space, **fields)


def investing(state=None, **cash):
    """Russia stops on Investor (interest paid); now the investor card holder Ben is asked."""
    state = with_cash(russia_at(MANEUVER_1, state), **cash)
    state, _ = move_to(state, INVESTOR)
    assert isinstance(state.step, InvestStep)
    return state


def without_government(state, *players):
    """Hand the nations of ``players`` (with their bonds there) to Cleo: they hold Swiss banks."""
    for player in players:
        state = swiss_bank(state, player, "Cleo")
    return state


# =========================================================================== R-INVEST-1: interest


def test_r_invest_1_stopping_on_investor_pays_every_bond_holder_from_the_treasury():
    """R-INVEST-1: "every player holding bonds of the nation receives interest from its
    treasury": Anna's Russia 9 pays 4, Eva's Russia 2 pays 1."""
    state = russia_at(MANEUVER_1)
    after, events = move_to(state, INVESTOR)
    assert paid_to(events, Reason.INTEREST, "Anna") == 4
    assert paid_to(events, Reason.INTEREST, "Eva") == 1
    assert paid_by(events, Reason.INTEREST, "russia") == 5
    assert after.nations["russia"].treasury == 11 - 5
    assert paid(events, Reason.INTEREST_SHORTFALL) == 0


def test_r_invest_1_a_first_placement_on_investor_is_a_stop():
    """R-INVEST-1 with R-RONDEL-2: placing the marker on Investor stops it there."""
    _, events = move_to(standard_game(), INVESTOR)
    assert paid(events, Reason.INTEREST) == 5


def shortfall_position(treasury: int, anna_cash: int):
    """Russia owes Eva 1 (Russia 2), Ben 5 (Russia 12) and its government Anna 4 (Russia 9)."""
    state = with_bonds(standard_game(), "Ben", ("china", 9), ("usa", 2), ("russia", 12))
    return with_cash(russia_at(MANEUVER_1, state, treasury=treasury), Anna=anna_cash)


def test_r_invest_1_shortfall_the_government_gives_up_its_interest_and_pays_the_rest():
    """R-INVEST-1: "if the treasury cannot pay all interest, the government must give up its
    own interest, in whole or in part, and if necessary pay the rest out of its own pocket".
    Treasury 3, owed to others 6: Anna gets nothing and pays 3 from her cash."""
    after, events = move_to(shortfall_position(treasury=3, anna_cash=10), INVESTOR)
    assert paid_to(events, Reason.INTEREST, "Anna") == 0
    assert paid_to(events, Reason.INTEREST, "Ben") + paid_to(events, Reason.INTEREST_SHORTFALL, "Ben") == 5
    assert paid_to(events, Reason.INTEREST, "Eva") + paid_to(events, Reason.INTEREST_SHORTFALL, "Eva") == 1
    assert paid_by(events, Reason.INTEREST_SHORTFALL, "Anna") == 3
    assert after.nations["russia"].treasury == 0
    assert after.players["Anna"].cash == 7


def test_r_invest_1_shortfall_the_government_gives_up_its_interest_in_part():
    """R-INVEST-1: treasury 8, owed to others 6 and to Anna 4: the others are paid in full,
    Anna receives the 2 that are left and pays nothing."""
    after, events = move_to(shortfall_position(treasury=8, anna_cash=10), INVESTOR)
    assert paid_to(events, Reason.INTEREST, "Ben") == 5
    assert paid_to(events, Reason.INTEREST, "Eva") == 1
    assert paid_to(events, Reason.INTEREST, "Anna") == 2
    assert paid(events, Reason.INTEREST_SHORTFALL) == 0
    assert after.nations["russia"].treasury == 0


def test_r_invest_1_decision_a_government_that_cannot_cover_may_not_stop_on_investor():
    """R-INVEST-1 Decision (Polish edition: "if he does not have enough money, he may not
    choose the Investor action"): treasury 3 + cash 2 < 6 owed to the others."""
    state = shortfall_position(treasury=3, anna_cash=2)
    assert ChooseSpace(INVESTOR) not in options(state)
    error = refused(state, ChooseSpace(INVESTOR))
    assert "interest" in error.reason
    state = shortfall_position(treasury=3, anna_cash=3)  # 3 + 3 = 6: just enough
    assert ChooseSpace(INVESTOR) in options(state)


def test_r_invest_1_decision_the_move_to_investor_is_paid_before_the_interest():
    """R-INVEST-1 Decision with R-RONDEL-3: from Taxation Investor is 4 spaces (cost 1), so
    Anna needs 1 more: treasury 3 + cash 3 - 1 < 6, but cash 4 is enough."""
    state = with_bonds(standard_game(), "Ben", ("china", 9), ("usa", 2), ("russia", 12))
    state = russia_at(TAXATION, state, treasury=3)
    assert ChooseSpace(INVESTOR) not in options(with_cash(state, Anna=3))
    assert ChooseSpace(INVESTOR) in options(with_cash(state, Anna=4))


def test_r_invest_1_passing_investor_pays_no_interest():
    """R-INVEST-1: interest only "when the marker STOPS on Investor"."""
    _, events = move_to(russia_at(MANEUVER_1), IMPORT)
    assert paid(events, Reason.INTEREST) == 0


# =========================================================================== R-INVEST-2/3: the card


def test_r_invest_2_after_the_interest_come_the_investor_steps():
    """R-INVEST-2: "then, whether the marker stopped on or passed Investor" the card holder
    acts: interest first, then the 2 million for the card holder."""
    _, events = move_to(russia_at(MANEUVER_1), INVESTOR)
    money = [e for e in events if isinstance(e, MoneyMoved)]
    reasons = [e.reason for e in money]
    assert reasons.index(Reason.INVESTOR_CARD) > max(i for i, r in enumerate(reasons) if r is Reason.INTEREST)


def test_r_invest_3_the_card_holder_takes_2_from_the_bank_and_may_invest_anywhere():
    """R-INVEST-3: "the investor card holder receives 2 million from the bank, which he may
    invest in any nation"."""
    state, events = move_to(russia_at(MANEUVER_1), INVESTOR)
    [card] = [e for e in events if isinstance(e, MoneyMoved) and e.reason is Reason.INVESTOR_CARD]
    assert card.source.kind.value == "bank" and card.target.owner == "Ben" and card.amount == 2
    d = decision(state)
    assert (d.player, d.kind, d.nation, d.default) == ("Ben", DecisionKind.INVESTMENT, None, Pass())
    assert state.players["Ben"].cash == 4
    bought = {a.nation for a in options(state) if isinstance(a, BuyBond)}
    assert bought == set(NATIONS)  # a 4 bond is in every stock


def test_r_invest_3_the_card_holder_may_pass():
    """R-INVEST-5: "a player may pass"; he keeps the 2 million."""
    state, events = play(investing(), Pass())
    assert one(events, InvestmentPassed) == InvestmentPassed("Ben")
    assert state.players["Ben"].cash == 4


# =========================================================================== R-INVEST-5: investments


def test_r_invest_5_buying_a_bond_pays_its_full_value_into_that_treasury():
    """R-INVEST-5: "a new bond is paid in full into the treasury concerned"."""
    state = investing(Ben=10)  # 12 with the card's 2
    after, events = play(state, BuyBond("india", 12))
    assert one(events, BondBought) == BondBought("Ben", "india", 12)
    assert paid_to(events, Reason.BOND, "india") == 12
    assert after.nations["india"].treasury == 11 + 12
    assert after.players["Ben"].cash == 0
    assert Bond("india", 12) in after.players["Ben"].bonds
    assert 12 not in after.bonds_available("india")


def test_r_invest_5_rulebook_example_upgrading_china_4_to_12_costs_8():
    """R-INVEST-5, rulebook example: "a player returns a Chinese 4 million bond and takes a
    12 million one from the stock. He pays the difference of 8 million to China's treasury." """
    state = with_bonds(standard_game(), "Ben", ("china", 4), ("usa", 2))
    state = investing(state, Ben=6)  # 8 with the card's 2
    assert UpgradeBond("china", 4, 12) in options(state)
    assert [o.cost for o in decision(state).options if o.action == UpgradeBond("china", 4, 12)] == [8]
    china_before = state.nations["china"].treasury
    after, events = play(state, UpgradeBond("china", 4, 12))
    assert one(events, BondUpgraded) == BondUpgraded("Ben", "china", 4, 12)
    assert paid_to(events, Reason.UPGRADE, "china") == 8
    assert after.nations["china"].treasury == china_before + 8
    assert after.players["Ben"].cash == 0
    assert sorted(after.players["Ben"].bonds) == [Bond("china", 12), Bond("usa", 2)]
    assert 4 in after.bonds_available("china")  # the returned bond goes back to the stock


def test_r_invest_5_faq_bonds_are_returned_only_by_upgrading_to_a_higher_one():
    """R-INVEST-5, FAQ: "Can bonds be returned? Only when the player takes a new, higher bond
    of the same nation." Downgrades, equal swaps and bonds in another's hands are refused."""
    state = investing(Ben=30)
    assert all(a.new > a.old for a in options(state) if isinstance(a, UpgradeBond))
    assert "higher" in refused(state, UpgradeBond("china", 9, 6)).reason
    assert "not in stock" in refused(state, UpgradeBond("china", 9, 2)).reason  # Dan holds China 2
    assert "no China 4" in refused(state, UpgradeBond("china", 4, 6)).reason
    assert refused(state, UpgradeBond("china", 9, 9)).reason


def test_r_invest_5_only_bonds_still_in_stock_can_be_bought():
    """R-INVEST-5: "one bond still available in a nation's stock": Anna holds Russia 9."""
    error = refused(investing(Ben=30), BuyBond("russia", 9))
    assert "not in stock" in error.reason
    assert "pass" in error.legal


def test_r_invest_5_a_bond_must_be_paid_for():
    """R-INVEST-5: the price comes from the player's own cash: 4 in hand buys no 6."""
    state = investing()
    assert BuyBond("india", 6) not in options(state)
    assert "costs 6" in refused(state, BuyBond("india", 6)).reason


def test_r_invest_5_a_player_never_invests_twice_in_one_round():
    """R-INVEST-5: "a player may never invest twice in one investor round": once Ben has
    invested, the round is over for him (here nobody else invests, the card moves on)."""
    state, events = play(investing(Ben=30), BuyBond("india", 4))
    assert not isinstance(state.step, InvestStep)
    assert state.turn.nation == "china" and decider(state) == "Ben"  # Ben governs China
    error = refused(state, BuyBond("india", 6), "Ben")
    assert "rondel" in error.reason
    assert not any(isinstance(a, BuyBond) for a in options(state))


def test_r_invest_5_faq_the_card_holder_with_a_swiss_bank_invests_only_once():
    """R-INVEST-5, FAQ: "Can an investor invest twice if he also has a Swiss bank? No. If a
    player uses the investor card he cannot also use the Swiss bank to invest a second time."""
    state = without_government(standard_game(), "Ben", "Dan")
    assert state.has_swiss_bank("Ben") and state.investor_card == "Ben"
    state = investing(state, Ben=30, Dan=30)
    assert state.step.queue[0].player == "Ben"
    assert [slot.player for slot in state.step.queue] == ["Ben", "Dan"]
    state, _ = play(state, BuyBond("india", 4))  # Ben, as card holder
    assert decider(state) == "Dan"
    state, events = play(state, BuyBond("india", 6))
    assert isinstance(state.step, RondelStep)  # Ben is not asked again
    assert one(events, InvestorCardPassed).new == "Cleo"


# =========================================================================== R-INVEST-4: Swiss banks


def test_r_invest_4_swiss_banks_invest_after_the_card_in_seat_order_without_the_2():
    """R-INVEST-4: "a Swiss bank holder who does not hold the investor card may also invest,
    like the card holder but without receiving 2 million; several do so clockwise starting
    from the player holding the investor card"."""
    state = without_government(standard_game(), "Dan", "Finn", "Anna")  # Cleo governs Russia now
    state = with_cash(state, Dan=5, Finn=5, Anna=5)
    state, events = move_to(russia_at(MANEUVER_1, state), INVESTOR)
    assert [slot.player for slot in state.step.queue] == ["Ben", "Dan", "Finn", "Anna"]
    assert paid(events, Reason.INVESTOR_CARD) == 2 == paid_to(events, Reason.INVESTOR_CARD, "Ben")
    asked = []
    while isinstance(state.step, InvestStep):
        asked.append(decider(state))
        assert decision(state).nation is None  # any nation
        state, events = play(state, Pass())
    assert asked == ["Ben", "Dan", "Finn", "Anna"]
    assert [state.players[p].cash for p in ("Dan", "Finn", "Anna")] == [5, 5, 5]


def test_r_invest_4_swiss_banks_invest_also_when_investor_is_passed():
    """R-INVEST-4 with R-RONDEL-4: passing Investor (nobody forcing) lets the Swiss banks invest."""
    state = with_cash(without_government(standard_game(), "Dan"), Dan=5)
    state, _ = move_to(russia_at(MANEUVER_1, state), IMPORT)
    state, _ = play(state, ForceStop(False))  # Dan's force question first (R-RONDEL-5)
    state, _ = play(state, Pass())  # Import nothing
    assert [slot.player for slot in state.step.queue] == ["Ben", "Dan"]


def test_r_invest_4_players_who_govern_are_not_swiss_banks():
    """R-INVEST-4/7: only the card holder and players governing nothing invest."""
    state = investing(Anna=30, Cleo=30, Dan=30, Eva=30, Finn=30)
    assert [slot.player for slot in state.step.queue] == ["Ben"]


# =========================================================================== R-INVEST-6: governments


def test_r_invest_6_a_player_with_strictly_more_takes_the_government():
    """R-INVEST-6: "if a player now holds more bonds of a nation than its government, he takes
    over": Ben's Russia 12 beats Anna's Russia 9."""
    state, events = play(investing(Ben=10), BuyBond("russia", 12))
    assert GovernmentChanged("russia", "Anna", "Ben") in events
    assert state.nations["russia"].government == "Ben"


def test_r_invest_6_a_tie_does_not_change_the_government():
    """R-INVEST-6: "(a tie is not enough)": Anna 6, Ben 2 + 4 = 6 -> Anna keeps Russia."""
    state = with_bonds(standard_game(), "Anna", ("russia", 6), ("europe", 2))
    state = with_bonds(state, "Eva", ("usa", 9))
    state = with_bonds(state, "Ben", ("china", 9), ("usa", 2), ("russia", 2))
    state, events = play(investing(state, Ben=10), BuyBond("russia", 4))
    assert of_type(events, GovernmentChanged) == []
    assert state.nations["russia"].government == "Anna"


@pytest.mark.parametrize(("card_holder", "winner"), [("Ben", "Ben"), ("Dan", "Dan")])
def test_r_invest_6_several_tied_above_the_government_first_from_the_card_holder(card_holder, winner):
    """R-INVEST-6: "if several players at once hold the most bonds, the first in seating order
    counting from the investor card holder takes the government". Ben (4 + 12) and Dan (16)
    both have 16 of Russia against Anna's 9."""
    state = without_government(standard_game(), "Ben", "Dan")
    state = with_bonds(state, "Ben", ("russia", 4))
    state.investor_card = card_holder
    state = investing(state, Ben=12, Dan=16)  # the card holder gets 2 more
    buys = {"Ben": BuyBond("russia", 12), "Dan": BuyBond("russia", 16)}
    while isinstance(state.step, InvestStep):
        state, events = play(state, buys[decider(state)])
    assert one(events, GovernmentChanged) == GovernmentChanged("russia", "Anna", winner)


def test_r_invest_6_upgrades_count_like_purchases():
    """R-INVEST-6: the total value of a player's bonds decides: Eva's Russia 2 -> 12 beats 9."""
    state = without_government(standard_game(), "Ben")
    state.investor_card = "Eva"
    state, events = play_all(investing(state, Eva=8), UpgradeBond("russia", 2, 12), Pass())  # Ben passes
    assert GovernmentChanged("russia", "Anna", "Eva") in events


# =========================================================================== R-INVEST-7: Swiss bank


def test_r_invest_7_a_player_who_loses_his_only_government_holds_a_swiss_bank():
    """R-INVEST-7: "a player governing no nation receives a Swiss bank ... until he governs
    a nation again"."""
    state, _ = play(investing(Ben=10), BuyBond("russia", 12))
    assert state.has_swiss_bank("Anna")
    assert not state.has_swiss_bank("Ben")
    state = governments(state, russia="Anna")
    assert not state.has_swiss_bank("Anna")


def test_r_invest_7_the_new_swiss_bank_is_asked_to_force_a_stop():
    """R-INVEST-7 with R-RONDEL-5: Anna, who lost Russia, may force China onto Investor."""
    state, _ = play(investing(Ben=10), BuyBond("russia", 12))
    assert state.turn.nation == "china"
    state, _ = move_to(state, INVESTOR)  # China's first placement: no force question
    state = turn_of(state, "china", rondel=MANEUVER_1)
    state, _ = move_to(state, MANEUVER_2)
    assert isinstance(state.step, ForceStopStep) and decider(state) == "Anna"


# =========================================================================== R-INVEST-8


def test_r_invest_8_the_investor_card_passes_clockwise():
    """R-INVEST-8: "finally the investor card passes clockwise to the next player"."""
    state, events = play(investing(), Pass())
    assert one(events, InvestorCardPassed) == InvestorCardPassed("Ben", "Cleo")
    assert state.investor_card == "Cleo"


def test_r_invest_8_the_card_passes_from_the_last_seat_to_the_first():
    """R-INVEST-8: after Finn comes Anna."""
    state = standard_game()
    state.investor_card = "Finn"
    state, events = play(investing(state), Pass())
    assert state.investor_card == "Anna"


def test_r_invest_8_the_card_passes_even_when_nobody_can_invest():
    """R-INVEST-8 with R-INVEST-3: Ben holds only China 9 and, with the card's 2, has 2 in
    hand: every 2 bond is sold and 9 -> 12 costs 3, so he cannot invest and is not asked;
    he keeps the 2 and the card still moves on."""
    state = with_bonds(standard_game(), "Ben", ("china", 9))
    state = with_bonds(state, "Eva", ("russia", 2), ("usa", 2), ("usa", 9))
    state = with_cash(russia_at(MANEUVER_1, state), Ben=0)
    state, events = move_to(state, INVESTOR)
    assert paid_to(events, Reason.INVESTOR_CARD, "Ben") == 2
    assert of_type(events, InvestmentPassed) == []
    assert one(events, InvestorCardPassed) == InvestorCardPassed("Ben", "Cleo")
    assert state.turn.nation == "china"


def test_r_invest_3_after_investing_the_next_nation_moves():
    """R-INVEST-3..8: once the investors are done, the next nation in turn order plays."""
    state, _ = play_all(investing(Ben=10), BuyBond("india", 4))
    assert state.turn.nation == "china" and isinstance(state.step, RondelStep)
    assert decider(state) == "Ben"


def test_r_invest_1_the_stop_happens_also_from_far_away():
    """R-INVEST-1: a paid move onto Investor (Taxation -> Investor, 4 spaces) pays interest."""
    state = with_cash(russia_at(TAXATION), Anna=5)
    after, events = move_to(state, INVESTOR)
    assert paid_by(events, Reason.RONDEL, "Anna") == 1
    assert paid(events, Reason.INTEREST) == 5


def test_r_invest_5_investment_options_list_every_affordable_buy_and_upgrade():
    """R-INVEST-5 / R-DECIDE-1: Ben with 4 may buy any 4 bond still in stock (every 2 is sold),
    upgrade his USA 2 to 4 or 6, or his China 9 to 12 (paying 3), but not to 16."""
    state = investing()
    opts = set(options(state))
    assert UpgradeBond("usa", 2, 4) in opts and UpgradeBond("usa", 2, 6) in opts
    assert UpgradeBond("usa", 2, 9) not in opts
    assert UpgradeBond("china", 9, 12) in opts and UpgradeBond("china", 9, 16) not in opts
    assert {a for a in opts if isinstance(a, BuyBond)} == {BuyBond(n, 4) for n in NATIONS}
    assert Pass() in opts


def test_r_invest_6_a_nation_settles_only_after_all_investments():
    """R-INVEST-6: "after the investments": Ben's purchase does not change the government
    while Dan (a Swiss bank) still has to invest."""
    state = without_government(standard_game(), "Dan")
    state = investing(state, Ben=10, Dan=20)
    state, events = play(state, BuyBond("russia", 12))  # Ben: 12 > Anna's 9
    assert of_type(events, GovernmentChanged) == []
    assert state.nations["russia"].government == "Anna"
    state, events = play(state, BuyBond("russia", 16))  # Dan: 16 > 12
    assert one(events, GovernmentChanged) == GovernmentChanged("russia", "Anna", "Dan")


def test_r_invest_4_a_swiss_bank_may_buy_in_any_nation():
    """R-INVEST-4: "investing as a Swiss bank works as with the investor card"."""
    state = without_government(standard_game(), "Dan")
    state, _ = play(investing(state, Dan=30), Pass())  # Ben passes
    assert decider(state) == "Dan"
    assert {a.nation for a in options(state) if isinstance(a, BuyBond)} == set(NATIONS)

