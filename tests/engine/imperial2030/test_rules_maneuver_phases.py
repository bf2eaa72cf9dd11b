"""Rules section 5, its head: "Three steps in order: fleets, then armies, then flags."

An attack in place (R-BATTLE-2) belongs to its unit's step: a fleet attacks while the fleets
move, an army while the armies move (R-MOVE-1, R-MOVE-3). Once the armies' step has begun, no
fleet moves or attacks, not even the fleet that just carried an army (R-MOVE-4), and an army's
attack in place begins the armies' step.
"""
from __future__ import annotations

from engine.imperial2030.actions import ArmyMove, Attack, FleetMove
from engine.imperial2030.events import Battle
from engine.imperial2030.model import UnitKind
from tests.helpers import maneuver_turn, one, options, play, refused, standard_game, with_units

ARMY, FLEET = UnitKind.ARMY, UnitKind.FLEET


def fleet_and_army_beside_foreign_fleets():
    """Europe: a fleet in the Mediterranean beside a US fleet, an army in Rome beside a Russian
    army, another army in Paris. Europe maneuvers."""
    state = with_units(standard_game(), "europe", fleets={"mediterraneansea": 1}, armies={"rome": 1, "paris": 1})
    state = with_units(state, "usa", fleets={"mediterraneansea": 1})
    state = with_units(state, "russia", armies={"rome": 1})
    return maneuver_turn(state, "europe")


def test_r_move_1_r_battle_2_a_fleet_attacks_in_place_before_any_army_moved():
    """R-BATTLE-2 in the fleets' step: the unmoved fleet attacks the US fleet beside it."""
    state = fleet_and_army_beside_foreign_fleets()
    assert Attack("mediterraneansea", "usa", FLEET) in options(state)
    state, events = play(state, Attack("mediterraneansea", "usa", FLEET))
    assert one(events, Battle) == Battle("mediterraneansea", "europe", FLEET, "usa", FLEET)


def test_r_move_1_r_move_3_r_battle_2_no_fleet_attack_in_place_after_an_army_moved():
    """R-MOVE-1/3 with R-BATTLE-2: fleets, then armies. After the Paris army moved, the fleet's
    attack in place is refused with the order of the steps, and no longer offered."""
    state = fleet_and_army_beside_foreign_fleets()
    state, _ = play(state, ArmyMove("paris", "ukraine"))
    error = refused(state, Attack("mediterraneansea", "usa", FLEET))
    assert "fleets, then armies, then flags" in error.reason
    assert not any(isinstance(a, Attack) and a.region == "mediterraneansea" for a in options(state))


def test_r_move_4_r_battle_2_a_fleet_that_carried_an_army_may_not_attack_afterwards():
    """R-MOVE-4 with R-MOVE-1: the Mediterranean fleet carries the Rome army to North Africa;
    carrying is army work, so the fleet may not attack the US fleet afterwards."""
    state = with_units(standard_game(), "europe", fleets={"mediterraneansea": 1}, armies={"rome": 1})
    state = maneuver_turn(with_units(state, "usa", fleets={"mediterraneansea": 1}), "europe")
    state, events = play(state, ArmyMove("rome", "northafrica"))
    error = refused(state, Attack("mediterraneansea", "usa", FLEET))
    assert "fleets, then armies, then flags" in error.reason


def test_r_move_1_r_battle_2_an_armys_attack_in_place_ends_the_fleets_step():
    """R-MOVE-1 with R-BATTLE-2: the Rome army attacks the Russian army beside it: the armies'
    step has begun, so the fleet may neither move nor attack afterwards."""
    state = fleet_and_army_beside_foreign_fleets()
    state, events = play(state, Attack("rome", "russia", ARMY))
    assert one(events, Battle) == Battle("rome", "europe", ARMY, "russia", ARMY)
    error = refused(state, FleetMove("mediterraneansea", "northatlantic"))
    assert "fleets, then armies, then flags" in error.reason
    refused(state, Attack("mediterraneansea", "usa", FLEET))
    assert not any(isinstance(a, FleetMove) for a in options(state))
    assert not any(isinstance(a, Attack) and a.region == "mediterraneansea" for a in options(state))


def test_r_battle_2_r_battle_3_a_fleet_in_port_attacks_an_army_only_in_the_fleets_step():
    """R-BATTLE-2/3: a fleet in port that did not move may attack a foreign army standing in its
    province, but as fleet work: once an own army has moved, not any more."""
    state = with_units(standard_game(), "europe", fleets={"rome": 1}, armies={"paris": 1})
    state = maneuver_turn(with_units(state, "russia", armies={"rome": 1}), "europe")
    assert Attack("rome", "russia", ARMY) in options(state)
    state, _ = play(state, ArmyMove("paris", "ukraine"))
    error = refused(state, Attack("rome", "russia", ARMY))
    assert "fleets, then armies, then flags" in error.reason
