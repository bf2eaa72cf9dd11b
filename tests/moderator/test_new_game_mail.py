"""A new game's mail mode (issue 29, "a tenth of the bytes at the defaults"): a seat gets ``MAIL TURN`` unless
the game master chose another, and its welcome says which mail it will get and how to change it."""
from __future__ import annotations

from pathlib import Path

import pytest

from pbem.store import Database, find_game
from pbem.store.mailprefs import NEW_GAME_MAIL, MailMode
from pbem.store.settings import load_settings
from tests.emetable import EmeTable
from tests.mailflowkit import Table, config_for


def new_table(tmp_path: Path, kind: str, mail: MailMode = NEW_GAME_MAIL) -> EmeTable:
    table = EmeTable(Database(f"sqlite:///{tmp_path / 'game.db'}"), config_for())
    if kind == "imperial2030":
        Table.create(table, players=2, mail=mail)
    else:
        table.create(players=3, mail=mail)
    return table


def welcome_of(table: EmeTable, recipient: str) -> str:
    return next(row.body for row in table.outbox() if row.purpose == "welcome" and row.recipient == recipient)


def test_a_new_game_mails_a_seat_when_it_must_decide() -> None:
    assert NEW_GAME_MAIL is MailMode.TURN


@pytest.mark.parametrize("kind", ["imperial2030", "eight-minute-empire"])
def test_the_welcome_tells_the_seat_its_mail_and_how_to_change_it(tmp_path: Path, kind: str) -> None:
    table = new_table(tmp_path, kind)
    with table.db.transaction() as session:
        assert load_settings(session, find_game(session, table.name)).mail_default == "turn"
    text = " ".join(welcome_of(table, "ann@example.org").split())
    assert "You get a mail when a decision is yours" in text
    assert "MAIL EVERY sends a report after every move instead" in text
    assert "HELP MAIL tells more" in text
    assert "a report after each move" not in text  # what the welcome said whatever the mode
    table.db.dispose()


@pytest.mark.parametrize("kind", ["imperial2030", "eight-minute-empire"])
def test_a_game_master_who_chooses_every_gets_seats_told_so(tmp_path: Path, kind: str) -> None:
    table = new_table(tmp_path, kind, MailMode.EVERY)
    text = " ".join(welcome_of(table, "bob@example.org").split())
    assert "You get a report after every move" in text and "MAIL TURN sends a mail only when" in text
    table.db.dispose()
