"""Rules section 5, movement: fleets, armies, rail, convoys, canals, straits, islands,
the east-west wrap-around (R-MOVE-1 .. R-MOVE-6).

Battles are in test_rules_maneuver_battles.py; hostile armies, factory destruction and
flags in test_rules_maneuver_occupation.py.

Rulebook quotes are from the Italian edition (shared/rules/sources/imperial2030-it.txt,
section MANOVRA and the FAQ), translated. Positions are built with the helpers (units
placed directly, R-SETUP-6 fixed deal: Anna Russia, Ben China, Cleo India, Dan Brazil,
Eva USA, Finn Europe); the maneuver itself is driven only through ``apply``.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from engine.imperial2030.actions import (
    ArmyMove,
    Attack,
    DestroyFactory,
    Done,
    FleetMove,
    Passage,
)
from engine.imperial2030.decisions import DecisionKind
from engine.imperial2030.errors import IllegalAction, NotYourDecision
from engine.imperial2030.events import (
    FlagPlaced,
    FleetMoved,
    PassageAnswered,
    TurnStarted,
)
from engine.imperial2030.model import (
    ManeuverStep,
    RondelStep,
)
from tests.engine.imperial2030.maneuverkit import (
    FRIENDLY,
    HOSTILE,
    INDIAN_OCEAN_SHORE,
    army_dests,
    fleet_dests,
    moved,
    step_of,
)
from tests.helpers import (
    BOARD,
    MANEUVER_2,
    PRODUCTION_2,
    decision,
    friendly_army,
    hostile_army,
    maneuver_turn,
    move_to,
    of_type,
    one,
    options,
    play,
    play_all,
    refused,
    standard_game,
    turn_of,
    with_flags,
    with_units,
)

# =========================================================================== R-MOVE-1 fleets


def test_r_move_1_rulebook_example_north_atlantic_fleet_has_three_destinations():
    """R-MOVE-1, rulebook example: "The fleet in the North Atlantic may move to the Caribbean
    Sea, the Gulf of Guinea or the Mediterranean Sea."

    The engine's list is the board data's: the North Atlantic borders exactly these three
    seas (its other neighbours are land), so the list is exactly the rulebook's three."""
    state = maneuver_turn(with_units(standard_game(), "europe", fleets={"northatlantic": 1}), "europe")
    dests = fleet_dests(state, "northatlantic")
    assert {"caribbeansea", "gulfofguinea", "mediterraneansea"} <= dests
    assert dests == set(BOARD.seas_of["northatlantic"]) == {"caribbeansea", "gulfofguinea", "mediterraneansea"}
    for sea in sorted(dests):
        after, events = play(state, FleetMove("northatlantic", sea))
        assert one(events, FleetMoved) == FleetMoved("europe", "northatlantic", sea, None)
        assert after.nations["europe"].fleets == {sea: 1}


def test_r_move_1_rulebook_example_the_london_fleet_goes_only_to_the_north_atlantic():
    """R-MOVE-1, rulebook example: "The fleet in the port of London, on the other hand, can only
    move to the North Atlantic." A fleet in port goes only onto its port's sea."""
    state = maneuver_turn(with_units(standard_game(), "europe", fleets={"london": 1}), "europe")
    assert fleet_dests(state, "london") == {"northatlantic"}
    for sea in ("caribbeansea", "mediterraneansea", "gulfofguinea"):
        refused(state, FleetMove("london", sea))
    after, events = play(state, FleetMove("london", "northatlantic"))
    assert after.nations["europe"].fleets == {"northatlantic": 1}


@pytest.mark.parametrize("port", sorted(r.id for r in BOARD.regions.values() if r.is_home and r.port))
def test_r_move_1_every_port_opens_onto_its_own_sea_only(port):
    """R-MOVE-1: "A fleet in a port moves to that port's sea" — for every port on the board."""
    region = BOARD.regions[port]
    state = maneuver_turn(with_units(standard_game(), region.nation, fleets={port: 1}), region.nation)
    assert fleet_dests(state, port) == {region.port}


def test_r_move_1_fleets_never_return_to_land():
    """R-MOVE-1: "Fleets never return to land" — not to a port, not to a coast."""
    state = maneuver_turn(with_units(standard_game(), "europe", fleets={"northatlantic": 1}), "europe")
    for land in ("london", "paris", "newyork", "guinea"):
        refused(state, FleetMove("northatlantic", land))


def test_r_move_1_one_step_per_fleet_and_a_fleet_may_stay():
    """R-MOVE-1: "each fleet may move to one adjacent sea region, or stay"."""
    state = maneuver_turn(with_units(standard_game(), "europe", fleets={"northatlantic": 2}), "europe")
    state, _ = play(state, FleetMove("northatlantic", "mediterraneansea"))
    refused(state, FleetMove("mediterraneansea", "indianocean"))  # moved already
    assert fleet_dests(state, "mediterraneansea") == set()
    assert fleet_dests(state, "northatlantic") == {"caribbeansea", "gulfofguinea", "mediterraneansea"}
    state, _ = play(state, Done())  # the second fleet stays
    assert state.nations["europe"].fleets == {"northatlantic": 1, "mediterraneansea": 1}


def test_r_move_1_fleets_move_before_armies():
    """R-MOVE-1/3, section 5: "Three steps in order: fleets, then armies, then flags." Once an
    army has moved, a FLEET order is refused and no longer offered."""
    state = with_units(standard_game(), "europe", armies={"paris": 1}, fleets={"northatlantic": 1})
    state = maneuver_turn(state, "europe")
    assert fleet_dests(state, "northatlantic")
    state, _ = play(state, ArmyMove("paris", "ukraine"))
    error = refused(state, FleetMove("northatlantic", "mediterraneansea"))
    assert "before armies" in error.reason
    assert not any(isinstance(a, FleetMove) for a in options(state))


# =========================================================================== R-MOVE-3 armies


def test_r_move_3_one_land_step():
    """R-MOVE-3: "each army may make one move: to an adjacent land region" — not two."""
    state = maneuver_turn(with_units(standard_game(), "china", armies={"mongolia": 1}), "china")
    dests = army_dests(state, "mongolia")
    assert {"kazakhstan", "novosibirsk", "vladivostok"} <= dests  # Russian homes need a stance
    assert "korea" not in dests and "moscow" not in dests  # two steps away
    refused(state, ArmyMove("mongolia", "moscow", HOSTILE))
    state, events = play(state, ArmyMove("mongolia", "kazakhstan"))
    assert moved(events).dest == "kazakhstan" and not moved(events).by_rail


def test_r_move_3_an_army_moves_once_per_maneuver():
    """R-MOVE-3: "each army may make one move" — after it, the army cannot move on."""
    state = maneuver_turn(with_units(standard_game(), "europe", armies={"paris": 1}), "europe")
    state, _ = play(state, ArmyMove("paris", "ukraine"))
    refused(state, ArmyMove("ukraine", "moscow", HOSTILE))
    assert army_dests(state, "ukraine") == set()


def test_r_move_3_rulebook_example_new_delhi_rail_to_kolkata_then_indochina_or_chongqing():
    """R-MOVE-3/5, rulebook example: "The Indian army from New Delhi could move freely by rail
    to Kolkata and then use its maneuver to invade either Indochina or Chongqing.\""""
    state = maneuver_turn(with_units(standard_game(), "india", armies={"newdelhi": 1}), "india")
    assert {"kolkata", "indochina", "chongqing"} <= army_dests(state, "newdelhi")
    after, events = play(state, ArmyMove("newdelhi", "indochina"))
    assert moved(events).seas == () and after.nations["india"].armies == {"indochina": 1}
    after, events = play(state, ArmyMove("newdelhi", "chongqing", HOSTILE))
    assert moved(events).seas == () and after.nations["india"].armies == {"chongqing": 1}


def test_r_move_3_4_rulebook_example_new_delhi_rail_to_the_coast_then_convoy_across_the_indian_ocean():
    """R-MOVE-4, rulebook example: "Another possibility would be to move by rail to any coastal
    province and then use the fleet for a sea transport to any region bordering the Indian
    Ocean." (An Indian fleet in the Indian Ocean.)"""
    state = with_units(standard_game(), "india", armies={"newdelhi": 1}, fleets={"indianocean": 1})
    state = maneuver_turn(state, "india")
    assert INDIAN_OCEAN_SHORE <= army_dests(state, "newdelhi") | {"newdelhi"}
    for far in ("eastafrica", "southafrica", "northafrica", "neareast", "indonesia"):
        after, events = play(state, ArmyMove("newdelhi", far))
        assert moved(events).seas == ("indianocean",)
        assert after.nations["india"].armies == {far: 1}


def test_r_move_3_rulebook_example_afghanistan_has_no_sea_access_entering_india_ends_the_move():
    """R-MOVE-3, rulebook example: "The army in Afghanistan does not have this possibility ...
    If it moved into India it could go to any Indian province by rail, but its maneuver would
    be over: it could neither leave India across the border nor be carried by the fleet in the
    Indian Ocean.\""""
    state = with_units(standard_game(), "india", armies={"afghanistan": 1}, fleets={"indianocean": 1})
    state = maneuver_turn(state, "india")
    dests = army_dests(state, "afghanistan")
    assert {"newdelhi", "mumbai", "kolkata", "chennai"} <= dests  # step into India, then rail
    assert dests == {"newdelhi", "mumbai", "kolkata", "chennai", "iran", "kazakhstan", "urumqi"}
    for beyond in ("eastafrica", "indonesia", "indochina", "chongqing", "neareast"):
        refused(state, ArmyMove("afghanistan", beyond, HOSTILE if beyond == "chongqing" else None))
    state, events = play(state, ArmyMove("afghanistan", "chennai"))
    assert moved(events).seas == () and state.nations["india"].armies == {"chennai": 1}
    assert army_dests(state, "chennai") == set()  # the maneuver of that army is over


def test_r_move_3_entering_the_own_country_from_outside_then_rail_on():
    """R-MOVE-3: "An army entering its own home country from outside may then rail on, but its
    maneuver ends there": Ukraine -> Moscow -> by rail to Vladivostok, no convoy after."""
    state = with_units(standard_game(), "russia", armies={"ukraine": 1}, fleets={"seaofjapan": 1})
    state = maneuver_turn(state, "russia")
    dests = army_dests(state, "ukraine")
    assert {"moscow", "murmansk", "novosibirsk", "vladivostok"} <= dests
    assert "japan" not in dests and "korea" not in dests
    refused(state, ArmyMove("ukraine", "japan"))
    state, events = play(state, ArmyMove("ukraine", "vladivostok"))
    assert moved(events).seas == () and state.nations["russia"].armies == {"vladivostok": 1}
    refused(state, ArmyMove("vladivostok", "korea"))


def test_r_move_3_an_army_cannot_stop_at_sea():
    """R-MOVE-3/4: "After the transport the army must again be on a land region.\""""
    state = with_units(standard_game(), "europe", armies={"paris": 1}, fleets={"mediterraneansea": 1})
    state = maneuver_turn(state, "europe")
    error = refused(state, ArmyMove("paris", "mediterraneansea"))
    assert "cannot go" in error.reason


# =========================================================================== R-MOVE-4 convoys


def vladivostok_example():
    """Rulebook convoy example: two Russian armies in Vladivostok, two Russian fleets in the
    Sea of Japan and one in the China Sea."""
    state = with_units(standard_game(), "russia", armies={"vladivostok": 2},
                       fleets={"seaofjapan": 2, "chinasea": 1})
    return maneuver_turn(state, "russia")


def test_r_move_4_rulebook_example_vladivostok_army_may_land_in_six_regions():
    """R-MOVE-4, rulebook example: "An army from Vladivostok can land in Indonesia thanks to the
    fleet. Alternatively it can land in the Philippines, Indochina, Shanghai, Beijing or Korea."
    Korea ("no fleet is needed") and Beijing are also one land step from Vladivostok on this
    board, and the engine takes the land step there."""
    state = vladivostok_example()
    dests = army_dests(state, "vladivostok")
    assert {"indonesia", "philippines", "indochina", "shanghai", "beijing", "korea", "japan"} <= dests
    for dest in ("indonesia", "philippines", "indochina"):
        _, events = play(state, ArmyMove("vladivostok", dest))
        assert moved(events).seas == ("seaofjapan", "chinasea")
    _, events = play(state, ArmyMove("vladivostok", "shanghai", HOSTILE))
    assert moved(events).seas == ("seaofjapan", "chinasea")
    for dest, stance in (("korea", None), ("beijing", HOSTILE)):
        _, events = play(state, ArmyMove("vladivostok", dest, stance))
        assert moved(events).seas == ()  # a land step: no fleet needed


def test_r_move_4_rulebook_example_the_second_army_still_reaches_japan_but_not_the_china_sea():
    """R-MOVE-4, rulebook example: "the second army can no longer be carried through the China
    Sea, since the fleet there was already used ... But the second army can still land in
    Japan, since there is another fleet in the Sea of Japan that has not been used.\""""
    state = vladivostok_example()
    state, events = play(state, ArmyMove("vladivostok", "indonesia"))
    assert step_of(state).carried_count("seaofjapan") == 1 and step_of(state).carried_count("chinasea") == 1
    dests = army_dests(state, "vladivostok")
    assert "japan" in dests and {"korea", "beijing"} <= dests
    assert not dests & {"indonesia", "philippines", "indochina", "shanghai"}
    refused(state, ArmyMove("vladivostok", "philippines"))
    state, events = play(state, ArmyMove("vladivostok", "japan"))
    assert moved(events).seas == ("seaofjapan",)
    assert state.nations["russia"].armies == {"indonesia": 1, "japan": 1}


def test_r_move_4_via_forces_the_route_the_rulebook_example_to_beijing_by_sea():
    """R-MOVE-4 with VIA: the rulebook counts Beijing among the landings that use the China Sea
    fleet; ``via`` forces that convoy instead of the land step, and then the second army can
    no longer use the China Sea."""
    state = vladivostok_example()
    state, events = play(state, ArmyMove("vladivostok", "beijing", HOSTILE, via=("seaofjapan", "chinasea")))
    assert moved(events).seas == ("seaofjapan", "chinasea")
    assert state.nations["russia"].armies == {"vladivostok": 1, "beijing": 1}
    assert not army_dests(state, "vladivostok") & {"indonesia", "philippines", "indochina", "shanghai"}
    assert "japan" in army_dests(state, "vladivostok")


@pytest.mark.parametrize("via", [
    ("chinasea",),  # Vladivostok does not touch the China Sea
    ("seaofjapan", "indianocean"),  # not adjacent
    ("seaofjapan", "northpacific"),  # no Russian fleet there
    ("seaofjapan", "seaofjapan"),  # a sea twice
])
def test_r_move_4_via_is_refused_when_it_is_not_a_convoy(via):
    """R-MOVE-4: a forced route must be a chain of adjacent seas, each with a free own fleet,
    starting at a sea the army can reach."""
    state = vladivostok_example()
    error = refused(state, ArmyMove("vladivostok", "indochina", via=via))
    assert "convoy" in error.reason


def test_r_move_4_each_fleet_carries_one_army_per_maneuver():
    """R-MOVE-4: "Each fleet carries one army per maneuver.\""""
    state = with_units(standard_game(), "europe", armies={"rome": 2}, fleets={"mediterraneansea": 1})
    state = maneuver_turn(state, "europe")
    state, events = play(state, ArmyMove("rome", "northafrica"))
    assert moved(events).seas == ("mediterraneansea",)
    assert "northafrica" not in army_dests(state, "rome")
    refused(state, ArmyMove("rome", "northafrica"))
    refused(state, ArmyMove("rome", "neareast", via=("mediterraneansea",)))


def test_r_move_4_fleets_that_moved_this_maneuver_may_convoy():
    """R-MOVE-4: "fleets that moved this maneuver may convoy" — the Rome fleet sails into the
    Mediterranean, then carries the Paris army to North Africa."""
    state = with_units(standard_game(), "europe", armies={"paris": 1}, fleets={"rome": 1})
    state = maneuver_turn(state, "europe")
    assert "northafrica" not in army_dests(state, "paris")
    state, _ = play(state, FleetMove("rome", "mediterraneansea"))
    state, events = play(state, ArmyMove("paris", "northafrica"))
    assert moved(events).seas == ("mediterraneansea",)


def test_r_move_4_only_own_fleets_carry():
    """R-MOVE-4: "adjacent sea regions each holding an own fleet" — a foreign fleet does not carry."""
    state = with_units(standard_game(), "europe", armies={"paris": 1})
    state = with_units(state, "russia", fleets={"mediterraneansea": 1})
    state = maneuver_turn(state, "europe")
    assert "northafrica" not in army_dests(state, "paris")
    refused(state, ArmyMove("paris", "northafrica"))


def test_r_move_4_the_engine_finds_rail_then_convoy_chicago_to_colombia():
    """R-MOVE-4 (issue 3): "ARMY Chicago TO Colombia travels by rail to New Orleans and by the
    Caribbean fleet.\""""
    state = with_units(standard_game(), "usa", armies={"chicago": 1}, fleets={"caribbeansea": 1})
    state = maneuver_turn(state, "usa")
    state, events = play(state, ArmyMove("chicago", "colombia"))
    assert moved(events).seas == ("caribbeansea",) and state.nations["usa"].armies == {"colombia": 1}


def test_r_move_4_decision_rail_after_a_convoy_that_lands_at_home():
    """R-MOVE-4/5, data README decision: "rail after a convoy that lands in an own home province:
    allowed" — Japan -> Sea of Japan -> Vladivostok -> by rail to Moscow."""
    state = with_units(standard_game(), "russia", armies={"japan": 1}, fleets={"seaofjapan": 1})
    state = maneuver_turn(state, "russia")
    assert {"vladivostok", "novosibirsk", "moscow", "murmansk", "korea"} <= army_dests(state, "japan")
    state, events = play(state, ArmyMove("japan", "moscow"))
    assert moved(events).seas == ("seaofjapan",) and state.nations["russia"].armies == {"moscow": 1}


def test_r_move_4_the_route_keeps_the_most_fleets_free():
    """R-MOVE-4 (issue 3): among several convoys the engine picks the one that keeps the most
    fleets free: one Mediterranean fleet, two North Atlantic fleets — Paris to North Africa goes
    by the North Atlantic, leaving a fleet in each sea for the next army."""
    state = with_units(standard_game(), "europe", armies={"paris": 2},
                       fleets={"mediterraneansea": 1, "northatlantic": 2})
    state = maneuver_turn(state, "europe")
    state, events = play(state, ArmyMove("paris", "northafrica"))
    assert moved(events).seas == ("northatlantic",)
    assert {"neareast", "turkey", "guinea"} <= army_dests(state, "paris")  # both seas still carry


def test_r_move_4_the_route_uses_the_fewest_fleets():
    """R-MOVE-4: Paris to East Africa through the Mediterranean and the Indian Ocean (two fleets),
    not round Africa through the North Atlantic, Gulf of Guinea and Indian Ocean (three)."""
    state = with_units(standard_game(), "europe", armies={"paris": 1},
                       fleets={"mediterraneansea": 1, "northatlantic": 1, "gulfofguinea": 1, "indianocean": 1})
    state = maneuver_turn(state, "europe")
    _, events = play(state, ArmyMove("paris", "eastafrica"))
    assert moved(events).seas == ("mediterraneansea", "indianocean")


def test_r_move_4_the_route_choice_is_deterministic():
    """R-MOVE-4 (issue 3): "choose deterministically" — equal routes, same choice every time,
    and the same as a replay would make."""
    state = with_units(standard_game(), "europe", armies={"paris": 1},
                       fleets={"mediterraneansea": 1, "northatlantic": 1})
    state = maneuver_turn(state, "europe")
    seen = {moved(play(state.clone(), ArmyMove("paris", "northafrica"))[1]).seas for _ in range(5)}
    assert len(seen) == 1


@pytest.mark.parametrize("flagged, seas", [
    (False, ("caribbeansea", "northpacific", "southpacific")),
    (True, ("caribbeansea", "southatlantic", "southpacific")),
])
def test_r_move_4_between_equal_convoys_the_engine_avoids_a_canal_question(flagged, seas):
    """R-MOVE-2/4 (engine route choice): a US army in Fortaleza (it touches only the Caribbean) to
    Peru takes three fleets either through Panama or round by the South Atlantic. With the canal
    open the first in map order is taken (through Panama, no question); with Brazil's flag on
    Colombia, the route that needs no question."""
    state = with_flags(standard_game(), "brazil", "colombia") if flagged else standard_game()
    state = with_units(state, "usa", armies={"fortaleza": 1},
                       fleets={"caribbeansea": 1, "northpacific": 1, "southatlantic": 1, "southpacific": 1})
    state = maneuver_turn(state, "usa")
    state, events = play(state, ArmyMove("fortaleza", "peru"))
    assert moved(events).seas == seas
    assert not of_type(events, PassageAnswered) and decision(state).kind is DecisionKind.MANEUVER


# =========================================================================== R-MOVE-5 rail


def novosibirsk_blockade():
    """FAQ position: a hostile Chinese army in Novosibirsk; Russian armies in Moscow, Murmansk,
    Ukraine and Vladivostok."""
    state = hostile_army(standard_game(), "china", "novosibirsk")
    state = with_units(state, "russia", armies={"moscow": 1, "murmansk": 1, "ukraine": 1, "vladivostok": 1})
    return maneuver_turn(state, "russia")


def test_r_move_5_faq_a_hostile_army_in_novosibirsk_cuts_the_rail_to_vladivostok():
    """R-MOVE-5, FAQ: "if a hostile Chinese army stands in Novosibirsk, one cannot go from Moscow
    or from Murmansk to Vladivostok by train. Entering Novosibirsk by rail is not allowed either.\""""
    state = novosibirsk_blockade()
    for origin in ("moscow", "murmansk"):
        assert "vladivostok" not in army_dests(state, origin)
        refused(state, ArmyMove(origin, "vladivostok"))
    assert not army_dests(state, "vladivostok") & {"moscow", "murmansk"}
    # Moscow borders Novosibirsk: the army may still step in (and fight), but not by rail
    _, events = play(state, ArmyMove("moscow", "novosibirsk"))
    assert moved(events).by_rail is False


def test_r_move_5_faq_an_army_from_ukraine_into_moscow_cannot_rail_on_to_novosibirsk():
    """R-MOVE-5, FAQ: "if a Russian army moves from Ukraine to Moscow, it can no longer use the
    railway to fight the Chinese army in Novosibirsk.\""""
    state = novosibirsk_blockade()
    dests = army_dests(state, "ukraine")
    assert {"moscow", "murmansk"} <= dests  # rail past the blockade still works elsewhere
    assert "novosibirsk" not in dests and "vladivostok" not in dests
    refused(state, ArmyMove("ukraine", "novosibirsk"))


def test_r_move_5_an_army_stepping_into_the_blockaded_province_cannot_rail_on():
    """R-MOVE-3/5: an army entering its own country may rail on — but not out of a province whose
    rail is cut: Kazakhstan -> Novosibirsk stops there; Kazakhstan -> Moscow rails on to Murmansk
    only."""
    state = novosibirsk_blockade()
    state = maneuver_turn(with_units(state, "russia", armies={"kazakhstan": 1}), "russia")
    dests = army_dests(state, "kazakhstan")
    assert {"novosibirsk", "moscow", "murmansk"} <= dests and "vladivostok" not in dests
    refused(state, ArmyMove("kazakhstan", "vladivostok"))


def test_r_move_5_a_friendly_foreign_army_does_not_cut_the_rail():
    """R-MOVE-5 / R-HOSTILE-1: "A friendly army has no effect" — Moscow to Vladivostok by rail."""
    state = friendly_army(standard_game(), "china", "novosibirsk")
    state = maneuver_turn(with_units(state, "russia", armies={"moscow": 1}), "russia")
    state, events = play(state, ArmyMove("moscow", "vladivostok"))
    assert moved(events).by_rail is True


def test_r_move_5_rail_only_inside_the_own_home_provinces():
    """R-MOVE-5: "inside its own home provinces only" — a European army in Moscow does not use
    the Russian railway (one step only: Novosibirsk, not Vladivostok)."""
    state = maneuver_turn(with_units(standard_game(), "europe", armies={"moscow": 1}), "europe")
    dests = army_dests(state, "moscow")
    assert "novosibirsk" in dests and "vladivostok" not in dests


# =========================================================================== R-MOVE-6 no entry, straits


def test_r_move_6_the_only_army_straits_are_rome_turkey_and_paris_london_in_the_data():
    """R-MOVE-6: "The only straits armies may cross are Rome–Turkey and Paris–London (they are
    ordinary land adjacencies in the board data).\""""
    straits = {frozenset((e.a, e.b)) for e in BOARD.edges if e.strait}
    assert straits == {frozenset(("rome", "turkey")), frozenset(("paris", "london"))}
    assert all(BOARD.edge_between[s].kind == "land" for s in straits)


@pytest.mark.parametrize("nation, origin, dest, stance", [
    ("europe", "rome", "turkey", None),
    ("russia", "turkey", "rome", HOSTILE),
    ("russia", "paris", "london", FRIENDLY),
    ("russia", "london", "paris", HOSTILE),
])
def test_r_move_6_faq_armies_cross_rome_turkey_and_paris_london(nation, origin, dest, stance):
    """R-MOVE-6, FAQ: "Armies may move from Rome to Turkey and from Paris to London" — a land step
    (shown here for armies that cannot rail there)."""
    state = maneuver_turn(with_units(standard_game(), nation, armies={origin: 1}), nation)
    assert dest in army_dests(state, origin)
    state, events = play(state, ArmyMove(origin, dest, stance))
    assert moved(events).seas == () and state.nations[nation].armies == {dest: 1}


@pytest.mark.parametrize("nation, origin, dest", [
    ("russia", "japan", "korea"),
    ("europe", "rome", "northafrica"),
    ("china", "indochina", "indonesia"),
    ("usa", "australia", "indonesia"),
    ("usa", "australia", "newzealand"),
    ("india", "mumbai", "eastafrica"),
])
def test_r_move_6_faq_other_straits_are_not_crossed_without_a_fleet(nation, origin, dest):
    """R-MOVE-6, FAQ: "The other straits (which cannot be crossed) are marked with a dashed orange
    line" — without an own fleet an army does not cross water."""
    state = maneuver_turn(with_units(standard_game(), nation, armies={origin: 1}), nation)
    assert dest not in army_dests(state, origin)
    refused(state, ArmyMove(origin, dest))


@pytest.mark.parametrize("action", [
    ArmyMove("paris", "switzerland"),
    ArmyMove("paris", "madagascar"),
    ArmyMove("paris", "greenland"),
    ArmyMove("paris", "arctic"),
    ArmyMove("paris", "blacksea"),
    ArmyMove("atlantis", "berlin"),
    ArmyMove("paris", "northafrica", via=("blacksea",)),
    FleetMove("northatlantic", "atlantis"),
    FleetMove("atlantis", "northatlantic"),
    FleetMove("northatlantic", "mediterraneansea", attack="atlantis"),
    Attack("atlantis", "russia"),
    DestroyFactory("atlantis"),
    ArmyMove("paris", "berlin", attack="atlantis"),
    Attack("paris", "atlantis"),
])
def test_r_move_6_regions_that_do_not_exist_are_refused_as_illegal(action):
    """R-MOVE-6: "polar regions, Switzerland and unnamed islands do not exist for movement" — an
    unknown region (or nation) is refused with IllegalAction, a reason and the legal orders."""
    state = with_units(standard_game(), "europe", armies={"paris": 1}, fleets={"northatlantic": 1})
    state = maneuver_turn(state, "europe")
    before = state
    error = refused(state, action)
    assert error.reason
    assert state == before


# =========================================================================== islands, wrap-around


def test_r_move_4_6_islands_only_named_ones_and_indonesia_touches_three_seas():
    """R-MOVE-6, rulebook: "only the 5 named islands or archipelagos (Japan, Philippines,
    Indonesia, Australia and New Zealand) are land regions ... The only region reachable from
    several sea regions is Indonesia: from the Indian Ocean, the Tasman Sea and the China Sea.\""""
    islands = {r for r in BOARD.regions if not BOARD.regions[r].is_sea and not BOARD.lands_of[r]}
    assert islands == {"japan", "philippines", "indonesia", "australia", "newzealand"}
    assert set(BOARD.seas_of["indonesia"]) == {"indianocean", "chinasea", "tasmansea"}
    assert {i: BOARD.seas_of[i] for i in islands - {"indonesia"}} == {
        "japan": ("seaofjapan",), "philippines": ("chinasea",),
        "australia": ("tasmansea",), "newzealand": ("tasmansea",)}


@pytest.mark.parametrize("nation, origin, sea", [
    ("india", "chennai", "indianocean"),
    ("china", "shanghai", "chinasea"),
    ("brazil", "newzealand", "tasmansea"),
])
def test_r_move_4_indonesia_is_reachable_from_each_of_its_three_seas(nation, origin, sea):
    """R-MOVE-4, rulebook: Indonesia "can be reached from the Indian Ocean, the Tasman Sea and
    the China Sea" — one own fleet in any of them carries an army there."""
    state = maneuver_turn(with_units(standard_game(), nation, armies={origin: 1}, fleets={sea: 1}), nation)
    assert "indonesia" in army_dests(state, origin)
    state, events = play(state, ArmyMove(origin, "indonesia"))
    assert moved(events).seas == (sea,) and state.nations[nation].armies == {"indonesia": 1}


@pytest.mark.parametrize("island, sea, origin", [
    ("japan", "seaofjapan", "korea"),
    ("philippines", "chinasea", "korea"),
    ("australia", "tasmansea", "newzealand"),
    ("newzealand", "tasmansea", "australia"),
])
def test_r_move_4_faq_named_islands_are_invaded_by_convoy(island, sea, origin):
    """R-MOVE-4/6, FAQ: "Can an army invade an island? Only the named islands ... are land
    regions and can be invaded" — by a convoy, never by a land step."""
    state = maneuver_turn(with_units(standard_game(), "usa", armies={origin: 1}), "usa")
    assert island not in army_dests(state, origin)
    state = maneuver_turn(with_units(standard_game(), "usa", armies={origin: 1}, fleets={sea: 1}), "usa")
    state, events = play(state, ArmyMove(origin, island))
    assert moved(events).seas == (sea,)


def test_r_move_1_the_wrap_around_north_pacific_to_sea_of_japan_and_china_sea():
    """R-MOVE-1, rulebook "The Earth is a sphere": "the North Pacific is adjacent to the Sea of
    Japan (SJ) as well as to the China Sea (CS). Fleets can move directly from the North
    Pacific to either of these sea regions and back.\""""
    state = maneuver_turn(with_units(standard_game(), "usa", fleets={"northpacific": 1}), "usa")
    assert {"seaofjapan", "chinasea"} <= fleet_dests(state, "northpacific")
    for sea in ("seaofjapan", "chinasea"):
        back = maneuver_turn(with_units(standard_game(), "usa", fleets={sea: 1}), "usa")
        assert "northpacific" in fleet_dests(back, sea)


def test_r_move_1_the_wrap_around_south_pacific_to_china_sea_and_tasman_sea():
    """R-MOVE-1, rulebook: "the South Pacific is adjacent to the China Sea (CS) and to the Tasman
    Sea (TS).\""""
    state = maneuver_turn(with_units(standard_game(), "brazil", fleets={"southpacific": 1}), "brazil")
    assert {"chinasea", "tasmansea"} <= fleet_dests(state, "southpacific")
    assert {frozenset(p) for p in (("northpacific", "seaofjapan"), ("northpacific", "chinasea"),
                                    ("southpacific", "chinasea"), ("southpacific", "tasmansea"))} <= set(
        BOARD.edge_between)


@pytest.mark.parametrize("nation, origin, fleets, dest, seas", [
    ("usa", "sanfrancisco", ("northpacific", "seaofjapan"), "japan", ("northpacific", "seaofjapan")),
    ("usa", "sanfrancisco", ("northpacific", "chinasea"), "philippines", ("northpacific", "chinasea")),
    ("brazil", "argentina", ("southpacific", "tasmansea"), "australia", ("southpacific", "tasmansea")),
    ("china", "shanghai", ("chinasea", "northpacific"), "mexico", ("chinasea", "northpacific")),
])
def test_r_move_4_convoys_cross_the_wrap_around(nation, origin, fleets, dest, seas):
    """R-MOVE-4, rulebook: "there are no restrictions on transporting armies along this route.\""""
    state = with_units(standard_game(), nation, armies={origin: 1}, fleets={f: 1 for f in fleets})
    state = maneuver_turn(state, nation)
    assert dest in army_dests(state, origin)
    state, events = play(state, ArmyMove(origin, dest))
    assert moved(events).seas == seas


# =========================================================================== the maneuver as a whole


def test_section_5_a_nation_without_units_has_only_the_flag_step():
    """Section 5: "Three steps in order: fleets, then armies, then flags" — with no unit on the
    board there is nothing to order; the flag step runs and the turn passes on."""
    state = turn_of(standard_game(), "russia", rondel=PRODUCTION_2)
    state, events = move_to(state, MANEUVER_2)
    assert not isinstance(state.step, ManeuverStep)
    assert isinstance(state.step, RondelStep) and state.turn.nation == "china"
    assert one(events, TurnStarted).nation == "china"


def test_section_5_done_ends_the_maneuver_and_places_flags():
    """Section 5 / R-FLAG-1: DONE ends the orders; flags follow; the next nation's turn starts."""
    state = maneuver_turn(with_units(standard_game(), "europe", armies={"paris": 1}), "europe")
    assert decision(state).default == Done()
    state, events = play_all(state, ArmyMove("paris", "ukraine"), Done())
    assert one(events, FlagPlaced) == FlagPlaced("europe", "ukraine", None)
    assert one(events, TurnStarted).nation == "russia"


def test_section_5_only_the_active_government_gives_maneuver_orders():
    """R-TURN-2: the maneuver is the active nation's; another player's order is not theirs."""
    state = maneuver_turn(with_units(standard_game(), "europe", armies={"paris": 1}), "europe")
    with pytest.raises(NotYourDecision):
        play(state, ArmyMove("paris", "ukraine"), "Anna")
    with pytest.raises(IllegalAction):
        play(state, Passage(True), "Finn")  # no question is open


# =========================================================================== coverage of section 5

SECTION_5 = (
    "R-MOVE-1", "R-MOVE-2", "R-MOVE-3", "R-MOVE-4", "R-MOVE-5", "R-MOVE-6",
    "R-BATTLE-1", "R-BATTLE-2", "R-BATTLE-3",
    "R-HOSTILE-1", "R-HOSTILE-2", "R-HOSTILE-3",
    "R-FLAG-1", "R-FLAG-2", "R-FLAG-3",
)
RULES_REFERENCE = Path(__file__).resolve().parents[4] / "shared" / "rules" / "imperial2030.md"


def _cited() -> str:
    """Names and docstrings of every test in the maneuver rules files."""
    texts = []
    for path in sorted(Path(__file__).parent.glob("test_rules_maneuver*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                texts.append(node.name.upper().replace("_", "-"))
                texts.append(ast.get_docstring(node) or "")
    return "\n".join(texts)


@pytest.mark.slow
def test_every_rule_of_section_5_is_cited_by_a_test():
    """Issue 3: "Every rule id of section 5 cited by a test" (in a test's name or docstring)."""
    if RULES_REFERENCE.exists():
        text = RULES_REFERENCE.read_text(encoding="utf-8")
        section = text[text.index("## 5. Maneuver"):text.index("## 6.")]
        assert tuple(dict.fromkeys(re.findall(r"^- (R-[A-Z]+-\d+)", section, re.M))) == SECTION_5
    cited = _cited()
    missing = [rule for rule in SECTION_5 if not re.search(rf"{rule}(?!\d)", cited)]
    assert not missing
