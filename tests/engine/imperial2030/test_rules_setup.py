"""Rules section 1 (pieces and money) and section 2 (setup): R-PIECE-*, R-SETUP-*.

Each test names the rule it checks; rulebook quotes are from the Italian
edition (shared/rules/sources/imperial2030-it.txt) unless said otherwise.
"""
from __future__ import annotations

import pytest

from engine.imperial2030.actions import BuyBond, Pass
from engine.imperial2030.board import CityKind
from engine.imperial2030.errors import NotYourDecision
from engine.imperial2030.events import (
    BondBought,
    FlagCardDealt,
    NationSkipped,
    Reason,
    TurnStarted,
)
from engine.imperial2030.model import Bond, RondelStep, SetupBondsStep, Variant
from engine.imperial2030.setup import SetupError
from tests.helpers import (
    BOARD,
    NAMES,
    NATIONS,
    STANDARD_DEAL,
    decision,
    new,
    of_type,
    options,
    paid_to,
    play,
    refused,
    standard_game,
)

# =========================================================================== section 1: pieces


def test_r_piece_1_six_nations_in_turn_order_each_with_four_home_provinces():
    """R-PIECE-1: Russia, China, India, Brazil, USA, Europe; 4 home provinces each;
    12 brown (armaments) and 12 blue (shipyard) cities in all."""
    assert BOARD.nation_ids == NATIONS
    for nation in NATIONS:
        assert len(BOARD.homes[nation]) == 4
        assert all(BOARD.regions[h].city is not None for h in BOARD.homes[nation])
    cities = [BOARD.regions[h].city for n in NATIONS for h in BOARD.homes[n]]
    assert cities.count(CityKind.ARMAMENTS) == 12
    assert cities.count(CityKind.SHIPYARD) == 12


def test_r_piece_2_unit_supply_and_flags_per_nation():
    """R-PIECE-2: China 10 armies / 6 fleets, USA 6 / 10, every other nation 8 / 8; 15 flags."""
    limits = {n: (lim.armies, lim.fleets) for n, lim in BOARD.tables.unit_limits.items()}
    assert limits == {
        "russia": (8, 8), "china": (10, 6), "india": (8, 8),
        "brazil": (8, 8), "usa": (6, 10), "europe": (8, 8),
    }
    assert BOARD.tables.flags_per_nation == 15


def test_r_piece_3_nine_bonds_per_nation_with_their_interest():
    """R-PIECE-3: 2->1, 4->2, 6->3, 9->4, 12->5, 16->6, 20->7, 25->8, 30->9."""
    assert [(t.value, t.interest) for t in BOARD.tables.bonds] == [
        (2, 1), (4, 2), (6, 3), (9, 4), (12, 5), (16, 6), (20, 7), (25, 8), (30, 9)]
    state = standard_game()
    for nation in NATIONS:
        held = [b.value for _, b in state.bonds_held(nation)]
        assert sorted(held + list(state.bonds_available(nation))) == [2, 4, 6, 9, 12, 16, 20, 25, 30]


def test_r_piece_4_setup_money_comes_from_the_bank_and_stays_whole():
    """R-PIECE-4: money is whole millions held by the bank, treasuries and players;
    at setup 6 x 13 leave the bank and end up as 6 x 11 in treasuries plus 6 x 2 in cash."""
    state, events = new()
    assert sum(n.treasury for n in state.nations.values()) == 66
    assert sum(p.cash for p in state.players.values()) == 12
    assert paid_to(events, Reason.STARTING_CASH, "Anna") == 13
    assert all(isinstance(p.cash, int) for p in state.players.values())


def test_r_piece_6_every_treasury_is_open_to_every_player():
    """R-PIECE-6: every player may see every treasury: the state holds each treasury
    as a plain number, independent of who asks (cash secrecy is the report layer's job)."""
    state = standard_game()
    assert {n: state.nations[n].treasury for n in NATIONS} == dict.fromkeys(NATIONS, 11)


# =========================================================================== section 2: setup


def test_r_setup_1_two_starting_factories_markers_off_the_rondel_no_power():
    """R-SETUP-1: one armaments and one shipyard factory on the marked cities;
    rondel markers off the rondel; power points 0."""
    state = standard_game()
    for nation in NATIONS:
        ns = state.nations[nation]
        marked = {h for h in BOARD.homes[nation] if BOARD.regions[h].starting_factory}
        assert set(ns.factories) == marked
        assert sorted(BOARD.regions[f].city.value for f in ns.factories) == ["armaments", "shipyard"]
        assert ns.rondel is None
        assert ns.power == 0
        assert ns.armies == {} and ns.fleets == {} and ns.flags == []


def test_r_setup_1_europe_starts_with_paris_and_london():
    """R-SETUP-1, rulebook factory example: "Europe has factories in Paris and London"."""
    state = standard_game()
    assert sorted(state.nations["europe"].factories) == ["london", "paris"]


@pytest.mark.parametrize(("players", "cash"), [(6, 13), (5, 13), (4, 13), (3, 24), (2, 35)])
def test_r_setup_2_starting_cash_by_player_count(players, cash):
    """R-SETUP-2: starting cash 13 (4-6 players), 24 (3 players), 35 (2 players)."""
    state, events = new(NAMES[:players])
    for name in NAMES[:players]:
        assert paid_to(events, Reason.STARTING_CASH, name) == cash


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_r_setup_3_every_player_ends_setup_with_2_in_cash(players):
    """R-SETUP-3: "once all starting bonds are handed out every player has 2 million left"."""
    state, _ = new(NAMES[:players], seed=players)
    assert {p.name: p.cash for p in state.players.values()} == dict.fromkeys(NAMES[:players], 2)


def test_r_setup_3_each_flag_card_buys_its_own_9_and_another_nations_2():
    """R-SETUP-3: Russia card: Europe 2; China: USA 2; India: Brazil 2; Brazil: China 2;
    USA: Russia 2; Europe: India 2 -- paid into the treasuries."""
    state = standard_game()
    expected = {
        "Anna": [Bond("europe", 2), Bond("russia", 9)],
        "Ben": [Bond("china", 9), Bond("usa", 2)],
        "Cleo": [Bond("brazil", 2), Bond("india", 9)],
        "Dan": [Bond("brazil", 9), Bond("china", 2)],
        "Eva": [Bond("russia", 2), Bond("usa", 9)],
        "Finn": [Bond("europe", 9), Bond("india", 2)],
    }
    assert {p: sorted(state.players[p].bonds) for p in NAMES} == expected
    assert all(state.nations[n].treasury == 11 for n in NATIONS)


def test_r_setup_2_six_players_one_card_each():
    """R-SETUP-2, R-SETUP-4: with 6 players each holds one card and governs that nation."""
    state = standard_game()
    assert {n: state.nations[n].government for n in NATIONS} == STANDARD_DEAL


def test_r_setup_2_random_deal_gives_each_player_one_card_and_depends_on_the_seed():
    """R-SETUP-2: "the 6 flag cards are dealt at random, one to each player";
    the same seed deals the same way (replayable), other seeds differ."""
    deals = set()
    for seed in range(8):
        state, _ = new(NAMES, deal={}, seed=seed)
        govs = tuple(state.nations[n].government for n in NATIONS)
        assert sorted(govs) == sorted(NAMES)
        deals.add(govs)
        again, _ = new(NAMES, deal={}, seed=seed)
        assert tuple(again.nations[n].government for n in NATIONS) == govs
    assert len(deals) > 1


def test_r_setup_4_five_players_the_undealt_card_goes_to_its_2_bond_holder():
    """R-SETUP-4: "with 4 or 5 players the undealt card goes to the player holding that
    nation's 2 million bond"; Europe undealt -> its 2 bond came with the Russia card."""
    deal = {"russia": "Anna", "china": "Ben", "india": "Cleo", "brazil": "Dan", "usa": "Eva"}
    state, _ = new(NAMES[:5], deal)
    assert state.nations["europe"].government == "Anna"
    assert state.governed_by("Anna") == ("russia", "europe")
    assert state.nations["europe"].treasury == 2
    assert [b for _, b in state.bonds_held("europe")] == [Bond("europe", 2)]
    assert all(p.cash == 2 for p in state.players.values())


def test_r_setup_4_four_players_two_undealt_cards():
    """R-SETUP-4: USA and Europe undealt: USA 2 (China card) and Europe 2 (Russia card)
    make their holders the governments of USA and Europe."""
    deal = {"russia": "Anna", "china": "Ben", "india": "Cleo", "brazil": "Dan"}
    state, _ = new(NAMES[:4], deal)
    assert state.nations["usa"].government == "Ben"
    assert state.nations["europe"].government == "Anna"
    assert {n: state.nations[n].treasury for n in NATIONS} == {
        "russia": 9, "china": 11, "india": 9, "brazil": 11, "usa": 2, "europe": 2}  # no USA/Europe card
    assert all(p.cash == 2 for p in state.players.values())


def test_r_setup_4_a_nation_with_no_bond_sold_has_no_government():
    """R-SETUP-4: "if no bond of a nation was handed out, its flag card stays in the bank".
    Russia and USA undealt: Russia's only starting bond (its 2) comes with the USA card."""
    deal = {"china": "Anna", "india": "Ben", "brazil": "Cleo", "europe": "Dan"}
    state, _ = new(NAMES[:4], deal)
    assert state.nations["russia"].government is None
    assert state.nations["russia"].treasury == 0
    assert state.bonds_held("russia") == []
    assert state.nations["usa"].government == "Anna"  # USA 2 came with the China card


def test_r_setup_2_three_players_cards_go_in_fixed_groups():
    """R-SETUP-2: 3 players: India, Russia, China dealt at random; USA goes with India,
    Brazil with Russia, Europe with China. 24 - 2 x 11 leaves 2 each."""
    state, _ = new(NAMES[:3], {"russia": "Anna", "china": "Ben", "india": "Cleo"})
    assert state.governed_by("Anna") == ("russia", "brazil")
    assert state.governed_by("Ben") == ("china", "europe")
    assert state.governed_by("Cleo") == ("india", "usa")
    assert all(state.nations[n].treasury == 11 for n in NATIONS)
    assert all(p.cash == 2 for p in state.players.values())


def test_r_setup_2_three_players_random_deal_keeps_the_groups():
    """R-SETUP-2: whatever the seed, the 3-player groups stay together."""
    groups = {("india", "usa"), ("russia", "brazil"), ("china", "europe")}
    for seed in range(6):
        state, _ = new(NAMES[:3], seed=seed)
        assert {state.governed_by(p) for p in NAMES[:3]} == groups


def test_r_setup_2_two_players_russia_takes_india_and_usa_china_takes_europe_and_brazil():
    """R-SETUP-2: 2 players: "Europe and Brazil go to China, India and USA to Russia";
    35 - 3 x 11 leaves 2 each."""
    state, _ = new(NAMES[:2], {"china": "Anna", "russia": "Ben"})
    assert state.governed_by("Anna") == ("china", "brazil", "europe")
    assert state.governed_by("Ben") == ("russia", "india", "usa")
    assert all(p.cash == 2 for p in state.players.values())
    assert all(state.nations[n].treasury == 11 for n in NATIONS)
    assert sorted(state.players["Ben"].bonds) == [
        Bond("brazil", 2), Bond("europe", 2), Bond("india", 9), Bond("russia", 2), Bond("russia", 9), Bond("usa", 9)]


def test_r_setup_5_investor_card_goes_left_of_russias_government():
    """R-SETUP-5: "the investor card goes to the player seated left of Russia's government"."""
    assert standard_game().investor_card == "Ben"
    deal = dict(zip(NATIONS, ("Cleo", "Dan", "Eva", "Finn", "Anna", "Ben"), strict=True))
    state, _ = new(NAMES, deal)
    assert state.investor_card == "Dan"


def test_r_setup_5_investor_card_wraps_round_the_table():
    """R-SETUP-5: left of the last seat is the first seat."""
    deal = dict(zip(NATIONS, ("Finn", "Anna", "Ben", "Cleo", "Dan", "Eva"), strict=True))
    state, _ = new(NAMES, deal)
    assert state.investor_card == "Anna"


def test_r_setup_5_without_a_russian_government_the_card_goes_left_of_chinas():
    """R-SETUP-5: "if nobody governs Russia, it goes to the player left of China's government"."""
    deal = {"china": "Cleo", "india": "Anna", "brazil": "Ben", "europe": "Dan"}
    state, _ = new(NAMES[:4], deal)
    assert state.nations["russia"].government is None
    assert state.investor_card == "Dan"


def test_r_turn_1_setup_ends_with_the_first_governed_nation_to_move():
    """R-TURN-1 (at setup): Russia without a government is skipped; China moves first."""
    deal = {"china": "Cleo", "india": "Anna", "brazil": "Ben", "europe": "Dan"}
    state, events = new(NAMES[:4], deal)
    assert of_type(events, NationSkipped) == [NationSkipped("russia")]
    assert of_type(events, TurnStarted)[-1].nation == "china"
    assert isinstance(state.step, RondelStep)
    assert decision(state).player == "Cleo"


def test_r_setup_6_a_fixed_deal_is_followed_exactly():
    """R-SETUP-6: the game master may fix seating and cards (to replay a table game)."""
    deal = dict(zip(NATIONS, ("Eva", "Cleo", "Anna", "Finn", "Ben", "Dan"), strict=True))
    state, events = new(NAMES, deal)
    assert {n: state.nations[n].government for n in NATIONS} == deal
    assert {(e.nation, e.player) for e in of_type(events, FlagCardDealt)} == set(deal.items())


def test_r_setup_6_a_partial_deal_is_completed_from_the_seed():
    """R-SETUP-6: cards the fixed deal does not name are dealt from the seed."""
    state, _ = new(NAMES, {"russia": "Finn"}, seed=3)
    assert state.nations["russia"].government == "Finn"
    assert sorted(state.nations[n].government for n in NATIONS) == sorted(NAMES)


@pytest.mark.parametrize(
    ("players", "deal", "words"),
    [
        (NAMES, {"russia": "Zoe"}, "not at the table"),
        (NAMES, {"atlantis": "Anna"}, "unknown nation"),
        (NAMES, {"russia": "Anna", "china": "Anna"}, "more than one"),
        (NAMES[:3], {"russia": "Anna", "brazil": "Ben"}, "already given"),
    ],
)
def test_r_setup_6_an_impossible_fixed_deal_is_refused(players, deal, words):
    """R-SETUP-6: a deal naming a stranger, an unknown nation, two cards for one player
    (4-6 players) or splitting a 3-player group is refused with a reason."""
    with pytest.raises(SetupError, match=words):
        new(players, deal)


@pytest.mark.parametrize("count", [1, 7])
def test_r_setup_2_needs_two_to_six_players(count):
    """R-SETUP-2: the distribution tables exist for 2 to 6 players only."""
    players = [f"P{i}" for i in range(count)]
    with pytest.raises(SetupError):
        new(players)


# =========================================================================== expert variant


@pytest.mark.parametrize(("players", "cash"), [(6, 13), (5, 15), (4, 19), (3, 25), (2, 37)])
def test_r_setup_7_expert_starting_cash(players, cash):
    """R-SETUP-7: expert starting cash 13/15/19/25/37 for 6/5/4/3/2 players, no cards dealt."""
    state, events = new(NAMES[:players], deal={}, variants=[Variant.EXPERT], start_player="Anna")
    assert all(p.cash == cash for p in state.players.values())
    assert all(p.bonds == [] for p in state.players.values())
    assert of_type(events, FlagCardDealt) == []
    assert isinstance(state.step, SetupBondsStep) and state.step.nation == "russia"


def test_r_setup_7_russian_bonds_are_offered_first_to_the_start_player_then_clockwise():
    """R-SETUP-7: "the start player may first buy a Russian bond ... then clockwise all others"."""
    state, _ = new(NAMES[:4], variants=[Variant.EXPERT], start_player="Cleo")
    asked = []
    for _ in range(4):
        d = decision(state)
        assert d.nation == "russia"
        asked.append(d.player)
        state, _ = play(state, Pass())
    assert asked == ["Cleo", "Dan", "Anna", "Ben"]
    assert decision(state).nation == "china"


def test_r_setup_7_each_nation_starts_one_seat_further_left():
    """R-SETUP-7: "for China the player left of the start player chooses first", and so on;
    with 4 players the sixth nation (Europe) starts again one seat on."""
    state, _ = new(NAMES[:4], variants=[Variant.EXPERT], start_player="Cleo")
    first_asked = {}
    while isinstance(state.step, SetupBondsStep):
        d = decision(state)
        first_asked.setdefault(d.nation, d.player)
        state, _ = play(state, Pass())
    assert first_asked == {
        "russia": "Cleo", "china": "Dan", "india": "Anna", "brazil": "Ben", "usa": "Cleo", "europe": "Dan"}


def test_r_setup_7_one_bond_per_player_per_nation_paid_into_the_treasury():
    """R-SETUP-7: each player may buy at most one of that nation's bonds, paying its value
    into the treasury; a bought bond is no longer offered."""
    state, _ = new(NAMES[:3], variants=[Variant.EXPERT], start_player="Anna")
    state, events = play(state, BuyBond("russia", 9))  # Anna
    assert state.nations["russia"].treasury == 9
    assert paid_to(events, Reason.BOND, "russia") == 9
    assert decision(state).player == "Ben" and decision(state).nation == "russia"
    assert BuyBond("russia", 9) not in options(state)
    state, _ = play(state, BuyBond("russia", 12))  # Ben
    state, _ = play(state, Pass())  # Cleo
    assert decision(state).nation == "china"  # Anna is not asked for Russia again
    assert state.players["Anna"].bonds == [Bond("russia", 9)]
    assert state.players["Anna"].cash == 25 - 9


def test_r_setup_7_a_player_may_not_buy_more_than_offered_or_out_of_turn():
    """R-SETUP-7: only the asked player buys, only that nation, only what they can pay."""
    state, _ = new(NAMES[:3], variants=[Variant.EXPERT], start_player="Anna")
    error = refused(state, BuyBond("china", 2), "Anna")
    assert "Russia" in error.reason
    with pytest.raises(NotYourDecision):
        play(state, BuyBond("russia", 2), "Ben")
    assert BuyBond("russia", 30) not in options(state)  # 30 > 25 cash


def test_r_setup_7_the_largest_buyer_governs_and_a_nation_nobody_bought_has_none():
    """R-SETUP-7 with R-INVEST-6: governments are settled by bond value; a nation whose
    bonds nobody bought has no government."""
    state, _ = new(NAMES[:3], variants=[Variant.EXPERT], start_player="Anna")
    # Russia: Anna 2, Ben 9, Cleo 4 -> Ben governs although Anna bought first.
    answers = [BuyBond("russia", 2), BuyBond("russia", 9), BuyBond("russia", 4)]
    for action in answers:
        state, _ = play(state, action)
    assert state.nations["russia"].government == "Ben"
    while isinstance(state.step, SetupBondsStep):
        state, _ = play(state, Pass())
    assert all(state.nations[n].government is None for n in NATIONS[1:])


def test_r_setup_7_ties_in_the_selection_go_to_the_first_buyer():
    """R-SETUP-7, data/README decision "ties in the expert-variant bond selection: the first
    buyer keeps the government". Legal play cannot tie within one nation (one bond each,
    all values differ), so the tie is made by editing Ben's holding before the settlement."""
    state, _ = new(NAMES[:3], variants=[Variant.EXPERT], start_player="Anna")
    state, _ = play(state, BuyBond("russia", 6))  # Anna buys first
    state, _ = play(state, BuyBond("russia", 2))  # Ben
    state = state.clone()
    state.players["Ben"].bonds = [Bond("russia", 2), Bond("russia", 4)]  # 6 = 6
    state, _ = play(state, Pass())  # Cleo, the last to be asked: Russia is settled
    assert state.nations["russia"].government == "Anna"


def test_r_setup_7_players_governing_nothing_hold_a_swiss_bank_at_the_start():
    """R-SETUP-7, data/README decision "Swiss banks in the expert variant: handed out at
    the end of setup": a player governing nothing holds a Swiss bank (R-INVEST-7)."""
    state, _ = new(NAMES[:3], variants=[Variant.EXPERT], start_player="Anna")
    state, _ = play(state, BuyBond("russia", 9))  # Anna
    while isinstance(state.step, SetupBondsStep):
        state, _ = play(state, Pass())
    assert state.governed_by("Anna") == ("russia",)
    assert not state.has_swiss_bank("Anna")
    assert state.has_swiss_bank("Ben") and state.has_swiss_bank("Cleo")


def test_r_setup_7_expert_investor_card_left_of_russias_government():
    """R-SETUP-5 in the expert variant: the card goes left of Russia's government."""
    state, _ = new(NAMES[:3], variants=[Variant.EXPERT], start_player="Anna")
    state, _ = play(state, Pass())  # Anna
    state, _ = play(state, BuyBond("russia", 4))  # Ben
    while isinstance(state.step, SetupBondsStep):
        state, _ = play(state, Pass())
    assert state.nations["russia"].government == "Ben"
    assert state.investor_card == "Cleo"
    assert decision(state).player == "Ben" and decision(state).nation == "russia"


def test_r_setup_7_expert_investor_card_left_of_chinas_government_without_russia():
    """R-SETUP-5 in the expert variant: nobody bought Russia -> left of China's government."""
    state, _ = new(NAMES[:3], variants=[Variant.EXPERT], start_player="Anna")
    for _ in range(3):  # Russia: everybody passes
        state, _ = play(state, Pass())
    assert decision(state).nation == "china" and decision(state).player == "Ben"
    state, _ = play(state, Pass())  # Ben
    state, _ = play(state, BuyBond("china", 6))  # Cleo
    while isinstance(state.step, SetupBondsStep):
        state, _ = play(state, Pass())
    assert state.nations["russia"].government is None
    assert state.investor_card == "Anna"  # left of Cleo
    assert decision(state).nation == "china"


def test_r_setup_7_expert_investor_card_with_neither_russia_nor_china_governed():
    """data/README decision: "investor card at start when neither Russia nor China has a
    government (expert variant): next governed nation in turn order"."""
    state, _ = new(NAMES[:3], variants=[Variant.EXPERT], start_player="Anna")
    while decision(state).nation != "india":
        state, _ = play(state, Pass())
    assert decision(state).player == "Cleo"
    state, _ = play(state, BuyBond("india", 2))  # Cleo buys India
    while isinstance(state.step, SetupBondsStep):
        state, _ = play(state, Pass())
    assert state.investor_card == "Anna"  # left of Cleo, India's government
    assert decision(state).nation == "india"


def test_r_setup_7_the_start_player_is_drawn_from_the_seed_when_not_fixed():
    """R-SETUP-7: "a start player is chosen at random" -- reproducibly from the seed."""
    firsts = set()
    for seed in range(10):
        state, _ = new(NAMES[:4], variants=[Variant.EXPERT], seed=seed)
        again, _ = new(NAMES[:4], variants=[Variant.EXPERT], seed=seed)
        assert decision(state).player == decision(again).player
        firsts.add(decision(state).player)
    assert firsts <= set(NAMES[:4]) and len(firsts) > 1


def test_r_setup_7_bought_bonds_are_recorded():
    """R-SETUP-7: each purchase is an event naming player, nation and value."""
    state, _ = new(NAMES[:2], variants=[Variant.EXPERT], start_player="Ben")
    state, events = play(state, BuyBond("russia", 30))
    assert of_type(events, BondBought) == [BondBought("Ben", "russia", 30)]
