"""Replying to a press mail, through the mail flow (``process_message``): the reply is press to its writer.

A player who hits Reply on a press mail writes a letter back, not orders: the
moderator relays it to the seat that wrote the press (never naming the writer
of anonymous press), confirms "sent as press to ...", and reads orders only
below an ``END PRESS`` line. Only the seat the press mail went to may answer
it so (its token, from its address), and a reply sent twice reaches the writer
once.
"""
from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from pbem.moderator.gamemaster import set_game
from pbem.moderator.inbound.handler import process_message
from pbem.store import Database
from pbem.store.outbox import OutboxRow
from tests.emetable import EMAIL, PressTable
from tests.mailflowkit import NOW, config_for, raw_mail

QUOTED = "\n\nOn Mon, 3 Jun 2030 at 12:00, moderator <pbem@games.test> wrote:\n> Press from ann\n> Shall we?\n"


@pytest.fixture
def table(db_url: str) -> Iterator[PressTable]:
    t = PressTable(Database(db_url), config_for())
    t.create()
    yield t
    t.db.dispose()


def pressed(table: PressTable, player: str, text: str) -> OutboxRow:
    """The press mail ``player`` gets when ann writes ``text`` to them."""
    before = len(table.outbox())
    table.send("ann", f"PRESS TO {player}\n{text}")
    (row,) = table.press_to(player, before)
    return row


def answer(table: PressTable, player: str, to: OutboxRow, body: str, *, sender: str | None = None,
           message_id: str | None = None) -> str:
    """``player`` hits Reply on ``to``: its threading, its subject, their token address."""
    table.uid += 1
    references = " ".join([*to.headers["references"], to.message_id])
    raw = raw_mail(sender or EMAIL[player], table.reply_to(player), body, subject=f"Re: {to.subject}",
                   message_id=message_id, headers=f"In-Reply-To: {to.message_id}\nReferences: {references}")
    return process_message(table.db, table.config, raw, "INBOX", 1, table.uid, NOW, moderator=table.moderator).outcome


def words(row: OutboxRow) -> str:
    return " ".join(row.body.split())


def test_a_reply_to_a_press_mail_is_press_to_its_writer(table: PressTable) -> None:
    """Even after the game moved on: the reply is bound to no move, and nothing of it is read as orders."""
    press = pressed(table, "bob", "Shall we share the west?")
    assert "To answer ann, reply to this mail" in words(press)
    for player, coins in (("ann", 1), ("bob", 2), ("cy", 0)):
        assert table.send(player, f"BID {coins}") == "applied"
    before = len(table.outbox())
    assert answer(table, "bob", press, "Deal: the west is yours.\nBob" + QUOTED) == "query"
    (relayed,) = table.press_to("ann", before)
    assert relayed.body.startswith("Press from bob\n") and "Deal: the west is yours.\nBob\n" in relayed.body
    assert "Shall we" not in relayed.body and EMAIL["bob"] not in relayed.body
    (confirmation,) = table.to("bob", before)
    assert confirmation.purpose != "stale" and "not applied" not in words(confirmation)
    assert "your reply to the press from ann: sent as press to ann, signed with your name" in words(confirmation)
    assert "Sent as press (lines 1-2):\n      Deal: the west is yours.\n      Bob\n" in confirmation.body
    assert table.press_to("cy", before) == []


def test_a_reply_to_a_press_mail_applies_the_orders_below_end_press(table: PressTable) -> None:
    press = pressed(table, "bob", "What will you bid?")
    before = len(table.outbox())
    assert answer(table, "bob", press, "Two, I think.\nEND PRESS\nBID 2") == "applied"
    assert table.eme().bids["bob"] == 2
    (relayed,) = table.press_to("ann", before)
    assert "Two, I think.\n" in relayed.body and "BID" not in relayed.body
    (confirmation,) = table.to("bob", before)
    assert "sent as press to ann" in words(confirmation) and "Your bid of 2 is recorded" in confirmation.body
    before = len(table.outbox())
    assert answer(table, "bob", press, "PRESS TO cy\nann asks what we bid.") == "query"  # a PRESS TO line rules
    assert table.press_to("ann", before) == [] and len(table.press_to("cy", before)) == 1


def test_a_forged_reply_writes_no_press_in_anyones_name(table: PressTable) -> None:
    """Only the seat the press mail went to may answer it as press: from its own address, with its token."""
    before = len(table.outbox())
    table.send("ann", "PRESS TO bob, cy\nShall we?")
    (to_bob,) = table.press_to("bob", before)
    assert answer(table, "bob", to_bob, "Yes, signed bob.", sender="mallory@evil.example") == "spoofed"
    assert answer(table, "cy", to_bob, "No, signed bob.") != "query"  # cy answers the mail bob got
    assert table.press_to("ann", before) == []
    assert answer(table, "bob", to_bob, "Yes.") == "query"
    (relayed,) = table.press_to("ann", before)
    assert relayed.body.startswith("Press from bob\n") and "Yes." in relayed.body and "signed" not in relayed.body


def test_a_reply_sent_again_reaches_the_writer_once(table: PressTable) -> None:
    press = pressed(table, "bob", "Shall we?")
    before = len(table.outbox())
    assert answer(table, "bob", press, "Yes.", message_id="<once@clients.example>") == "query"
    assert answer(table, "bob", press, "Yes.", message_id="<once@clients.example>") == "duplicate"
    assert answer(table, "bob", press, "Yes.", message_id="<again@clients.example>") == "query"  # a new id
    assert len(table.press_to("ann", before)) == 1
    assert "already sent as press to ann" in words(table.to("bob", before)[-1])
    assert answer(table, "bob", press, "Yes, and the north too.") == "query"  # another text is another letter
    assert len(table.press_to("ann", before)) == 2


def test_a_reply_to_anonymous_press_reaches_its_writer_and_names_nobody(table: PressTable) -> None:
    set_game(table.db, table.name, ["press=anonymous"])
    press = pressed(table, "bob", "Beware of the green armies.")
    assert not re.search(r"\bann\b", press.body) and "reply to this mail" in words(press)
    before = len(table.outbox())
    assert answer(table, "bob", press, "Who are you?") == "query"
    (relayed,) = table.press_to("ann", before)
    assert relayed.body.startswith("Anonymous press\n") and "Who are you?" in relayed.body
    assert not re.search(r"\bbob\b", relayed.body) and EMAIL["bob"] not in relayed.body
    (confirmation,) = table.to("bob", before)
    assert "sent as press to the writer of that press, whose name stays hidden" in words(confirmation)
    assert not re.search(r"\bann\b", confirmation.body) and table.colour("ann") not in confirmation.body
    assert table.press_to("cy", before) == []


def test_a_reply_to_a_press_mail_that_names_no_writer_says_how_to_write_press(table: PressTable) -> None:
    """A press mail queued before replies were relayed does not say who wrote it: the reply is not relayed,
    not read as orders, and the answer tells how to write press."""
    press = pressed(table, "bob", "Shall we?")
    with table.db.transaction() as session:
        row = session.get(OutboxRow, press.id)
        assert row is not None
        row.headers = {key: value for key, value in row.headers.items() if not key.startswith("press")}
    before = len(table.outbox())
    assert answer(table, "bob", press, "Yes.\nBID 4") == "query"
    assert table.press_to("ann", before) == [] and table.eme().bids == {}
    (confirmation,) = table.to("bob", before)
    assert "not relayed" in words(confirmation) and "write PRESS TO and a player" in words(confirmation)
