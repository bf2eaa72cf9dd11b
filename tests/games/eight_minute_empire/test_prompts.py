"""Eight-Minute Empire's prompts, reports and score sheet: every option offered is legal, the steps a card
can take are listed per step, the reader is "you", and the end shows its arithmetic (R8-* ids)."""
from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.log import LogEntry
from engine.core.seats import Seat
from engine.eight_minute_empire.actions import Bid, Done, Move, PlaceNeutral, Take
from engine.eight_minute_empire.board import ActionKind, default_board
from engine.eight_minute_empire.choices import distances, path_to, step_choices
from engine.eight_minute_empire.game import apply, new_game
from engine.eight_minute_empire.model import CardInPlay, Phase, Setup, State, Variant
from engine.eight_minute_empire.randomplay import random_move
from engine.eight_minute_empire.scoring import final_scores
from pbem.games import kind_named
from pbem.games.eight_minute_empire import prompts, views
from pbem.games.eight_minute_empire.cardtext import card_words
from pbem.games.eight_minute_empire.kind import EightMinuteEmpire
from pbem.games.eight_minute_empire.scoresheet import score_sheet
from pbem.games.results import Query, StoredLines
from pbem.render.text import problems

BOARD = default_board()
NAMES = ("ann", "bob", "cy")
KIND = kind_named("eight-minute-empire")
assert isinstance(KIND, EightMinuteEmpire)


def started(seed: int = 3) -> State:
    state, _ = new_game(BOARD, Setup(tuple(Seat(n) for n in NAMES), seed))
    for name in NAMES:
        state, _ = apply(BOARD, state, name, Bid(0))
    return state


def with_card(kind: ActionKind, state: State | None = None, **changes: object) -> State:
    """``ann`` on turn with a card whose first action is ``kind`` in play, the rest of it used up."""
    card = next(c for c in BOARD.cards.values() if c.actions[0].kind is kind)
    left = (card.actions[0].amount, *(0 for _ in card.actions[1:]))
    state = state or started()
    return replace(state, phase=Phase.ACTION, current="ann", in_play=CardInPlay(card.id, left),
                   **changes)  # type: ignore[arg-type]


def playing(seed: int, moves: int) -> State:
    rng = random.Random(seed)
    state = started(seed)
    for _ in range(moves):
        if state.finished:
            break
        player, action = random_move(BOARD, state, rng)
        state, _ = apply(BOARD, state, player, action)
    return state


# --- the engine's choices, per step --------------------------------------------------------------------


def test_r8_act_1_place_is_offered_in_the_start_region_and_where_own_cities_stand() -> None:
    state = with_card(ActionKind.PLACE, cities={5: {"ann": 1}, 6: {"bob": 1}})
    (choice,) = step_choices(BOARD, state, "ann")
    assert choice.regions == (5, 12) and choice.supply == 14 - 3


def test_r8_act_2_3_reach_counts_steps_over_land_and_a_water_card_crosses_sea_lines() -> None:
    land = distances(BOARD, 11, 1, water=False)
    water = distances(BOARD, 11, 1, water=True)
    assert 23 not in land and water[23] == 1  # 11 ~ 23 is a sea line
    assert path_to(BOARD, 12, 14, water=False) == (12, 13, 14)


def test_r8_act_4_5_city_where_an_own_army_stands_destroy_any_army() -> None:
    (city,) = step_choices(BOARD, with_card(ActionKind.CITY), "ann")
    assert city.regions == (12,) and city.supply == 3
    (destroy,) = step_choices(BOARD, with_card(ActionKind.DESTROY), "ann")
    assert set(destroy.targets) == {("ann", 12), ("bob", 12), ("cy", 12)}


def test_r8_act_6_a_slash_card_offers_only_the_chosen_action_once_one_is_used() -> None:
    card = next(c for c in BOARD.cards.values() if c.join == "/" and {a.kind for a in c.actions} == {
        ActionKind.PLACE, ActionKind.MOVE})
    state = replace(started(), phase=Phase.ACTION, current="ann",
                    in_play=CardInPlay(card.id, tuple(a.amount for a in card.actions)))
    assert {c.kind for c in step_choices(BOARD, state, "ann")} == {ActionKind.PLACE, ActionKind.MOVE}
    moved, _ = apply(BOARD, state, "ann", Move(((12, 13),)))
    assert [c.kind for c in step_choices(BOARD, moved, "ann")] == [ActionKind.MOVE]


# --- every option a prompt offers is a legal reply -------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 5_000), st.integers(0, 60))
def test_every_offered_option_is_a_whole_legal_reply(seed: int, moves: int) -> None:
    """R8-TURN-1, R8-ACT-7: each line under "Your options:" applies as a reply, no line refused."""
    state = playing(seed, moves)
    for decision in KIND.rules.pending(state):
        for line in prompts.options(BOARD, state, decision.player):
            outcome = KIND.run_message(state, decision.player, line, StoredLines())
            assert outcome.refusal is None, (line, outcome.refusal)


def test_a_turn_prompt_offers_each_affordable_card_with_a_use_and_shows_the_row_after_them() -> None:
    """The question first (issue 29): the options within the first 15 lines, the row they refer to below."""
    state = started()
    text = prompts.prompt(BOARD, state, state.current or "", "g1", "2030-01-01 12:00 UTC")
    assert text is not None and not problems(text)
    assert "Your options:" in text.split("\n")[:15] and text.index("Your options:") < text.index("THE ROW")
    offered = text.split("Your options:\n")[1].split("\n\n")[0].splitlines()
    assert [line.split(";")[0].strip() for line in offered] == [f"TAKE {n}" for n in range(1, 7)]
    assert any(";" in line for line in offered)  # a card and a use of it, in one reply


def test_a_report_under_the_turn_prompt_leaves_out_the_row_the_prompt_shows() -> None:
    """A mail that asks a card shows the row once (issue 29): in the prompt, below the options."""
    state = started()
    player = state.current or ""
    assert "THE ROW" in (KIND.prompt(state, player, game="g1") or "")
    assert "THE ROW" not in KIND.report(state, player, (), game="g1", with_prompt=True)
    assert "THE ROW" in KIND.report(state, player, (), game="g1")
    assert "THE ROW" in KIND.report(state, next(n for n in NAMES if n != player), (), game="g1", with_prompt=True)


def test_an_action_prompt_lists_what_the_card_can_do_step_by_step_below_its_options() -> None:
    state = with_card(ActionKind.MOVE)
    text = prompts.prompt(BOARD, state, "ann", "g1", None) or ""
    assert "WHAT YOU CAN DO NOW" in text and "from 12 (3 armies): 1 step: 9, 10, 13, 15, 18, 19; 2 steps:" in " ".join(
        text.split())
    options = text.split("Your options:\n")[1].split("\n\n")[0]
    assert options.rstrip().endswith("DONE") and text.index("Your options:") < text.index("WHAT YOU CAN DO NOW")


def test_the_bid_prompt_says_the_bid_is_sealed_and_may_be_changed() -> None:
    """R8-BID-1, R8-BID-2."""
    state, _ = new_game(BOARD, Setup(tuple(Seat(n) for n in NAMES), 3, ("cy", "ann", "bob")))
    text = " ".join((prompts.prompt(BOARD, state, "ann", "g1", None) or "").split())
    assert "0 to 11" in text and "youngest wins (cy, ann, bob" in text and "may change it" in text
    answered, _ = apply(BOARD, state, "ann", Bid(2))
    assert prompts.prompt(BOARD, answered, "ann", "g1", None) is None  # a given bid is not asked again


def test_r8_bid_1_the_bid_options_say_the_range_and_give_examples_each_a_whole_reply() -> None:
    """Any whole number from 0 to all the bidder's coins is a bid: the options say so before the few they list,
    wherever options are shown (prompt, OPTIONS, a refusal, the CLI); the state JSON and the bots get orders."""
    state, _ = new_game(BOARD, Setup(tuple(Seat(n) for n in NAMES), 3))
    text = prompts.prompt(BOARD, state, "ann", "g1", None) or ""
    shown = text.split("Your options:\n")[1].splitlines()
    assert shown[0] == "    BID 0 to 11 (any whole number of coins), for example:"
    assert "    BID 3" in shown and "    BID 11" in shown
    answer = KIND.answer_query(state, "ann", Query(1, "OPTIONS", "options"), log=None, game="g1")
    assert "BID 0 to 11 (any whole number of coins), for example:" in answer
    refused = KIND.run_message(state, "ann", "BID 12", StoredLines()).refusal
    assert refused is not None and refused.legal[0].startswith("BID 0 to 11") and "BID 3" in refused.legal
    assert any("BID 0 to 11" in line for line in KIND.pending_lines(state))
    orders = KIND.state_json("g1", state)["pending"][0]["options"]
    assert orders == ["BID 0", "BID 1", "BID 2", "BID 3", "BID 5", "BID 11"]
    assert all(KIND.run_message(state, "ann", order, StoredLines()).refusal is None for order in orders)
    assert {KIND.bot.answer(text, "random", seed, None) for seed in range(40)} <= set(orders)


def test_the_welcome_says_how_to_play_by_email_in_paragraphs_that_keep_their_indent() -> None:
    """Like Imperial's welcome: the reply address and its token, quoting, signatures, refusals, deadlines and
    their defaults; every paragraph wrapped within its own indent (none broken by the mail's last safety net)."""
    state, _ = new_game(BOARD, Setup(tuple(Seat(n) for n in NAMES), 3))
    text = KIND.welcome(state, "ann", game="friday", reply_to="moderator+7f3a9c@pbem.example.org")
    assert problems(text) == []
    paragraphs = text.split("\n\n")
    assert all(not line.startswith(" ") for line in paragraphs[1].splitlines())  # the opening paragraph
    for paragraph in paragraphs[2:]:
        lines = paragraph.splitlines()
        body = lines[2:] if len(lines) > 1 and set(lines[1]) == {"-"} else lines
        assert all(line.startswith("  ") for line in body if not line.startswith("A reply")), paragraph
    flat = " ".join(text.split())
    for said in ("replies go to moderator+7f3a9c@pbem.example.org. That address carries your secret token",
                 "Lines starting with '#', quoted text ('>' lines) and your signature are ignored",
                 "If one is refused, the lines before it stand",
                 "A decision's deadline is given in the mail that asks for it",
                 "a bid of 0, or the leftmost card with its action skipped",
                 "You play red: 3 armies in the start region (12)", "Youngest first, for ties:",
                 "BID and a number of coins, 0 to 11"):
        assert said in flat, said
    anonymous = " ".join(KIND.welcome(state, "bob", game="friday").split())
    assert "the reply address carries your secret token" in anonymous


# --- reports speak to their reader ---------------------------------------------------------------------


def test_a_report_says_you_to_its_reader_and_names_the_others() -> None:
    state = started()
    first = state.current or ""
    after, events = apply(BOARD, state, first, Take(1))
    other = next(n for n in NAMES if n != first)
    assert views.narrate(BOARD, after, events, first)[0].startswith("You took #")
    assert views.narrate(BOARD, after, events, other)[0].startswith(f"{first} took #")
    report = views.report(BOARD, after, first, events, "g1", False)
    assert f"{first} (" in report and ", you)" in report and "You use your card's action." in report


def test_r8_turn_3_reports_show_the_decks_next_card_only_once_the_takers_action_is_done() -> None:
    """While the taker still decides, every report shows the row closed up and five cards, not the card the deck
    lays after the action; the report of the action's end shows it in the last place."""
    state = started()
    first = state.current or ""
    other = next(n for n in NAMES if n != first)
    coming = card_words(BOARD.cards[state.deck[0]])
    after, events = apply(BOARD, state, first, Take(1))
    for reader in NAMES:
        report = views.report(BOARD, after, reader, events, "g1", False)
        assert coming not in report and "\n  6  cost 3" not in report
    done, events = apply(BOARD, after, first, Done())
    assert f"  6  cost 3  {coming}" in views.report(BOARD, done, other, events, "g1", False)


def test_r8_bid_1_the_bid_is_confirmed_to_its_bidder_only() -> None:
    state, _ = new_game(BOARD, Setup(tuple(Seat(n) for n in NAMES), 3))
    after, events = apply(BOARD, state, "ann", Bid(3))
    assert views.narrate(BOARD, after, events, "ann") == [
        "Your bid of 3 is recorded; you may change it until all bids are in."]
    assert views.narrate(BOARD, after, events, "bob") == []


def test_r8_bid_1_history_after_the_reveal_shows_the_final_bids_only_in_seating_order() -> None:
    state, _ = new_game(BOARD, Setup(tuple(Seat(n) for n in NAMES), 3))
    log = []
    for player, coins in (("bob", 4), ("ann", 2), ("bob", 6), ("cy", 1)):
        log.append(LogEntry(player, Bid(coins), state.version))
        state, _ = apply(BOARD, state, player, Bid(coins))
    answer = KIND.answer_query(state, "cy", Query(1, "HISTORY", "history"), log=log, game="g1")
    assert answer.splitlines()[1:] == ["  move 4: the bids revealed: ann 2, bob 6, cy 1"]


def test_r8_bid_1_history_during_the_bid_shows_the_readers_own_bid_unnumbered() -> None:
    state, _ = new_game(BOARD, Setup(tuple(Seat(n) for n in NAMES), 3))
    log = [LogEntry("bob", Bid(4), 0)]
    state, _ = apply(BOARD, state, "bob", Bid(4))
    def told(player: str) -> list[str]:
        return KIND.answer_query(state, player, Query(1, "HISTORY", "history"), log=log, game="g1").splitlines()
    assert told("bob")[1:] == ["  now: the bid is open; your sealed bid: 4"]
    assert told("ann")[1:] == ["  now: the bid is open"]


# --- the score sheet -----------------------------------------------------------------------------------


def ended(state: State) -> State:
    scores, winners = final_scores(state, BOARD)
    return replace(state, phase=Phase.OVER, current=None, scores=scores, winners=winners)


def test_r8_score_1_to_4_the_sheet_shows_regions_continents_and_goods_with_the_wild_cards() -> None:
    wood = [c.id for c in BOARD.cards.values() if c.good == "wood"][:5]
    wild = [c.id for c in BOARD.cards.values() if c.good == "wild"][:1]
    state = ended(replace(started(), armies={1: {"ann": 1}, 2: {"ann": 1}, 12: {"bob": 1}}, cities={},
                          hands={"ann": (*wood, *wild), "bob": (), "cy": ()}))
    sheet = " ".join(" ".join(score_sheet(BOARD, state)).split())
    assert "1. ann: 2 + 1 + 5 = 8 points" in sheet
    assert "regions 2: 1, 2" in sheet and "continents 1: A (2 of its 7 regions)" in sheet
    assert "wood 5 + 1 wild -> 5" in sheet and "wild cards counted as wood" in sheet


def test_r8_score_4_decision_the_sheet_and_help_say_a_wild_card_may_be_a_good_held_nowhere_else() -> None:
    wood = [c.id for c in BOARD.cards.values() if c.good == "wood" and c.symbols == 1][:2]
    wild = [c.id for c in BOARD.cards.values() if c.good == "wild"][:1]
    state = ended(replace(started(), hands={"ann": (*wood, *wild), "bob": (), "cy": ()}))
    sheet = " ".join(" ".join(score_sheet(BOARD, state)).split())
    assert "goods 2: crystal 0 + 1 wild -> 1; wood 2 -> 1" in sheet
    assert "also a good you hold no card of" in " ".join(KIND.answer_query(
        state, "ann", Query(1, "HELP wild", "help", "wild"), log=None, game="g1").split())


def test_r8_score_5_the_sheet_says_which_tie_break_decided() -> None:
    state = ended(replace(started(), armies={1: {"ann": 1}, 2: {"bob": 1}}, cities={},
                          coins={"ann": 3, "bob": 5, "cy": 0}))
    sheet = " ".join(" ".join(score_sheet(BOARD, state)).split())
    assert "bob and ann have 1 point each; coins decide: bob 5, ann 3." in sheet  # A is tied: nobody's


def test_r8_score_5_with_three_tied_the_sheet_names_the_tie_break_that_decided_each_place() -> None:
    """Coins tell cy from the other two, but armies decided between ann and bob, the winner and the second."""
    state = ended(replace(started(), armies={1: {"ann": 2}, 2: {"bob": 1}, 3: {"cy": 1}}, cities={},
                          coins={"ann": 3, "bob": 3, "cy": 1}))
    assert [s.player for s in state.scores] == ["ann", "bob", "cy"] and state.winners == ("ann",)
    sheet = " ".join(" ".join(score_sheet(BOARD, state)).split())
    assert ("ann, bob and cy have 1 point each. Between ann and bob, armies on the map decide (coins equal): "
            "ann 2, bob 1. Between bob and cy, coins decide: bob 3, cy 1.") in sheet
    shared = ended(replace(state, armies={1: {"ann": 1}, 2: {"bob": 1}, 3: {"cy": 1}}))
    sheet = " ".join(" ".join(score_sheet(BOARD, shared)).split())
    assert shared.winners == ("ann", "bob") and ("ann and bob are equal in coins, armies and regions too: they "
                                                 "share. Between bob and cy, coins decide: bob 3, cy 1.") in sheet


def test_the_demo_progress_leads_with_points_and_fills_with_cards_taken() -> None:
    state = playing(4, 40)
    race = KIND.race(state)
    assert race.unit == "points" and race.leader == final_scores(state, BOARD)[0][0].player
    assert race.filled == max(len(h) for h in state.hands.values()) / BOARD.cards_at_end[3]


def test_r8_bid_1_the_shown_move_stays_where_a_later_bid_opened() -> None:
    """After the ten neutral armies (R8-VAR-2) the bid opens at move 10; a bid given moves nothing shown."""
    state, _ = new_game(BOARD, Setup((Seat("ann"), Seat("bob")), 1, (), frozenset({Variant.NEUTRAL})))
    for index in range(10):
        state, _ = apply(BOARD, state, ("ann", "bob")[index % 2], PlaceNeutral(1 + index))
    assert state.phase is Phase.BID and KIND.shown_move(state) == 10
    state, _ = apply(BOARD, state, "bob", Bid(2))
    assert KIND.shown_move(state) == 10
    state, _ = apply(BOARD, state, "ann", Bid(1))
    assert KIND.shown_move(state) == 12  # revealed: the log position again
