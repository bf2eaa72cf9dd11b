"""Names read in the seat's language (issue 30): the nations, regions and rondel spaces of a report, a prompt and
the narration are the glossary's (/work/shared/i18n/glossary-imperial2030.md, sections 1, 3 and 5; its ✓ words
are the printed rulebooks'), and English mail keeps the board's English names."""
from __future__ import annotations

import pytest

from engine.imperial2030.actions import ArmyMove, FleetMove
from engine.imperial2030.game import apply
from pbem.games import kind_named
from pbem.games.imperial2030.kind import Imperial2030
from pbem.games.results import Query
from pbem.languages import Language, speaking
from tests.imperialpositions import busy, finished, suez_position

KIND = kind_named("imperial2030")
assert isinstance(KIND, Imperial2030)

# A few ✓ words of each rulebook: nations (1.1), rondel spaces (3), regions (5.1, 5.3).
RULEBOOK_WORDS = {
    Language.RU: ("Россия", "Китай", "США", "Налогообложение", "Москва", "Пекин", "Средиземное море", "Украина"),
    Language.PL: ("Rosja", "Chiny", "Indie", "Podatek", "Moskwa", "Warszawa", "Morze Śródziemne", "Ukraina"),
    Language.ES: ("Rusia", "Estados Unidos", "Tributación", "Maniobra", "París", "Londres", "Mar Mediterráneo"),
    Language.IT: ("Russia", "Cina", "Stati Uniti", "Tassazione", "Mosca", "Berlino", "Mar Mediterraneo"),
}


@pytest.mark.parametrize("language", list(RULEBOOK_WORDS))
def test_issue30_a_report_names_nations_regions_and_spaces_as_the_rulebook_does(language: Language) -> None:
    with speaking(language):
        report = " ".join(KIND.report(busy(), "Anna", (), game="g1", board=True).split())  # names wrapped too
    for word in RULEBOOK_WORDS[language]:
        assert word in report, word


def test_issue30_an_english_report_keeps_the_boards_names() -> None:
    report = KIND.report(busy(), "Anna", (), game="g1", board=True)
    assert "Moscow" in report and "Taxation" in report and "Москва" not in report


def test_issue30_russian_names_brasilia_apart_from_brazil() -> None:
    with speaking(Language.RU):
        report = KIND.report(busy(), "Anna", (), game="g1", board=False)
    assert "Бразилиа [A]" in report  # the city; Бразилия is the nation


def test_issue30_the_narration_names_regions_in_the_seats_language() -> None:
    state = suez_position()
    state, events = apply(state, "ann", FleetMove("rome", "mediterraneansea"))
    state, more = apply(state, "ann", ArmyMove("paris", "neareast"))
    with speaking(Language.PL):
        told = "\n".join(KIND.narrate(state, [*events, *more]))
    assert "Rzym" in told and "Morze Śródziemne" in told and "Bliski Wschód" in told


def test_issue30_the_rondels_art_prints_the_rulebooks_space_names_in_capitals() -> None:
    with speaking(Language.RU):
        report = KIND.report(busy(), "Anna", (), game="g1", board=True)
    assert "| НАЛОГООБЛОЖЕНИЕ   |" in report
    assert "| ФАБРИКИ           > ПРОИЗВОДСТВО      > МАНЕВРЫ           |" in report


def test_issue30_a_prompt_names_the_canal_in_the_seats_language() -> None:
    with speaking(Language.RU):
        prompt = KIND.prompt(suez_position(), "ann", game="g1", deadline="2030-05-03 18:00 UTC")
    assert prompt is not None
    assert "через канал Суэц" in prompt
    assert "АРМИЯ Париж В Мурманск ВРАЖДЕБНАЯ" in prompt


def test_issue30_the_ascii_board_names_regions_in_the_seats_language_where_they_fit() -> None:
    with speaking(Language.RU):
        report = KIND.report(busy(), "Anna", (), game="g1", board=True)
    assert "| МОСКВА        |" in report
    assert "СРЕДИЗЕМНОЕ МОРЕ" in report
    assert " СЕВ. ТИХИЙ ОК.  |" in report  # Северная часть Тихого океана does not fit: the board's short form
    assert "остаются там на английском" not in " ".join(report.split())  # every name found its place
    assert all(len(line) <= 78 for line in report.splitlines())


def test_issue30_an_english_board_says_nothing_of_names_left_in_english() -> None:
    assert "stay in English" not in KIND.report(busy(), "Anna", (), game="g1", board=True)


def test_issue30_the_game_state_and_the_seats_holdings_name_nations_in_its_language() -> None:
    state = busy()
    with speaking(Language.IT):
        assert "Europa" in KIND.status_words(state)
        assert "Stati Uniti" in KIND.holding_words(state, "Eva")
    assert "USA" in KIND.holding_words(state, "Eva")


def test_issue30_the_welcome_and_the_games_end_speak_the_seats_language() -> None:
    state, events = finished()
    with speaking(Language.RU):
        welcome = KIND.welcome(busy(), "Anna", game="g1", reply_to="x@y", open_cash=False)
        ended = KIND.game_end(state, "Anna", events, game="g1")
    assert "    РОНДЕЛЬ импорт\n    ИМПОРТ армия Москва, корабль Владивосток\n" in welcome
    assert "нация Европа набрала" in ended


def test_issue30_status_and_options_quote_the_orders_in_the_seats_words() -> None:
    with speaking(Language.RU):
        status = KIND.answer_query(busy(), "Finn", Query(1, "status", "status"), log=[], game="g1")
        options = KIND.answer_query(busy(), "Finn", Query(1, "options", "options"), log=[], game="g1")
    assert status.startswith("СТАТУС\n")
    assert "Маневры 2" in " ".join(options.split()) and "maneuver_2" not in options
    assert "ВНЕСТИ" in options and "DONATE" not in options
