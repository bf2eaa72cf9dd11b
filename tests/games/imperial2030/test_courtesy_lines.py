"""Greetings, thanks and names around the orders are set aside quietly, not refused.

People sign off without the ``-- `` of a signature: "Thanks, Alice". Such text after the orders,
separated from them (a blank line, a closing word, a name), ends the orders; a line that starts
like an order is still refused, with its "did you mean".
"""
from __future__ import annotations

from pathlib import Path

import pytest

from pbem.games.imperial2030.orders import MessageLine, apply_message, split_orders
from pbem.moderator.inbound.handler import process_message
from pbem.store import Database
from tests.helpers import turn_of
from tests.imperialpositions import three_players
from tests.mailflowkit import NOW, Table, config_for


def test_thanks_and_a_name_after_a_blank_line_end_the_orders() -> None:
    split = split_orders("RONDEL taxation\n\nThanks, Alice")
    assert split.orders == (MessageLine(1, "RONDEL taxation"),)
    assert split.ignored == (MessageLine(3, "Thanks, Alice"),)


def test_a_closing_word_right_after_the_orders_ends_them() -> None:
    split = split_orders("RONDEL taxation\nThanks, Alice\n")
    assert split.orders == (MessageLine(1, "RONDEL taxation"),)
    assert split.ignored == (MessageLine(2, "Thanks, Alice"),)


def test_a_name_alone_after_a_blank_line_is_a_sign_off() -> None:
    split = split_orders("RONDEL taxation\n\nAlice\n")
    assert split.orders == (MessageLine(1, "RONDEL taxation"),)
    assert split.ignored == (MessageLine(3, "Alice"),)


def test_a_greeting_before_the_orders_is_set_aside() -> None:
    split = split_orders("Hi all,\n\nRONDEL taxation\n\nCheers")
    assert split.orders == (MessageLine(3, "RONDEL taxation"),)
    assert [line.text for line in split.ignored] == ["Hi all,", "Cheers"]


def test_html_cheers_br_alice_after_the_orders_is_set_aside() -> None:
    """HTML left in a plain-text body: ``<br>`` breaks the line like a new line."""
    split = split_orders("RONDEL taxation<br><br>Cheers,<br>Alice")
    assert split.orders == (MessageLine(1, "RONDEL taxation"),)
    assert [line.text for line in split.ignored] == ["Cheers,", "Alice"]


def test_a_real_order_after_a_blank_line_is_still_applied() -> None:
    split = split_orders("RONDEL import\n\nIMPORT army Moscow\n\nThanks")
    assert [line.text for line in split.orders] == ["RONDEL import", "IMPORT army Moscow"]


def test_a_misspelt_order_after_a_blank_line_is_still_refused() -> None:
    """"RONDLE import" starts like an order (did you mean RONDEL): it is read, so it is refused."""
    split = split_orders("RONDEL taxation\n\nRONDLE import")
    assert [line.text for line in split.orders] == ["RONDEL taxation", "RONDLE import"]


def test_chatter_followed_by_more_orders_is_refused_not_skipped() -> None:
    """Text between orders is not courtesy: the player is told, rather than orders being lost."""
    split = split_orders("RONDEL investor\n\nI think so\nBUY China 9")
    assert [line.text for line in split.orders] == ["RONDEL investor", "I think so", "BUY China 9"]


def test_the_rest_of_an_order_broken_by_a_phone_is_not_taken_for_a_name() -> None:
    split = split_orders("ARMY Paris TO\nMumbai HOSTILE")
    assert [line.text for line in split.orders] == ["ARMY Paris TO", "Mumbai HOSTILE"]


def test_build_kolkatta_please_still_finds_kolkata() -> None:
    """A line that starts like an order is refused, "please" and thanks after it notwithstanding."""
    state = apply_message(turn_of(three_players(), "india"), "cat", "RONDEL factory").state
    result = apply_message(state, "cat", "Build Kolkatta please\n\nThanks, Cat")
    assert result.error is not None and result.error.line_number == 1
    assert result.error.suggestions == ("Kolkata",)
    assert result.ignored == (MessageLine(3, "Thanks, Cat"),)


@pytest.mark.parametrize("text, order", [("PASS, thanks", "PASS"), ("STATUS please", "STATUS"),
                                         ("RONDEL taxation, please!", "RONDEL taxation")])
def test_please_and_thanks_at_the_end_of_an_order_are_not_words_of_it(text: str, order: str) -> None:
    assert split_orders(text).orders == (MessageLine(1, order),)


def test_thanks_alone_is_answered_as_a_message_without_orders() -> None:
    state = three_players()
    result = apply_message(state, "ann", "Thanks")
    assert not result.applied and result.ignored == (MessageLine(1, "Thanks"),)


@pytest.fixture
def table(tmp_path: Path) -> Table:
    t = Table(Database(f"sqlite:///{tmp_path / 'mail.db'}"), config_for())
    t.create()
    return t


@pytest.mark.parametrize("body, content_type", [
    ("RONDEL taxation\n\nThanks, Alice\n", "text/plain; charset=utf-8"),
    ("<html><body><p>RONDEL taxation</p><p>Cheers,<br>Alice</p></body></html>", "text/html; charset=utf-8"),
])
def test_by_mail_orders_with_thanks_are_applied_and_no_error_is_mailed(table: Table, body: str,
                                                                       content_type: str) -> None:
    before = len(table.outbox())
    raw = table.mail_from("ann", body, content_type=content_type)
    outcome = process_message(table.db, table.config, raw, "INBOX", 77, 1, NOW, moderator=table.moderator)
    assert outcome.outcome == "applied", outcome.reason
    assert table.log_length() == 1
    assert not [row for row in table.outbox()[before:] if row.purpose == "error"]



@pytest.mark.parametrize(("text", "orders"), [
    ("Привет!\nRONDEL taxation\nКОНЕЦ\nPASS", ("RONDEL taxation",)),
    ("Cześć,\nRONDEL taxation proszę\n\nPozdrawiam, Ania", ("RONDEL taxation",)),
    ("Hola\nRONDEL taxation, gracias\nfin\nPASS", ("RONDEL taxation",)),
    ("Ciao\nRONDEL taxation per favore\nFINE\nPASS", ("RONDEL taxation",)),
    ("СТАТУС?", ("СТАТУС",)),
])
def test_issue30_greetings_courtesy_and_end_in_the_players_language(text: str, orders: tuple[str, ...]) -> None:
    """The words around orders in Russian, Polish, Spanish and Italian are read as the English ones."""
    assert tuple(line.text for line in split_orders(text).orders) == orders
