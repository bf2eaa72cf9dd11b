"""Rules section 4: Factory, Production, Import (R-FACTORY-1, R-PROD-1, R-IMPORT-1),
unit supply (R-PIECE-2) and money (R-PIECE-4, R-PIECE-5)."""
from __future__ import annotations

import pytest

from engine.imperial2030.actions import (
    BuildFactory,
    BuyBond,
    ChooseSpace,
    Donate,
    Import,
    ImportUnit,
    Pass,
    Produce,
)
from engine.imperial2030.decisions import DecisionKind
from engine.imperial2030.errors import IllegalAction
from engine.imperial2030.events import FactoryBuilt, NothingDone, Reason, UnitsPlaced
from engine.imperial2030.model import UnitKind
from tests.helpers import (
    FACTORY,
    IMPORT,
    INVESTOR,
    PRODUCTION_1,
    TAXATION,
    bank_flow,
    decider,
    decision,
    friendly_army,
    governments,
    hostile_army,
    move_to,
    of_type,
    one,
    options,
    paid,
    play,
    refused,
    standard_game,
    to_bank,
    total_money,
    turn_of,
    with_cash,
)

ARMY, FLEET = UnitKind.ARMY, UnitKind.FLEET


def on_space(nation: str, space: str, state=None, **fields):
    """``nation`` has just moved onto ``space`` (from the space three before, free) and its
    government is asked for the details."""
    state = turn_of(state or standard_game(), nation, rondel=None, **fields)
    state, _ = move_to(state, space)  # first placement: free, passes nothing
    return state


def placed(events) -> list[tuple[UnitKind, str]]:
    return sorted((e.kind, e.region) for e in of_type(events, UnitsPlaced) for _ in range(e.count))


# =========================================================================== R-FACTORY-1


def test_r_factory_1_rulebook_example_europe_may_build_in_rome_or_berlin():
    """R-FACTORY-1, rulebook example: "Europe has factories in Paris and London, so a factory
    can be built either as a shipyard in Rome (blue) or as an armaments factory in Berlin
    (brown). It costs 5 million from the treasury to the bank." """
    state = on_space("europe", FACTORY)
    assert decision(state).kind is DecisionKind.FACTORY
    assert set(options(state)) == {BuildFactory("rome"), BuildFactory("berlin"), Pass()}
    after, events = play(state, BuildFactory("rome"))
    assert one(events, FactoryBuilt) == FactoryBuilt("europe", "rome")
    assert to_bank(events, Reason.FACTORY) == 5
    assert after.nations["europe"].treasury == state.nations["europe"].treasury - 5
    assert sorted(after.nations["europe"].factories) == ["london", "paris", "rome"]


def test_r_factory_1_rulebook_example_hostile_army_in_berlin_leaves_only_rome():
    """R-FACTORY-1, rulebook example: "if there had been a hostile army in Berlin, it would
    only have been possible to build in Rome"."""
    state = hostile_army(standard_game(), "russia", "berlin")
    state = on_space("europe", FACTORY, state)
    assert set(options(state)) == {BuildFactory("rome"), Pass()}
    error = refused(state, BuildFactory("berlin"))
    assert "hostile" in error.reason
    assert "pass" in error.legal


def test_r_factory_1_a_friendly_foreign_army_does_not_block_building():
    """R-FACTORY-1: only a hostile (standing) foreign army blocks the city."""
    state = friendly_army(standard_game(), "russia", "berlin")
    state = on_space("europe", FACTORY, state)
    assert BuildFactory("berlin") in options(state)


def test_r_factory_1_the_city_decides_the_factory_type():
    """R-FACTORY-1: armaments on a brown city, shipyard on a blue city: the new Rome
    shipyard produces a fleet, the new Berlin factory an army."""
    for city, kind in (("rome", FLEET), ("berlin", ARMY)):
        state, _ = play(on_space("europe", FACTORY), BuildFactory(city))
        state = turn_of(state, "europe", rondel=FACTORY)
        state, _ = move_to(state, PRODUCTION_1)
        state, events = play(state, Produce((city,)))
        assert placed(events) == [(kind, city)]


def test_r_factory_1_only_in_an_own_home_city_without_a_factory():
    """R-FACTORY-1: not in a foreign city, not where a factory stands already."""
    state = on_space("europe", FACTORY)
    assert "not a home city" in refused(state, BuildFactory("moscow")).reason
    assert "already has a factory" in refused(state, BuildFactory("paris")).reason


def test_r_factory_1_a_treasury_with_less_than_5_builds_nothing():
    """R-FACTORY-1: "if it has less than 5, no factory can be built" -- not even with the
    government's own money (R-PIECE-4: treasury and cash never mix)."""
    state = with_cash(standard_game(), Finn=50)
    state = turn_of(state, "europe", treasury=4)
    state, events = move_to(state, FACTORY)
    assert one(events, NothingDone).action == "factory"
    assert "less than 5" in one(events, NothingDone).why
    assert state.turn.nation == "russia"  # the turn is over
    assert state.players["Finn"].cash == 50


def test_r_factory_1_the_government_may_build_nothing():
    """R-FACTORY-1: building is allowed, not required: PASS builds nothing and costs nothing."""
    state = on_space("europe", FACTORY)
    after, events = play(state, Pass())
    assert of_type(events, FactoryBuilt) == []
    assert after.nations["europe"].treasury == state.nations["europe"].treasury


def test_r_factory_1_a_nation_with_four_factories_has_no_site_left():
    """R-FACTORY-1 with R-PIECE-1: four home cities, one factory each."""
    state = turn_of(standard_game(), "europe", factories=["paris", "london", "rome", "berlin"])
    state, events = move_to(state, FACTORY)
    assert "no free city" in one(events, NothingDone).why


# =========================================================================== R-PROD-1


def europe_production_example():
    """Europe has factories in London, Paris and Rome; a hostile Chinese army stands in Paris,
    a friendly American army lies in London."""
    state = turn_of(standard_game(), "europe", factories=["paris", "london", "rome"])
    state = hostile_army(state, "china", "paris")
    state = friendly_army(state, "usa", "london")
    state, _ = move_to(state, PRODUCTION_1)
    return state


def test_r_prod_1_rulebook_example_fleets_in_london_and_rome_no_army_in_paris():
    """R-PROD-1, rulebook example: "Europe has factories in London, Paris and Rome. In Paris
    there is a hostile Chinese army, in London a friendly American army. On Production
    Europe could place a fleet in London and in Rome, but no army in Paris." """
    state = europe_production_example()
    assert set(options(state)) == {Produce(None), Produce(("london",)), Produce(("rome",))}
    after, events = play(state, Produce(None))
    assert placed(events) == [(FLEET, "london"), (FLEET, "rome")]
    assert after.nations["europe"].armies == {}
    assert after.nations["europe"].fleets == {"london": 1, "rome": 1}


def test_r_prod_1_an_occupied_factory_cannot_be_chosen():
    """R-PROD-1: "a factory whose province holds a hostile foreign army produces nothing"."""
    error = refused(europe_production_example(), Produce(("paris", "rome")))
    assert "Paris" in error.reason
    assert "produce in every factory" in error.legal


def test_r_prod_1_production_is_free():
    """R-PROD-1: "each factory may produce one unit, free"."""
    state = europe_production_example()
    after, events = play(state, Produce(None))
    assert paid(events, Reason.IMPORT) == 0
    assert after.nations["europe"].treasury == state.nations["europe"].treasury
    assert total_money(after) == total_money(state)


def test_r_prod_1_decision_any_subset_of_factories_default_all():
    """R-PROD-1 Decision: "the government may produce from any subset of its factories;
    the default is all"."""
    state = europe_production_example()
    assert decision(state).default == Produce(None)
    assert decision(state).limit == 2
    _, events = play(state, Produce(("rome",)))
    assert placed(events) == [(FLEET, "rome")]
    _, events = play(state, Produce(()))
    assert placed(events) == []
    _, events = play(state, Pass())
    assert placed(events) == []


def test_r_prod_1_each_factory_produces_at_most_one_unit():
    """R-PROD-1: "each own factory may produce one unit"."""
    error = refused(europe_production_example(), Produce(("rome", "rome")))
    assert "at most one" in error.reason


def test_r_prod_1_units_appear_whatever_already_stands_there():
    """R-PROD-1: new units are placed in their factory's province regardless of the units
    already there (rulebook: "senza considerare quante unita' ... siano gia' presenti")."""
    state = turn_of(standard_game(), "russia", armies={"moscow": 3}, fleets={"vladivostok": 2})
    state, _ = move_to(state, PRODUCTION_1)
    state, _ = play(state, Produce(None))
    assert state.nations["russia"].armies == {"moscow": 4}
    assert state.nations["russia"].fleets == {"vladivostok": 3}


def test_r_prod_1_with_every_factory_occupied_nothing_is_produced():
    """R-PROD-1: with both factories blocked, Production does nothing and the turn passes."""
    state = hostile_army(standard_game(), "china", "moscow")
    state = hostile_army(state, "china", "vladivostok")
    state = turn_of(state, "russia")
    state, events = move_to(state, PRODUCTION_1)
    assert one(events, NothingDone).action == "production"
    assert state.turn.nation == "china"


# =========================================================================== R-IMPORT-1


def test_r_import_1_rulebook_example_china_imports_a_fleet_and_two_armies_in_shanghai():
    """R-IMPORT-1, rulebook example: "China imports one fleet and two armies, paying 3 million
    from its treasury to the bank. All three units are placed in Shanghai. The armies could
    also have gone to any of the other three Chinese provinces, but not the fleet." """
    state = on_space("china", IMPORT)
    singles = {a.units[0] for a in options(state) if isinstance(a, Import) and a.units}
    assert {u.region for u in singles if u.kind is ARMY} == {"beijing", "chongqing", "urumqi", "shanghai"}
    assert {u.region for u in singles if u.kind is FLEET} == {"shanghai"}
    assert decision(state).limit == 3
    order = Import((ImportUnit(FLEET, "shanghai"), ImportUnit(ARMY, "shanghai"), ImportUnit(ARMY, "shanghai")))
    after, events = play(state, order)
    assert to_bank(events, Reason.IMPORT) == 3
    assert after.nations["china"].treasury == state.nations["china"].treasury - 3
    assert after.nations["china"].armies == {"shanghai": 2}
    assert after.nations["china"].fleets == {"shanghai": 1}
    assert all(e.imported for e in of_type(events, UnitsPlaced))


def test_r_import_1_the_fleet_could_not_go_to_an_inland_province():
    """R-IMPORT-1, rulebook example: the armies could go elsewhere, "but not the fleet"."""
    state = on_space("china", IMPORT)
    error = refused(state, Import((ImportUnit(FLEET, "beijing"),)))
    assert "port" in error.reason
    after, _ = play(state, Import((ImportUnit(FLEET, "shanghai"), ImportUnit(ARMY, "beijing"),
                                   ImportUnit(ARMY, "urumqi"))))
    assert after.nations["china"].armies == {"beijing": 1, "urumqi": 1}


def test_r_import_1_at_most_three_units():
    """R-IMPORT-1: "the number of units is limited to 3 in all"."""
    state = on_space("china", IMPORT)
    error = refused(state, Import(tuple(ImportUnit(ARMY, "beijing") for _ in range(4))))
    assert "3" in error.reason


def test_r_import_1_each_unit_costs_1_from_the_treasury():
    """R-IMPORT-1: 1 per unit from the treasury; a treasury of 2 pays for two units, not three."""
    state = on_space("china", IMPORT, treasury=2)
    three = Import(tuple(ImportUnit(ARMY, "beijing") for _ in range(3)))
    assert "treasury" in refused(state, three).reason
    after, events = play(state, Import(three.units[:2]))
    assert after.nations["china"].treasury == 0
    assert to_bank(events, Reason.IMPORT) == 2


def test_r_import_1_an_empty_treasury_imports_nothing():
    """R-IMPORT-1: with nothing in the treasury nothing can be bought; the turn passes."""
    state = turn_of(standard_game(), "china", treasury=0)
    state, events = move_to(state, IMPORT)
    assert one(events, NothingDone).action == "import"
    assert state.turn.nation == "india"


def test_r_import_1_not_into_a_province_with_a_hostile_army():
    """R-IMPORT-1: "in all provinces of the nation that hold no hostile armies"."""
    state = hostile_army(standard_game(), "russia", "beijing")
    state = on_space("china", IMPORT, state)
    singles = {a.units[0] for a in options(state) if isinstance(a, Import) and a.units}
    assert ImportUnit(ARMY, "beijing") not in singles
    assert "hostile" in refused(state, Import((ImportUnit(ARMY, "beijing"),))).reason


def test_r_import_1_occupied_port_takes_no_fleet():
    """R-IMPORT-1: fleets only to own ports "without hostile foreign armies"."""
    state = hostile_army(standard_game(), "russia", "shanghai")
    state = on_space("china", IMPORT, state)
    singles = {a.units[0] for a in options(state) if isinstance(a, Import) and a.units}
    assert all(u.kind is ARMY for u in singles)


def test_r_import_1_only_own_home_provinces():
    """R-IMPORT-1: units go to the nation's own home provinces only."""
    state = on_space("china", IMPORT)
    assert "not a home province" in refused(state, Import((ImportUnit(ARMY, "moscow"),))).reason
    assert "not a home province" in refused(state, Import((ImportUnit(ARMY, "korea"),))).reason


def test_r_import_1_importing_nothing_is_allowed():
    """R-IMPORT-1: "buy up to 3 units" -- zero included, free."""
    state = on_space("china", IMPORT)
    for answer in (Import(()), Pass()):
        after, events = play(state, answer)
        assert placed(events) == [] and paid(events, Reason.IMPORT) == 0
        assert after.turn.nation == "india"


# =========================================================================== R-PIECE-2: supply


def test_r_piece_2_faq_exhausted_supply_produces_no_more_units():
    """R-PIECE-2, FAQ: "What if a nation's supply is used up? Then no more armies or fleets
    can be placed." China with all 10 armies on the board produces only its fleet."""
    state = turn_of(standard_game(), "china", armies={"korea": 10})
    state, _ = move_to(state, PRODUCTION_1)
    assert set(options(state)) == {Produce(None), Produce(("shanghai",))}
    after, events = play(state, Produce(None))
    assert placed(events) == [(FLEET, "shanghai")]
    assert "Beijing" in refused(state, Produce(("beijing",))).reason


def test_r_piece_2_faq_exhausted_supply_imports_no_more_units():
    """R-PIECE-2, FAQ: no army can be imported once all are on the board; fleets still can."""
    state = on_space("china", IMPORT, armies={"korea": 10})
    singles = {a.units[0] for a in options(state) if isinstance(a, Import) and a.units}
    assert singles == {ImportUnit(FLEET, "shanghai")}
    assert "supply" in refused(state, Import((ImportUnit(ARMY, "beijing"),))).reason


def test_r_piece_2_import_is_limited_by_what_is_left_in_supply():
    """R-PIECE-2: the USA has 6 armies; with 5 on the board only one more can be imported."""
    state = on_space("usa", IMPORT, armies={"mexico": 5})
    two = Import((ImportUnit(ARMY, "chicago"), ImportUnit(ARMY, "chicago")))
    assert "only 1" in refused(state, two).reason
    after, _ = play(state, Import((ImportUnit(ARMY, "chicago"), ImportUnit(FLEET, "newyork"))))
    assert after.nations["usa"].unit_count(ARMY) == 6


def test_r_piece_2_producing_all_stops_when_the_supply_runs_out():
    """R-PIECE-2: Europe with 7 armies out and two armaments factories produces one army."""
    state = turn_of(standard_game(), "europe", factories=["paris", "berlin", "london"], armies={"turkey": 7})
    state, _ = move_to(state, PRODUCTION_1)
    after, events = play(state, Produce(None))
    assert [k for k, _ in placed(events)].count(ARMY) == 1
    assert after.nations["europe"].unit_count(ARMY) == 8
    assert "supply" in refused(state, Produce(("paris", "berlin"))).reason


# =========================================================================== R-PIECE-4 / R-PIECE-5: money


def test_r_piece_5_a_government_may_donate_cash_to_its_own_treasury_at_any_time():
    """R-PIECE-5: "a player may at any time donate personal cash to the treasury of a nation
    that player governs" -- even while another player is to decide."""
    state = standard_game()
    assert decider(state) == "Anna"
    after, events = play(state, Donate("europe", 2), "Finn")
    assert after.nations["europe"].treasury == 13
    assert after.players["Finn"].cash == 0
    assert paid(events, Reason.DONATION) == 2
    assert decider(after) == "Anna"  # nothing else changed


def test_r_piece_5_decision_no_gift_to_a_treasury_one_does_not_govern():
    """R-PIECE-5 Decision: "the FAQ limits gifts to one's own treasuries"."""
    error = refused(standard_game(), Donate("russia", 1), "Finn")
    assert "govern" in error.reason
    assert error.legal == ("donate up to 2 to Europe",)


def test_r_piece_5_donating_more_than_one_has_is_refused_with_the_legal_range():
    """R-PIECE-5: only own cash can be given; the refusal says what is possible."""
    error = refused(standard_game(), Donate("europe", 3), "Finn")
    assert "2" in error.reason


def test_r_piece_5_a_player_governing_nothing_cannot_donate():
    """R-PIECE-5: a Swiss-bank holder governs no treasury and so can give to none."""
    state = governments(standard_game(), europe="Anna")  # Finn governs nothing
    error = refused(state, Donate("europe", 1), "Finn")
    assert "govern" in error.reason


def test_r_piece_5_donations_of_nothing_are_refused():
    """R-PIECE-5: a donation is of at least 1 million."""
    with pytest.raises(IllegalAction):
        play(standard_game(), Donate("europe", 0), "Finn")


def test_r_piece_4_money_is_conserved_between_bank_treasuries_and_players():
    """R-PIECE-4: every million that appears or disappears outside the bank is accounted for
    by a payment from or to the bank (a played sequence of turns)."""
    state = with_cash(standard_game(), Anna=20, Ben=20, Finn=20)
    script = [
        ChooseSpace(FACTORY), BuildFactory("novosibirsk"),  # Russia builds (treasury -> bank)
        ChooseSpace(IMPORT), Import((ImportUnit(ARMY, "beijing"),)),  # China imports
        ChooseSpace(TAXATION),  # India taxes
        ChooseSpace(INVESTOR),  # Brazil pays interest; card holder invests
    ]
    for action in script:
        after, events = play(state, action)
        assert total_money(after) - total_money(state) == bank_flow(events)
        state = after
    assert decision(state).kind is DecisionKind.INVESTMENT
    after, events = play(state, BuyBond("brazil", 4))
    assert total_money(after) == total_money(state)  # cash -> treasury: no new money


def test_r_piece_4_players_cannot_pay_each_other():
    """R-PIECE-4: "players may not lend or give money to each other": there is no action for it,
    and a donation can only reach a treasury the giver governs."""
    state = standard_game()
    with pytest.raises(IllegalAction):
        play(state, Donate("china", 1), "Anna")  # China is Ben's
    assert state.players["Ben"].cash == 2

