"""A program that plays by mail sorts our mail by its headers, whatever the game and the language of its text
(issue 28: the bots' mail loop reads no game's words): ``X-PBEM-Mail`` says what a mail is, ``X-PBEM-Move``
which move of its game it is about, ``X-PBEM-Decision`` what it asks."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.bots.mailio import ReadMail, read_mail
from pbem.daemon.sender import outgoing_mail
from pbem.mail import build_message
from pbem.store import Database
from pbem.store.outbox import OutboxRow
from tests.emetable import EMAIL, EmeTable
from tests.mailflowkit import config_for


@pytest.fixture
def table(tmp_path: Path) -> Iterator[EmeTable]:
    t = EmeTable(Database(f"sqlite:///{tmp_path / 'headers.db'}"), config_for())
    t.create()
    yield t
    t.db.dispose()


def as_read(row: OutboxRow) -> ReadMail:
    return read_mail(build_message(outgoing_mail(row)).as_bytes())


def test_a_prompt_says_it_asks_which_move_it_is_about_and_what_it_is(table: EmeTable) -> None:
    prompt = next(row for row in table.to("ann") if row.headers.get("decision"))
    read = as_read(prompt)
    assert (read.purpose, read.move, read.decision) == (prompt.purpose, prompt.version, "bid")
    assert read.asks


def test_a_refusal_after_which_nothing_stood_is_about_the_move_it_answered(table: EmeTable) -> None:
    asked = as_read(next(row for row in table.to("ann") if row.headers.get("decision")))
    start = len(table.outbox())
    table.send("ann", "BID 99")
    [refusal] = [as_read(row) for row in table.to("ann", start)]
    assert refusal.purpose == "error" and refusal.move == asked.move


def test_a_mail_of_no_game_carries_no_move(table: EmeTable) -> None:
    start = len(table.outbox())
    table.send("ann", "HELP MAIL")  # a help page: of the game, but no move is played
    read = [as_read(row) for row in table.outbox()[start:]]
    assert read and all(r.purpose for r in read)
    stranger = OutboxRow(recipient="who@example.org", subject="Re: hello", body="Who are you?\n",
                         message_id="<pbem.pbem.0.x@games.test>", purpose="stranger", headers={"from": EMAIL["ann"]})
    assert as_read(stranger).move is None and as_read(stranger).purpose == "stranger"
