"""Rules section 5, battles (R-BATTLE-1 .. R-BATTLE-3) and the standing answers that decide
out-of-turn questions before they are asked (R-DECIDE-3 with R-BATTLE-1 and R-RONDEL-5).

Rulebook quotes: Italian edition (shared/rules/sources/imperial2030-it.txt), translated.
Fixed deal: Anna Russia, Ben China, Cleo India, Dan Brazil, Eva USA, Finn Europe.
Turn order (R-PIECE-1): Russia, China, India, Brazil, USA, Europe.
"""
from __future__ import annotations

import pytest

from engine.imperial2030.actions import (
    ArmyMove,
    Attack,
    ClearStanding,
    Done,
    Fight,
    FleetMove,
    ForceStop,
    SetStanding,
)
from engine.imperial2030.decisions import DecisionKind
from engine.imperial2030.errors import NotYourDecision
from engine.imperial2030.events import (
    ArmyMoved,
    Battle,
    FightAnswered,
    FleetMoved,
    ForceStopAnswered,
    RondelMoved,
)
from engine.imperial2030.model import (
    ForceStopStep,
    ManeuverStep,
    Stance,
    StandingKind,
    StandingOrder,
    UnitKind,
)
from tests.helpers import (
    FACTORY,
    IMPORT,
    INVESTOR,
    decision,
    governments,
    hostile_army,
    maneuver_turn,
    move_to,
    of_type,
    one,
    options,
    play,
    play_all,
    position,
    refused,
    standard_game,
    swiss_bank,
    turn_of,
    with_units,
)

ARMY, FLEET = UnitKind.ARMY, UnitKind.FLEET
HOSTILE, FRIENDLY = Stance.HOSTILE, Stance.FRIENDLY


def fleets(state, region: str) -> dict[str, int]:
    return {n: ns.fleets[region] for n, ns in state.nations.items() if ns.fleets.get(region)}


def armies(state, region: str) -> dict[str, int]:
    return {n: ns.armies[region] for n, ns in state.nations.items() if ns.armies.get(region)}


def caribbean_example():
    """Rulebook fleet-battle example: a Brazilian and a US fleet in the Caribbean; Europe's
    fleet in the North Atlantic is about to enter."""
    state = with_units(standard_game(), "brazil", fleets={"caribbeansea": 1})
    state = with_units(state, "usa", fleets={"caribbeansea": 1})
    state = with_units(state, "europe", fleets={"northatlantic": 1})
    return maneuver_turn(state, "europe")


def murmansk_port(russian_army: bool = False):
    """A Russian fleet in the port of Murmansk (a Russian shipyard), a European army in Berlin."""
    state = position(standard_game(), "russia", factories=["moscow", "vladivostok", "murmansk"])
    state = with_units(state, "russia", fleets={"murmansk": 1}, armies={"murmansk": 1} if russian_army else None)
    return with_units(state, "europe", armies={"berlin": 1})


# =========================================================================== R-BATTLE-1


@pytest.mark.parametrize("target, survivor", [("brazil", "usa"), ("usa", "brazil")])
def test_r_battle_1_rulebook_example_europe_may_attack_either_fleet(target, survivor):
    """R-BATTLE-1, rulebook example: "If the blue fleet moves into the Caribbean, Blue may decide
    whether to fight. If it chooses to fight, it may target either the green or the red fleet."
    A battle removes one unit of each side."""
    state = caribbean_example()
    state, events = play(state, FleetMove("northatlantic", "caribbeansea", attack=target))
    assert one(events, Battle) == Battle("caribbeansea", "europe", FLEET, target, FLEET)
    assert fleets(state, "caribbeansea") == {survivor: 1}
    assert decision(state).player == "Finn" and decision(state).kind is DecisionKind.MANEUVER


def test_r_battle_1_rulebook_example_if_europe_declines_brazil_then_usa_are_asked_and_all_stay():
    """R-BATTLE-1, rulebook example: "If Blue does not want to fight, the blue fleet moves into
    the Caribbean and asks whether anyone wants battle. If, after its move, neither Red nor
    Green declares battle, the three fleets stay peacefully in the Caribbean."
    Asked in turn order after Europe: Russia, China, India (not present), Brazil, then USA."""
    state = caribbean_example()
    state, events = play(state, FleetMove("northatlantic", "caribbeansea"))
    assert one(events, FleetMoved).dest == "caribbeansea"
    first = decision(state)
    assert (first.player, first.nation, first.kind) == ("Dan", "brazil", DecisionKind.BATTLE)
    assert first.out_of_turn and first.default == Fight(False)
    assert [o.action for o in first.options] == [Fight(True, "brazil", FLEET), Fight(False)]
    assert isinstance(state.step, ManeuverStep) and state.step.entry is not None  # the fleet is on its way
    state, events = play(state, Fight(False), "Dan")
    assert one(events, FightAnswered) == FightAnswered("Dan", "brazil", "caribbeansea", False)
    second = decision(state)
    assert (second.player, second.nation, second.kind) == ("Eva", "usa", DecisionKind.BATTLE)
    state, events = play(state, Fight(False), "Eva")
    assert not of_type(events, Battle)
    assert fleets(state, "caribbeansea") == {"brazil": 1, "usa": 1, "europe": 1}
    assert decision(state).player == "Finn" and decision(state).kind is DecisionKind.MANEUVER


def test_r_battle_1_a_defender_who_fights_ends_the_asking():
    """R-BATTLE-1: "asked in turn order ... until one does" — Brazil fights; the USA is not asked."""
    state = caribbean_example()
    state, _ = play(state, FleetMove("northatlantic", "caribbeansea"))
    state, events = play(state, Fight(True), "Dan")
    assert one(events, Battle) == Battle("caribbeansea", "brazil", FLEET, "europe", FLEET)
    assert fleets(state, "caribbeansea") == {"usa": 1}
    assert decision(state).kind is DecisionKind.MANEUVER


def test_r_battle_1_the_last_defender_may_fight_too():
    """R-BATTLE-1: Brazil declines, the USA fights."""
    state = caribbean_example()
    state, events = play_all(state, FleetMove("northatlantic", "caribbeansea"), Fight(False), Fight(True))
    assert one(events, Battle) == Battle("caribbeansea", "usa", FLEET, "europe", FLEET)
    assert fleets(state, "caribbeansea") == {"brazil": 1}


def test_r_battle_1_asking_starts_after_the_active_nation_and_wraps_round():
    """R-BATTLE-1: "each other nation present is asked in turn order (starting after the active
    nation)" — the USA enters the Caribbean with Brazil and Europe there: Europe (after the
    USA) is asked before Brazil."""
    state = with_units(standard_game(), "brazil", fleets={"caribbeansea": 1})
    state = with_units(state, "europe", fleets={"caribbeansea": 1})
    state = maneuver_turn(with_units(state, "usa", fleets={"neworleans": 1}), "usa")
    state, _ = play(state, FleetMove("neworleans", "caribbeansea"))
    assert (decision(state).player, decision(state).nation) == ("Finn", "europe")
    state, _ = play(state, Fight(False), "Finn")
    assert (decision(state).player, decision(state).nation) == ("Dan", "brazil")


def test_r_battle_1_r_decide_2_only_the_asked_government_answers():
    """R-DECIDE-2: the battle question goes to the deciding government only."""
    state = caribbean_example()
    state, _ = play(state, FleetMove("northatlantic", "caribbeansea"))
    for player in ("Finn", "Eva", "Anna"):
        with pytest.raises(NotYourDecision):
            play(state, Fight(True), player)
    refused(state, Done(), "Dan")  # a maneuver order does not answer the question


def test_r_battle_1_decision_a_government_is_not_asked_to_fight_its_own_other_nation():
    """R-BATTLE-1, engine decision (maneuver._defenders): Finn governs Brazil and Europe, so only
    the USA is asked."""
    state = governments(caribbean_example(), brazil="Finn")
    state, _ = play(state, FleetMove("northatlantic", "caribbeansea"))
    assert (decision(state).player, decision(state).nation) == ("Eva", "usa")


def test_r_battle_1_nothing_is_asked_where_no_other_nation_stands():
    """R-BATTLE-1: "when a unit enters a region holding units of other nations" — only then."""
    state = caribbean_example()
    state, events = play(state, FleetMove("northatlantic", "gulfofguinea"))
    assert decision(state).kind is DecisionKind.MANEUVER and not of_type(events, FightAnswered)


def test_r_battle_1_armies_fight_on_entry_one_for_one():
    """R-BATTLE-1, rulebook: "a battle between armies is fought like a battle between fleets:
    the active nation can destroy an army on a land region 1:1.\""""
    state = with_units(standard_game(), "russia", armies={"korea": 2})
    state = maneuver_turn(with_units(state, "china", armies={"beijing": 1}), "china")
    state, events = play(state, ArmyMove("beijing", "korea", attack="russia"))
    assert one(events, Battle) == Battle("korea", "china", ARMY, "russia", ARMY)
    assert armies(state, "korea") == {"russia": 1}


def test_r_battle_1_an_entering_army_may_be_attacked_by_the_army_there():
    """R-BATTLE-1, rulebook: "The armies of the opposing nations can declare war if their region
    has been invaded.\""""
    state = with_units(standard_game(), "russia", armies={"korea": 1})
    state = maneuver_turn(with_units(state, "china", armies={"beijing": 1}), "china")
    state, _ = play(state, ArmyMove("beijing", "korea"))
    assert (decision(state).player, decision(state).kind) == ("Anna", DecisionKind.BATTLE)
    assert options(state) == [Fight(True, "russia", ARMY), Fight(False)]
    state, events = play(state, Fight(True, "russia", ARMY), "Anna")
    assert one(events, Battle) == Battle("korea", "russia", ARMY, "china", ARMY)
    assert armies(state, "korea") == {}


@pytest.mark.parametrize("kind, left", [(FLEET, {"army"}), (ARMY, {"fleet"})])
def test_r_battle_1_3_the_mover_picks_the_opposing_unit_type(kind, left):
    """R-BATTLE-1: the mover "picks the opposing unit"; in a port province (R-BATTLE-3) that may
    be the army or the fleet."""
    state = maneuver_turn(murmansk_port(russian_army=True), "europe")
    state, events = play(state, ArmyMove("berlin", "murmansk", HOSTILE, attack="russia", attack_kind=kind))
    assert one(events, Battle) == Battle("murmansk", "europe", ARMY, "russia", kind)
    russia = state.nations["russia"]
    assert {k for k, units in (("army", russia.armies), ("fleet", russia.fleets)) if units.get("murmansk")} == left
    assert armies(state, "murmansk") == ({"russia": 1} if kind is FLEET else {})


def test_r_battle_1_the_mover_cannot_attack_a_nation_that_is_not_there():
    """R-BATTLE-1: the battle is with units in the region entered."""
    state = caribbean_example()
    error = refused(state, FleetMove("northatlantic", "caribbeansea", attack="india"))
    assert "no fleet" in error.reason
    refused(state, FleetMove("northatlantic", "caribbeansea", attack="europe"))


def test_r_battle_1_r_decide_3_standing_fight_answers_for_the_defender():
    """R-BATTLE-1 with R-DECIDE-3: Dan's standing "FIGHT europe" fights at once, unasked."""
    state, _ = play(caribbean_example(), SetStanding(StandingOrder(StandingKind.FIGHT, "europe")), "Dan")
    state, events = play(state, FleetMove("northatlantic", "caribbeansea"))
    answer = one(events, FightAnswered)
    assert (answer.player, answer.nation, answer.fight, answer.standing) == ("Dan", "brazil", True, True)
    assert one(events, Battle) == Battle("caribbeansea", "brazil", FLEET, "europe", FLEET)
    assert decision(state).kind is DecisionKind.MANEUVER


def test_r_battle_1_r_decide_3_standing_no_fight_answers_and_the_next_nation_is_asked():
    """R-DECIDE-3: "never fight" — Dan's standing NO FIGHT answers; then Eva is asked."""
    state, _ = play(caribbean_example(), SetStanding(StandingOrder(StandingKind.NO_FIGHT)), "Dan")
    state, events = play(state, FleetMove("northatlantic", "caribbeansea"))
    assert one(events, FightAnswered) == FightAnswered("Dan", "brazil", "caribbeansea", False, standing=True)
    assert (decision(state).player, decision(state).kind) == ("Eva", DecisionKind.BATTLE)


def test_r_decide_3_standing_fight_narrowed_to_a_nation_beats_a_general_no_fight():
    """R-DECIDE-3 (engine/imperial2030/standing.py): the most specific standing answer wins — "never fight"
    but "fight Europe": Dan fights Europe."""
    state = caribbean_example()
    state, _ = play(state, SetStanding(StandingOrder(StandingKind.FIGHT, "europe")), "Dan")
    state, _ = play(state, SetStanding(StandingOrder(StandingKind.NO_FIGHT)), "Dan")
    state, events = play(state, FleetMove("northatlantic", "caribbeansea"))
    assert one(events, Battle).attacker == "brazil"


def test_r_decide_3_a_standing_fight_for_another_nation_does_not_answer():
    """R-DECIDE-3: "FIGHT usa" says nothing about Europe: Dan is asked."""
    state, _ = play(caribbean_example(), SetStanding(StandingOrder(StandingKind.FIGHT, "usa")), "Dan")
    state, _ = play(state, FleetMove("northatlantic", "caribbeansea"))
    assert (decision(state).player, decision(state).kind) == ("Dan", DecisionKind.BATTLE)


def test_r_decide_3_standing_clear_forgets_the_answers():
    """R-DECIDE-3: STANDING CLEAR — the question is asked again."""
    state, _ = play(caribbean_example(), SetStanding(StandingOrder(StandingKind.NO_FIGHT)), "Dan")
    state, _ = play(state, ClearStanding(), "Dan")
    state, _ = play(state, FleetMove("northatlantic", "caribbeansea"))
    assert (decision(state).player, decision(state).kind) == ("Dan", DecisionKind.BATTLE)


@pytest.mark.parametrize("order", [
    StandingOrder(StandingKind.FIGHT, "atlantis"),
    StandingOrder(StandingKind.ALLOW, "europe", "kiel"),
])
def test_r_decide_3_a_standing_answer_about_an_unknown_nation_or_canal_is_refused(order):
    """R-DECIDE-3: a standing answer must name a real nation and canal."""
    state = caribbean_example()
    refused(state, SetStanding(order), "Dan")


# =========================================================================== R-BATTLE-2


def test_r_battle_2_a_unit_that_did_not_move_attacks_in_place():
    """R-BATTLE-2, rulebook: "The fleets of an active nation that did not move may also fight
    fleets of other nations in the same region." Likewise armies (FAQ: the nations that chose
    Maneuver may fight enemy armies and/or fleets)."""
    state = with_units(standard_game(), "usa", fleets={"northatlantic": 1}, armies={"korea": 1})
    state = with_units(state, "russia", armies={"korea": 1})
    state = maneuver_turn(with_units(state, "europe", fleets={"northatlantic": 1}, armies={"korea": 1}), "europe")
    assert Attack("northatlantic", "usa", FLEET) in options(state)
    assert Attack("korea", "usa", ARMY) in options(state) and Attack("korea", "russia", ARMY) in options(state)
    state, events = play(state, Attack("northatlantic", "usa", FLEET))
    assert one(events, Battle) == Battle("northatlantic", "europe", FLEET, "usa", FLEET)
    assert fleets(state, "northatlantic") == {}
    state, events = play(state, Attack("korea", "russia"))
    assert one(events, Battle) == Battle("korea", "europe", ARMY, "russia", ARMY)
    assert armies(state, "korea") == {"usa": 1}


def test_r_battle_2_a_unit_that_moved_cannot_attack_in_place():
    """R-BATTLE-2: only units "that did not move" attack in place; a mover fights on entry."""
    state = with_units(standard_game(), "russia", armies={"korea": 1})
    state = maneuver_turn(with_units(state, "china", armies={"beijing": 1}), "china")
    state, _ = play_all(state, ArmyMove("beijing", "korea"), Fight(False))
    assert armies(state, "korea") == {"russia": 1, "china": 1}
    error = refused(state, Attack("korea", "russia"))
    assert "did not move" in error.reason
    assert not any(isinstance(a, Attack) for a in options(state))


def test_r_battle_2_only_the_active_nation_attacks_in_place():
    """R-BATTLE-2 / FAQ: inactive nations fight only units that have just entered their region."""
    state = with_units(standard_game(), "russia", armies={"korea": 1})
    state = maneuver_turn(with_units(state, "china", armies={"korea": 1, "beijing": 1}), "china")
    with pytest.raises(NotYourDecision):
        play(state, Attack("korea", "china"), "Anna")


# =========================================================================== R-BATTLE-3


def test_r_battle_3_rulebook_murmansk_the_entering_army_attacks_the_fleet_in_port():
    """R-BATTLE-3, rulebook example: "First the blue army can move from Berlin to Murmansk and
    fight the fleet (both the army and the fleet are removed).\""""
    state = maneuver_turn(murmansk_port(), "europe")
    state, events = play(state, ArmyMove("berlin", "murmansk", HOSTILE, attack="russia"))
    assert one(events, Battle) == Battle("murmansk", "europe", ARMY, "russia", FLEET)
    assert state.nations["russia"].fleets == {} and state.nations["europe"].armies == {}


def test_r_battle_3_faq_the_fleet_in_port_may_fight_the_entering_army():
    """R-BATTLE-3, FAQ: "possible if the fleet is still in port and the port's province is invaded
    by an army" — the fleet may attack an entering army."""
    state = maneuver_turn(murmansk_port(), "europe")
    state, _ = play(state, ArmyMove("berlin", "murmansk", HOSTILE))
    assert (decision(state).player, decision(state).nation) == ("Anna", "russia")
    assert options(state) == [Fight(True, "russia", FLEET), Fight(False)]
    state, events = play(state, Fight(True), "Anna")
    assert one(events, Battle) == Battle("murmansk", "russia", FLEET, "europe", ARMY)
    assert state.nations["russia"].fleets == {} and state.nations["europe"].armies == {}
    assert state.nations["europe"].hostile == {}


def test_r_battle_3_faq_an_army_already_in_the_port_may_attack_the_fleet():
    """R-BATTLE-3, FAQ: "... or the army is already there" — attack in place (R-BATTLE-2)."""
    state = position(standard_game(), "russia", factories=["moscow", "vladivostok", "murmansk"])
    state = with_units(state, "russia", fleets={"murmansk": 1})
    state = maneuver_turn(with_units(state, "europe", armies={"murmansk": 1}), "europe")
    assert Attack("murmansk", "russia", FLEET) in options(state)
    state, events = play(state, Attack("murmansk", "russia"))
    assert one(events, Battle) == Battle("murmansk", "europe", ARMY, "russia", FLEET)


def test_r_battle_2_3_a_fleet_in_port_that_did_not_move_may_attack_an_army_there():
    """R-BATTLE-2 with R-BATTLE-3 and the FAQ ("possible if the fleet is still in port and ...
    the army is already there"): Russia's fleet in Murmansk attacks the hostile European army
    standing in Murmansk during Russia's maneuver."""
    state = position(standard_game(), "russia", factories=["moscow", "vladivostok", "murmansk"])
    state = hostile_army(with_units(state, "russia", fleets={"murmansk": 1}), "europe", "murmansk")
    state = maneuver_turn(state, "russia")
    assert Attack("murmansk", "europe", ARMY) in options(state)
    state, events = play(state, Attack("murmansk", "europe", ARMY))
    assert one(events, Battle) == Battle("murmansk", "russia", FLEET, "europe", ARMY)
    assert state.nations["europe"].armies == {} and state.nations["russia"].fleets == {}


def test_r_battle_3_a_fleet_only_attacks_fleets():
    """R-BATTLE-3: "armies and fleets fight each other only when the fleet is in a port" — a fleet
    at sea cannot attack an army (and a FLEET order cannot target one)."""
    state = with_units(standard_game(), "russia", armies={"murmansk": 1}, fleets={"northatlantic": 1})
    state = maneuver_turn(with_units(state, "europe", fleets={"northatlantic": 1}), "europe")
    error = refused(state, Attack("northatlantic", "russia", ARMY))
    assert "only attack fleets" in error.reason


def test_r_battle_3_armies_on_the_coast_and_fleets_at_sea_do_not_meet():
    """R-BATTLE-3: an army landing on a coast is not asked about by fleets in the sea beside it,
    nor a fleet entering a sea by armies on its coasts."""
    state = with_units(standard_game(), "russia", fleets={"mediterraneansea": 1})
    state = with_units(state, "usa", armies={"neareast": 1})
    state = with_units(state, "europe", armies={"rome": 1}, fleets={"rome": 1, "mediterraneansea": 1})
    state = maneuver_turn(state, "europe")
    state, events = play(state, FleetMove("rome", "mediterraneansea"))  # the Russian fleet may be asked
    assert (decision(state).nation, decision(state).kind) == ("russia", DecisionKind.BATTLE)
    state, _ = play(state, Fight(False), "Anna")
    assert decision(state).kind is DecisionKind.MANEUVER  # the US army on the coast is not asked
    state, events = play(state, ArmyMove("rome", "northafrica"))
    assert one(events, ArmyMoved).seas == ("mediterraneansea",)
    assert decision(state).kind is DecisionKind.MANEUVER and not of_type(events, FightAnswered)


# =========================================================================== R-RONDEL-5 with R-DECIDE-3


def force_position():
    """Russia (Anna) on Factory; Dan governs nothing (a Swiss bank, R-INVEST-7)."""
    return swiss_bank(turn_of(standard_game(), "russia", rondel=FACTORY), "Dan", "Cleo")


def test_r_rondel_5_r_decide_3_standing_force_stops_the_nation_on_investor_unasked():
    """R-RONDEL-5 with R-DECIDE-3: "force every nation to stop on Investor when allowed" — Dan's
    standing FORCE answers when Russia moves Factory -> Import past Investor."""
    state, _ = play(force_position(), SetStanding(StandingOrder(StandingKind.FORCE)), "Dan")
    state, events = move_to(state, IMPORT)
    assert one(events, ForceStopAnswered) == ForceStopAnswered("Dan", "russia", True)
    rondel = one(events, RondelMoved)
    assert (rondel.space, rondel.forced_by) == (INVESTOR, "Dan")
    assert state.nations["russia"].rondel == INVESTOR


def test_r_rondel_5_r_decide_3_standing_no_force_lets_the_move_stand():
    """R-RONDEL-5 with R-DECIDE-3: a standing NO FORCE for Russia answers "no"."""
    state, _ = play(force_position(), SetStanding(StandingOrder(StandingKind.NO_FORCE, "russia")), "Dan")
    state, events = move_to(state, IMPORT)
    assert one(events, ForceStopAnswered).force is False
    assert state.nations["russia"].rondel == IMPORT and not isinstance(state.step, ForceStopStep)


def test_r_rondel_5_r_decide_3_standing_force_for_another_nation_does_not_answer():
    """R-DECIDE-3: "FORCE china" says nothing about Russia: Dan is asked."""
    state, _ = play(force_position(), SetStanding(StandingOrder(StandingKind.FORCE, "china")), "Dan")
    state, _ = move_to(state, IMPORT)
    assert isinstance(state.step, ForceStopStep)
    assert (decision(state).player, decision(state).kind) == ("Dan", DecisionKind.FORCE_STOP)
    state, events = play(state, ForceStop(True), "Dan")
    assert one(events, RondelMoved).forced_by == "Dan"
