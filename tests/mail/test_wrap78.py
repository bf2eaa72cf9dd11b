"""Every plain-text part the moderator sends is at most 78 columns wide, its words unchanged.

The replies built from sentences ("no token", "another address", "game paused", "too big", the
error reply quoting a long line) were single lines of 110 to 186 characters; reports, prompts and
the game master's mails are tested for their width in tests/games/imperial2030/test_render.py and
tests/moderator/test_gamemaster.py, and pass through the same wrapping here.
"""
from __future__ import annotations

from email import message_from_bytes
from pathlib import Path

import pytest

from pbem.daemon.sender import outgoing_mail
from pbem.mail import build_message
from pbem.mail.wrap import wrap_text
from pbem.moderator import gamemaster
from pbem.moderator.inbound.handler import process_message
from pbem.store import Database
from tests.mailflowkit import NOW, Table, config_for, raw_mail

WIDTH = 78


def text_part(raw: bytes) -> str:
    message = message_from_bytes(raw)
    payload = message.get_payload(decode=True)
    assert isinstance(payload, bytes)
    return payload.decode("utf-8")


def test_a_long_sentence_is_broken_at_spaces_and_keeps_every_word() -> None:
    line = "Your message " + "carried no reply token, so it could not be matched to a game and a seat. " * 3
    wrapped = wrap_text(line)
    assert all(len(part) <= WIDTH for part in wrapped.split("\n"))
    assert wrapped.split() == line.split()


@pytest.mark.parametrize("line, continuation", [
    ("  - " + "a list item that goes on " * 5, "    "),
    ("> " + "a quoted line that goes on " * 5, "> "),
    ("12. " + "a numbered item that goes on " * 5, "    "),
])
def test_continuations_keep_the_indentation_quote_and_list_marker(line: str, continuation: str) -> None:
    first, *rest = wrap_text(line).split("\n")
    assert rest and all(part.startswith(continuation) for part in rest)
    assert all(len(part) <= WIDTH for part in [first, *rest]) and first == line[:len(first)]


def test_short_lines_and_a_word_longer_than_the_width_stay_as_they_are() -> None:
    board = "+" + "-" * 76 + "+\n|  Moscow  |\n"
    assert wrap_text(board) == board
    address = "pbem+" + "t" * 90 + "@games.test"
    assert wrap_text(f"Reply to {address} now") == f"Reply to\n{address}\nnow"


@pytest.fixture
def table(tmp_path: Path) -> Table:
    t = Table(Database(f"sqlite:///{tmp_path / 'mail.db'}"), config_for(limits={"max_message_bytes": 4000}))
    t.create()
    return t


@pytest.mark.slow
def test_every_reply_of_the_mail_flow_is_at_most_78_columns(table: Table) -> None:
    """No token, unknown token, another address, too big, an error quoting a long line, questions,
    a paused game: each reply, built as it is sent, has no line over 78 columns."""
    sent = [
        raw_mail("stranger@example.net", "pbem@games.test", "RONDEL taxation"),
        raw_mail("other@example.com", "pbem+nosuchtoken@games.test", "RONDEL taxation"),
        raw_mail("mallory@example.net", table.reply_to("ann"), "RONDEL taxation"),
        table.mail_from("ann", "RONDEL taxation\n" + "x" * 5000),
        table.mail_from("ann", "RONDEL " + "somewhere far away beyond the seas and the mountains " * 3),
        table.mail_from("ann", "STATUS\nOPTIONS\nHELP"),
    ]
    for uid, raw in enumerate(sent, start=1):
        process_message(table.db, table.config, raw, "INBOX", 77, uid, NOW, moderator=table.moderator)
    gamemaster.pause(table.db, "g1")
    process_message(table.db, table.config, table.mail_from("bob", "PASS"), "INBOX", 77, 99, NOW,
                    moderator=table.moderator)
    rows = table.outbox()
    purposes = {row.purpose for row in rows}
    assert {"no_token", "unknown_token", "spoofed", "oversize", "error", "query", "paused"} <= purposes, purposes
    for row in rows:
        text = text_part(build_message(outgoing_mail(row, table.config.moderator)).as_bytes())
        too_wide = [line for line in text.splitlines() if len(line) > WIDTH]
        assert too_wide == [], (row.purpose, too_wide)
        assert text.split() == row.body.split(), row.purpose  # the same words, only the line breaks differ
