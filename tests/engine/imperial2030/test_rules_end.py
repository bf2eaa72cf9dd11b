"""Rules section 6: end of the game, multiplier, scores and the tie-break (R-END-1..4)."""
from __future__ import annotations

import pytest

from engine.imperial2030.actions import ChooseSpace, Donate
from engine.imperial2030.decisions import pending
from engine.imperial2030.errors import GameFinished
from engine.imperial2030.events import (
    GameEnded,
    InvestorCardPassed,
    PowerGained,
    Reason,
)
from engine.imperial2030.model import Bond, FinishedStep
from engine.imperial2030.scoring import final_scores, player_score
from tests.helpers import (
    BOARD,
    MANEUVER_1,
    NAMES,
    NATIONS,
    NEUTRAL_LAND,
    TAXATION,
    move_to,
    of_type,
    one,
    paid,
    play,
    standard_game,
    turn_of,
    with_cash,
)


def russia_taxes(power: int, income_flags: int = 6, state=None, **fields):
    """Russia (2 factories) taxes with ``income_flags`` flags, starting from ``power`` points."""
    state = turn_of(state or standard_game(), "russia", power=power, flags=list(NEUTRAL_LAND[:income_flags]),
                    **fields)
    return move_to(state, TAXATION)


def scored_position(powers: dict[str, int], bonds: dict[str, list[tuple[str, int]]], cash: dict[str, int]):
    """A standard game edited to the given powers, holdings and cash (everything else empty)."""
    state = standard_game().clone()
    for nation in NATIONS:
        state.nations[nation].power = powers.get(nation, 0)
    for player in NAMES:
        state.players[player].bonds = sorted(Bond(n, v) for n, v in bonds.get(player, []))
        state.players[player].cash = cash.get(player, 0)
    return state


# =========================================================================== R-END-1


def test_r_end_1_the_game_ends_as_soon_as_a_nation_reaches_25():
    """R-END-1: "as soon as a nation reaches 25 power points, the game ends": Russia at 22
    taxes 10 (+3)."""
    after, events = russia_taxes(power=22)
    assert after.nations["russia"].power == 25
    assert isinstance(after.step, FinishedStep) and after.finished
    ended = one(events, GameEnded)
    assert "Russia" in ended.reason and "25" in ended.reason
    assert pending(after) == ()


def test_r_end_1_the_power_track_stops_at_25():
    """R-END-1: "the track stops at 25": 20 + 10 points is 25, not 30."""
    homes = ["moscow", "novosibirsk", "murmansk", "vladivostok"]
    after, events = russia_taxes(power=20, income_flags=15, factories=homes)
    assert one(events, PowerGained).total == 25
    assert after.nations["russia"].power == 25


def test_r_end_1_24_points_do_not_end_the_game():
    """R-END-1: below 25 the game goes on with the next nation."""
    after, events = russia_taxes(power=21)  # +3 -> 24
    assert after.nations["russia"].power == 24
    assert not after.finished and of_type(events, GameEnded) == []
    assert after.turn.nation == "china"


def test_r_end_1_investor_steps_are_skipped_on_the_last_turn():
    """R-END-1: "if in this last turn the Investor space was passed, no more investments are
    made (skip steps 2 and 3)": Maneuver -> Taxation passes Investor."""
    state = with_cash(standard_game(), Anna=10)
    after, events = russia_taxes(power=22, state=state, rondel=MANEUVER_1)
    assert after.finished
    assert paid(events, Reason.INVESTOR_CARD) == 0
    assert of_type(events, InvestorCardPassed) == []
    assert after.investor_card == "Ben"


def test_r_end_1_the_taxation_of_the_last_turn_is_still_complete():
    """R-END-1 with R-TAX-1..4: the ending Taxation pays income, soldiers and bonus first."""
    _, events = russia_taxes(power=22)
    assert paid(events, Reason.TAX) == 10
    assert paid(events, Reason.BONUS) == 2


def test_r_end_1_nothing_can_be_done_after_the_end():
    """R-END-1: after the end no action is accepted, not even a donation."""
    after, _ = russia_taxes(power=22)
    with pytest.raises(GameFinished):
        play(after, ChooseSpace(TAXATION), "Ben")
    with pytest.raises(GameFinished):
        play(after, Donate("russia", 1), "Anna")


# =========================================================================== R-END-2


@pytest.mark.parametrize("power", range(26))
def test_r_end_2_multiplier_is_power_points_divided_by_5(power):
    """R-END-2: 0-4 -> 0, 5-9 -> 1, ..., 20-24 -> 4; data/README decision: 25 -> 5."""
    assert BOARD.tables.multiplier(power) == power // 5


# =========================================================================== R-END-3


def test_r_end_3_rulebook_example_india_12_bond_at_17_power_points():
    """R-END-3, rulebook example: "India has 17 power points; the score bar shows a power
    multiplier of 3. The Indian 12 million bond pays 5 million interest, so its value is
    5 million (interest) x 3 (multiplier) = 15 million." """
    state = scored_position({"india": 17}, {"Cleo": [("india", 12)]}, {})
    assert state.multiplier("india") == 3
    assert player_score(state, "Cleo") == 15


def test_r_end_3_score_is_every_bond_times_its_multiplier_plus_cash():
    """R-END-3: "players add the values of all their bonds and then their cash; each million
    is one victory point". Anna: Russia 9 (4 x 5) + China 6 (3 x 2) + India 2 (1 x 0) + 7."""
    state = scored_position({"russia": 25, "china": 12, "india": 3},
                            {"Anna": [("russia", 9), ("china", 6), ("india", 2)]}, {"Anna": 7})
    assert player_score(state, "Anna") == 20 + 6 + 0 + 7


def test_r_end_3_the_highest_score_wins_and_scores_are_recorded_at_the_end():
    """R-END-3: "the player with the most victory points wins"; the engine ranks all players
    when the game ends."""
    after, events = russia_taxes(power=22)
    ranking = one(events, GameEnded).scores
    assert after.scores == dict(ranking)
    assert [name for name, _ in ranking][0] == "Anna"  # Russia 9 at multiplier 5
    assert dict(ranking) == {p: player_score(after, p) for p in NAMES}
    values = [score for _, score in ranking]
    assert values == sorted(values, reverse=True)


# =========================================================================== R-END-4


def test_r_end_4_a_tie_goes_to_the_most_bonds_in_the_most_powerful_nation():
    """R-END-4: "in case of a tie the player with the highest investment in the nation with
    the most power points wins". Anna and Ben both score 20; Ben holds more of Russia (25)."""
    state = scored_position(
        {"russia": 25, "china": 10},
        {"Anna": [("china", 12)], "Ben": [("russia", 2)]},  # 5 x 2 = 10 ; 1 x 5 = 5
        {"Anna": 10, "Ben": 15},
    )
    assert player_score(state, "Anna") == player_score(state, "Ben") == 20
    ranking = [p for p, _ in final_scores(state)]
    assert ranking.index("Ben") < ranking.index("Anna")


def test_r_end_4_still_tied_the_next_most_powerful_nation_decides():
    """R-END-4: "if still tied, the nation with the second most power points, and so on".
    Neither holds Russia (25); in China (20) Ben holds 6 against Anna's 4."""
    state = scored_position(
        {"russia": 25, "china": 20},
        {"Anna": [("china", 4)], "Ben": [("china", 6)]},  # 2 x 4 = 8 ; 3 x 4 = 12
        {"Anna": 9, "Ben": 5},
    )
    assert player_score(state, "Anna") == player_score(state, "Ben") == 17
    ranking = [p for p, _ in final_scores(state)]
    assert ranking.index("Ben") < ranking.index("Anna")


def test_r_end_4_the_tie_break_ignores_the_seats():
    """R-END-4: the first seat has no advantage: Finn beats Anna on the tie-break."""
    state = scored_position(
        {"europe": 25},
        {"Anna": [], "Finn": [("europe", 2)]},
        {"Anna": 5},
    )
    assert player_score(state, "Anna") == player_score(state, "Finn") == 5
    assert [p for p, _ in final_scores(state)][:2] == ["Finn", "Anna"]
