"""HELP in the seat's language (issue 30): the orders' forms and examples in its keywords and names, every
example still an order of the keyword it illustrates; a topic may be asked in its words."""
from __future__ import annotations

import pytest

from pbem.games.imperial2030.help import help_text, help_view, resolve_topic
from pbem.games.imperial2030.orders.keywords import Keyword, read_keyword
from pbem.languages import Language, speaking

OTHERS = [language for language in Language if language is not Language.EN]


@pytest.mark.parametrize("language", OTHERS)
def test_issue30_every_help_example_is_an_order_in_the_seats_words(language: Language) -> None:
    with speaking(language):
        for entry in help_view(None).orders:
            # an example may be a few lines (the RONDEL order that leads to the one shown), or another answer
            keywords = [{read_keyword(line).spec.keyword for line in example.splitlines()}
                        for example in entry.examples]
            assert entry.keyword in keywords[0], entry.examples[0]


def test_issue30_help_lists_the_orders_in_russian() -> None:
    with speaking(Language.RU):
        text = help_text(None)
    assert "  КУПИТЬ <nation> <value>" in text
    assert "например ИМПОРТ 2 армия Москва, корабль Владивосток" in text
    assert "УНИЧТОЖИТЬ ФАБРИКУ Париж" in text
    assert all(len(line) <= 78 for line in text.splitlines())


def test_issue30_a_help_topic_may_be_asked_in_the_seats_words() -> None:
    with speaking(Language.PL):
        assert resolve_topic("czołg").keyword is Keyword.ARMY
        assert "ARMIA <from> DO <to>" in help_text("armia")


def test_issue30_english_help_keeps_the_order_language() -> None:
    assert "  BUY <nation> <value>" in help_text(None)


def test_issue30_help_names_quotes_the_boards_names_in_the_seats_language() -> None:
    with speaking(Language.RU):
        text = " ".join(help_text("names").split())
    assert "'Сан-Франциско'" in text and "'ИМПОРТ army мос' означает Москва" in text
