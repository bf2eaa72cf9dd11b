"""HELP knows the moderator too: the core's own commands (MAIL, BOARD ON|OFF, PRESS, VACATION, HISTORY ALL,
TOKEN) are listed beside each game's orders, and each has a topic of its own, answered the same in every game."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pbem.moderator.inbound.handler import process_message
from pbem.store import Database
from tests.emetable import EmeTable
from tests.mailflowkit import NOW, Table, config_for

Ask = Callable[[str], str]  # a query-only mail from a seat that is not deciding: the body of the moderator's answer


@pytest.fixture(params=["imperial2030", "eight-minute-empire"])
def ask(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Ask]:
    db = Database(f"sqlite:///{tmp_path / 'help.db'}")
    if request.param == "imperial2030":
        table = Table(db, config_for())
        table.create(players=3)

        def imperial(body: str) -> str:
            before = len(table.outbox())
            outcome = process_message(db, table.config, table.mail_from("bob", body + "\n"), "INBOX", 1,
                                      before + 1, NOW, moderator=table.moderator)
            assert outcome.outcome in ("query", "preferences"), outcome
            return table.outbox()[-1].body

        yield imperial
    else:
        eme = EmeTable(db, config_for())
        eme.create()

        def eight_minute(body: str) -> str:
            before = len(eme.outbox())
            assert eme.send("bob", body) in ("query", "preferences")
            return eme.outbox()[before:][-1].body

        yield eight_minute
    db.dispose()


def test_help_lists_the_moderators_commands_after_the_games_orders(ask: Ask) -> None:
    body = ask("HELP")
    orders, _, commands = body.partition("MODERATOR COMMANDS")
    assert "STATUS" in orders  # the game's own list comes first
    for line in ("MAIL EVERY|TURN|ROUND|DAILY", "BOARD ON|OFF", "PRESS TO <player>", "VACATION UNTIL <date>",
                 "HISTORY ALL | FROM <move>", "TOKEN <token>"):
        assert line in commands


def test_help_press_explains_press_and_is_not_taken_for_pass(ask: Ask) -> None:
    body = ask("HELP press")
    assert "HELP: PRESS" in body and "END PRESS" in body and "signed with your seat's name" in body
    assert "Did you mean" not in body and "PASS" not in body


def test_help_mail_names_every_mode_and_the_lightest_choice(ask: Ask) -> None:
    body = ask("HELP MAIL")
    for mode in ("EVERY", "TURN", "ROUND", "DAILY"):
        assert f"  {mode} " in body
    assert "MAIL TURN with BOARD OFF" in body


def test_help_board_keeps_the_games_page_and_tells_the_seats_board_choice(ask: Ask) -> None:
    assert "Yours is ON now" in ask("HELP BOARD")
    ask("BOARD OFF")
    body = ask("HELP BOARD")
    assert "BOARD ON | BOARD OFF" in body and "Yours is OFF now" in body
    assert body.index("BOARD ON | BOARD OFF") > body.index("BOARD")  # after the game's own page on BOARD


def test_help_history_adds_the_whole_story_to_the_games_page(ask: Ask) -> None:
    body = ask("HELP HISTORY")
    assert "HISTORY ALL | HISTORY FROM <move>" in body and "HISTORY [n]" in body


def test_help_vacation_tells_this_games_longest_absence(ask: Ask) -> None:
    body = ask("HELP VACATION")
    assert "VACATION UNTIL <YYYY-MM-DD>" in body and "at most 14 days" in body and "deadlines" in body


def test_help_token_tells_where_the_token_is_and_to_keep_it(ask: Ask) -> None:
    body = ask("HELP TOKEN")
    assert "TOKEN <token>" in body and "reply address" in body and "Keep it to yourself" in body


@pytest.mark.parametrize("topic", ["", " MAIL", " BOARD", " PRESS", " VACATION", " HISTORY", " TOKEN"])
def test_every_help_on_the_core_is_plain_ascii_within_78_columns(ask: Ask, topic: str) -> None:
    body = ask("HELP" + topic)
    assert body.isascii()
    assert max(len(line) for line in body.splitlines()) <= 78
