"""A seat writes its orders in its own language, and reads the ready-to-copy options in it (issue 30).

The order keywords are the glossary's section 6 (/work/shared/i18n/glossary-imperial2030.md), the names its
sections 1, 3 and 5; English stays valid for every seat. Every option printed for a seat is an order its
parser reads back to the very action it stands for."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.imperial2030.actions import ArmyMove, ChooseSpace, FleetMove
from engine.imperial2030.decisions import decisions_for
from engine.imperial2030.game import apply, waiting_for
from engine.imperial2030.model import GameState, Stance
from pbem.games.imperial2030.orders import (
    OrderError,
    UnknownName,
    apply_exchange,
    apply_message,
    format_action,
    parse_order,
    split_orders,
)
from pbem.languages import Language, speaking
from tests.imperialpositions import (
    battle_question,
    busy,
    canal_question,
    force_question,
    investment_question,
    russia_maneuvers,
    start,
    suez_position,
)

OTHERS = [language for language in Language if language is not Language.EN]

# The glossary's example in each language (section 6): Europe sends an army from Paris to Mumbai through Suez.
SUEZ_ORDERS = {
    Language.RU: "КОРАБЛЬ Рим В Средиземное море\nКОРАБЛЬ Средиземное море В Индийский океан\n"
                 "АРМИЯ Париж В Мумбай ВРАЖДЕБНАЯ",
    Language.PL: "STATEK Rzym DO Morze Śródziemne\nSTATEK Morze Śródziemne DO Ocean Indyjski\n"
                 "ARMIA Paryż DO Bombaj WROGO",
    Language.ES: "FLOTA Roma A Mar Mediterráneo\nFLOTA Mar Mediterráneo A Océano Índico\n"
                 "EJÉRCITO París A Bombay HOSTIL",
    Language.IT: "FLOTTA Roma A Mar Mediterraneo\nFLOTTA Mar Mediterraneo A Oceano Indiano\n"
                 "ESERCITO Parigi A Mumbai OSTILE",
}
# India holds Suez: the second fleet's passage is India's to allow, and the army's order waits for the answer
SUEZ_ACTIONS = (FleetMove("rome", "mediterraneansea"), FleetMove("mediterraneansea", "indianocean"))


def positions() -> list[GameState]:
    """A position of each kind of decision: the rondel, a maneuver (fleets, armies, attacks), a canal question,
    a battle question, a busy mid-game board, an investment, a Swiss bank's force-stop, a factory to build,
    units to import, factories to produce with."""
    return [start()[0], suez_position(), russia_maneuvers(), busy(), canal_question(suez_position()),
            battle_question(suez_position()), investment_question(), force_question(),  # type: ignore[no-untyped-call]
            *(apply(start()[0], "Anna", ChooseSpace(space))[0] for space in ("factory", "import", "production_1"))]


POSITIONS = positions()


def options(state: GameState, player: str) -> list[str]:
    """The ready-to-copy options of ``player``'s prompt: each open decision's options, in the language spoken."""
    return [format_action(state.board, option.action)
            for decision in decisions_for(state, player) for option in decision.options]


@pytest.mark.parametrize("language", OTHERS)
def test_issue30_every_option_prints_in_the_seats_language_and_parses_back(language: Language) -> None:
    for state in POSITIONS:
        for player in waiting_for(state):
            with speaking(language):
                for decision in decisions_for(state, player):
                    for option in decision.options:
                        text = format_action(state.board, option.action)
                        assert parse_order(state, player, text) == option.action, text


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(OTHERS), st.sampled_from(range(len(POSITIONS))), st.randoms(use_true_random=False))
def test_issue30_any_option_sent_back_as_an_order_is_applied(language: Language, which: int, rnd: object) -> None:
    state = POSITIONS[which]
    player = sorted(waiting_for(state))[0]
    with speaking(language):
        printed = options(state, player)
        order = rnd.choice(printed)  # type: ignore[attr-defined]
        result = apply_message(state, player, order)
    assert result.ok, (order, result.error)


def test_issue30_options_print_the_glossarys_words() -> None:
    state = suez_position()
    with speaking(Language.RU):
        russian = options(state, "ann")
    with speaking(Language.PL):
        polish = options(state, "ann")
    assert "КОРАБЛЬ Рим В Средиземное море" in russian
    assert "ГОТОВО" in russian
    assert "STATEK Rzym DO Morze Śródziemne" in polish
    with speaking(Language.IT):
        italian = options(start()[0], "Anna")
    assert "RUOTA Produzione 2" in italian


@pytest.mark.parametrize("language", OTHERS)
def test_issue30_the_glossarys_example_is_applied_in_each_language(language: Language) -> None:
    with speaking(language):
        result = apply_message(suez_position(), "ann", SUEZ_ORDERS[language])
    assert result.ok, result.error
    assert tuple(order.action for order in result.applied) == SUEZ_ACTIONS
    assert [line.text for line in result.waiting] == [SUEZ_ORDERS[language].splitlines()[2]]


@pytest.mark.parametrize("text", ["армия париж в мумбай враждебная", "Армия Париж в Мумбаи Враждебная",
                                  "АРМИЯ ПАРИЖ В МУМБАЙ ВРАГ"])
def test_issue30_russian_keywords_and_names_in_any_case(text: str) -> None:
    state = suez_position()
    with speaking(Language.RU):
        assert parse_order(state, "ann", text) == ArmyMove("paris", "mumbai", Stance.HOSTILE)


@pytest.mark.parametrize(("language", "text"), [
    (Language.PL, "statek rzym do morze srodziemne"),
    (Language.PL, "Statek RZYM Do Morze Śródziemne"),
    (Language.ES, "flota roma a mar mediterraneo"),
    (Language.IT, "flotta ROMA a mar mediterraneo"),
])
def test_issue30_keywords_and_names_without_diacritics_in_any_case(language: Language, text: str) -> None:
    with speaking(language):
        assert parse_order(suez_position(), "ann", text) == FleetMove("rome", "mediterraneansea")


def test_issue30_russian_yo_is_e() -> None:
    with speaking(Language.RU):
        assert parse_order(start()[0], "Anna", "РОНДЕЛЬ Манёвры 1") == ChooseSpace("maneuver_1")


def test_issue30_polish_l_may_be_written_without_its_stroke() -> None:
    with speaking(Language.PL):
        assert parse_order(suez_position(), "ann", "STATEK Morze Srodziemne DO Atlantyk Polnocny") \
            == FleetMove("mediterraneansea", "northatlantic")


@pytest.mark.parametrize("language", OTHERS)
def test_issue30_english_orders_still_work_for_a_seat_in_another_language(language: Language) -> None:
    with speaking(language):
        result = apply_message(suez_position(), "ann", "FLEET Rome TO Mediterranean Sea\n"
                                                       "FLEET Mediterranean Sea TO Indian Ocean\n"
                                                       "ARMY Paris TO Mumbai HOSTILE")
    assert result.ok, result.error
    assert tuple(order.action for order in result.applied) == SUEZ_ACTIONS
    with speaking(language):
        army = parse_order(suez_position(), "ann", "ARMY Paris TO Mumbai HOSTILE")
    assert army == ArmyMove("paris", "mumbai", Stance.HOSTILE)


def test_issue30_rondel_spaces_in_russian_and_the_farther_one() -> None:
    state = start()[0]
    with speaking(Language.RU):
        assert parse_order(state, "Anna", "РОНДЕЛЬ налогообложение") == ChooseSpace("taxation")
        assert parse_order(state, "Anna", "рондель производство дальше") == ChooseSpace("production_2")
        assert parse_order(state, "Anna", "РОНДЕЛЬ фабрика") == ChooseSpace("factory")


def test_issue30_a_refusal_quotes_the_players_line_and_suggests_in_the_seats_language() -> None:
    state = suez_position()
    with speaking(Language.RU):
        result = apply_message(state, "ann", "КОРАБЛЬ Рим В Средизмное море")
    assert not result.ok
    assert result.not_applied[0].text == "КОРАБЛЬ Рим В Средизмное море"
    assert isinstance(result.error, UnknownName)
    assert "Средиземное море" in result.error.suggestions


def test_issue30_a_misspelt_keyword_is_answered_with_the_seats_keyword() -> None:
    with speaking(Language.RU):
        with pytest.raises(OrderError) as refused:
            parse_order(suez_position(), "ann", "АРМЯ Париж В Лондон")
    assert "АРМИЯ" in refused.value.suggestions


def test_issue30_a_refusal_shows_how_the_order_is_written_in_the_seats_words() -> None:
    with speaking(Language.RU):
        with pytest.raises(OrderError) as refused:
            parse_order(start()[0], "Anna", "РОНДЕЛЬ")
    said = refused.value.reason
    assert "РОНДЕЛЬ <space>" in said and "налогообложение" in said.lower()


@pytest.mark.parametrize("language", OTHERS)
def test_issue30_waiting_orders_go_on_in_their_writers_language_when_another_seat_answers(
        language: Language) -> None:
    with speaking(language):
        asked = apply_message(suez_position(), "ann", SUEZ_ORDERS[language])
    assert asked.question is not None and len(asked.waiting) == 1
    answer = apply_exchange(asked.state, "bob", split_orders("ALLOW\nNO FIGHT").orders,
                            {"ann": asked.waiting})  # bob answers in English
    (resumed,) = answer.resumed
    assert resumed.ok, resumed.error
    assert [order.action for order in resumed.applied] == [ArmyMove("paris", "mumbai", Stance.HOSTILE)]
