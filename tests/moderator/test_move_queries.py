"""What handling one order mail asks of the database: each question once, none whose answer is known.

A move's mail goes to every seat, so a question asked per seat or per mail is
asked thousands of times a day on a busy host. These tests count the SQL
statements of one move (``process_message`` on SQLite) and check that what
was left out is still right: every mail carries its seat's current token, a
mail already queued is never queued twice.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import event

from pbem.moderator.inbound.handler import process_message
from pbem.moderator.notify.compose import MailComposer
from pbem.moderator.notify.tokens import _TOKENS
from pbem.store import Database, find_game, seats
from tests.mailflowkit import NOW, Table, config_for


@pytest.fixture
def table(tmp_path: Path) -> Table:
    t = Table(Database(f"sqlite:///{tmp_path / 'moves.db'}"), config_for())
    t.create(players=3)
    return t


@contextmanager
def statements(table: Table) -> Iterator[list[str]]:
    said: list[str] = []

    def note(conn: object, cursor: object, statement: str, *args: object) -> None:
        said.append(" ".join(statement.split()))

    event.listen(table.db.engine, "before_cursor_execute", note)
    try:
        yield said
    finally:
        event.remove(table.db.engine, "before_cursor_execute", note)


def move(table: Table, uid: int) -> str:
    player, order = table.an_order()
    raw = table.mail_from(player, order + "\n", message_id=f"<move-{uid}@example.org>")
    return process_message(table.db, table.config, raw, "INBOX", 1, uid, NOW, moderator=table.moderator).outcome


def matching(said: list[str], pattern: str) -> list[str]:
    return [s for s in said if re.search(pattern, s)]


def test_a_moves_mails_are_not_looked_for_in_the_outbox(table: Table) -> None:
    """The order mail is new, so no mail made for it can be queued yet: no search by Message-ID."""
    with statements(table) as said:
        assert move(table, 1) == "applied"
    assert matching(said, r"^INSERT INTO outbox")
    assert not matching(said, r"FROM outbox WHERE outbox\.message_id")


def test_the_same_order_mail_again_queues_nothing(table: Table) -> None:
    player, order = table.an_order()
    raw = table.mail_from(player, order + "\n", message_id="<twice@example.org>")
    assert process_message(table.db, table.config, raw, "INBOX", 1, 1, NOW, moderator=table.moderator).outcome \
        == "applied"
    queued = len(table.outbox())
    again = process_message(table.db, table.config, raw, "INBOX", 1, 2, NOW, moderator=table.moderator)
    assert again.outcome == "duplicate" and len(table.outbox()) == queued


def test_the_seats_are_read_once_per_move(table: Table) -> None:
    with statements(table) as said:
        assert move(table, 1) == "applied"
    assert len(matching(said, r"FROM seats WHERE seats\.game_id")) == 1


def test_the_other_seats_tokens_are_remembered_not_searched(table: Table) -> None:
    """After a first move, the tokens of the seats a move's mail goes to are known in this process."""
    assert move(table, 1) == "applied"
    with statements(table) as said:
        assert move(table, 2) == "applied"
    assert not matching(said, r"SELECT outbox\.id, outbox\.headers FROM outbox")
    for mail in table.outbox()[-2:]:
        assert mail.headers["reply_to"] == table.reply_to({"ann@example.org": "ann", "bob@example.org": "bob",
                                                          "cy@example.org": "cy"}[mail.recipient])


def test_a_remembered_token_that_is_no_longer_the_seats_is_not_used(table: Table) -> None:
    """The hash decides: a token this process remembers for a seat that has another now (a new token, another
    database with the same ids) is passed over, and the seat's own is found in its mail."""
    assert move(table, 1) == "applied"
    with table.db.transaction() as session:
        game = find_game(session, table.name)
        bob = next(seat for seat in seats(session, game) if seat.name == "bob")
        _TOKENS.put((game.id or 0, bob.id or 0), "0123456789abcdef0123")
        composer = MailComposer(session, table.config.require_moderator(), NOW)
        assert composer.token_for(bob) == table.token("bob")


def test_a_move_is_committed_before_its_mail_is_written_and_the_mail_all_at_once(table: Table) -> None:
    """On SQLite a transaction holds the one write lock from its first write, and the outbox's sender waits for
    it. The move's own transaction reads nothing of the seats' mail (their modes, the observers) and writes no
    mail: it notes the move to tell. Its mail is written in the next transaction
    (``pbem.moderator.notify.telling``), every seat's composed first (its mode, its token, the observers) and
    written last, the board's picture once for every mail that carries it, with the move's record deleted."""
    assert move(table, 1) == "applied"
    with statements(table) as said:
        assert move(table, 2) == "applied"
    start = next(n for n, s in enumerate(said) if "FROM inbound_messages" in s)  # the handling (not the test's)
    done = next(n for n, s in enumerate(said) if s.startswith("UPDATE mailbox_state"))  # the move's last write
    applying, telling = said[start:done + 1], said[done + 1:]
    assert matching(applying, r"^INSERT INTO moves_to_tell")
    assert not matching(applying, r"\b(seat_mail|observers|outbox)\b")
    first_write = next(n for n, s in enumerate(telling) if re.match(r"^(INSERT|UPDATE|DELETE)\b", s))
    assert matching(telling[:first_write], r"FROM seat_mail\b") and matching(telling[:first_write], r"FROM observers\b")
    assert all(s.startswith(("INSERT INTO pictures", "INSERT INTO outbox", "DELETE FROM moves_to_tell",
                             "INSERT INTO seat_mail", "UPDATE seat_mail"))  # the board each seat has now seen
               for s in telling[first_write:] if not s.startswith("SELECT moves_to_tell"))  # (the game's next? none)
    assert not matching(telling, r"FROM (games|action_log|game_settings)\b")  # what the move's process has at hand
    assert len(matching(telling, r"^INSERT INTO outbox")) == 3 and table.outbox()[-1].version == 2
    assert len(matching(telling, r"^INSERT INTO pictures")) == 1  # one picture for the three mails that carry it


def test_the_senders_seat_comes_with_its_game(table: Table) -> None:
    """Every order mail needs the seat its token names and that seat's game: one query reads both."""
    assert move(table, 1) == "applied"
    with statements(table) as said:
        assert move(table, 2) == "applied"
    assert len(matching(said, r"^SELECT seats\..* JOIN seat_tokens .* JOIN games ")) == 1
    assert not matching(said, r"^SELECT games\..* WHERE games\.id = ") and not matching(said, r"WHERE seats\.id = ")
