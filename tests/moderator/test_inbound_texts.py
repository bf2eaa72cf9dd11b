"""Every text the moderator's inbound core writes to a player, pinned byte for byte (tests/golden/inbound_texts.txt).

The inbound core's words live in templates (templates/core, issue 28); this
walk through one game by mail makes each of them once (refusals of a mail,
preferences, vacation, press, history, stale and late orders, a paused and a
finished game) and holds every mail's subject and body to the golden file,
so that moving a sentence into a template, or editing a template, cannot
change a byte unnoticed. After a deliberate change, regenerate with
``PBEM_REGEN_GOLDEN=1`` and read the diff.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from pbem.moderator import gamemaster
from pbem.moderator.gamemaster import set_game
from pbem.moderator.inbound import press, seatreplies
from pbem.moderator.inbound.binding import Binding, Verdict
from pbem.moderator.inbound.handler import process_message
from pbem.moderator.inbound.press import Origin, Press, Problem, Refusal, Told
from pbem.moderator.inbound.seatreplies import SeatReplies
from pbem.moderator.inbound.words import said
from pbem.store import Database, GameStatus, find_game
from pbem.store.outbox import OutboxRow
from tests.emetable import EMAIL, PressTable
from tests.mailflowkit import NOW, config_for, raw_mail

GOLDEN = Path(__file__).parent.parent / "golden" / "inbound_texts.txt"
STRANGER = "zed@elsewhere.example"
LIMITS = {"replies_per_sender_per_hour": 1000, "replies_per_sender_per_day": 1000}


@pytest.fixture
def table(tmp_path: Path) -> Iterator[PressTable]:
    t = PressTable(Database(f"sqlite:///{tmp_path / 'texts.db'}"), config_for(limits=LIMITS))
    t.create()
    yield t
    t.db.dispose()


class Walk:
    """The steps of the walk and the mail each made, as text for the golden file."""

    def __init__(self, table: PressTable) -> None:
        self.table = table
        self.seen = len(table.outbox())
        self.out: list[str] = []

    def raw(self, title: str, raw: bytes, *, config_changes: dict[str, int] | None = None) -> None:
        table = self.table
        table.uid += 1
        config = config_for(limits={**LIMITS, **config_changes}) if config_changes else table.config
        outcome = process_message(table.db, config, raw, "INBOX", 1, table.uid, NOW, moderator=table.moderator)
        self.note(title, f"{outcome.outcome}: {outcome.reason}")

    def send(self, title: str, player: str, body: str, **kwargs: str) -> None:
        self.raw(title, self.table.mail_from(player, body, **kwargs))

    def note(self, title: str, outcome: str) -> None:
        rows = self.table.outbox()
        self.out.append(f"=== {title}\n{outcome}\n")
        for row in rows[self.seen:]:
            self.out.append(self.mail(row))
        self.seen = len(rows)

    @staticmethod
    def mail(row: OutboxRow) -> str:
        attached = row.headers.get("attachment")
        tail = f"--- attached {attached['filename']}\n{attached['text']}" if attached else ""
        return f"--- to {row.recipient} ({row.purpose}): {row.subject}\n{row.body}{tail}"

    def last(self, player: str, purpose: str) -> OutboxRow:
        return [row for row in self.table.to(player) if row.purpose == purpose][-1]


def walk(table: PressTable, monkeypatch: pytest.MonkeyPatch) -> str:
    w = Walk(table)
    w.raw("no token", raw_mail(STRANGER, "pbem@games.test", "BID 1", subject="Orders for Ann\u00e9e"))
    w.raw("unknown token", raw_mail("yve@elsewhere.example", "pbem+nosuchtoken@games.test", "BID 1"))
    w.raw("too big, a stranger", raw_mail("xia@elsewhere.example", "pbem@games.test", "x" * 3000,
                                             message_id="<big-1@clients.example>"),
          config_changes={"max_message_bytes": 2000})
    w.raw("too big, a seat", table.mail_from("ann", "BID 1\n" + "y" * 3_000_000, subject="my orders",
                                                      message_id="<big-2@clients.example>"),
          config_changes={"max_message_bytes": 2_000_000})
    w.raw("another address", raw_mail(STRANGER, table.reply_to("ann"), "BID 1", subject="bids"))
    w.send("mail turn", "ann", "MAIL TURN")
    w.send("mail and board", "ann", "MAIL ROUND\nBOARD OFF")
    w.send("mail daily, board on", "ann", "MAIL DAILY\nBOARD ON")
    w.send("mail every", "ann", "MAIL EVERY")
    w.send("mail weekly", "ann", "BID 1\nMAIL WEEKLY")
    w.send("board maybe", "ann", "BOARD MAYBE")
    w.send("vacation soon", "ann", "VACATION SOON")
    w.send("vacation past", "ann", "VACATION UNTIL 2001-01-01")
    w.send("vacation too long", "ann", "VACATION UNTIL 2099-01-01 12:00")
    w.send("vacation a day", "ann", f"VACATION UNTIL {(NOW + timedelta(days=3)):%Y-%m-%d}")
    w.send("vacation off", "ann", "VACATION OFF")
    w.send("history before a move", "ann", "HISTORY ALL")
    w.send("press to bob", "ann", "PRESS TO bob\nShall we share the west?\nEND PRESS")
    w.send("press to two, one line", "ann", "PRESS TO bob, cy: Hello both.\nSTATUS")
    w.send("press to all", "ann", "PRESS TO ALL\n" + "\n".join(f"line {n}" for n in range(1, 16)))
    w.send("press by colour", "cy", f"PRESS TO {table.colour('bob')}\nHi.")
    w.send("press to nobody", "ann", "PRESS TO zed\nHi.")
    w.send("press to oneself", "ann", "PRESS TO ann\nHi.")
    w.send("press without names", "ann", "PRESS\nHi.")
    w.send("press without text", "ann", "PRESS TO bob\n")
    w.send("press too long", "ann", "PRESS TO bob\n" + "z" * 9000)
    w.send("press with a long line", "ann", "PRESS TO bob, cy and dan and a player with a very long name\nHi.")
    monkeypatch.setattr(press, "PER_HOUR", 0)
    w.send("press beyond the budget", "ann", "PRESS TO bob\nHi.")
    monkeypatch.undo()
    letter = w.last("bob", "press")
    answer = (f"Re: {letter.subject}", f"In-Reply-To: {letter.message_id}\nReferences: {letter.message_id}")
    w.send("a reply to press", "bob", "Yes.\nBob", subject=answer[0], headers=answer[1])
    w.send("the same reply again", "bob", "Yes.\nBob", subject=answer[0], headers=answer[1])
    w.send("an empty reply to press", "bob", "> quoted only", subject=answer[0], headers=answer[1])
    with table.db.transaction() as session:  # a press mail of an older moderator: its writer not kept
        row = session.get(OutboxRow, letter.id)
        assert row is not None
        row.headers = {key: value for key, value in row.headers.items() if key != press.WRITER}
    w.send("a reply to press of unknown writer", "bob", "Yes?", subject=answer[0], headers=answer[1])
    for player, coins in (("ann", 1), ("bob", 2)):
        w.send(f"{player} bids", player, f"BID {coins}")
    old = [row for row in table.to("cy") if row.subject.startswith("[g1] Move 0")][-1]
    w.send("cy answers move 0 late", "cy", "BID 0", subject=f"Re: {old.subject}")
    w.send("ann answers move 0 again", "ann", "BID 2", subject=f"Re: {old.subject}")
    w.send("ann answers a move to come", "ann", "TAKE 1", subject="Re: [g1] Move 99: news")
    w.send("history all", "bob", "HISTORY ALL")
    w.send("history from 2", "bob", "HISTORY FROM 2")
    monkeypatch.setattr(seatreplies, "HISTORY_INLINE_LINES", 1)
    w.send("history attached", "bob", "HISTORY ALL")
    w.send("history from attached", "bob", "HISTORY FROM 1")
    monkeypatch.undo()
    set_game(table.db, table.name, ["vacation=bot", "press=anonymous"])
    w.send("vacation with a stand-in", "cy", "VACATION UNTIL 2030-06-05 18:00")
    w.send("anonymous press", "cy", "PRESS TO ann\nGuess who.")
    letter = w.last("ann", "press")
    w.send("a reply to anonymous press", "ann", "Who are you?",
           subject=f"Re: {letter.subject}", headers=f"In-Reply-To: {letter.message_id}")
    set_game(table.db, table.name, ["press=none"])
    w.send("press off", "cy", "PRESS TO ann\nHello?")
    gamemaster.pause(table.db, table.name, now=NOW)
    w.seen = len(table.outbox())
    w.send("paused", "ann", "TAKE 1")
    with table.db.transaction() as session:
        find_game(session, table.name).status = GameStatus.FINISHED
    w.send("finished", "ann", "TAKE 1")
    return "".join(w.out)


def test_orders_applied_at_a_later_move_are_told_so() -> None:
    """Not met in the walk (its bidding round keeps one move for everyone): the note on its own."""
    told = SeatReplies.applied_late(SeatReplies(), Binding(4, Verdict.SAME_DECISION), 6)
    assert told == ("YOUR ORDERS WERE APPLIED\n------------------------\n  Your orders answered the mail of move 4. "
                    "Only other players moved since, and\n  the decision you answered was still open, so they were "
                    "applied at move 6;\n  the report tells what they did.\n\n")


def test_the_inbound_texts_are_as_pinned(table: PressTable, monkeypatch: pytest.MonkeyPatch) -> None:
    text = walk(table, monkeypatch)
    if os.environ.get("PBEM_REGEN_GOLDEN") == "1":
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")
    assert EMAIL["ann"] in text


def told(*items: Told, signed: bool = True) -> str:
    return said(press.TOLD, items=list(items), signed=signed, game="g1", max_bytes=press.MAX_BYTES,
                per_hour=press.PER_HOUR, per_day=press.PER_DAY, shown_lines=press.SHOWN_LINES)


def test_press_refusals_the_walk_does_not_meet() -> None:
    """PRESS TO ALL with nobody else, a reply whose writer left, three recipients, a text with blank lines."""
    alone = Press(1, "PRESS TO ALL", ("ALL",), "hi", span=(2, 2))
    gone = Press(1, "", (), "hi", span=(1, 1), reply=Origin("<p@games.test>", 7, False))
    spaced = Press(3, "PRESS TO ALL", ("ALL",), "Ann\u00e9e\n\n\nend", span=(4, 7))
    assert told(Told(alone, None, refusal=Refusal(Problem.NO_OTHER)),
                Told(gone, None, refusal=Refusal(Problem.WRITER_GONE)),
                Told(spaced, None, ("bob", "cy", "dan")), signed=False) == (
        "YOUR PRESS\n"
        "  - line 1: PRESS TO ALL: not relayed: there is no other player\n"
        "    Line 2 of your mail was taken as press: not sent, and not read as orders.\n"
        "  - your reply to a press mail: not relayed: the writer of that press no\n"
        "    longer plays in this game\n"
        "    Line 1 of your mail was taken as press: not sent, and not read as orders.\n"
        "  - line 3: PRESS TO ALL: relayed to bob, cy and dan, without your name.\n"
        "    Sent as press (lines 4-7):\n"
        "      Annee\n\n\n      end\n")


def test_a_signed_press_to_three_names_the_other_two() -> None:
    body = said(press.MAIL, game="g1", text="Ann\u00e9e", signed=True, writer="ann", others=["cy", "dan"])
    assert body.startswith("Press from ann\n--------------\n\nAnn\u00e9e\n\n--------------\n")
    assert "To you and cy and dan. To answer ann, reply" in " ".join(body.split())
