"""Eight-Minute Empire in the seat's language (issue 30): a seat writes its orders with its language's keywords,
colours and neutral word (the glossary's sections 10 and 11) as well as in English, the ready-to-copy options
print in its language and are applied as written, and names in its mail come from the glossary."""
from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core.seats import Seat
from engine.eight_minute_empire.actions import Action, Bid, City, Destroy, Done, Move, Place, PlaceNeutral, Take
from engine.eight_minute_empire.board import default_board
from engine.eight_minute_empire.game import apply, new_game
from engine.eight_minute_empire.model import NEUTRAL, CardInPlay, Phase, Setup, State, Variant
from engine.eight_minute_empire.randomplay import random_move
from pbem.games import kind_named
from pbem.games.eight_minute_empire import prompts
from pbem.games.eight_minute_empire.cardtext import card_words
from pbem.games.eight_minute_empire.help import help_text
from pbem.games.eight_minute_empire.kind import EightMinuteEmpire
from pbem.games.eight_minute_empire.orders import QueryOrder, looks_like_order, parse
from pbem.games.eight_minute_empire.picture import CELL_PAD
from pbem.games.results import MessageOutcome
from pbem.languages import Language, speaking
from pbem.render.measure import font

BOARD = default_board()
NAMES = ("ann", "bob", "cy")
KIND = kind_named("eight-minute-empire")
assert isinstance(KIND, EightMinuteEmpire)
OTHERS = (Language.RU, Language.PL, Language.ES, Language.IT)


def start(seed: int = 1) -> State:
    state, _ = new_game(BOARD, Setup(tuple(Seat(n) for n in NAMES), seed))
    return state


def read(language: Language, text: str, state: State | None = None) -> Action | QueryOrder:
    with speaking(language):
        return parse(state or start(), text)


def using(card: int) -> State:
    """``ann`` has taken ``card`` and uses its action."""
    left = tuple(a.amount for a in BOARD.cards[card].actions)
    return replace(start(), phase=Phase.ACTION, current="ann", in_play=CardInPlay(card, left))


def send(language: Language, state: State, player: str, text: str) -> MessageOutcome:
    with speaking(language):
        return KIND.run_message(state, player, text, waiting={})


def playing(seed: int, moves: int, variants: frozenset[Variant] = frozenset()) -> State:
    """A game played at random for ``moves`` moves (two players with the neutral armies' variant)."""
    seats = NAMES[:2] if Variant.NEUTRAL in variants else NAMES
    state, _ = new_game(BOARD, Setup(tuple(Seat(n) for n in seats), seed, (), variants))
    rng = random.Random(seed)
    for _ in range(moves):
        if state.finished:
            break
        player, action = random_move(BOARD, state, rng)
        state, _ = apply(BOARD, state, player, action)
    return state


# --- orders in the seat's language (glossary section 11) ---------------------------------------------------


ORDERS = {
    Language.RU: ("СТАВКА 3", "ВЗЯТЬ 3", "ВЫВЕСТИ 12 x2, 5", "МАРШ 12-13-14, 12-9", "ГОРОД 13", "РАЗГРОМ красный 13",
                  "ГОТОВО", "НЕЙТРАЛЬНАЯ 5"),
    Language.PL: ("OFERTA 3", "BIERZ 3", "POSTAW 12 x2, 5", "RUCH 12-13-14, 12-9", "MIASTO 13", "ZNISZCZ czerwony 13",
                  "GOTOWE", "NEUTRALNA 5"),
    Language.ES: ("PUJA 3", "TOMAR 3", "COLOCAR 12 x2, 5", "MOVER 12-13-14, 12-9", "CIUDAD 13", "DESTRUIR rojo 13",
                  "HECHO", "NEUTRAL 5"),
    Language.IT: ("OFFERTA 3", "PRENDI 3", "PIAZZA 12 x2, 5", "MUOVI 12-13-14, 12-9", "CITTÀ 13", "DISTRUGGI rosso 13",
                  "FATTO", "NEUTRALE 5"),
}
ACTIONS = (Bid(3), Take(3), Place(((12, 2), (5, 1))), Move(((12, 13, 14), (12, 9))), City(13), Destroy((("ann", 13),)),
           Done(), PlaceNeutral(5))


@pytest.mark.parametrize("language", OTHERS)
def test_issue30_the_glossarys_keywords_read_as_their_orders(language: Language) -> None:
    for text, action in zip(ORDERS[language], ACTIONS, strict=True):
        assert read(language, text) == action, text


@pytest.mark.parametrize(("language", "text", "action"), [
    (Language.RU, "взять 3", Take(3)),
    (Language.RU, "Взять 3", Take(3)),
    (Language.RU, "вЗяТь 3", Take(3)),
    (Language.RU, "РАЗГРОМ Красная 13", Destroy((("ann", 13),))),
    (Language.RU, "разгром нейтральные 13", Destroy(((NEUTRAL, 13),))),
    (Language.RU, "РАЗГРОМ зелёные 13, ЗЕЛЕНЫЙ 9", Destroy((("cy", 13), ("cy", 9)))),
    (Language.RU, "НАБОР 12", Place(((12, 1),))),
    (Language.RU, "ВЗЯТЬ3", Take(3)),
    (Language.RU, "ВЗЯТЬ: 3", Take(3)),
    (Language.PL, "weź 2", Take(2)),
    (Language.PL, "WEZ 2", Take(2)),
    (Language.PL, "Zniszcz CZERWONĄ 13", Destroy((("ann", 13),))),
    (Language.ES, "ciudad 13", City(13)),
    (Language.ES, "Destruir roja 13", Destroy((("ann", 13),))),
    (Language.IT, "CITTA 13", City(13)),
    (Language.IT, "citta' 13", City(13)),
    (Language.IT, "Città 13", City(13)),
])
def test_issue30_case_diacritics_and_endings_are_forgiven(language: Language, text: str, action: Action) -> None:
    assert read(language, text) == action


def test_issue30_a_cyrillic_x_counts_armies_like_the_latin_one() -> None:
    assert read(Language.RU, "ВЫВЕСТИ 12 х2") == Place(((12, 2),))
    assert read(Language.RU, "ВЫВЕСТИ 12х2, 5") == Place(((12, 2), (5, 1)))


@pytest.mark.parametrize("language", OTHERS)
def test_issue30_english_orders_still_work_for_a_seat_in_another_language(language: Language) -> None:
    for text, action in zip(("BID 3", "TAKE 3", "PLACE 12 x2, 5", "MOVE 12-13-14, 12-9", "CITY 13",
                              "DESTROY red 13", "DONE", "NEUTRAL 5"), ACTIONS, strict=True):
        assert read(language, text) == action, text


@pytest.mark.parametrize(("language", "text", "kind"), [
    (Language.RU, "ПОМОЩЬ", "help"), (Language.RU, "СТАТУС", "status"), (Language.RU, "ПОЛЕ", "board"),
    (Language.RU, "ОПЦИИ", "options"), (Language.RU, "ИСТОРИЯ", "history"), (Language.PL, "POMOC", "help"),
    (Language.ES, "AYUDA", "help"), (Language.IT, "AIUTO", "help"), (Language.PL, "STAN", "status"),
])
def test_issue30_report_requests_are_read_in_the_seats_language(language: Language, text: str, kind: str) -> None:
    found = read(language, text)
    assert isinstance(found, QueryOrder) and found.kind == kind


def test_issue30_help_on_an_order_may_name_it_in_the_seats_language() -> None:
    assert read(Language.RU, "ПОМОЩЬ город") == QueryOrder("help", "city")


def test_issue30_a_line_in_the_seats_language_is_an_order_not_a_greeting() -> None:
    with speaking(Language.RU):
        assert looks_like_order("ВЗЯТЬ 3")
        assert looks_like_order("ВЗЯТ 3")  # a slip: refused with "did you mean", never set aside
        assert not looks_like_order("Привет всем")


def test_issue30_a_refusal_quotes_the_players_line_and_suggests_in_the_seats_language() -> None:
    state = replace(start(), phase=Phase.TAKE, current="ann")
    outcome = send(Language.RU, state, "ann", "ВЗЯТ 3")
    assert outcome.refusal is not None
    assert outcome.refusal.line == "ВЗЯТ 3"
    assert "ВЗЯТЬ" in outcome.refusal.reason


# --- the ready-to-copy options print in the seat's language and are applied as written ---------------------


def options_of(language: Language, state: State) -> list[str]:
    player = state.current if state.phase is not Phase.BID else next(p for p in state.seating
                                                                          if p not in state.bids)
    assert player is not None
    with speaking(language):
        return [line for line in prompts.option_lines(BOARD, state, player) if not line.endswith(":")]


@pytest.mark.parametrize(("language", "keywords"), [
    (Language.RU, ("СТАВКА", "ВЗЯТЬ", "ВЫВЕСТИ", "НЕЙТРАЛЬНАЯ")), (Language.PL, ("OFERTA", "BIERZ", "POSTAW", "NEUTRALNA")),
    (Language.ES, ("PUJA", "TOMAR", "COLOCAR", "NEUTRAL")), (Language.IT, ("OFFERTA", "PRENDI", "PIAZZA", "NEUTRALE")),
])
def test_issue30_the_options_of_each_decision_start_with_the_seats_keywords(language: Language,
                                                                             keywords: tuple[str, ...]) -> None:
    bid, take, _, neutral = keywords
    assert all(line.startswith(bid + " ") for line in options_of(language, start()))
    assert all(line.startswith(take + " ") for line in options_of(language, playing(1, 3)))
    assert all(line.startswith(neutral + " ")
               for line in options_of(language, playing(1, 0, frozenset({Variant.NEUTRAL}))))


def test_issue30_a_russian_turn_is_offered_in_russian() -> None:
    state = playing(1, 3)
    line = options_of(Language.RU, state)[0]
    assert line.startswith("ВЗЯТЬ ") and "TAKE" not in line


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(OTHERS), st.integers(0, 10_000), st.integers(0, 40), st.booleans())
def test_issue30_every_option_in_the_seats_language_is_applied_as_written(language: Language, seed: int,
                                                                          moves: int, neutral: bool) -> None:
    state = playing(seed, moves, frozenset({Variant.NEUTRAL}) if neutral else frozenset())
    if state.finished:
        return
    player = state.current if state.phase is not Phase.BID else next(p for p in state.seating
                                                                          if p not in state.bids)
    assert player is not None
    for line in options_of(language, state):
        outcome = send(language, state, player, line)
        assert outcome.refusal is None, (line, outcome.refusal.reason)
        assert outcome.applied


# --- names in the seat's mail come from the glossary ---------------------------------------------------------


def test_issue30_a_card_names_its_good_with_the_russian_rulebooks_word() -> None:
    carrot = next(c for c in BOARD.cards.values() if c.good == "carrot")
    crystal = next(c for c in BOARD.cards.values() if c.good == "crystal")
    wood = next(c for c in BOARD.cards.values() if c.good == "wood")
    with speaking(Language.RU):
        assert "морковь" in card_words(carrot)
        assert "кристалл" in card_words(crystal)
        assert "лес" in card_words(wood)


def test_issue30_help_lists_the_seats_keywords_and_says_english_ones_are_accepted() -> None:
    with speaking(Language.RU):
        text = help_text(None)
    assert "ВЗЯТЬ 2" in text and "МАРШ" in text and "РАЗГРОМ" in text
    assert "TAKE" in text  # said once: the English keywords are accepted too


def test_issue30_the_welcome_names_colours_and_example_orders_in_the_seats_language() -> None:
    state = start()
    with speaking(Language.RU):
        text = KIND.welcome(state, "ann", game="g1")
    assert "красный" in text and "синий" in text and "зелёный" in text
    assert "ВЗЯТЬ 3" in text and "МАРШ 12-13-14, 12-9" in text


@pytest.mark.parametrize(("language", "carrot", "red"), [
    (Language.RU, "морковь", "красный"), (Language.PL, "marchewka", "czerwony"), (Language.ES, "zanahoria", "rojo"),
    (Language.IT, "carota", "rosso"),
])
def test_issue30_a_report_names_goods_and_colours_from_the_glossary(language: Language, carrot: str,
                                                                    red: str) -> None:
    card = next(c for c in BOARD.cards.values() if c.good == "carrot" and c.symbols == 1)
    state = replace(start(), hands={**start().hands, "ann": (card.id,)})
    with speaking(language):
        text = KIND.report(state, "ann", (), game="g1")
    assert f"{carrot} 1" in text and red in text


def test_issue30_english_mail_keeps_the_english_names() -> None:
    state = start()
    text = KIND.welcome(state, "ann", game="g1")
    assert "(you, red)" in text and "TAKE 3" in text


# --- the picture ---------------------------------------------------------------------------------------------


def test_issue30_the_pictures_continents_and_colours_are_named_in_the_seats_language() -> None:
    state = playing(7, 30)
    with speaking(Language.RU):
        scene = KIND.picture(state, game="g1")
    assert {c.text.split(":")[0] for c in scene.captions} == {f"Континент {c}" for c in "ABCD"}
    assert any("синий" in entry.name for entry in scene.legend)


@pytest.mark.parametrize("language", OTHERS)
def test_issue30_every_word_of_a_card_in_the_pictures_row_fits_its_cell(language: Language) -> None:
    state = playing(5, 25)
    with speaking(language):
        row = KIND.picture(state, game="g1").panels[0]
        face = font(row.text_size)
        for cell in row.cells[1::2]:
            inner = cell.box[2] - cell.box[0] - 2 * CELL_PAD
            assert all(face.getlength(word) <= inner for line in cell.lines for word in line.split()), cell.lines


def test_issue30_another_order_among_the_items_is_quoted_as_written() -> None:
    state = replace(start(), phase=Phase.TAKE, current="ann")
    with speaking(Language.RU), pytest.raises(ValueError) as caught:
        parse(state, "ВЗЯТЬ 3, МАРШ 12-13")
    assert "ВЗЯТЬ 3; МАРШ 12-13" in str(caught.value)


def test_issue30_a_colour_nobody_plays_is_quoted_as_written_with_the_colours_in_play() -> None:
    with speaking(Language.RU), pytest.raises(ValueError) as caught:
        parse(using(next(c.id for c in BOARD.cards.values() if c.actions[0].kind.value == "destroy")),
              "РАЗГРОМ жёлтый 13")
    assert "жёлтый" in str(caught.value) and "ann (красный)" in str(caught.value)


def test_issue30_a_player_named_like_a_keyword_is_still_a_player_among_the_items() -> None:
    state, _ = new_game(BOARD, Setup((Seat("ann"), Seat("stan"), Seat("cy")), 1))
    state = replace(state, phase=Phase.ACTION, current="ann")
    assert read(Language.PL, "ZNISZCZ czerwony 13, Stan 9", state) == Destroy((("ann", 13), ("stan", 9)))


@pytest.mark.parametrize(("language", "text", "topic"), [
    (Language.RU, "ПОМОЩЬ ряд", "row"), (Language.RU, "помощь очки", "scoring"), (Language.PL, "POMOC dżoker", "wild"),
    (Language.ES, "AYUDA comodin", "wild"), (Language.IT, "AIUTO regioni", "map"),
])
def test_issue30_helps_topics_are_asked_and_listed_in_the_seats_language(language: Language, text: str,
                                                                         topic: str) -> None:
    assert read(language, text) == QueryOrder("help", topic)
    with speaking(language):
        assert text.split()[1].casefold() in help_text(None).casefold() or language is Language.ES
