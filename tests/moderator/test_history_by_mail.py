"""HISTORY ALL and HISTORY FROM <move> by mail: the whole story as the reader may read it (R8-BID-1 for sealed
bids), for any game, answered in the one reply to the mail."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine.eight_minute_empire.randomplay import random_move
from pbem.daemon.sender import outgoing_mail
from pbem.games import kind_of
from pbem.mail import build_message
from pbem.store import Database
from tests.emetable import EMAIL, EmeTable
from tests.mailflowkit import config_for


@pytest.fixture
def table(db_url: str) -> Iterator[EmeTable]:
    t = EmeTable(Database(db_url), config_for())
    t.create()
    yield t
    t.db.dispose()


def answer(table: EmeTable, player: str, text: str) -> str:
    table.send(player, text)
    return " ".join([row for row in table.outbox() if row.recipient == EMAIL[player]][-1].body.split())


@pytest.mark.slow
def test_history_all_during_the_bid_shows_only_the_readers_own_bid_unnumbered(table: EmeTable) -> None:
    table.send("bob", "BID 4")
    assert "HISTORY of the whole game nothing yet" in answer(table, "ann", "HISTORY ALL")
    told = answer(table, "bob", "HISTORY ALL")
    assert "now (the round is still open): - Your bid of 4 is recorded" in told and "move 1:" not in told


@pytest.mark.slow
def test_history_from_a_move_numbers_the_moves_as_the_mails_do(table: EmeTable) -> None:
    for player, coins in (("ann", 2), ("bob", 1), ("cy", 0)):
        table.send(player, f"BID {coins}")
    table.send("ann", "TAKE 1\nDONE")
    everything = answer(table, "cy", "HISTORY ALL")
    assert "move 3: - Your bid of 0 is recorded" in everything  # the last bid: cy's own, and the reveal
    assert "- All bids are in: ann 2, bob 1, you 0." in everything and "BID 2" not in everything
    assert "move 4: - ann took #" in everything
    later = answer(table, "cy", "history from 4")
    assert "move 3:" not in later and "move 4: - ann took #" in later


@pytest.mark.slow
def test_a_long_history_is_attached_to_the_one_reply_as_a_text_file(table: EmeTable) -> None:
    """HISTORY ALL of a long game is too long for the mail's text: the reply carries it as an attachment."""
    import random

    kind, rng = kind_of("eight-minute-empire"), random.Random(2)
    while table.eme().version < 70:
        state = table.eme()
        player, action = random_move(kind.board, state, rng)  # type: ignore[attr-defined]
        table.send(player, kind.format_action(state, action))
    before = len(table.outbox())
    table.send("cy", "HISTORY ALL")
    (reply,) = table.outbox()[before:]
    assert "attached to this mail as g1-history.txt" in " ".join(reply.body.split())
    message = build_message(outgoing_mail(reply))
    (attached,) = list(message.iter_attachments())
    assert attached.get_filename() == "g1-history.txt" and message.get_content_type() == "multipart/mixed"
    text = attached.get_content()
    assert text.startswith("HISTORY of the whole game") and "move 4:" in text and "move 70:" in text
