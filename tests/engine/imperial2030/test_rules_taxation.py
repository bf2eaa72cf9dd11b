"""Rules section 4, Taxation: income, soldiers' pay, success bonus, power points
(R-TAX-1..4) and the variant "bonus for increase only" (R-TAX-5)."""
from __future__ import annotations

import pytest

from engine.imperial2030.events import (
    AccountKind,
    MoneyMoved,
    PowerGained,
    Reason,
    TaxCollected,
)
from engine.imperial2030.model import InvestStep, Variant
from tests.helpers import (
    MANEUVER_1,
    NEUTRAL_LAND,
    TAXATION,
    friendly_army,
    hostile_army,
    move_to,
    one,
    paid,
    paid_to,
    payments,
    standard_game,
    to_bank,
    turn_of,
    with_cash,
)


def flags(count: int) -> list[str]:
    return list(NEUTRAL_LAND[:count])


def taxes(nation: str, state=None, **fields):
    """``nation`` chooses Taxation (first placement: free); the state after and the events."""
    state = turn_of(state or standard_game(), nation, **fields)
    return move_to(state, TAXATION)


# =========================================================================== rulebook example


def test_r_tax_1_to_4_rulebook_example_usa_taxation():
    """R-TAX-1..4, rulebook example: "The USA choose Taxation. 1. The income of 11 million
    (3 factories and 5 flags) is paid from the bank to the treasury. 2. As the USA have
    2 fleets and 1 army, the treasury pays 3 million to the bank. 3. The bonus is 2 million,
    paid from the national treasury to the USA's government. 4. The tax chart shows +4:
    the USA add 4 power points." """
    state = turn_of(standard_game(), "usa", treasury=5, power=0,
                    factories=["chicago", "neworleans", "newyork"], flags=flags(5),
                    fleets={"caribbeansea": 1, "northatlantic": 1}, armies={"mexico": 1})
    after, events = move_to(state, TAXATION)
    assert one(events, TaxCollected) == TaxCollected("usa", 11, 3, 5, 3, 3, 2)
    assert paid_to(events, Reason.TAX, "usa") == 11
    assert to_bank(events, Reason.SOLDIERS_PAY) == 3
    assert paid_to(events, Reason.BONUS, "Eva") == 2
    assert one(events, PowerGained) == PowerGained("usa", 4, 4)
    assert after.nations["usa"].treasury == 5 + 11 - 3 - 2
    assert after.players["Eva"].cash == state.players["Eva"].cash + 2
    assert after.nations["usa"].power == 4


# =========================================================================== R-TAX-1


def test_r_tax_1_income_is_2_per_factory_and_1_per_flag_from_the_bank():
    """R-TAX-1: "2 million per free factory, 1 million per flag", paid by the bank."""
    _, events = taxes("russia", flags=flags(3))
    [income] = payments(events, Reason.TAX)
    assert income.source.kind is AccountKind.BANK and income.target.owner == "russia"
    assert income.amount == 2 * 2 + 3


def test_r_tax_1_a_factory_with_a_hostile_army_pays_no_tax():
    """R-TAX-1: "a factory is free when no enemy army stands in its province"."""
    state = hostile_army(standard_game(), "china", "moscow")
    _, events = taxes("russia", state, flags=flags(4))
    collected = one(events, TaxCollected)
    assert (collected.income, collected.factories) == (2 + 4, 1)


def test_r_tax_1_a_friendly_foreign_army_does_not_stop_the_tax():
    """R-TAX-1 with R-HOSTILE-1: a friendly (lying) army has no effect."""
    state = friendly_army(standard_game(), "china", "moscow")
    _, events = taxes("russia", state)
    assert one(events, TaxCollected).income == 4


def test_r_tax_1_the_most_a_nation_can_collect_is_23():
    """R-TAX-1: "the maximum tax is 23 million (8 for 4 factories plus 15 for 15 flags)"."""
    homes = ["moscow", "novosibirsk", "murmansk", "vladivostok"]
    _, events = taxes("russia", factories=homes, flags=flags(15))
    assert one(events, TaxCollected).income == 23


def test_r_tax_1_income_is_capped_at_23_even_beyond_the_pieces():
    """R-TAX-1: "Maximum 23" holds even for an (impossible) position with 20 flags."""
    homes = ["moscow", "novosibirsk", "murmansk", "vladivostok"]
    _, events = taxes("russia", factories=homes, flags=flags(20))
    assert one(events, TaxCollected).income == 23
    assert paid(events, Reason.TAX) == 23


# =========================================================================== R-TAX-2


def test_r_tax_2_soldiers_pay_1_per_army_and_fleet():
    """R-TAX-2: "the treasury pays the bank 1 million per army and fleet it has"."""
    after, events = taxes("russia", treasury=10, armies={"moscow": 2, "ukraine": 1}, fleets={"seaofjapan": 2})
    assert to_bank(events, Reason.SOLDIERS_PAY) == 5
    assert after.nations["russia"].treasury == 10 + 4 - 5


def test_r_tax_2_soldiers_pay_stops_when_the_treasury_is_empty():
    """R-TAX-2: "if the treasury is empty the payments are not made": income 4, 6 units,
    empty treasury -> 4 paid, 2 unpaid, nothing left."""
    after, events = taxes("russia", treasury=0, armies={"moscow": 3}, fleets={"vladivostok": 3})
    collected = one(events, TaxCollected)
    assert (collected.soldiers_owed, collected.soldiers_paid) == (6, 4)
    assert after.nations["russia"].treasury == 0


# =========================================================================== R-TAX-3


def test_r_tax_3_the_bonus_comes_from_the_treasury_to_the_government():
    """R-TAX-3: "the government receives a success bonus ... from the national treasury"."""
    state = with_cash(standard_game(), Anna=0)
    after, events = taxes("russia", state, flags=flags(4))  # income 8: bonus 1
    [bonus] = payments(events, Reason.BONUS)
    assert bonus.source.owner == "russia" and bonus.source.kind is AccountKind.TREASURY
    assert bonus.target.owner == "Anna" and bonus.amount == 1
    assert after.players["Anna"].cash == 1


def test_r_tax_3_the_bonus_is_reduced_to_what_the_treasury_still_holds():
    """R-TAX-3: "if the soldiers' pay was so high that the treasury cannot pay the whole
    bonus, it is reduced to what is still there, even to zero": income 10 (bonus 2),
    9 units: 1 left -> bonus 1; 10 units -> bonus 0."""
    for units, bonus in ((9, 1), (10, 0)):
        after, events = taxes("russia", treasury=0, flags=flags(6), armies={"ukraine": units})
        assert one(events, TaxCollected).bonus == bonus
        assert paid(events, Reason.BONUS) == bonus
        assert after.nations["russia"].treasury == 0


# =========================================================================== R-TAX-4


def test_r_tax_4_power_points_are_independent_of_pay_and_bonus():
    """R-TAX-4: "the gains are independent of the soldiers' pay and the bonus": income 10
    gives +3 even when the pay empties the treasury and no bonus is paid."""
    after, events = taxes("russia", treasury=0, power=7, flags=flags(6), armies={"ukraine": 10})
    assert one(events, TaxCollected).bonus == 0
    assert one(events, PowerGained) == PowerGained("russia", 3, 10)
    assert after.nations["russia"].power == 10


@pytest.mark.parametrize(
    ("income", "bonus", "power"),
    [(0, 0, 0), (4, 0, 0), (5, 0, 0), (6, 1, 1), (7, 1, 1), (8, 1, 2), (9, 1, 2), (10, 2, 3),
     (11, 2, 4), (12, 3, 5), (13, 3, 6), (14, 4, 7), (15, 4, 8), (16, 5, 9), (17, 5, 9),
     (18, 5, 10), (21, 5, 10), (23, 5, 10)],
)
def test_r_tax_4_the_tax_chart(income, bonus, power):
    """R-TAX-3/4, tax chart: 0-5: 0/+0, 6: 1/+1, 8: 1/+2, 10: 2/+3, 11: 2/+4, 12: 3/+5;
    data/README decision for 13-23: 13: 3/+6, 14: 4/+7, 15: 4/+8, 16-17: 5/+9, 18-23: 5/+10.
    "Income between columns uses the lower column" (9 -> column 8)."""
    homes = ["moscow", "novosibirsk", "murmansk", "vladivostok"]
    factories = min(4, income // 2)
    state = turn_of(standard_game(), "russia", treasury=30, factories=homes[:factories],
                    flags=flags(income - 2 * factories))
    _, events = move_to(state, TAXATION)
    collected = one(events, TaxCollected)
    assert (collected.income, collected.bonus) == (income, bonus)
    assert one(events, PowerGained).points == power


def test_r_tax_4_power_points_add_up_on_the_track():
    """R-TAX-4: "the new points are added to those received before"."""
    after, events = taxes("russia", power=12, flags=flags(4))  # income 8: +2
    assert after.nations["russia"].power == 14


def test_r_tax_1_to_4_the_four_steps_happen_in_order():
    """R-TAX-1..4: "this action has 4 steps": income, soldiers' pay, bonus, power points."""
    _, events = taxes("russia", flags=flags(6), armies={"ukraine": 2})
    steps = [e.reason.value if isinstance(e, MoneyMoved) else "power"
             for e in events if isinstance(e, MoneyMoved | PowerGained)]
    assert steps == ["tax income", "soldiers' pay", "success bonus", "power"]


def test_r_tax_taxation_after_passing_investor_is_followed_by_the_investor_steps():
    """R-TAX with R-RONDEL-4: Maneuver -> Taxation passes Investor: after the taxes, the card."""
    state = turn_of(standard_game(), "russia", rondel=MANEUVER_1, power=0)
    state = with_cash(state, Anna=5)
    after, events = move_to(state, TAXATION)  # 5 spaces, cost 2
    assert paid(events, Reason.TAX) == 4
    assert paid(events, Reason.INVESTOR_CARD) == 2
    assert isinstance(after.step, InvestStep)


# =========================================================================== R-TAX-5 (variant)


def increase_game():
    return standard_game(variants=[Variant.TAX_INCREASE_BONUS])


def test_r_tax_5_rulebook_example_china_income_rises_to_12():
    """R-TAX-5, rulebook example (variant "bonus for increase only"): "China's income rises to
    12 million. The yellow marker moves 4 spaces to the right, stopping on the 3 below the 12.
    China's government receives a bonus of 4 million from China's treasury." The marker stood
    on the 6 column."""
    state = turn_of(increase_game(), "china", tax_column=1, factories=["beijing", "shanghai"], flags=flags(8))
    after, events = move_to(state, TAXATION)
    collected = one(events, TaxCollected)
    assert (collected.income, collected.bonus) == (12, 4)
    assert paid_to(events, Reason.BONUS, "Ben") == 4
    assert after.nations["china"].tax_column == 5
    assert after.board.tables.tax_columns[5].label == "12"
    assert one(events, PowerGained).points == 5  # power still follows the chart


def test_r_tax_5_nothing_is_paid_when_the_marker_moves_left():
    """R-TAX-5: "if the income falls and the marker moves left, the player pays nothing"
    (and receives nothing); the marker records the new, lower column."""
    state = turn_of(increase_game(), "china", tax_column=5, flags=[])
    after, events = move_to(state, TAXATION)  # income 4: column 0-5
    assert one(events, TaxCollected).bonus == 0
    assert paid(events, Reason.BONUS) == 0
    assert after.nations["china"].tax_column == 0
    assert after.players["Ben"].cash == state.players["Ben"].cash


def test_r_tax_5_the_same_column_again_pays_nothing():
    """R-TAX-5: "a bonus only when the income increases": 12 after 12 -> 0."""
    state = turn_of(increase_game(), "china", tax_column=5, flags=flags(8))
    _, events = move_to(state, TAXATION)
    assert one(events, TaxCollected).bonus == 0


def test_r_tax_5_decision_the_marker_starts_on_the_0_to_5_column():
    """R-TAX-5, data/README decision "first position of the tax marker: the 0-5 column":
    a first income of 8 moves it 2 columns (0-5 -> 6 -> 8): bonus 2 (the chart would say 1)."""
    state = increase_game()
    assert all(state.nations[n].tax_column == 0 for n in state.nations)
    _, events = taxes("russia", state, flags=flags(4))
    assert one(events, TaxCollected).bonus == 2


def test_r_tax_5_with_r_tax_3_the_variant_bonus_is_still_limited_by_the_treasury():
    """R-TAX-5 with R-TAX-3: the bonus comes "from the national treasury"; it cannot pay
    more than it holds: 12 after 0-5 would be 5, with only 2 left after the pay -> 2."""
    state = turn_of(increase_game(), "china", treasury=0, factories=["beijing", "shanghai"],
                    flags=flags(8), armies={"korea": 10})
    after, events = move_to(state, TAXATION)
    assert one(events, TaxCollected).bonus == 2
    assert after.nations["china"].tax_column == 5


def test_r_tax_5_is_off_in_the_standard_game():
    """R-TAX-3 (standard): the bonus follows the chart whatever the previous income."""
    state = turn_of(standard_game(), "china", tax_column=5, flags=flags(8))
    _, events = move_to(state, TAXATION)
    assert one(events, TaxCollected).bonus == 3
