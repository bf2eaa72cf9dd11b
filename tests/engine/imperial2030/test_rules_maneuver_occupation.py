"""Rules section 5, occupation: hostile and friendly armies (R-HOSTILE-1, R-HOSTILE-2),
factory destruction (R-HOSTILE-3) and flags (R-FLAG-1 .. R-FLAG-3).

Rulebook quotes: Italian edition (shared/rules/sources/imperial2030-it.txt), translated.
Fixed deal: Anna Russia, Ben China, Cleo India, Dan Brazil, Eva USA, Finn Europe.
"""
from __future__ import annotations

import pytest

from engine.imperial2030.actions import (
    ArmyMove,
    BuildFactory,
    DestroyFactory,
    Done,
    Fight,
    FleetMove,
    Import,
    ImportUnit,
    Produce,
)
from engine.imperial2030.decisions import DecisionKind
from engine.imperial2030.events import (
    ArmyMoved,
    Battle,
    FactoryDestroyed,
    FlagPlaced,
    FlagRemoved,
    TaxCollected,
)
from engine.imperial2030.model import Stance, UnitKind
from tests.helpers import (
    BOARD,
    FACTORY,
    IMPORT,
    NEUTRAL_LAND,
    PRODUCTION_1,
    TAXATION,
    decision,
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
    turn_of,
    with_flags,
    with_units,
)

ARMY, FLEET = UnitKind.ARMY, UnitKind.FLEET
HOSTILE, FRIENDLY = Stance.HOSTILE, Stance.FRIENDLY
STANCES = pytest.mark.parametrize("stance", [HOSTILE, FRIENDLY])


def army_orders(state, origin: str, dest: str) -> list[ArmyMove]:
    return [a for a in options(state) if isinstance(a, ArmyMove) and (a.origin, a.dest) == (origin, dest)]


def china_enters(province: str, stance: Stance, state=None):
    """China's maneuver: a Chinese army steps from the neighbouring Chinese province into the
    Indian ``province`` with ``stance``; then DONE. The next turn is India's."""
    origin = {"kolkata": "chongqing", "newdelhi": "urumqi"}[province]
    state = maneuver_turn(with_units(state or standard_game(), "china", armies={origin: 1}), "china")
    state, events = play_all(state, ArmyMove(origin, province, stance), Done())
    assert one(events, ArmyMoved).stance is stance
    assert state.turn.nation == "india"
    return state


def india_on(state, space: str):
    """India moves its marker (first placement, free) onto ``space``."""
    state = turn_of(state, "india", rondel=None)
    state, events = move_to(state, space)
    return state, events


# =========================================================================== R-HOSTILE-1


def test_r_hostile_1_entering_another_nations_home_province_needs_a_stance():
    """R-HOSTILE-1, rulebook: "If an army moves into a province of another Great Power, its
    government must decide whether its intentions are hostile or friendly.\""""
    state = maneuver_turn(with_units(standard_game(), "china", armies={"chongqing": 1}), "china")
    assert army_orders(state, "chongqing", "kolkata") == [
        ArmyMove("chongqing", "kolkata", HOSTILE), ArmyMove("chongqing", "kolkata", FRIENDLY)]
    assert army_orders(state, "chongqing", "indochina") == [ArmyMove("chongqing", "indochina")]
    error = refused(state, ArmyMove("chongqing", "kolkata"))
    assert "HOSTILE or FRIENDLY" in error.reason


@STANCES
def test_r_hostile_1_a_hostile_army_stands_a_friendly_one_lies(stance):
    """R-HOSTILE-1: "A hostile army, standing in the province, blocks it ... A friendly army is
    laid on its side and imposes no restriction.\""""
    state = china_enters("kolkata", stance)
    china = state.nations["china"]
    assert china.armies == {"kolkata": 1}
    assert china.hostile == ({"kolkata": 1} if stance is HOSTILE else {})


@STANCES
def test_r_hostile_1_faq_a_hostile_army_blocks_production(stance):
    """R-HOSTILE-1 / R-PROD-1, FAQ: a hostile occupation "prevents the foreign nation from
    raising units" — New Delhi's factory produces nothing while a hostile army stands there."""
    state, _ = india_on(china_enters("newdelhi", stance), PRODUCTION_1)
    offered = {a.provinces for a in options(state) if isinstance(a, Produce) and a.provinces}
    assert (("newdelhi",) in offered) is (stance is FRIENDLY)
    state, _ = play(state, Produce(None))
    assert ("newdelhi" in state.nations["india"].armies) is (stance is FRIENDLY)


@STANCES
def test_r_hostile_1_a_hostile_army_blocks_import(stance):
    """R-HOSTILE-1 / R-IMPORT-1: no unit is imported into a province with a hostile foreign army."""
    state, _ = india_on(china_enters("kolkata", stance), IMPORT)
    sites = {(u.kind, u.region) for a in options(state) if isinstance(a, Import) for u in a.units}
    assert ((ARMY, "kolkata") in sites) is (stance is FRIENDLY)
    assert ((FLEET, "kolkata") in sites) is (stance is FRIENDLY)
    if stance is HOSTILE:
        refused(state, Import((ImportUnit(ARMY, "kolkata"),)))


@STANCES
def test_r_hostile_1_faq_a_hostile_army_blocks_factory_building(stance):
    """R-HOSTILE-1 / R-FACTORY-1, FAQ: a hostile occupation prevents "building a new factory".
    Kolkata (a shipyard site without factory) is held by a Chinese army."""
    state, _ = india_on(china_enters("kolkata", stance), FACTORY)
    assert (BuildFactory("kolkata") in options(state)) is (stance is FRIENDLY)


@STANCES
def test_r_hostile_1_faq_a_hostile_army_stops_the_factorys_tax(stance):
    """R-HOSTILE-1 / R-TAX-1, FAQ: a hostile occupation prevents "collecting taxes for a factory
    there" — India's income is 2 (Mumbai) instead of 4."""
    _, events = india_on(china_enters("newdelhi", stance), TAXATION)
    tax = one(events, TaxCollected)
    assert (tax.factories, tax.income) == ((1, 2) if stance is HOSTILE else (2, 4))


@STANCES
def test_r_hostile_1_a_hostile_army_cuts_the_rail(stance):
    """R-HOSTILE-1 / R-MOVE-5: "its rail is cut" — India's army in Chennai reaches Chongqing only
    by rail through Kolkata."""
    state = with_units(china_enters("kolkata", stance), "india", armies={"chennai": 1})
    state = maneuver_turn(state, "india")
    reachable = bool(army_orders(state, "chennai", "chongqing"))
    assert reachable is (stance is FRIENDLY)


def test_r_hostile_1_the_blockade_ends_when_the_hostile_army_leaves():
    """R-HOSTILE-1: the block lasts while the hostile army stands there."""
    state = china_enters("newdelhi", HOSTILE)
    state = maneuver_turn(state, "china")
    state, _ = play_all(state, ArmyMove("newdelhi", "afghanistan"), Done())
    assert state.nations["china"].hostile == {}
    state, _ = india_on(state, PRODUCTION_1)
    assert Produce(("newdelhi",)) in options(state)


# =========================================================================== R-HOSTILE-2


def test_r_hostile_2_the_last_free_factory_can_only_be_entered_friendly():
    """R-HOSTILE-2, rulebook: "If a nation is left with only one factory not occupied by hostile
    armies, the province of that factory cannot be invaded by hostile armies. The armies of
    other nations entering this province are laid on their side." India's Mumbai is occupied;
    New Delhi is its last free factory."""
    state = hostile_army(standard_game(), "russia", "mumbai")
    state = maneuver_turn(with_units(state, "china", armies={"urumqi": 3}), "china")
    assert army_orders(state, "urumqi", "newdelhi") == [ArmyMove("urumqi", "newdelhi", FRIENDLY)]
    for stance in (HOSTILE, None, FRIENDLY):
        state, events = play(state, ArmyMove("urumqi", "newdelhi", stance))
        assert one(events, ArmyMoved).stance is FRIENDLY
    assert state.nations["china"].armies == {"newdelhi": 3} and state.nations["china"].hostile == {}
    state, _ = play(state, Done())
    state, _ = india_on(state, PRODUCTION_1)
    assert Produce(("newdelhi",)) in options(state)  # still producing


def test_r_hostile_2_a_factory_that_is_not_the_last_free_one_may_be_entered_hostile():
    """R-HOSTILE-2 applies only to the last free factory: with Mumbai free, New Delhi may be
    entered hostile, and then Mumbai is the last free one."""
    state = maneuver_turn(with_units(standard_game(), "china", armies={"urumqi": 1}), "china")
    assert len(army_orders(state, "urumqi", "newdelhi")) == 2
    state, _ = play_all(state, ArmyMove("urumqi", "newdelhi", HOSTILE), Done())
    state = maneuver_turn(with_units(state, "europe", armies={"paris": 1}, fleets={"mediterraneansea": 1,
                                                                                   "indianocean": 1}), "europe")
    assert army_orders(state, "paris", "mumbai") == [ArmyMove("paris", "mumbai", FRIENDLY)]


def test_r_hostile_2_a_nation_with_a_single_factory_is_protected_there():
    """R-HOSTILE-2: "left with only one factory" — also when it has only one at all."""
    state = position(standard_game(), "india", factories=["newdelhi"])
    state = maneuver_turn(with_units(state, "china", armies={"urumqi": 1}), "china")
    assert army_orders(state, "urumqi", "newdelhi") == [ArmyMove("urumqi", "newdelhi", FRIENDLY)]
    assert len(army_orders(state, "urumqi", "kolkata")) == 2  # no factory there to protect


# =========================================================================== R-HOSTILE-3


def murmansk_example():
    """Rulebook factory-destruction example: a Russian shipyard in Murmansk with a fleet in port;
    two European armies in Berlin, two in Rome."""
    state = position(standard_game(), "russia", factories=["moscow", "vladivostok", "murmansk"])
    state = with_units(state, "russia", fleets={"murmansk": 1})
    state = with_units(state, "europe", armies={"berlin": 2, "rome": 2})
    return maneuver_turn(state, "europe")


def test_r_hostile_3_rulebook_example_three_armies_destroy_the_murmansk_shipyard():
    """R-HOSTILE-3, rulebook example: "First the blue army can move from Berlin to Murmansk and
    fight the fleet (both are removed). The armies from Rome can move by rail to Berlin and then
    to Murmansk together with the army already in Berlin. Now there are 3 armies in Murmansk
    that can destroy the factory. The 3 armies and the blue shipyard are removed.\""""
    state = murmansk_example()
    state, events = play(state, ArmyMove("berlin", "murmansk", HOSTILE, attack="russia"))
    assert one(events, Battle) == Battle("murmansk", "europe", ARMY, "russia", FLEET)
    assert not any(isinstance(a, DestroyFactory) for a in options(state))
    for origin in ("rome", "rome", "berlin"):
        state, events = play(state, ArmyMove(origin, "murmansk", HOSTILE))
        assert one(events, ArmyMoved).seas == ()
    assert state.nations["europe"].armies == {"murmansk": 3}
    assert DestroyFactory("murmansk") in options(state)
    state, events = play(state, DestroyFactory("murmansk"))
    assert one(events, FactoryDestroyed) == FactoryDestroyed("russia", "murmansk", "europe")
    assert state.nations["russia"].factories == ["moscow", "vladivostok"]
    assert state.nations["europe"].armies == {} and state.nations["europe"].hostile == {}
    assert decision(state).kind is DecisionKind.MANEUVER
    state, events = play(state, Done())
    assert not of_type(events, FlagPlaced)


def test_r_hostile_3_rulebook_example_without_the_battle_the_fleet_in_port_saves_the_shipyard():
    """R-HOSTILE-3: "if no armies or fleets of the defending nation remain in the province" —
    three European armies enter Murmansk without fighting (Anna's fleet declines each time):
    with the Russian fleet still in port the shipyard cannot be destroyed."""
    state = murmansk_example()
    for origin in ("berlin", "berlin", "rome"):
        state, _ = play(state, ArmyMove(origin, "murmansk", HOSTILE))
        assert (decision(state).player, decision(state).kind) == ("Anna", DecisionKind.BATTLE)
        state, _ = play(state, Fight(False), "Anna")
    assert state.nations["europe"].armies == {"murmansk": 3, "rome": 1}
    assert not any(isinstance(a, DestroyFactory) for a in options(state))
    refused(state, DestroyFactory("murmansk"))


def test_r_hostile_3_the_defending_fleet_in_port_prevents_destruction():
    """R-HOSTILE-3: a defending fleet in port protects the factory."""
    state = position(standard_game(), "russia", factories=["moscow", "vladivostok", "murmansk"])
    state = with_units(state, "russia", fleets={"murmansk": 1})
    state = maneuver_turn(hostile_army(state, "europe", "murmansk", 3), "europe")
    assert not any(isinstance(a, DestroyFactory) for a in options(state))
    refused(state, DestroyFactory("murmansk"))


def test_r_hostile_3_a_defending_army_prevents_destruction():
    """R-HOSTILE-3: a defending army protects the factory too."""
    state = position(standard_game(), "russia", factories=["moscow", "vladivostok", "murmansk"])
    state = with_units(state, "russia", armies={"murmansk": 1})
    state = maneuver_turn(hostile_army(state, "europe", "murmansk", 3), "europe")
    refused(state, DestroyFactory("murmansk"))


def test_r_hostile_3_it_takes_three_armies_of_one_nation():
    """R-HOSTILE-3: "three armies of one nation" — two European and one US army do not."""
    state = position(standard_game(), "russia", factories=["moscow", "vladivostok", "murmansk"])
    state = hostile_army(hostile_army(state, "europe", "murmansk", 2), "usa", "murmansk", 1)
    state = maneuver_turn(state, "europe")
    refused(state, DestroyFactory("murmansk"))
    state = maneuver_turn(hostile_army(state, "europe", "murmansk", 1), "europe")
    assert DestroyFactory("murmansk") in options(state)


def test_r_hostile_3_the_last_free_factory_cannot_be_destroyed():
    """R-HOSTILE-3, rulebook: "Exception: if a nation is left with only one factory not occupied
    by hostile armies, this factory cannot be destroyed." Moscow is occupied; Murmansk is
    Russia's last free factory (the three European armies there are friendly, R-HOSTILE-2)."""
    state = position(standard_game(), "russia", factories=["moscow", "murmansk"])
    state = hostile_army(state, "europe", "moscow")
    state = maneuver_turn(with_units(state, "europe", armies={"murmansk": 3}), "europe")
    assert not any(isinstance(a, DestroyFactory) for a in options(state))
    error = refused(state, DestroyFactory("murmansk"))
    assert "last free factory" in error.reason


@pytest.mark.parametrize("province", ["paris", "novosibirsk", "ukraine"])
def test_r_hostile_3_only_a_foreign_factory_can_be_destroyed(province):
    """R-HOSTILE-3: a foreign home province with a factory — not an own one (Paris), not an empty
    site (Novosibirsk), not a neutral region (Ukraine)."""
    state = maneuver_turn(with_units(standard_game(), "europe", armies={province: 3}), "europe")
    refused(state, DestroyFactory(province))


def test_r_hostile_3_faq_fleets_cannot_destroy_a_factory():
    """R-HOSTILE-3, FAQ: "Fleets cannot destroy a factory since they may not return from a sea
    region to land" — three European fleets beside Murmansk do nothing to it."""
    state = position(standard_game(), "russia", factories=["moscow", "vladivostok", "murmansk"])
    state = maneuver_turn(with_units(state, "europe", fleets={"northatlantic": 3}), "europe")
    refused(state, FleetMove("northatlantic", "murmansk"))
    refused(state, DestroyFactory("murmansk"))


# =========================================================================== R-FLAG-1


def test_r_flag_1_flags_go_on_every_region_occupied_alone_after_all_moves():
    """R-FLAG-1: "after all moves, the active nation places a flag in every non-home region it
    occupies alone" — a land region and a sea, at DONE and not before."""
    state = with_units(standard_game(), "europe", armies={"paris": 1}, fleets={"rome": 1})
    state = maneuver_turn(state, "europe")
    state, events = play_all(state, FleetMove("rome", "mediterraneansea"), ArmyMove("paris", "ukraine"))
    assert not of_type(events, FlagPlaced)
    state, events = play(state, Done())
    assert sorted((e.nation, e.region, e.replaced) for e in of_type(events, FlagPlaced)) == [
        ("europe", "mediterraneansea", None), ("europe", "ukraine", None)]
    assert sorted(state.nations["europe"].flags) == ["mediterraneansea", "ukraine"]


def test_r_flag_1_home_provinces_never_get_flags():
    """R-FLAG-1, rulebook: "The provinces of the other nations cannot receive flags" — nor the
    own ones."""
    state = with_units(standard_game(), "china", armies={"urumqi": 1, "beijing": 1})
    state = maneuver_turn(state, "china")
    state, events = play_all(state, ArmyMove("urumqi", "newdelhi", HOSTILE), Done())
    assert not of_type(events, FlagPlaced)
    assert state.nations["china"].flags == []


def test_r_flag_1_no_flag_where_another_nation_also_stands():
    """R-FLAG-1, rulebook: a flag goes on a region "that contains no opposing units".
    (The Russian army declines the battle.)"""
    state = with_units(standard_game(), "russia", armies={"ukraine": 1})
    state = maneuver_turn(with_units(state, "europe", armies={"paris": 1}), "europe")
    state, events = play_all(state, ArmyMove("paris", "ukraine"), Fight(False), Done())
    assert not of_type(events, FlagPlaced)


def test_r_flag_1_the_flag_replaces_another_nations_flag():
    """R-FLAG-1: "replacing any other nation's flag\""""
    state = with_flags(standard_game(), "russia", "ukraine", "kazakhstan")
    state = maneuver_turn(with_units(state, "europe", armies={"paris": 1}), "europe")
    state, events = play_all(state, ArmyMove("paris", "ukraine"), Done())
    assert one(events, FlagPlaced) == FlagPlaced("europe", "ukraine", "russia")
    assert state.nations["russia"].flags == ["kazakhstan"] and state.nations["europe"].flags == ["ukraine"]


def test_r_flag_1_a_region_with_the_own_flag_gets_no_second_one():
    """R-FLAG-1: "that does not already hold its flag\""""
    state = with_flags(standard_game(), "europe", "ukraine")
    state = maneuver_turn(with_units(state, "europe", armies={"paris": 1}), "europe")
    state, events = play_all(state, ArmyMove("paris", "ukraine"), Done())
    assert not of_type(events, FlagPlaced) and state.nations["europe"].flags == ["ukraine"]


# =========================================================================== R-FLAG-2


def test_r_flag_2_faq_the_flag_stays_when_its_units_leave():
    """R-FLAG-2, FAQ: "the flag stays if ... there are no military units at all.\""""
    state = with_flags(with_units(standard_game(), "russia", armies={"korea": 1}), "russia", "korea")
    state = maneuver_turn(state, "russia")
    state, events = play_all(state, ArmyMove("korea", "vladivostok"), Done())
    assert state.nations["russia"].armies == {"vladivostok": 1}
    assert state.nations["russia"].flags == ["korea"]
    assert not of_type(events, FlagRemoved)


def test_r_flag_2_faq_the_flag_stays_while_several_nations_share_the_region():
    """R-FLAG-2, FAQ: "the flag stays if there are military units of other nations" — China
    enters Korea beside the Russian army; Russia keeps its flag."""
    state = with_flags(with_units(standard_game(), "russia", armies={"korea": 1}), "russia", "korea")
    state = maneuver_turn(with_units(state, "china", armies={"beijing": 1}), "china")
    state, events = play_all(state, ArmyMove("beijing", "korea"), Fight(False), Done())
    assert state.nations["china"].armies == {"korea": 1}
    assert state.nations["russia"].flags == ["korea"] and state.nations["china"].flags == []
    assert not of_type(events, FlagPlaced)


def test_r_flag_2_faq_the_flag_is_replaced_when_another_nation_occupies_alone():
    """R-FLAG-2, FAQ: "Only when a region is occupied alone by a Great Power.\""""
    state = with_flags(standard_game(), "russia", "korea")
    state = maneuver_turn(with_units(state, "china", armies={"beijing": 1}), "china")
    state, events = play_all(state, ArmyMove("beijing", "korea"), Done())
    assert one(events, FlagPlaced) == FlagPlaced("china", "korea", "russia")
    assert state.nations["russia"].flags == []


def test_r_flag_2_rulebook_a_battle_leaves_an_inactive_nation_alone_and_its_flag_replaces():
    """R-FLAG-2, rulebook: "As a result of a battle a passive nation may end up occupying a region
    alone; then the previous flag is removed and replaced by this nation's flag." India's flag
    in Korea; Russian and Indian armies there; China enters and fights India: Russia is alone."""
    state = with_flags(standard_game(), "india", "korea")
    state = with_units(state, "russia", armies={"korea": 1})
    state = with_units(state, "india", armies={"korea": 1})
    state = maneuver_turn(with_units(state, "china", armies={"beijing": 1}), "china")
    state, events = play(state, ArmyMove("beijing", "korea", attack="india"))
    assert one(events, Battle) == Battle("korea", "china", ARMY, "india", ARMY)
    state, events = play(state, Done())
    assert one(events, FlagPlaced) == FlagPlaced("russia", "korea", "india")
    assert state.nations["russia"].flags == ["korea"] and state.nations["india"].flags == []


# =========================================================================== R-FLAG-3

FIFTEEN = ("mongolia",) + tuple(r for r in NEUTRAL_LAND if r not in ("mongolia", "korea", "kazakhstan"))[:14]


def test_r_flag_3_fifteen_flags_per_nation():
    """R-PIECE-2 / R-FLAG-3: "15 flags per nation" (board table)."""
    assert BOARD.tables.flags_per_nation == 15 and len(set(FIFTEEN)) == 15


def test_r_flag_3_rulebook_with_all_15_flags_the_old_flag_is_removed_without_replacement():
    """R-FLAG-3, rulebook: "When a nation has placed all its 15 flags ... if it occupies new
    regions alone, the other nations' flags are removed without being replaced.\""""
    state = with_flags(with_flags(standard_game(), "russia", *FIFTEEN), "china", "korea")
    state = maneuver_turn(with_units(state, "russia", armies={"vladivostok": 1}), "russia")
    state, events = play_all(state, ArmyMove("vladivostok", "korea"), Done())
    assert one(events, FlagRemoved) == FlagRemoved("china", "korea", "russia")
    assert not of_type(events, FlagPlaced)
    assert state.nations["china"].flags == [] and "korea" not in state.nations["russia"].flags
    assert len(state.nations["russia"].flags) == 15


def test_r_flag_3_with_all_15_flags_no_flag_goes_on_an_empty_region():
    """R-FLAG-3: "a nation with all 15 flags on the board places none.\""""
    state = with_flags(standard_game(), "russia", *FIFTEEN)
    state = maneuver_turn(with_units(state, "russia", armies={"moscow": 1}), "russia")
    state, events = play_all(state, ArmyMove("moscow", "kazakhstan"), Done())
    assert not of_type(events, FlagPlaced) and not of_type(events, FlagRemoved)
    assert len(state.nations["russia"].flags) == 15


def test_r_flag_3_rulebook_once_a_flag_is_free_again_the_region_may_be_flagged():
    """R-FLAG-3, rulebook: "As soon as one of its 15 flags becomes available again, the nation may
    place it in this empty region." China takes Mongolia (a Russian flag); at a later flag step
    the Russian army alone in Korea gets Russia's freed flag."""
    state = with_flags(with_flags(standard_game(), "russia", *FIFTEEN), "china", "korea")
    state = maneuver_turn(with_units(state, "russia", armies={"vladivostok": 1}), "russia")
    state, _ = play_all(state, ArmyMove("vladivostok", "korea"), Done())
    assert "korea" not in state.nations["russia"].flags
    state = maneuver_turn(with_units(state, "china", armies={"beijing": 1}), "china")
    state, events = play_all(state, ArmyMove("beijing", "mongolia"), Done())
    assert FlagPlaced("china", "mongolia", "russia") in events
    state = maneuver_turn(state, "russia")
    state, _ = play(state, Done())
    assert "korea" in state.nations["russia"].flags
    assert len(state.nations["russia"].flags) == 15
