"""Eight-Minute Empire's rules engine, one rule (or worked example) per test: R8-* ids of the rules reference."""
from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.errors import IllegalAction, NotYourDecision
from engine.core.log import LogEntry, replay
from engine.core.seats import Seat
from engine.eight_minute_empire.actions import Bid, City, Destroy, Done, Move, Place, PlaceNeutral, Take
from engine.eight_minute_empire.board import ActionKind, default_board
from engine.eight_minute_empire.events import BidGiven, BidsRevealed, GameEnded, SeriesGameEnded, TurnEnded
from engine.eight_minute_empire.game import apply, new_game, pending
from engine.eight_minute_empire.model import NEUTRAL, CardInPlay, Phase, Setup, State, Variant
from engine.eight_minute_empire.randomplay import random_move
from engine.eight_minute_empire.rules import EightMinuteRules, state_from_json, state_to_json
from engine.eight_minute_empire.scoring import final_scores, good_points, goods_score
from pbem.errors import BadSetup
from pbem.games import SetupChoices, kind_named

BOARD = default_board()
NAMES = ("ann", "bob", "cy", "dee", "eve")


def start(players: int = 3, seed: int = 1, ages: tuple[str, ...] = ()) -> State:
    state, _ = new_game(BOARD, Setup(tuple(Seat(n) for n in NAMES[:players]), seed, ages))
    return state


def play(state: State, player: str, action: object) -> State:
    new, _ = apply(BOARD, state, player, action)  # type: ignore[arg-type]
    return new


def on_turn(card: int, player: str = "ann", players: int = 3, **changes: object) -> State:
    """A position where ``player`` has taken ``card`` and uses its action."""
    state = start(players)
    left = tuple(a.amount for a in BOARD.cards[card].actions)
    return replace(state, phase=Phase.ACTION, current=player, in_play=CardInPlay(card, left), **changes)  # type: ignore[arg-type]


def card_with(kind: str, amount: int | None = None, join: str = "") -> int:
    return next(c.id for c in BOARD.cards.values() if c.join == join and c.actions[0].kind.value == kind
                and (amount is None or c.actions[0].amount == amount))


# --- 1. pieces, map, money; 2. setup -----------------------------------------------------------------


@pytest.mark.parametrize(("players", "coins"), [(2, 14), (3, 11), (4, 9), (5, 8)])
def test_r8_piece_3_starting_coins_by_player_count(players: int, coins: int) -> None:
    assert set(start(players).coins.values()) == {coins}


def test_r8_piece_2_the_map_has_25_regions_in_four_continents_with_start_region_12() -> None:
    assert len(BOARD.regions) == 25 and sorted(map(len, BOARD.continents.values())) == [2, 3, 7, 13]
    assert BOARD.start == 12 and BOARD.continent_of(12) == "C"


@pytest.mark.parametrize(("players", "deck"), [(4, 37), (5, 42)])
def test_r8_setup_1_five_player_cards_only_with_five_and_a_row_of_six(players: int, deck: int) -> None:
    state = start(players)
    assert len(state.row) == 6 and len(state.row) + len(state.deck) == deck
    assert BOARD.row_costs == (0, 1, 1, 2, 2, 3)


def test_r8_setup_1_the_deal_is_the_seeds_and_replays() -> None:
    assert start(3, seed=9).row == start(3, seed=9).row and start(3, seed=9).row != start(3, seed=10).row


def test_r8_setup_2_three_armies_each_in_the_start_region() -> None:
    assert start(4).armies == {12: {"ann": 3, "bob": 3, "cy": 3, "dee": 3}}


def test_r8_setup_4_ages_given_or_drawn_from_the_seed() -> None:
    assert start(3, ages=("cy", "ann", "bob")).ages == ("cy", "ann", "bob")
    drawn = start(3, seed=4).ages
    assert sorted(drawn) == ["ann", "bob", "cy"] and start(3, seed=4).ages == drawn


# --- 3. the bid -------------------------------------------------------------------------------------------


def test_r8_bid_1_every_player_bids_at_once_and_the_bid_is_sealed() -> None:
    state = start(3)
    assert [(d.player, d.kind.value, d.answered) for d in pending(state)] == [
        ("ann", "bid", False), ("bob", "bid", False), ("cy", "bid", False)]
    state, events = apply(BOARD, state, "bob", Bid(4))
    assert events == [BidGiven("bob", 4)]
    assert [d.answered for d in pending(state)] == [False, True, False]
    with pytest.raises(IllegalAction, match="bid 0 to 11"):
        play(state, "ann", Bid(12))


def test_r8_bid_1_a_bid_may_be_changed_until_the_last_is_in() -> None:
    state = play(play(start(2), "ann", Bid(5)), "ann", Bid(1))
    state, events = apply(BOARD, state, "bob", Bid(2))
    assert events[-1] == BidsRevealed((("ann", 1), ("bob", 2)), "bob", 2)


def test_r8_bid_2_the_highest_bidder_pays_and_goes_first() -> None:
    state = play(play(play(start(3), "ann", Bid(3)), "bob", Bid(5)), "cy", Bid(0))
    assert state.phase is Phase.TAKE and state.current == "bob"
    assert state.coins == {"ann": 11, "bob": 6, "cy": 11}


def test_r8_bid_2_among_equal_highest_bids_the_youngest_wins_and_alone_pays() -> None:
    state = play(play(play(start(3, ages=("cy", "bob", "ann")), "ann", Bid(4)), "bob", Bid(4)), "cy", Bid(1))
    assert state.current == "bob" and state.coins == {"ann": 11, "bob": 7, "cy": 11}


def test_r8_bid_2_all_bids_zero_the_youngest_starts_free() -> None:
    state = play(play(start(2, ages=("bob", "ann")), "ann", Bid(0)), "bob", Bid(0))
    assert state.current == "bob" and state.coins == {"ann": 14, "bob": 14}


def test_r8_bid_3_the_deadline_default_is_a_zero_bid() -> None:
    assert {d.default for d in pending(start(3))} == {Bid(0)}


def test_r8_bid_4_there_is_no_other_auction_a_bid_after_the_reveal_is_refused() -> None:
    state = after_bid()
    with pytest.raises(IllegalAction):
        play(state, "ann", Bid(1))
    assert [d.kind.value for d in pending(state)] == ["take"]


# --- 4. a turn ----------------------------------------------------------------------------------------------


def after_bid(players: int = 3, first_bid: int = 0) -> State:
    state = start(players, ages=NAMES[:players])
    for name in NAMES[:players]:
        state = play(state, name, Bid(first_bid if name == "ann" else 0))
    return state


def test_r8_turn_1_taking_a_card_costs_its_place() -> None:
    state = after_bid()
    card = state.row[3]
    state = play(state, "ann", Take(4))
    assert state.coins["ann"] == 9 and state.hands["ann"] == (card,) and state.phase is Phase.ACTION


def test_r8_turn_1_a_player_with_no_coins_takes_only_the_leftmost_card() -> None:
    state = replace(after_bid(), coins={"ann": 0, "bob": 11, "cy": 11})
    with pytest.raises(IllegalAction) as refused:
        play(state, "ann", Take(2))
    assert refused.value.legal == ("TAKE 1",)
    assert play(state, "ann", Take(1)).coins["ann"] == 0


def test_r8_turn_1_only_the_player_on_turn_takes() -> None:
    with pytest.raises(NotYourDecision):
        play(after_bid(), "bob", Take(1))


def test_r8_turn_3_the_row_slides_left_at_once_and_is_refilled_from_the_deck_after_the_action() -> None:
    """The rulebook lays the deck's card after the taker has used (or declined) the action: while ann decides,
    the row has a gap at its end and the deck is untouched."""
    state = after_bid()
    row, deck = state.row, state.deck
    state = play(state, "ann", Take(2))
    assert state.row == (row[0], *row[2:]) and state.deck == deck
    state, events = apply(BOARD, state, "ann", Done())
    assert state.row == (row[0], *row[2:], deck[0]) and state.deck == deck[1:]
    assert isinstance(events[-1], TurnEnded) and events[-1].laid == deck[0]


def test_r8_turn_3_the_card_is_laid_when_the_action_ends_by_being_used_up() -> None:
    state = after_bid()
    place = next(i + 1 for i, c in enumerate(state.row) if BOARD.cards[c].join == ""
                 and BOARD.cards[c].actions[0].kind is ActionKind.PLACE)
    state = play(state, "ann", Take(place))
    assert len(state.row) == 5
    state = play(state, "ann", Place(((12, BOARD.cards[state.hands["ann"][0]].actions[0].amount),)))
    assert state.current == "bob" and len(state.row) == 6


def test_r8_turn_3_with_the_deck_empty_the_row_stays_shorter() -> None:
    state = replace(after_bid(), deck=())
    assert len(play(play(state, "ann", Take(1)), "ann", Done()).row) == 5


def test_r8_turn_3_play_passes_in_seating_order_after_the_card() -> None:
    state = play(play(after_bid(), "ann", Take(1)), "ann", Done())
    assert state.phase is Phase.TAKE and state.current == "bob"


def test_r8_setup_3_play_passes_in_the_listed_order_cyclically_from_the_first_player() -> None:
    state = start(3, ages=("cy", "bob", "ann"))
    for name in ("ann", "bob", "cy"):
        state = play(state, name, Bid(0))
    seen = []
    for _ in range(4):
        seen.append(state.current)
        state = play(play(state, state.current or "", Take(1)), state.current or "", Done())
    assert seen == ["cy", "ann", "bob", "cy"]  # cy, youngest, won the bid; then the listed order


def test_r8_turn_2_the_card_stays_with_its_taker_who_may_decline_its_action() -> None:
    state = after_bid()
    card = state.row[0]
    state = play(play(state, "ann", Take(1)), "ann", Done())
    assert state.hands["ann"] == (card,) and card not in state.row and state.armies_of("ann") == 3


def test_r8_turn_4_the_deadline_takes_the_leftmost_card_and_declines_its_action() -> None:
    state = after_bid()
    assert pending(state)[0].default == Take(1)
    assert pending(play(state, "ann", Take(1)))[0].default == Done()


# --- 5. actions -----------------------------------------------------------------------------------------------


def test_r8_act_1_armies_go_to_the_start_region_or_where_the_player_has_a_city() -> None:
    state = on_turn(card_with("place", 3), cities={5: {"ann": 1}})
    state = play(state, "ann", Place(((12, 1), (5, 2))))
    assert state.armies[12]["ann"] == 4 and state.armies[5] == {"ann": 2}


def test_r8_act_1_not_elsewhere_and_not_more_than_the_card_gives() -> None:
    state = on_turn(card_with("place", 2))
    with pytest.raises(IllegalAction) as refused:
        play(state, "ann", Place(((13, 1),)))
    assert refused.value.reason == ("Armies are placed in the start region (12) or in a region where you have a "
                                    "city, not in 13.")  # where the city is, not next to it
    assert refused.value.legal == ("PLACE 12",)
    with pytest.raises(IllegalAction, match="places 2"):
        play(state, "ann", Place(((12, 3),)))


def test_r8_piece_1_no_more_than_14_armies() -> None:
    state = on_turn(card_with("place", 3), armies={12: {"ann": 13}})
    with pytest.raises(IllegalAction, match="1 armies left"):
        play(state, "ann", Place(((12, 2),)))


def test_r8_act_2_steps_over_land_shared_among_armies_others_never_block() -> None:
    state = on_turn(card_with("move", 4), armies={12: {"ann": 3, "bob": 3}, 13: {"cy": 5}})
    state = play(state, "ann", Move(((12, 13, 14), (12, 9))))
    assert state.armies[14] == {"ann": 1} and state.armies[9] == {"ann": 1} and state.armies[12]["ann"] == 1
    assert state.phase is Phase.ACTION and state.in_play is not None and state.in_play.left == (1,)


def test_r8_act_2_no_step_across_a_sea_line_on_a_land_card() -> None:
    state = on_turn(card_with("move", 3), armies={11: {"ann": 1}})
    with pytest.raises(IllegalAction, match="not next to 11 by land"):
        play(state, "ann", Move(((11, 23),)))


def test_r8_act_3_a_water_step_crosses_a_sea_line_and_counts_one() -> None:
    state = on_turn(card_with("water", 2), armies={11: {"ann": 1}})
    state = play(state, "ann", Move(((11, 23, 25),)))
    assert state.armies[25] == {"ann": 1} and state.phase is Phase.TAKE  # both steps used: the turn ends


def test_r8_act_4_a_city_where_the_player_has_an_army_several_players_may_share() -> None:
    state = on_turn(card_with("city"), cities={12: {"bob": 1}})
    state = play(state, "ann", City(12))
    assert state.cities[12] == {"bob": 1, "ann": 1}
    with pytest.raises(IllegalAction, match="none in 13"):
        play(on_turn(card_with("city")), "ann", City(13))


def test_r8_piece_1_no_more_than_3_cities() -> None:
    state = on_turn(card_with("city"), cities={1: {"ann": 1}, 2: {"ann": 1}, 3: {"ann": 1}})
    with pytest.raises(IllegalAction, match="All your 3 cities"):
        play(state, "ann", City(12))


def test_r8_act_5_destroy_any_players_armies_own_too_never_cities() -> None:
    card = next(c.id for c in BOARD.cards.values() if c.join == "+")  # destroy 1 + place 1
    state = play(on_turn(card), "ann", Destroy((("ann", 12),)))
    assert state.armies[12]["ann"] == 2
    with pytest.raises(IllegalAction, match="bob has no army in 5"):
        play(on_turn(card, cities={5: {"bob": 1}}), "ann", Destroy((("bob", 5),)))


def test_r8_act_6_a_slash_card_gives_one_action_the_first_order_chooses() -> None:
    card = next(c.id for c in BOARD.cards.values() if c.join == "/" and c.actions[0].kind.value == "place")
    state = play(on_turn(card), "ann", Place(((12, 1),)))
    with pytest.raises(IllegalAction, match="you chose place"):
        play(state, "ann", Move(((12, 13),)))


def test_r8_act_6_a_plus_card_gives_both_in_either_order() -> None:
    card = next(c.id for c in BOARD.cards.values() if c.join == "+")
    state = play(on_turn(card), "ann", Place(((12, 1),)))
    state = play(state, "ann", Destroy((("bob", 12),)))
    assert state.armies[12] == {"ann": 4, "bob": 2, "cy": 3} and state.current == "bob"


def test_r8_act_6_an_action_may_be_used_in_part_or_not_at_all() -> None:
    state = play(on_turn(card_with("place", 3)), "ann", Place(((12, 1),)))
    state, events = apply(BOARD, state, "ann", Done())
    assert state.current == "bob" and events[-1].unused == 2  # type: ignore[union-attr]


def test_r8_act_7_each_step_is_checked_against_the_position_as_it_stands() -> None:
    state = on_turn(card_with("move", 4), armies={12: {"ann": 1}})
    with pytest.raises(IllegalAction, match="no army left in 12: the paths before move the one there"):
        play(state, "ann", Move(((12, 13), (12, 9))))  # the one army left 12 with the first path


# --- 6. end and scoring -------------------------------------------------------------------------------------


def test_r8_end_1_the_game_ends_when_every_hand_holds_its_cards() -> None:
    full = {p: tuple(range(1, 11)) for p in ("ann", "bob")}
    state = replace(on_turn(card_with("place", 2)), hands={**full, "cy": tuple(range(11, 21))})
    state, events = apply(BOARD, state, "ann", Done())
    assert state.finished and isinstance(events[-1], GameEnded) and pending(state) == ()


def test_r8_score_1_a_region_goes_to_the_most_pieces_equal_most_to_nobody() -> None:
    state = replace(start(3), armies={1: {"ann": 2, "bob": 1}, 2: {"ann": 1, "bob": 1}, 12: {}},
                    cities={2: {"cy": 1}, 3: {"bob": 1}})
    scores = {s.player: s for s in final_scores(state, BOARD)[0]}
    assert (scores["ann"].regions, scores["bob"].regions, scores["cy"].regions) == (1, 1, 0)


def test_r8_score_2_a_continent_goes_to_who_controls_most_of_its_regions() -> None:
    state = replace(start(2), armies={1: {"ann": 1}, 2: {"ann": 1}, 3: {"bob": 1}, 7: {"ann": 1}, 8: {"bob": 1}},
                    cities={})
    scores = {s.player: s for s in final_scores(state, BOARD)[0]}
    assert scores["ann"].continents == 1 and scores["bob"].continents == 0  # A to ann; B tied 1-1


@pytest.mark.parametrize(("symbols", "points"), [(1, 0), (2, 1), (3, 1), (4, 2), (5, 3), (6, 5), (7, 5)])
def test_r8_score_3_the_wood_chart(symbols: int, points: int) -> None:
    assert good_points(BOARD, "wood", symbols) == points


def test_r8_score_3_a_double_symbol_card_counts_two() -> None:
    double = next(c.id for c in BOARD.cards.values() if c.good == "carrot" and c.symbols == 2)
    single = [c.id for c in BOARD.cards.values() if c.good == "carrot" and c.symbols == 1][:1]
    assert goods_score(BOARD, (double, *single))[0] == 1  # 3 carrots: the first threshold


def test_r8_score_4_wild_cards_count_where_they_score_most() -> None:
    woods = [c.id for c in BOARD.cards.values() if c.good == "wood"][:5]
    wild = [c.id for c in BOARD.cards.values() if c.good == "wild"][:1]
    points, wilds = goods_score(BOARD, (*woods, *wild))
    assert (points, wilds) == (5, ("wood",))  # the sixth wood scores 5 instead of 3; a lone crystal only 1


def test_r8_score_4_decision_a_wild_card_may_count_as_a_good_its_holder_has_no_card_of() -> None:
    """**Decision**: "any of the stacks" is any good, not only the goods the hand already shows."""
    wild = next(c.id for c in BOARD.cards.values() if c.good == "wild")
    woods = [c.id for c in BOARD.cards.values() if c.good == "wood" and c.symbols == 1][:2]
    assert goods_score(BOARD, (wild,)) == (1, ("crystal",))  # a crystal scores from its first symbol
    assert goods_score(BOARD, (*woods, wild)) == (2, ("crystal",))  # a third wood would still score 1: 1 + 1


def test_r8_score_5_ties_go_to_coins_then_armies_then_regions_then_shared() -> None:
    state = replace(start(2), armies={1: {"ann": 1}, 2: {"bob": 1}}, cities={}, coins={"ann": 3, "bob": 3})
    assert final_scores(state, BOARD)[1] == ("ann", "bob")
    richer = replace(state, coins={"ann": 3, "bob": 4})
    assert final_scores(richer, BOARD)[1] == ("bob",)


# --- properties -----------------------------------------------------------------------------------------------


def random_game(seed: int, players: int) -> tuple[State, list[LogEntry[object]], list[State]]:
    rng = random.Random(seed)
    state = start(players, seed)
    log: list[LogEntry[object]] = []
    states = [state]
    while not state.finished:
        player, action = random_move(BOARD, state, rng)
        log.append(LogEntry(player, action, state.version))
        state = play(state, player, action)
        states.append(state)
    return state, log, states


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 5))
def test_random_games_keep_the_pieces_and_coins_rules_and_replay(seed: int, players: int) -> None:
    """R8-PIECE-1/3, R8-END-1: coins never negative and never created, at most 14 armies and 3 cities each,
    the cards held at the end; replay equals state; the state's JSON round trip is exact."""
    final, log, states = random_game(seed, players)
    coins = [sum(s.coins.values()) for s in states]
    assert all(b <= a for a, b in zip(coins, coins[1:], strict=False))
    for state in states:
        assert all(n >= 0 for n in state.coins.values())
        assert all(state.armies_of(p) <= 14 and state.cities_of(p) <= 3 for p in state.seating)
    assert all(len(final.hands[p]) == BOARD.cards_at_end[players] for p in final.seating) or not final.row
    assert replay(EightMinuteRules(), final.setup, log) == final  # type: ignore[arg-type]
    assert state_from_json(state_to_json(final)) == final


# --- 7. variants -------------------------------------------------------------------------------------------------


def neutral_start() -> State:
    state, _ = new_game(BOARD, Setup((Seat("ann"), Seat("bob")), 1, (), frozenset({Variant.NEUTRAL})))
    return state


def test_r8_var_3_goods_tokens_are_not_offered_and_a_game_master_asking_is_told_the_variants() -> None:
    kind = kind_named("eight-minute-empire")
    assert kind.info.variants == ("neutral", "long")
    with pytest.raises(BadSetup, match="has no variant tokens; its variants: neutral, long"):
        kind.make_setup(SetupChoices(tuple(Seat(n) for n in NAMES[:3]), 1, ("tokens",)))


def test_r8_var_2_neutral_armies_are_for_two_players_only() -> None:
    with pytest.raises(IllegalAction, match="two-player"):
        new_game(BOARD, Setup(tuple(Seat(n) for n in NAMES[:3]), 1, (), frozenset({Variant.NEUTRAL})))


def test_r8_var_2_the_players_place_ten_neutral_armies_in_turn_first_listed_first_then_bid() -> None:
    state = neutral_start()
    assert state.phase is Phase.NEUTRAL and [d.player for d in pending(state)] == ["ann"]
    with pytest.raises(NotYourDecision):
        play(state, "bob", PlaceNeutral(5))
    for index in range(10):
        state = play(state, ("ann", "bob")[index % 2], PlaceNeutral(1 + index))
    assert state.phase is Phase.BID and state.neutral_armies() == 10 and state.armies[10] == {NEUTRAL: 1}


def test_r8_var_2_neutral_armies_deny_control_control_nothing_and_may_be_destroyed() -> None:
    state = replace(start(2), armies={1: {"ann": 1, NEUTRAL: 1}, 2: {NEUTRAL: 2}, 3: {"bob": 1}}, cities={})
    scores = {s.player: s for s in final_scores(state, BOARD)[0]}
    assert (scores["ann"].regions, scores["bob"].regions) == (0, 1)  # 1 tied with neutral, 2 is nobody's
    card = next(c.id for c in BOARD.cards.values() if c.join == "+")  # destroy 1 + place 1
    destroyed = play(on_turn(card, players=2, armies={12: {"ann": 3}, 2: {NEUTRAL: 2}}), "ann",
                     Destroy(((NEUTRAL, 2),)))
    assert destroyed.armies[2] == {NEUTRAL: 1}


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000))
def test_random_two_player_games_with_neutral_armies_end_and_replay(seed: int) -> None:
    """R8-VAR-2 with the random player: ten neutral armies, then a whole game; replay equals state."""
    rng = random.Random(seed)
    state = neutral_start()
    log: list[LogEntry[object]] = []
    while not state.finished:
        player, action = random_move(BOARD, state, rng)
        log.append(LogEntry(player, action, state.version))
        state = play(state, player, action)
    assert replay(EightMinuteRules(), state.setup, log) == state  # type: ignore[arg-type]
    assert state_from_json(state_to_json(state)) == state


def test_r8_var_1_the_long_game_is_three_games_and_the_series_points_decide() -> None:
    """R8-VAR-1: each game set up afresh with the same players; the most points over the three wins."""
    rng = random.Random(5)
    state, _ = new_game(BOARD, Setup(tuple(Seat(n) for n in NAMES[:3]), 5, (), frozenset({Variant.LONG})))
    totals: dict[str, int] = {}
    games = 1
    while not state.finished:
        player, action = random_move(BOARD, state, rng)
        state, events = apply(BOARD, state, player, action)
        for event in events:
            if isinstance(event, SeriesGameEnded):
                games += 1
                for name, points in event.points:
                    totals[name] = totals.get(name, 0) + points
                assert state.phase is Phase.BID and state.game_number == games and all(
                    len(h) == 0 for h in state.hands.values())
                assert state.coins == {n: 11 for n in NAMES[:3]}
    assert games == 3 and state.game_number == 3
    for score in state.scores:
        assert state.carried[score.player] == totals.get(score.player, 0) + score.total
    best = max(state.carried.values())
    assert set(state.winners) <= {p for p, n in state.carried.items() if n == best}
