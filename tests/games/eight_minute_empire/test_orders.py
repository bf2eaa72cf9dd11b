"""Eight-Minute Empire's order language: the contract's canonical forms, and the forgiving forms on top.

One example per test (or per parameter): the canonical forms of
ORDERS-eight-minute-empire.md read exactly as written; aliases and natural
word orders read the same; anything that could be read two ways, or is
misspelt, is refused with what to write instead. The last tests send whole
messages through the kind, as the moderator does.
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from engine.core.seats import Seat
from engine.eight_minute_empire.actions import Action, Bid, City, Destroy, Done, Move, Place, PlaceNeutral, Take
from engine.eight_minute_empire.board import default_board
from engine.eight_minute_empire.game import apply, new_game
from engine.eight_minute_empire.model import CardInPlay, Phase, Setup, State
from pbem.games import kind_named
from pbem.games.eight_minute_empire.help import help_text, topics
from pbem.games.eight_minute_empire.keywords import QUERIES, SPELLINGS
from pbem.games.eight_minute_empire.orders import (
    READERS,
    OrderError,
    QueryOrder,
    is_query,
    looks_like_order,
    parse,
)
from pbem.games.results import MessageOutcome
from pbem.render import problems

BOARD = default_board()
NAMES = ("ann", "bob", "cy")  # seated red, blue, green
KIND = kind_named("eight-minute-empire")


def start(players: int = 3, seed: int = 1) -> State:
    state, _ = new_game(BOARD, Setup(tuple(Seat(n) for n in NAMES[:players]), seed))
    return state


def on_take(seed: int = 1) -> State:
    """Everyone bid 0; the youngest player is on turn to take a card."""
    state = start(seed=seed)
    for player in NAMES:
        state, _ = apply(BOARD, state, player, Bid(0))
    return state


def using(card: int, player: str = "ann") -> State:
    """``player`` has taken ``card`` and uses its action."""
    left = tuple(a.amount for a in BOARD.cards[card].actions)
    return replace(start(), phase=Phase.ACTION, current=player, in_play=CardInPlay(card, left))


def read(text: str, state: State | None = None) -> Action | QueryOrder:
    return parse(state or start(), text)


def refusal(text: str, state: State | None = None) -> str:
    with pytest.raises(OrderError) as caught:
        parse(state or start(), text)
    return caught.value.reason


def send(state: State, player: str, text: str) -> MessageOutcome:
    return KIND.run_message(state, player, text, waiting={})


# --- the contract's canonical forms work exactly as written -----------------------------------------------


@pytest.mark.parametrize(("text", "action"), [
    ("BID 3", Bid(3)),
    ("NEUTRAL 5", PlaceNeutral(5)),
    ("TAKE 3", Take(3)),
    ("PLACE 12 x2, 5", Place(((12, 2), (5, 1)))),
    ("MOVE 12-13-14, 12-9", Move(((12, 13, 14), (12, 9)))),
    ("CITY 13", City(13)),
    ("DESTROY red 13, ann 9", Destroy((("ann", 13), ("ann", 9)))),
    ("DESTROY neutral 5", Destroy((("neutral", 5),))),
    ("DONE", Done()),
    ("done", Done()),
])
def test_the_canonical_forms_read_as_written(text: str, action: Action) -> None:
    assert read(text) == action


@pytest.mark.parametrize(("text", "query"), [
    ("STATUS", QueryOrder("status")),
    ("BOARD", QueryOrder("board")),
    ("OPTIONS", QueryOrder("options")),
    ("HISTORY 5", QueryOrder("history", count=5)),
    ("HELP take", QueryOrder("help", "take")),
])
def test_the_report_requests_read_as_written(text: str, query: QueryOrder) -> None:
    assert read(text) == query


# --- aliases of keywords ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "action"), [
    ("BUILD 13", City(13)),
    ("KILL red 13", Destroy((("ann", 13),))),
    ("REMOVE red 13", Destroy((("ann", 13),))),
    ("ADD 12", Place(((12, 1),))),
    ("DEPLOY 12", Place(((12, 1),))),
    ("PUT 12", Place(((12, 1),))),
    ("BUY 2", Take(2)),
    ("PICK 2", Take(2)),
])
def test_an_alias_reads_as_its_order(text: str, action: Action) -> None:
    assert read(text) == action


@pytest.mark.parametrize("text", ["PASS", "SKIP", "DECLINE", "END TURN", "end action", "FINISH", "Done."])
def test_pass_and_its_kin_end_the_cards_action_like_done(text: str) -> None:
    assert read(text) == Done()


def test_map_asks_for_the_board() -> None:
    assert read("MAP") == QueryOrder("board") and is_query("map")


def test_a_colon_after_the_keyword_is_read_as_a_space() -> None:
    assert read("TAKE: 2") == Take(2)


def test_a_keyword_run_together_with_its_number_is_read_apart() -> None:
    assert read("take2") == Take(2)


def test_every_keyword_of_the_vocabulary_has_a_reader() -> None:
    assert set(READERS) | QUERIES == set(SPELLINGS.values())


# --- misspelt and abbreviated keywords are refused with a suggestion ---------------------------------------


@pytest.mark.parametrize(("text", "meant"), [
    ("tkae 2", "TAKE"),
    ("mvoe 12-13", "MOVE"),
    ("destory red 13", "DESTROY"),
    ("des red 13", "DESTROY"),
    ("bdi 3", "BID"),
    ("plcae 12", "PLACE"),
])
def test_a_near_keyword_is_refused_with_did_you_mean(text: str, meant: str) -> None:
    assert refusal(text).endswith(f"did you mean {meant}?")


def test_a_misspelt_keyword_suggests_only_the_close_one() -> None:
    assert "HISTORY" not in refusal("destory red 13")


def test_a_word_far_from_every_order_is_refused_with_the_orders() -> None:
    assert "The orders: BID 3, TAKE 2" in refusal("xyzzy 3")


def test_regions_without_an_order_word_are_refused_with_how_to_start_the_line() -> None:
    reason = refusal("12-9")
    assert "no order word" in reason and "MOVE 12-9" in reason and "';' starts a new order" in reason


def test_two_orders_on_one_line_joined_by_a_comma_are_refused_with_the_semicolon() -> None:
    assert refusal("TAKE 3, MOVE 12-13") == ("'MOVE 12-13' is another order: give each order on its own line or "
                                             "after a ';', e.g. TAKE 3; MOVE 12-13")


def test_two_orders_joined_by_and_are_refused_with_the_semicolon() -> None:
    assert refusal("TAKE 2 AND PLACE 12").endswith("e.g. TAKE 2; PLACE 12")


def test_please_before_an_order_is_courtesy() -> None:
    assert read("Please TAKE 2") == Take(2) and looks_like_order("please take 2")


# --- which lines are orders and which are courtesy --------------------------------------------------------


@pytest.mark.parametrize("text", ["TAKE 2", "pass", "END TURN", "BUILD 13", "kill red 13", "tkae 2", "destory",
                                  "des red 13", "12-9", "r12 x2", "MAP"])
def test_a_line_that_starts_like_an_order_counts_as_one(text: str) -> None:
    assert looks_like_order(text)


@pytest.mark.parametrize("text", ["Thanks, Ann", "Cheers", "Will", "Kate", "Jake", "Take care, Ann", "Love, Bob",
                                  "End of orders", "Hi all"])
def test_greetings_and_names_are_not_orders(text: str) -> None:
    assert not looks_like_order(text)


# --- regions ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["CITY 12", "CITY r12", "CITY R12", "CITY region 12", "CITY in 12",
                                  "CITY in region 12", "BUILD a city in 12"])
def test_a_region_is_a_number_with_or_without_r_or_region(text: str) -> None:
    assert read(text) == City(12)


def test_a_number_off_the_map_is_no_region() -> None:
    assert refusal("CITY 30") == "30 is no region: regions are 1 to 25."


def test_a_word_is_no_region() -> None:
    assert "regions are the map's numbers 1 to 25, written 12, r12 or region 12" in refusal("CITY paris")


# --- BID --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "coins"), [("BID 3 coins", 3), ("BID three", 3), ("BID 3c", 3),
                                             ("BID nothing", 0), ("BID zero", 0), ("BID fourteen", 14)])
def test_a_bid_may_name_its_coins_or_spell_the_number(text: str, coins: int) -> None:
    assert read(text) == Bid(coins)


def test_a_bid_without_a_number_is_refused_with_examples() -> None:
    assert "e.g. BID 3, BID 3 coins or BID three" in refusal("BID lots")


# --- TAKE -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["TAKE 2", "TAKE two", "TAKE second", "TAKE 2nd", "TAKE place 2",
                                  "TAKE the card at place 2", "TAKE the second card"])
def test_take_names_a_place_of_the_row(text: str) -> None:
    assert read(text) == Take(2)


def test_take_card_names_the_card_by_its_number() -> None:
    state = start()
    assert read(f"TAKE card {state.row[3]}", state) == Take(4)


def test_take_hash_names_the_card_by_its_number() -> None:
    state = start()
    assert read(f"TAKE #{state.row[4]}", state) == Take(5)


def test_a_card_not_in_the_row_is_refused_naming_the_row() -> None:
    state = start()
    missing = next(c for c in range(7, 43) if c not in state.row)
    reason = refusal(f"TAKE card {missing}", state)
    assert reason.startswith(f"Card #{missing} is not in the row; the row holds #{state.row[0]} (place 1), ")


def test_card_and_a_small_number_that_could_be_a_place_is_refused_with_both_readings() -> None:
    """``TAKE card 1`` while card #1 lies at place 6: the card, or the card at place 1? Not guessed."""
    state = start()  # seed 1: card #1 is at place 6
    assert state.row.index(1) == 5
    assert refusal("TAKE card 1", state) == (f"'card 1' could be card #1 (at place 6) or the card at place 1 "
                                             f"(#{state.row[0]}): write TAKE 6 for card #1, or TAKE 1 for the "
                                             "card at place 1.")


def test_a_card_number_written_as_a_place_is_refused_with_both_forms() -> None:
    state = start()
    card = next(c for c in state.row if c > len(state.row))
    place = state.row.index(card) + 1
    assert refusal(f"TAKE {card}", state) == (f"The row has places 1 to 6: for card #{card} (at place {place}) "
                                              f"write TAKE {place} or TAKE card {card}.")


def test_take_alone_says_how_to_name_a_place_or_a_card() -> None:
    assert "e.g. TAKE 2, or a card's number, e.g. TAKE #37 or TAKE card 37." in refusal("TAKE")


# --- PLACE ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["PLACE 12 x2", "PLACE 2 in 12", "PLACE 12 12", "PLACE 2 armies in 12",
                                  "PLACE two armies in region 12", "PLACE 12x2", "PLACE 12 2x", "PLACE 2 armies 12",
                                  "PLACE x2 in 12"])
def test_two_armies_in_one_region(text: str) -> None:
    assert read(text) == Place(((12, 2),))


def test_an_army_in_a_region() -> None:
    assert read("PLACE an army in r12") == Place(((12, 1),))


def test_and_separates_items_like_a_comma() -> None:
    assert read("PLACE 12 and 5") == Place(((12, 1), (5, 1)))


def test_two_different_numbers_without_a_comma_are_refused_as_ambiguous() -> None:
    assert refusal("PLACE 2 12") == ("'2 12' could be a number of armies or several regions: write PLACE 12 x2 "
                                     "for two armies in 12, or PLACE 12, 5 for one army in each (a ',' between "
                                     "regions).")


def test_a_count_given_twice_is_refused() -> None:
    assert "give the number of armies once" in refusal("PLACE 2 armies in 12 x2")


def test_no_armies_is_refused() -> None:
    assert refusal("PLACE 12 x0") == "'12 x0': the number of armies is 1 or more."


def test_place_neutral_is_the_neutral_order() -> None:
    assert read("PLACE neutral 5") == PlaceNeutral(5)


def test_neutral_army_in_a_region() -> None:
    assert read("NEUTRAL army in 5") == PlaceNeutral(5)


# --- MOVE -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["MOVE 12 to 13 to 14", "MOVE 12->13->14", "MOVE 12 - 13 - 14", "MOVE r12-r13-r14",
                                  "MOVE 12\u201313\u201314", "MOVE from 12 to 13 to 14", "MOVE 12 13 14"])
def test_a_path_by_dashes_arrows_or_to(text: str) -> None:
    assert read(text) == Move(((12, 13, 14),))


@pytest.mark.parametrize("text", ["MOVE 2 armies 12-13", "MOVE 12-13 x2", "MOVE two armies from 12 to 13",
                                  "MOVE 12-13 twice"])
def test_two_armies_along_one_path_are_two_paths(text: str) -> None:
    assert read(text) == Move(((12, 13), (12, 13)))


def test_paths_are_separated_by_commas() -> None:
    assert read("MOVE 12-13, 12-9 and 12-10") == Move(((12, 13), (12, 9), (12, 10)))


def test_a_number_before_a_path_without_armies_is_refused() -> None:
    assert "for several armies on one path write MOVE 12-13 x2" in refusal("MOVE 2 12-13")


def test_a_move_needs_two_regions() -> None:
    assert "a move goes from one region to the next" in refusal("MOVE 12")


# --- DESTROY ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["DESTROY red 13", "DESTROY 13 red", "DESTROY red army in 13",
                                  "DESTROY the red army in region 13", "DESTROY ann 13", "DESTROY ANN 13",
                                  "DESTROY red's army in 13", "DESTROY a red army in 13", "DESTROY an army of red in 13"])
def test_whose_army_and_where_in_either_order(text: str) -> None:
    assert read(text) == Destroy((("ann", 13),))


@pytest.mark.parametrize("text", ["DESTROY red 13 x2", "DESTROY 2 red armies in 13", "DESTROY 13 red x2"])
def test_two_armies_of_one_player_in_one_region(text: str) -> None:
    assert read(text) == Destroy((("ann", 13), ("ann", 13)))


def test_a_number_before_the_player_without_armies_is_refused_as_ambiguous() -> None:
    assert "is 2 a number of armies or a region?" in refusal("DESTROY 2 red 13")


def test_a_misspelt_colour_is_refused_with_the_players_and_the_closest() -> None:
    assert refusal("DESTROY rde 13") == "'rde' names no player; players: ann (red), bob (blue), cy (green). " \
                                        "Did you mean red?"


def test_destroy_without_a_region_is_refused_with_examples() -> None:
    assert "e.g. DESTROY red 13, DESTROY 13 red" in refusal("DESTROY red")


# --- HELP -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("topic", [None, *topics(), "nonsense"])
def test_every_help_text_fits_a_mail(topic: str | None) -> None:
    assert problems(help_text(topic)) == []


@pytest.mark.parametrize(("asked", "topic"), [("build", "CITY"), ("kill", "DESTROY"), ("pass", "DONE"),
                                              ("regions", "MAP"), ("map", "MAP"), ("score", "SCORING"),
                                              ("wild", "WILD"), ("aliases", "ALIASES"), ("row", "ROW")])
def test_help_answers_a_topic_by_any_of_its_words(asked: str, topic: str) -> None:
    assert help_text(asked).startswith(f"HELP {topic}\n")


def test_help_aliases_lists_every_alias() -> None:
    text = " ".join(help_text("aliases").split())
    assert all(f"{alias.upper()}" in text for alias, keyword in SPELLINGS.items() if alias != keyword)


def test_help_on_an_unknown_topic_says_so_and_lists_the_orders() -> None:
    text = help_text("nonsense")
    assert "There is no help on 'nonsense'" in text and "TAKE 2 - take the card" in text


# --- whole messages through the kind ------------------------------------------------------------------------


def test_a_message_of_aliases_takes_a_card_by_its_number_and_passes() -> None:
    state = on_take()
    player = state.current
    assert player is not None
    card = state.row[2]
    outcome = send(state, player, f"Hi all,\n\ntake card {card}\npass\n\nCheers, {player.title()}")
    assert outcome.refusal is None and outcome.state.hands[player] == (card,)
    assert outcome.state.phase is Phase.TAKE and outcome.state.current != player


def test_a_message_places_armies_in_natural_words() -> None:
    card = 8  # place 3
    outcome = send(using(card), "ann", "PLACE 2 armies in region 12\nadd an army in 12")
    assert outcome.refusal is None and outcome.state.armies[12]["ann"] == 3 + 3


def test_a_message_moves_two_armies_along_one_path() -> None:
    outcome = send(using(10), "ann", "MOVE 2 armies 12 -> 13")  # card 10: move 4
    assert outcome.refusal is None and outcome.state.armies[13] == {"ann": 2}


def test_a_misspelt_order_in_a_message_is_refused_with_the_suggestion_and_the_legal_orders() -> None:
    state = on_take()
    player = state.current
    assert player is not None
    outcome = send(state, player, "tkae 1\nDONE")
    assert outcome.refusal is not None and outcome.refusal.line_number == 1
    assert outcome.refusal.reason.endswith("did you mean TAKE?")
    assert any(order.startswith("TAKE 1") for order in outcome.refusal.legal)  # the moderator adds them
    assert outcome.refusal.not_applied == ((2, "DONE"),)


@pytest.mark.parametrize(("before", "refused"), [
    ("", "MOVE 12-13-14, 12-10-3"),  # 3 is not next to 10: 10 is only where the second army would have been
    ("", "MOVE 12-13, 12-13, 12-13, 12-13"),  # three armies stand in 12, the fourth path finds none
    ("", "MOVE 12-13, 13-14-15-16"),  # the army reaching 13 does so only inside the refused order
    ("MOVE 12-13", "MOVE 13-14, 12-10-3"),  # the position after the applied first line
    ("", "MOVE 5-4"),
])
def test_r8_act_7_legal_now_after_a_refused_move_holds_only_orders_of_the_position_it_was_tried_against(
        before: str, refused: str) -> None:
    """The refused line moved nothing, so what it offers is worked out from the position after the lines
    before it, never from the refused line's own partial moves: each offer is a whole legal reply there."""
    outcome = send(using(10), "ann", f"{before}\n{refused}")  # card 10: move 4
    assert outcome.refusal is not None and outcome.refusal.line == refused, outcome.refusal
    position = apply(BOARD, using(10), "ann", parse(using(10), before))[0] if before else using(10)  # type: ignore[arg-type]
    assert outcome.refusal.legal and "MOVE 10-9" not in outcome.refusal.legal
    for offer in outcome.refusal.legal:
        tried = KIND.run_message(position, "ann", offer, waiting={})
        assert tried.refusal is None, (offer, tried.refusal)


def test_r8_act_7_a_step_to_a_region_not_next_is_answered_with_the_line_mended() -> None:
    outcome = send(using(10), "ann", "move 12-13-14, 12-10-3")
    assert outcome.refusal is not None and outcome.refusal.legal == ("MOVE 12-13-14, 12-10-9",)


def test_a_path_after_a_semicolon_is_refused_and_the_first_stands() -> None:
    outcome = send(using(10), "ann", "MOVE 12-13; 12-9")
    assert outcome.refusal is not None and "'12-9' has no order word" in outcome.refusal.reason
    assert [line.line for line in outcome.applied] == ["MOVE 12-13"]


def test_by_mail_take_hash_names_a_card_while_a_hash_before_words_still_starts_a_comment() -> None:
    """``TAKE #37`` reaches the parser whole (a digit after "#" is a card number); ``# ...`` is a comment."""
    state = on_take()
    player = state.current
    assert player is not None
    card = state.row[1]
    outcome = send(state, player, f"TAKE #{card} # the cheap one")
    assert outcome.refusal is None and card in outcome.state.hands[player]

def test_a_mail_of_report_requests_in_any_spelling_is_a_query_only_mail() -> None:
    """A late ``MAP`` or ``Please STATUS`` is still answered: it asks for reports and orders nothing."""
    kind = kind_named("eight-minute-empire")
    assert kind.queries_only("MAP") and kind.queries_only("Please STATUS\nhelp take")
    assert not kind.queries_only("STATUS\nTAKE 2")
