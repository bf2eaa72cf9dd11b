"""Rules section 3: turn order and the rondel (R-TURN-*, R-RONDEL-1..5)."""
from __future__ import annotations

import pytest

from engine.imperial2030.actions import (
    ChooseSpace,
    Donate,
    ForceStop,
    Import,
    ImportUnit,
    Pass,
    Produce,
)
from engine.imperial2030.board import SpaceAction
from engine.imperial2030.decisions import DecisionKind
from engine.imperial2030.errors import IllegalAction, NotYourDecision
from engine.imperial2030.events import (
    ForceStopAnswered,
    InvestorCardPassed,
    MoneyMoved,
    NationSkipped,
    Reason,
    RondelMoved,
    TurnStarted,
    UnitsPlaced,
)
from engine.imperial2030.model import ForceStopStep, InvestStep, RondelStep, UnitKind
from tests.helpers import (
    BOARD,
    FACTORY,
    IMPORT,
    INVESTOR,
    MANEUVER_1,
    MANEUVER_2,
    NATIONS,
    PRODUCTION_1,
    PRODUCTION_2,
    TAXATION,
    decider,
    decision,
    move_to,
    new,
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
    to_bank,
    turn_of,
    with_cash,
)

CLOCKWISE_FROM_INVESTOR = (INVESTOR, IMPORT, PRODUCTION_2, MANEUVER_2, TAXATION, FACTORY, PRODUCTION_1, MANEUVER_1)


def russia_at(space: str, **fields):
    """Standard game, Russia (Anna) to move, its marker on ``space``."""
    return turn_of(standard_game(), "russia", rondel=space, **fields)


def with_swiss_banks(state):
    """Dan and Finn govern nothing (Brazil -> Cleo, Europe -> Anna): they hold Swiss banks.
    The investor card is with Ben, so the seat order from the card is Ben, Cleo, Dan, Eva, Finn, Anna."""
    return swiss_bank(swiss_bank(state, "Dan", "Cleo"), "Finn", "Anna")


def costs(state) -> dict[str, int]:
    return {o.action.space: o.cost for o in decision(state).options}


# =========================================================================== turn order


def test_r_turn_1_nations_act_in_turn_order_round_and_round():
    """R-TURN-1: Russia, China, India, Brazil, USA, Europe, then Russia again."""
    state = standard_game()
    seen = []
    for _ in range(6):
        seen.append(state.turn.nation)
        state, _ = move_to(state, MANEUVER_1)  # Maneuver: nothing to detail yet
    seen.append(state.turn.nation)
    assert seen == ["russia", "china", "india", "brazil", "usa", "europe", "russia"]
    assert state.round == 2


def test_r_turn_1_a_nation_without_government_is_skipped():
    """R-TURN-1: "a nation without government is skipped" (Russia has no bond sold)."""
    deal = {"china": "Anna", "india": "Ben", "brazil": "Cleo", "europe": "Dan"}
    state, _ = new(("Anna", "Ben", "Cleo", "Dan"), deal)
    for _ in range(4):  # China, India, Brazil, USA (Anna, via its 2 bond)
        state, _ = move_to(state, MANEUVER_1)
    assert state.turn.nation == "europe"
    state, events = move_to(state, MANEUVER_1)
    assert NationSkipped("russia") in events
    assert one(events, TurnStarted).nation == "china"


def test_r_turn_2_only_the_government_decides_the_nations_turn():
    """R-TURN-2: "the turn is the nation's, but every decision in it is its government's"."""
    state = standard_game()
    assert decision(state).player == "Anna" and decision(state).nation == "russia"
    with pytest.raises(NotYourDecision):
        play(state, ChooseSpace(FACTORY), "Ben")
    state, _ = play(state, ChooseSpace(FACTORY), "Anna")
    assert decision(state).player == "Anna" and decision(state).kind is DecisionKind.FACTORY


def test_r_turn_2_a_player_governing_two_nations_decides_for_each():
    """R-TURN-2: with 2 players Ben governs Russia, India and USA and decides all their turns."""
    state, _ = new(("Anna", "Ben"), {"china": "Anna", "russia": "Ben"})
    deciders = []
    for _ in range(6):
        deciders.append((state.turn.nation, decider(state)))
        state, _ = move_to(state, MANEUVER_1)
    assert deciders == [("russia", "Ben"), ("china", "Anna"), ("india", "Ben"),
                        ("brazil", "Anna"), ("usa", "Ben"), ("europe", "Anna")]


# =========================================================================== R-RONDEL-1


def test_r_rondel_1_eight_spaces_clockwise():
    """R-RONDEL-1: Investor, Import, Production, Maneuver, Taxation, Factory, Production, Maneuver."""
    ids = BOARD.rondel_ids
    start = ids.index(INVESTOR)
    assert ids[start:] + ids[:start] == CLOCKWISE_FROM_INVESTOR
    actions = [BOARD.rondel_by_id[s].action.value for s in CLOCKWISE_FROM_INVESTOR]
    assert actions == ["investor", "import", "production", "maneuver",
                       "taxation", "factory", "production", "maneuver"]


@pytest.mark.parametrize("space", [PRODUCTION_1, PRODUCTION_2])
def test_r_rondel_1_both_production_spaces_are_the_same_action(space):
    """R-RONDEL-1: "the two Production spaces are the same action"."""
    state, _ = move_to(standard_game(), space)
    assert decision(state).kind is DecisionKind.PRODUCTION
    state, events = play(state, Produce(None))
    assert {(e.kind, e.region) for e in of_type(events, UnitsPlaced)} == {
        (UnitKind.ARMY, "moscow"), (UnitKind.FLEET, "vladivostok")}


@pytest.mark.parametrize("space", [MANEUVER_1, MANEUVER_2])
def test_r_rondel_1_both_maneuver_spaces_are_the_same_action(space):
    """R-RONDEL-1: the two Maneuver spaces are the same action: a nation without units has
    only the flag step and its turn ends; one with units is asked for its maneuver."""
    state, events = move_to(standard_game(), space)
    assert state.turn.nation == "china"
    game = standard_game()
    game.nations["russia"].armies["moscow"] = 1
    state, _ = move_to(game, space)
    assert decision(state).kind is DecisionKind.MANEUVER


# =========================================================================== R-RONDEL-2


def test_r_rondel_2_first_placement_on_any_space_is_free():
    """R-RONDEL-2: "in a nation's first turn the marker is placed on any space", free."""
    state = standard_game()
    assert costs(state) == dict.fromkeys(BOARD.rondel_ids, 0)
    state = with_cash(state, Anna=0)
    state, events = move_to(state, TAXATION)
    assert state.nations["russia"].rondel == TAXATION
    assert paid(events, Reason.RONDEL) == 0
    assert one(events, RondelMoved) == RondelMoved("russia", None, TAXATION, 0, 0, None)


def test_r_rondel_2_first_placement_never_passes_investor():
    """R-RONDEL-2 with R-RONDEL-4: placing the marker is not a move past Investor."""
    state, events = move_to(standard_game(), IMPORT)
    state, events = play(state, Import(()))
    assert paid(events, Reason.INVESTOR_CARD) == 0
    assert state.turn.nation == "china"


# =========================================================================== R-RONDEL-3


@pytest.mark.parametrize(("target", "steps"), [(PRODUCTION_1, 1), (MANEUVER_1, 2), (INVESTOR, 3)])
def test_r_rondel_3_one_to_three_spaces_are_free(target, steps):
    """R-RONDEL-3: "the marker may move 1 to 3 spaces clockwise free of charge"."""
    state = with_cash(russia_at(FACTORY), Anna=0)
    state, events = move_to(state, target)
    moved = one(events, RondelMoved)
    assert (moved.steps, moved.cost) == (steps, 0)
    assert paid(events, Reason.RONDEL) == 0


def test_r_rondel_3_each_space_beyond_three_costs_one_plus_multiplier():
    """R-RONDEL-3: at multiplier 0 every extra space costs 1: 4 -> 1, 5 -> 2, 6 -> 3."""
    state = with_cash(russia_at(FACTORY), Anna=10)
    assert costs(state) == {PRODUCTION_1: 0, MANEUVER_1: 0, INVESTOR: 0,
                            IMPORT: 1, PRODUCTION_2: 2, MANEUVER_2: 3}


def test_r_rondel_3_rulebook_example_china_with_11_power_points():
    """R-RONDEL-3, rulebook example: "China has 11 power points and its marker on Investor.
    To choose Taxation it moves 4 spaces and pays 1+2 = 3 million to the bank. To move from
    Investor to Factory it would pay 6 million." """
    state = turn_of(standard_game(), "china", rondel=INVESTOR, power=11)
    state = with_cash(state, Ben=10)
    assert costs(state)[TAXATION] == 3
    assert costs(state)[FACTORY] == 6
    after, events = move_to(state, TAXATION)
    assert paid_by(events, Reason.RONDEL, "Ben") == 3 == to_bank(events, Reason.RONDEL)
    assert after.players["Ben"].cash == 10 - 3  # income 4: no bonus
    after, events = move_to(state, FACTORY)
    assert to_bank(events, Reason.RONDEL) == 6
    assert one(events, RondelMoved) == RondelMoved("china", INVESTOR, FACTORY, 5, 6, None)


def test_r_rondel_3_the_move_is_paid_from_the_governments_cash_not_the_treasury():
    """R-RONDEL-3: the government pays "from personal cash, to the bank"."""
    state = with_cash(russia_at(FACTORY, power=5), Anna=10)  # multiplier 1: 2 per extra space
    after, events = move_to(state, IMPORT)
    assert after.players["Anna"].cash == 8
    assert after.nations["russia"].treasury == state.nations["russia"].treasury
    [payment] = [e for e in events if isinstance(e, MoneyMoved) and e.reason is Reason.RONDEL]
    assert payment.source.owner == "Anna" and payment.target.kind.value == "bank"


def test_r_rondel_3_the_marker_may_not_stay():
    """R-RONDEL-3: "it is not allowed to stay on the same space"."""
    state = russia_at(TAXATION)
    assert ChooseSpace(TAXATION) not in options(state)
    error = refused(state, ChooseSpace(TAXATION))
    assert "stay" in error.reason


def test_r_rondel_3_at_most_six_spaces():
    """R-RONDEL-3: "the maximum move on the rondel is 6 spaces" (7 is refused)."""
    state = with_cash(russia_at(FACTORY), Anna=50)
    assert len(options(state)) == 6
    error = refused(state, ChooseSpace(TAXATION))  # 7 spaces
    assert "7" in error.reason and "6" in error.reason


def test_r_rondel_3_a_government_that_cannot_pay_cannot_choose_the_space():
    """R-RONDEL-3: "a government that cannot pay cannot choose that space"."""
    state = with_cash(russia_at(FACTORY), Anna=2)
    assert ChooseSpace(PRODUCTION_2) in options(state)  # 5 spaces: 2
    assert ChooseSpace(MANEUVER_2) not in options(state)  # 6 spaces: 3
    error = refused(state, ChooseSpace(MANEUVER_2))
    assert "3" in error.reason
    assert any("Production" in text for text in error.legal)


def test_r_rondel_3_an_unknown_space_is_refused_with_the_legal_spaces():
    """R-RONDEL-3 / R-DECIDE-1: a space that does not exist is refused, the legal ones listed."""
    error = refused(russia_at(FACTORY), ChooseSpace("casino"))
    assert "casino" in error.reason
    assert len(error.legal) == len(options(russia_at(FACTORY)))


# =========================================================================== R-RONDEL-4


def test_r_rondel_4_passing_investor_triggers_investment_after_the_action():
    """R-RONDEL-4: "steps 2 and 3 are also carried out when the marker passes Investor ...
    first the action of the space where it stopped, then steps 2 and 3"."""
    state = russia_at(MANEUVER_1)
    state, events = move_to(state, IMPORT)  # 2 spaces, over Investor
    assert decision(state).kind is DecisionKind.IMPORT  # the action first
    assert paid(events, Reason.INVESTOR_CARD) == 0
    state, events = play(state, Import((ImportUnit(UnitKind.ARMY, "moscow"),)))
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("UnitsPlaced") < next(
        i for i, e in enumerate(events) if isinstance(e, MoneyMoved) and e.reason is Reason.INVESTOR_CARD)
    assert paid_to(events, Reason.INVESTOR_CARD, "Ben") == 2
    assert isinstance(state.step, InvestStep) and decider(state) == "Ben"


def test_r_rondel_4_passing_investor_pays_no_interest():
    """R-RONDEL-4: only steps 2 and 3 are triggered, not the interest (step 1)."""
    state, events = move_to(russia_at(MANEUVER_1), MANEUVER_2)
    assert paid(events, Reason.INTEREST) == 0
    assert paid(events, Reason.INVESTOR_CARD) == 2


def test_r_rondel_4_leaving_investor_or_stopping_short_of_it_is_not_passing():
    """R-RONDEL-4: moving away from Investor, or stopping before it, passes nothing."""
    state, events = move_to(russia_at(INVESTOR), MANEUVER_2)
    assert paid(events, Reason.INVESTOR_CARD) == 0
    assert state.turn.nation == "china"
    state, events = move_to(russia_at(FACTORY), MANEUVER_1)
    assert paid(events, Reason.INVESTOR_CARD) == 0


def test_r_rondel_4_after_the_investor_steps_the_turn_passes_on():
    """R-RONDEL-4 with R-INVEST-8: after passing Investor the card moves on, then China plays."""
    state, _ = move_to(russia_at(MANEUVER_1), MANEUVER_2)
    state, events = play(state, Pass())  # Ben does not invest
    assert one(events, InvestorCardPassed) == InvestorCardPassed("Ben", "Cleo")
    assert state.turn.nation == "china" and isinstance(state.step, RondelStep)


# =========================================================================== R-RONDEL-5


def test_r_rondel_5_swiss_banks_are_asked_in_seat_order_from_the_card_holder():
    """R-RONDEL-5: "holders are asked in seating order starting from the investor-card holder";
    players who govern a nation are not asked."""
    state = with_swiss_banks(russia_at(FACTORY))
    state, events = move_to(state, IMPORT)  # passes Investor
    assert isinstance(state.step, ForceStopStep)
    assert decision(state).kind is DecisionKind.FORCE_STOP
    assert decider(state) == "Dan"
    assert of_type(events, RondelMoved) == []  # the marker waits for the answers
    state, _ = play(state, ForceStop(False))
    assert decider(state) == "Finn"


def test_r_rondel_5_the_card_holder_with_a_swiss_bank_is_asked_first():
    """R-RONDEL-5: asking starts with the investor-card holder himself if he has a Swiss bank."""
    state = swiss_bank(swiss_bank(russia_at(FACTORY), "Ben", "Cleo"), "Dan", "Cleo")  # Ben, Dan govern nothing
    state, _ = move_to(state, IMPORT)
    assert decider(state) == "Ben"
    state, _ = play(state, ForceStop(False))
    assert decider(state) == "Dan"


def test_r_rondel_5_the_first_who_forces_decides():
    """R-RONDEL-5: "the first who forces decides": the marker stops on Investor, the
    remaining holders are not asked, interest is paid and the investor steps follow."""
    state = with_swiss_banks(russia_at(FACTORY))
    state, _ = move_to(state, IMPORT)
    state, events = play(state, ForceStop(True))  # Dan
    assert one(events, ForceStopAnswered) == ForceStopAnswered("Dan", "russia", True)
    moved = one(events, RondelMoved)
    assert (moved.space, moved.forced_by) == (INVESTOR, "Dan")
    assert state.nations["russia"].rondel == INVESTOR
    assert paid_to(events, Reason.INTEREST, "Eva") == 1  # Eva's Russia 2 bond
    assert paid(events, Reason.INVESTOR_CARD) == 2
    assert isinstance(state.step, InvestStep)
    assert "Finn" not in [a.player for a in of_type(events, ForceStopAnswered)]


def test_r_rondel_5_a_later_holder_may_force_after_an_earlier_one_declined():
    """R-RONDEL-5: Dan declines, Finn forces: the stop is Finn's."""
    state = with_swiss_banks(russia_at(FACTORY))
    state, _ = move_to(state, IMPORT)
    state, events = play_all(state, ForceStop(False), ForceStop(True))
    assert one(events, RondelMoved).forced_by == "Finn"
    assert state.nations["russia"].rondel == INVESTOR


def test_r_rondel_5_when_nobody_forces_the_marker_goes_where_the_government_chose():
    """R-RONDEL-5: with every holder declining (PASS counts as no force), the move stands."""
    state = with_swiss_banks(russia_at(FACTORY))
    state, _ = move_to(state, IMPORT)
    state, events = play_all(state, Pass(), ForceStop(False))
    assert one(events, RondelMoved) == RondelMoved("russia", FACTORY, IMPORT, 4, 1, None)
    assert decision(state).kind is DecisionKind.IMPORT


def test_r_rondel_5_no_force_unless_the_treasury_pays_all_interest():
    """R-RONDEL-5: "only if the treasury has enough money to pay all interest": Russia owes
    4 (Anna's 9) + 1 (Eva's 2) = 5; with 4 in the treasury nobody is asked."""
    state = with_swiss_banks(russia_at(FACTORY, treasury=4))
    state, events = move_to(state, IMPORT)
    assert of_type(events, RondelMoved)[0].space == IMPORT
    assert not isinstance(state.step, ForceStopStep)
    state = with_swiss_banks(russia_at(FACTORY, treasury=5))
    state, _ = move_to(state, IMPORT)
    assert isinstance(state.step, ForceStopStep)


def test_r_rondel_5_only_a_move_past_investor_can_be_forced():
    """R-RONDEL-5: "when a government moves its marker past the Investor space"."""
    state = with_swiss_banks(russia_at(FACTORY))
    for target in (PRODUCTION_1, MANEUVER_1, INVESTOR):
        after, _ = move_to(state, target)
        assert not isinstance(after.step, ForceStopStep), target


def test_r_rondel_5_decision_the_forced_move_costs_what_a_move_to_investor_costs():
    """R-RONDEL-5 Decision: "the forced move costs what a move to Investor costs (usually
    nothing)": Factory -> Import would cost 1, the forced Factory -> Investor is free."""
    state = with_swiss_banks(with_cash(russia_at(FACTORY), Anna=5))
    state, _ = move_to(state, IMPORT)
    state, events = play(state, ForceStop(True))
    assert one(events, RondelMoved) == RondelMoved("russia", FACTORY, INVESTOR, 3, 0, "Dan")
    assert paid(events, Reason.RONDEL) == 0


def test_r_rondel_5_decision_a_forced_move_beyond_three_spaces_still_costs():
    """R-RONDEL-5 Decision: Taxation -> Production (6 spaces, 3) forced to Investor
    (4 spaces) costs 1 at multiplier 0."""
    state = with_swiss_banks(with_cash(russia_at(TAXATION), Anna=5))
    state, _ = move_to(state, PRODUCTION_2)
    state, events = play(state, ForceStop(True))
    assert one(events, RondelMoved) == RondelMoved("russia", TAXATION, INVESTOR, 4, 1, "Dan")
    assert paid_by(events, Reason.RONDEL, "Anna") == 1


def test_r_rondel_5_only_the_asked_holder_may_answer():
    """R-RONDEL-5 / R-DECIDE-2: the question goes to the holder asked now only."""
    state = with_swiss_banks(russia_at(FACTORY))
    state, _ = move_to(state, IMPORT)
    for other in ("Anna", "Finn", "Ben"):
        with pytest.raises(NotYourDecision) as info:
            play(state, ForceStop(True), other)
        assert "Dan" in str(info.value)


def test_r_rondel_5_a_rondel_space_does_not_answer_the_force_question():
    """R-RONDEL-5: the force question takes FORCE or NO FORCE only."""
    state = with_swiss_banks(russia_at(FACTORY))
    state, _ = move_to(state, IMPORT)
    error = refused(state, ChooseSpace(INVESTOR))
    assert "FORCE" in error.reason


def test_r_rondel_5_with_r_piece_5_donating_while_the_force_question_is_open():
    """R-RONDEL-5 with R-PIECE-5: Anna (2 cash) moves Factory -> Import (cost 1), then donates
    her 2 to Russia "at any time" while Dan is asked. Either the donation must be refused
    (the move's cost is owed) or the move must already be paid; answering NO FORCE must work."""
    state = with_swiss_banks(with_cash(russia_at(FACTORY), Anna=2))
    state, _ = move_to(state, IMPORT)
    try:
        state, _ = play(state, Donate("russia", 2), "Anna")
    except IllegalAction:
        pass  # refusing the donation is one acceptable fix
    state, _ = play(state, ForceStop(False), "Dan")
    state, _ = play(state, ForceStop(False), "Finn")
    assert state.nations["russia"].rondel == IMPORT
    # Anna's 2 and Russia's 11: the move cost 1, whatever was donated
    assert state.players["Anna"].cash + state.nations["russia"].treasury == 2 + 11 - 1


def test_r_rondel_5_the_space_action_of_the_forced_stop_is_investor():
    """R-RONDEL-5: a forced nation carries out Investor (interest, then investor steps)."""
    state = with_swiss_banks(russia_at(FACTORY))
    state, _ = move_to(state, IMPORT)
    state, _ = play(state, ForceStop(True))
    assert BOARD.rondel_by_id[state.nations["russia"].rondel].action is SpaceAction.INVESTOR
    assert state.turn.stopped_on_investor and not state.turn.passed_investor


def test_r_rondel_2_every_nations_first_placement_is_free_on_any_space():
    """R-RONDEL-2: each of the six nations, on its first turn, may use any of the 8 spaces."""
    state = standard_game()
    for nation in NATIONS:
        assert state.turn.nation == nation
        assert costs(state) == dict.fromkeys(BOARD.rondel_ids, 0)
        state, _ = move_to(state, MANEUVER_2)
