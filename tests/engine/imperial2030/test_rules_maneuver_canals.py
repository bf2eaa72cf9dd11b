"""Rules section 5, canals (R-MOVE-2): Suez and Panama, asked of the nation whose flag controls them, the
standing answers, a convoy asked once per army crossing.

Split from test_rules_maneuver.py (movement), whose docstring says how positions are built; the rule
citations of every test_rules_maneuver*.py file are checked there.
"""
from __future__ import annotations

import pytest

from engine.imperial2030.actions import (
    ArmyMove,
    Done,
    FleetMove,
    Passage,
    SetStanding,
)
from engine.imperial2030.decisions import DecisionKind
from engine.imperial2030.errors import NotYourDecision
from engine.imperial2030.events import (
    ArmyMoved,
    FleetMoved,
    PassageAnswered,
)
from engine.imperial2030.model import (
    StandingKind,
    StandingOrder,
)
from tests.engine.imperial2030.maneuverkit import (
    HOSTILE,
    army_dests,
    fleet_dests,
    moved,
    step_of,
)
from tests.helpers import (
    decision,
    governments,
    maneuver_turn,
    of_type,
    one,
    play,
    play_all,
    refused,
    standard_game,
    with_flags,
    with_units,
)

# =========================================================================== R-MOVE-2 canals


def suez_example():
    """Rulebook canal example: the USA controls Suez (its flag on North Africa); Europe has a
    fleet in the Mediterranean, a fleet in the port of Rome and an army in Paris."""
    state = with_flags(standard_game(), "usa", "northafrica")
    state = with_units(state, "europe", armies={"paris": 1}, fleets={"mediterraneansea": 1, "rome": 1})
    return maneuver_turn(state, "europe")


def test_r_move_2_rulebook_suez_example_the_paris_army_reaches_mumbai_if_the_usa_allows_twice():
    """R-MOVE-2, rulebook example: "The Suez canal is controlled by the United States. If they
    agree, Europe can move its fleet from the Mediterranean to the Indian Ocean. The fleet in
    Rome enters the Mediterranean, and Europe can then move its army through the two fleets
    from Paris to Mumbai ... only if the United States also allow this second movement."
    Each passage is a CANAL question to the USA government (Eva), default: allowed."""
    state = suez_example()
    state, events = play(state, FleetMove("mediterraneansea", "indianocean"))
    assert events == []  # the fleet waits at the canal
    question = decision(state)
    assert (question.player, question.nation, question.kind) == ("Eva", "usa", DecisionKind.CANAL)
    assert question.out_of_turn and question.default == Passage(True)
    assert [o.action for o in question.options] == [Passage(True), Passage(False)]
    assert state.nations["europe"].fleets["mediterraneansea"] == 1  # not yet through
    state, events = play(state, Passage(True), "Eva")
    assert one(events, PassageAnswered) == PassageAnswered("Eva", "usa", "suez", "europe", True)
    assert one(events, FleetMoved) == FleetMoved("europe", "mediterraneansea", "indianocean", "suez")

    state, _ = play(state, FleetMove("rome", "mediterraneansea"))
    assert decision(state).kind is DecisionKind.MANEUVER  # no canal on the way out of Rome
    assert "mumbai" in army_dests(state, "paris")
    state, events = play(state, ArmyMove("paris", "mumbai", HOSTILE))
    assert events == [] and decision(state).kind is DecisionKind.CANAL and decision(state).player == "Eva"
    assert step_of(state).entry is not None and step_of(state).entry.dest == "mumbai"  # on its way
    assert state.nations["europe"].armies == {"paris": 1}
    state, events = play(state, Passage(True), "Eva")
    army = moved(events)
    assert (army.origin, army.dest, army.seas, army.stance) == (
        "paris", "mumbai", ("mediterraneansea", "indianocean"), HOSTILE)
    assert state.nations["europe"].armies == {"mumbai": 1}
    assert state.nations["europe"].hostile == {"mumbai": 1}


def test_r_move_2_suez_example_deny_turns_the_army_back_and_closes_the_canal_for_the_maneuver():
    """R-MOVE-2: the controller "has the power to allow the passage or not". DENY: the army
    stays in Paris, no fleet is spent, and Suez stays closed to Europe for the rest of this
    maneuver (it is not offered again)."""
    state = suez_example()
    state, _ = play_all(state, FleetMove("mediterraneansea", "indianocean"), Passage(True),
                        FleetMove("rome", "mediterraneansea"), ArmyMove("paris", "mumbai", HOSTILE))
    state, events = play(state, Passage(False), "Eva")
    assert one(events, PassageAnswered).allow is False
    assert not of_type(events, ArmyMoved)
    assert state.nations["europe"].armies == {"paris": 1}
    assert step_of(state).entry is None and step_of(state).carried == ()
    assert step_of(state).denied == ("suez",)
    assert decision(state).player == "Finn" and decision(state).kind is DecisionKind.MANEUVER
    # beyond the canal nothing is offered; this side of it still is
    assert not army_dests(state, "paris") & {"mumbai", "indonesia", "eastafrica", "kolkata"}
    assert {"northafrica", "neareast"} <= army_dests(state, "paris")
    refused(state, ArmyMove("paris", "mumbai", HOSTILE))


def test_r_move_2_a_denied_fleet_stays_and_cannot_try_again_this_maneuver():
    """R-MOVE-2: a fleet refused passage stays where it was; the canal is closed to the mover
    for the rest of the maneuver, for every fleet."""
    state = with_flags(standard_game(), "usa", "northafrica")
    state = maneuver_turn(with_units(state, "europe", fleets={"mediterraneansea": 2}), "europe")
    state, _ = play(state, FleetMove("mediterraneansea", "indianocean"))
    state, events = play(state, Passage(False), "Eva")
    assert not of_type(events, FleetMoved)
    assert state.nations["europe"].fleets == {"mediterraneansea": 2}
    assert fleet_dests(state, "mediterraneansea") == {"northatlantic"}
    refused(state, FleetMove("mediterraneansea", "indianocean"))
    state, _ = play(state, FleetMove("mediterraneansea", "northatlantic"))  # the fleet may still go elsewhere


def test_r_move_2_the_canal_is_asked_again_in_the_next_maneuver():
    """R-MOVE-2: a refusal closes the canal for that maneuver only."""
    state = with_flags(standard_game(), "usa", "northafrica")
    state = maneuver_turn(with_units(state, "europe", fleets={"mediterraneansea": 1}), "europe")
    state, _ = play_all(state, FleetMove("mediterraneansea", "indianocean"))
    state, _ = play(state, Passage(False), "Eva")
    state, _ = play(state, Done())
    state = maneuver_turn(state, "europe")
    assert "indianocean" in fleet_dests(state, "mediterraneansea")
    state, _ = play(state, FleetMove("mediterraneansea", "indianocean"))
    assert decision(state).kind is DecisionKind.CANAL


def test_r_move_2_a_canal_without_flag_is_open():
    """R-MOVE-2, rulebook: "At the start of the game there are no flags, so there are no
    restrictions on the use of the canals." Panama joins the Caribbean and the North Pacific."""
    state = maneuver_turn(with_units(standard_game(), "usa", fleets={"caribbeansea": 1}), "usa")
    assert "northpacific" in fleet_dests(state, "caribbeansea")
    state, events = play(state, FleetMove("caribbeansea", "northpacific"))
    assert one(events, FleetMoved) == FleetMoved("usa", "caribbeansea", "northpacific", "panama")
    assert not of_type(events, PassageAnswered)


def test_r_move_2_panama_is_controlled_by_the_flag_on_colombia():
    """R-MOVE-2: "If Colombia (Panama) ... carries a flag of another nation, that nation's
    government decides" — Brazil's flag on Colombia: Dan is asked when the USA passes."""
    state = with_flags(standard_game(), "brazil", "colombia")
    state = maneuver_turn(with_units(state, "usa", fleets={"northpacific": 1}), "usa")
    state, _ = play(state, FleetMove("northpacific", "caribbeansea"))
    question = decision(state)
    assert (question.player, question.nation, question.kind) == ("Dan", "brazil", DecisionKind.CANAL)
    with pytest.raises(NotYourDecision):
        play(state, Passage(True), "Eva")  # the mover cannot answer for the controller
    state, events = play(state, Passage(True), "Dan")
    assert one(events, FleetMoved).canal == "panama"


def test_r_move_2_no_question_to_the_controller_itself():
    """R-MOVE-2: only a flag "of another nation" controls the passage."""
    state = with_flags(standard_game(), "usa", "northafrica")
    state = maneuver_turn(with_units(state, "usa", fleets={"mediterraneansea": 1}), "usa")
    state, events = play(state, FleetMove("mediterraneansea", "indianocean"))
    assert one(events, FleetMoved).canal == "suez" and not of_type(events, PassageAnswered)


def test_r_move_2_decision_no_question_when_one_player_governs_both_nations():
    """R-MOVE-2, data README decision: no canal question when the canal's flag belongs to a
    nation governed by the mover's government (Finn governs the USA and Europe)."""
    state = governments(suez_example(), usa="Finn")
    state, events = play_all(state, FleetMove("mediterraneansea", "indianocean"),
                             FleetMove("rome", "mediterraneansea"), ArmyMove("paris", "mumbai", HOSTILE))
    assert not of_type(events, PassageAnswered)
    assert moved(events).seas == ("mediterraneansea", "indianocean")


@pytest.mark.parametrize("order, allowed", [
    (StandingOrder(StandingKind.ALLOW, "europe", "suez"), True),
    (StandingOrder(StandingKind.ALLOW), True),
    (StandingOrder(StandingKind.DENY, "europe"), False),
    (StandingOrder(StandingKind.DENY, None, "suez"), False),
])
def test_r_move_2_r_decide_3_a_standing_answer_decides_the_passage(order, allowed):
    """R-MOVE-2 with R-DECIDE-3: "always allow Europe through Suez" — a standing ALLOW/DENY of
    the controller's government answers before the question is asked."""
    state, _ = play(suez_example(), SetStanding(order), "Eva")
    state, events = play(state, FleetMove("mediterraneansea", "indianocean"))
    answer = one(events, PassageAnswered)
    assert (answer.player, answer.allow, answer.standing) == ("Eva", allowed, True)
    assert decision(state).kind is DecisionKind.MANEUVER
    expected = {"indianocean": 1} if allowed else {"mediterraneansea": 1}
    assert {k: v for k, v in state.nations["europe"].fleets.items() if k != "rome"} == expected


def test_r_move_2_r_decide_3_a_standing_answer_for_another_canal_or_nation_does_not_answer():
    """R-DECIDE-3: a standing order narrowed to Panama, or to Brazil, does not answer Europe at Suez."""
    state = suez_example()
    state, _ = play(state, SetStanding(StandingOrder(StandingKind.DENY, None, "panama")), "Eva")
    state, _ = play(state, SetStanding(StandingOrder(StandingKind.DENY, "brazil")), "Eva")
    state, _ = play(state, FleetMove("mediterraneansea", "indianocean"))
    assert decision(state).kind is DecisionKind.CANAL


def test_r_move_2_the_more_specific_standing_answer_wins():
    """R-DECIDE-3 (engine/imperial2030/standing.py): "DENY" in general but "ALLOW europe" — Europe passes."""
    state = suez_example()
    state, _ = play(state, SetStanding(StandingOrder(StandingKind.ALLOW, "europe")), "Eva")
    state, _ = play(state, SetStanding(StandingOrder(StandingKind.DENY)), "Eva")
    state, events = play(state, FleetMove("mediterraneansea", "indianocean"))
    assert one(events, PassageAnswered).allow is True


def test_r_move_2_decision_a_convoy_is_asked_once_per_army_crossing():
    """R-MOVE-2, data README decision: "asked once per army crossing, before that army's move
    resolves" — two armies through Suez, two questions."""
    state = with_flags(standard_game(), "usa", "northafrica")
    state = with_units(state, "europe", armies={"rome": 2}, fleets={"mediterraneansea": 2, "indianocean": 2})
    state = maneuver_turn(state, "europe")
    asked = 0
    for _ in range(2):
        state, _ = play(state, ArmyMove("rome", "eastafrica"))
        assert decision(state).kind is DecisionKind.CANAL
        state, events = play(state, Passage(True), "Eva")
        asked += 1
        assert moved(events).seas == ("mediterraneansea", "indianocean")
    assert asked == 2 and state.nations["europe"].armies == {"eastafrica": 2}


