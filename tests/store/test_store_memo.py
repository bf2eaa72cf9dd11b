"""A game's seat rows read once per transaction (``pbem.store.memo``): fewer queries, never a stale answer.

A move's mail asks every seat its mail mode, board and news, and its token;
those rows are read per game, once per transaction. What must hold: the
answers are those of the database as this transaction sees it, including
rows it created, and a savepoint rolled back takes its rows with it.
"""
from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from sqlalchemy import event

from pbem import store
from pbem.mail import token_address
from pbem.moderator.notify.tokens import FIRST_PAGE, TOKEN_SEARCH_DEPTH, tokens_in_outbox
from pbem.store import Database
from pbem.store.mailprefs import MailMode, keep_news, prefs_of, set_prefs, take_news
from pbem.store.outbox import QueuedMail, queue_mail
from pbem.store.tokens import issue_token, seat_for_token
from tests.emetable import EmeTable
from tests.mailflowkit import NOW, config_for


@pytest.fixture
def table(db_url: str) -> Iterator[EmeTable]:
    """A three-player game of Eight-Minute Empire, on each database."""
    t = EmeTable(Database(db_url), config_for())
    t.create()
    yield t
    t.db.dispose()


def statements(db: Database) -> list[str]:
    """Every SQL statement the database runs from now on, in order (a list that fills as they run)."""
    seen: list[str] = []
    event.listen(db.engine, "before_cursor_execute", lambda *args: seen.append(re.sub(r"\s+", " ", args[2])))
    return seen


def test_a_moves_mail_reads_the_seats_mail_choices_and_tokens_once(table: EmeTable) -> None:
    seen = statements(table.db)
    assert table.send("ann", "BID 1") == "applied"
    reads = [s for s in seen if s.startswith("SELECT")]
    assert len([s for s in reads if " FROM seat_mail " in s]) == 1
    assert len([s for s in reads if " FROM seat_tokens JOIN seats " in s]) == 1


def test_choices_made_in_the_transaction_are_the_ones_read_after(table: EmeTable) -> None:
    with table.db.transaction() as session:
        seat = store.seats(session, store.find_game(session, table.name))[0]
        assert prefs_of(session, seat, "every", True).mode is MailMode.EVERY  # read (no row yet): remembered
        set_prefs(session, seat, mode=MailMode.TURN, board=False)  # a row created after the read
        assert prefs_of(session, seat, "every", True) == prefs_of(session, seat, "turn", False)
        assert prefs_of(session, seat, "every", True).mode is MailMode.TURN
        keep_news(session, seat, 3, ["Ann bid."], NOW)
        assert take_news(session, seat) == ["Ann bid."] and take_news(session, seat) == []


def test_a_rolled_back_savepoint_takes_its_rows_out_of_the_memo(table: EmeTable) -> None:
    with table.db.transaction() as session:
        seat = store.seats(session, store.find_game(session, table.name))[1]
        assert prefs_of(session, seat, "every", True).board is True
        savepoint = session.begin_nested()
        set_prefs(session, seat, board=False)
        assert prefs_of(session, seat, "every", True).board is False
        savepoint.rollback()
        assert prefs_of(session, seat, "every", True).board is True


def test_a_token_issued_in_the_transaction_is_the_one_found(table: EmeTable) -> None:
    with table.db.transaction() as session:
        seat = store.seats(session, store.find_game(session, table.name))[2]
        first = issue_token(session, seat)
        second = issue_token(session, seat)  # replaces the first, in the same row
        assert seat_for_token(session, second) == seat and seat_for_token(session, first) is None


def test_a_seats_token_is_found_past_the_first_page_of_its_mail(table: EmeTable) -> None:
    """The token search reads the newest two mails first, then pages of 50: a token further back is found."""
    moderator = table.config.require_moderator().address
    with table.db.transaction() as session:
        game = store.find_game(session, table.name)
        seat = store.seats(session, game)[0]
        game_id = int(game.id or 0)

        def mail(n: int, token: str | None) -> None:
            headers = {"reply_to": token_address(moderator, token)} if token else {}
            queue_mail(session, QueuedMail(recipient=seat.email, purpose="report", message_id=f"<page-{n}@g.test>",
                                           subject="s", body="b", game_id=game_id, headers=headers))

        mail(0, "oldest0token")
        for n in range(1, FIRST_PAGE + TOKEN_SEARCH_DEPTH + 1):  # newer mails without a token
            mail(n, None)
        session.flush()
        found = list(tokens_in_outbox(session, game_id, seat.email, moderator))
    assert found[0] == "oldest0token"  # the newest mail that carries a token, 52 mails back
