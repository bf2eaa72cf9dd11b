"""A reply belongs to the move it answers (pbem/moderator/inbound/binding.py): stale orders are never applied.

A re-sent mail, a mail delayed in a queue or an answer to an old prompt must not move a nation
later in the game without its player knowing. Orders answering an earlier move are applied only
when the decision they answer is still the open one; otherwise nothing changes and the player is
told what is asked now.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from pbem.games.imperial2030.orders import legal_orders
from pbem.moderator import gamemaster
from pbem.moderator.inbound.handler import process_message
from pbem.store import Database
from pbem.store.outbox import OutboxRow
from tests.mailflowkit import NOW, Table, config_for

_uids = iter(range(1, 100_000))


@pytest.fixture
def table(tmp_path: Path) -> Table:
    t = Table(Database(f"sqlite:///{tmp_path / 'mail.db'}"), config_for())
    t.create()
    return t


def process(table: Table, raw: bytes):  # type: ignore[no-untyped-def]
    return process_message(table.db, table.config, raw, "INBOX", 77, next(_uids), NOW, moderator=table.moderator)


def prompt_to(table: Table, player: str) -> OutboxRow:
    email = {"ann": "ann@example.org", "bob": "bob@example.org"}[player]
    return [row for row in table.outbox() if row.recipient == email and row.headers.get("decision")][-1]


def reply(table: Table, player: str, to: OutboxRow, body: str, *, references: bool = True) -> bytes:
    headers = f"In-Reply-To: {to.message_id}\nReferences: {to.message_id}" if references else ""
    return table.mail_from(player, body, subject=f"Re: {to.subject}", headers=headers)


def test_prompts_and_reports_say_their_move_in_the_subject(table: Table) -> None:
    assert prompt_to(table, "ann").subject == "[g1] Move 0: please choose a rondel space for Russia"


def test_a_delayed_reply_to_an_old_prompt_is_not_applied_to_a_later_decision(table: Table) -> None:
    first = prompt_to(table, "ann")
    assert process(table, reply(table, "ann", first, "RONDEL investor")).outcome == "applied"
    process(table, reply(table, "bob", prompt_to(table, "bob"), "PASS"))
    version = table.state().version
    outcome = process(table, reply(table, "ann", first, "RONDEL taxation"))  # the old mail, arriving late
    assert outcome.outcome == "stale"
    assert table.state().version == version
    (notice,) = [row for row in table.outbox() if row.purpose == "stale"]
    text = " ".join(notice.body.split())
    assert f"You answered the mail of move 0, and the game has moved on since: the game is at move {version}." in text
    assert "line 1: RONDEL taxation" in text
    assert notice.subject == f"[g1] Move {version}: your orders were not applied"


def test_a_resent_mail_with_a_new_message_id_is_not_applied_twice(table: Table) -> None:
    first = prompt_to(table, "ann")
    assert process(table, reply(table, "ann", first, "RONDEL investor")).outcome == "applied"
    process(table, reply(table, "bob", prompt_to(table, "bob"), "PASS"))
    version = table.state().version
    again = reply(table, "ann", first, "RONDEL investor", references=False)  # only the subject tells the move
    assert process(table, again).outcome == "stale"
    assert table.state().version == version


def test_a_reply_that_crossed_another_players_move_is_applied_and_says_where(table: Table) -> None:
    """bob's investment prompt is of move 1; ann donates meanwhile (move 2); bob's answer to the
    prompt of move 1 still answers the open decision: applied at move 2, and bob is told."""
    process(table, reply(table, "ann", prompt_to(table, "ann"), "RONDEL investor"))
    bobs_prompt = prompt_to(table, "bob")
    process(table, table.mail_from("ann", "DONATE 1 TO Russia"))
    assert table.state().version == 2
    outcome = process(table, reply(table, "bob", bobs_prompt, "PASS"))
    assert outcome.outcome == "applied", outcome.reason
    (note,) = [row for row in table.outbox() if "YOUR ORDERS WERE APPLIED" in row.body]  # in bob's one reply
    assert "answered the mail of move 1" in note.body and "applied at move 2" in " ".join(note.body.split())


def test_a_fresh_mail_naming_no_move_is_applied(table: Table) -> None:
    outcome = process(table, table.mail_from("ann", "RONDEL investor", subject="my orders"))
    assert outcome.outcome == "applied"


def test_a_reply_to_the_welcome_mail_is_applied(table: Table) -> None:
    """The welcome asks nothing: a reply to it answers no position (its id is in every reply)."""
    welcome = [row for row in table.outbox() if row.purpose == "welcome" and row.recipient == "ann@example.org"][0]
    assert process(table, reply(table, "ann", welcome, "RONDEL investor")).outcome == "applied"


def test_questions_are_answered_whatever_move_they_name(table: Table) -> None:
    first = prompt_to(table, "ann")
    process(table, reply(table, "ann", first, "RONDEL investor"))
    process(table, reply(table, "bob", prompt_to(table, "bob"), "PASS"))
    outcome = process(table, reply(table, "ann", first, "STATUS\nOPTIONS"))
    assert outcome.outcome == "query"


def test_a_reply_to_a_move_the_game_master_took_back_is_not_applied(table: Table) -> None:
    process(table, reply(table, "ann", prompt_to(table, "ann"), "RONDEL investor"))
    bobs_prompt = prompt_to(table, "bob")
    gamemaster.undo(table.db, "g1")
    assert process(table, reply(table, "bob", bobs_prompt, "PASS")).outcome == "stale"
    assert table.state().version == 0


def test_a_stale_reply_lists_only_its_orders_as_not_applied(table: Table) -> None:
    """Press in an old reply is relayed (it is bound to no move); the notice quotes the orders alone."""
    first = prompt_to(table, "ann")
    process(table, reply(table, "ann", first, "RONDEL investor"))
    process(table, reply(table, "bob", prompt_to(table, "bob"), "PASS"))
    late = "PRESS TO bob\nSorry, an old mail.\nEND PRESS\nRONDEL taxation"
    assert process(table, reply(table, "ann", first, late)).outcome == "stale"
    (notice,) = [row for row in table.outbox() if row.purpose == "stale"]
    text = " ".join(notice.body.split())
    assert "Not applied: line 4: RONDEL taxation." in text and "Sorry" not in text.split("YOUR ORDERS")[1]
    assert [row.recipient for row in table.outbox() if row.purpose == "press"] == ["bob@example.org"]


def test_issue30_a_late_reply_to_a_prompt_in_another_language_is_known_by_its_subject_alone(table: Table) -> None:
    """'[g1] Ход 1:' carries the move back as '[g1] Move 1:' does, even without the threading headers."""
    process(table, table.mail_from("bob", "LANGUAGE RU"))
    assert process(table, reply(table, "ann", prompt_to(table, "ann"), "RONDEL investor")).outcome == "applied"
    old = prompt_to(table, "bob")
    assert old.subject.startswith("[g1] Ход 1:"), old.subject
    order = legal_orders(table.state(), "bob")[0]
    assert process(table, reply(table, "bob", old, order, references=False)).outcome == "applied"
    assert process(table, reply(table, "bob", old, order, references=False)).outcome == "stale"
