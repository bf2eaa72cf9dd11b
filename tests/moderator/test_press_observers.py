"""Press between players and observers of games, through the mail flow (``process_message``).

Press is relayed From the moderator to the named seats only, Reply-To each
recipient's own token, with no address of the sender anywhere; observers get
the public reports (never a sealed bid before the reveal), cannot order, and
leave with STOP.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem import store
from pbem.cli import app
from pbem.moderator.gamemaster import MailContext, force, set_game
from pbem.moderator.gamemaster.common import GameMasterError
from pbem.moderator.inbound import press as press_module
from pbem.moderator.inbound.handler import process_message
from pbem.moderator.inbound.press import read_press
from pbem.moderator.notify import observers as observing
from pbem.moderator.notify.observers import Sender
from pbem.store import Database
from pbem.store.observers import find_observer
from pbem.store.outbox import OutboxRow
from tests.emetable import EMAIL, OLGA, PressTable
from tests.mailflowkit import MODERATOR, NOW, Table, config_for, raw_mail


@pytest.fixture
def table(db_url: str) -> Iterator[PressTable]:
    t = PressTable(Database(db_url), config_for())
    t.create()
    yield t
    t.db.dispose()


def whole(row: OutboxRow) -> str:
    """Everything a recipient sees of a mail: headers, subject, body."""
    return json.dumps(row.headers) + "\n" + row.subject + "\n" + row.body


# --- press ---------------------------------------------------------------------------------------


def test_signed_press_reaches_the_named_seat_with_the_senders_name_and_no_address(table: PressTable) -> None:
    before = len(table.outbox())
    assert table.send("ann", "PRESS TO bob\nShall we share the west?\nEND PRESS") == "query"
    (relayed,) = table.press_to("bob", before)
    assert relayed.body.startswith("Press from ann\n") and "Shall we share the west?" in relayed.body
    assert EMAIL["ann"] not in whole(relayed) and "clients.example" not in whole(relayed)  # nor ann's Message-ID
    assert relayed.headers["reply_to"] == table.reply_to("bob") and relayed.headers.get("from") == MODERATOR
    assert table.press_to("cy", before) == []
    (confirmation,) = table.to("ann", before)
    assert "relayed to bob, signed with your name" in " ".join(confirmation.body.split())


def test_anonymous_press_names_nobody(table: PressTable) -> None:
    set_game(table.db, table.name, ["press=anonymous"])
    before = len(table.outbox())
    table.send("ann", "PRESS TO bob, cy\nBeware of the green armies.")
    for player in ("bob", "cy"):
        (relayed,) = table.press_to(player, before)
        assert relayed.body.startswith("Anonymous press\n") and "Beware of the green armies." in relayed.body
        assert not re.search(r"\bann\b", whole(relayed)) and table.colour("ann") not in relayed.body
        assert EMAIL["ann"] not in whole(relayed) and "Press from" not in relayed.body


def test_press_none_refuses_with_the_reason_and_relays_nothing(table: PressTable) -> None:
    set_game(table.db, table.name, ["press=none"])
    before = len(table.outbox())
    table.send("ann", "PRESS TO bob\nhello")
    assert [row.recipient for row in table.outbox()[before:]] == [EMAIL["ann"]]
    assert "press is off in game g1" in " ".join(table.to("ann", before)[0].body.split())


@pytest.mark.slow
def test_press_to_all_reaches_every_other_seat_once(table: PressTable) -> None:
    table.add_observer()
    before = len(table.outbox())
    table.send("cy", "PRESS TO ALL\nPeace for three rounds?")
    assert len(table.press_to("ann", before)) == len(table.press_to("bob", before)) == 1
    assert table.press_to("cy", before) == [] and table.watched(before) == []  # observers get no press


def test_an_unknown_recipient_is_refused_with_the_players(table: PressTable) -> None:
    before = len(table.outbox())
    table.send("ann", "PRESS TO zed\nhello")
    (reply,) = table.to("ann", before)
    text = " ".join(reply.body.split())
    assert "'zed' is no player of game g1" in text and f"bob ({table.colour('bob')})" in text and "cy (" in text
    assert [row for row in table.outbox()[before:] if row.purpose == "press"] == []


def test_an_oversize_press_is_refused(table: PressTable) -> None:
    before = len(table.outbox())
    table.send("ann", "PRESS TO bob\n" + ("All work and no play. " * 40 + "\n") * 10)
    assert table.press_to("bob", before) == []
    assert "press of at most 8 KB is relayed" in " ".join(table.to("ann", before)[0].body.split())


def test_orders_in_the_same_message_apply_and_one_mail_confirms_both(table: PressTable) -> None:
    before = len(table.outbox())
    assert table.send("ann", "BID 3\nPRESS TO blue\nI bid low, honestly.\nEND PRESS\nMAIL TURN") == "applied"
    assert table.eme().bids["ann"] == 3
    (relayed,) = table.press_to("bob", before)  # the colour names the seat
    assert "I bid low, honestly." in relayed.body and "MAIL TURN" not in relayed.body
    (reply,) = table.to("ann", before)
    assert "relayed to bob" in reply.body and "Your bid of 3 is recorded" in reply.body and "TURN" in reply.body


def test_quoted_lines_and_the_signature_are_not_relayed(table: PressTable) -> None:
    before = len(table.outbox())
    table.send("ann", "PRESS TO bob\nDeal.\n> You wrote: shall we?\nMail me your plans.\n-- \nAnn Smith, ann@example.org")
    (relayed,) = table.press_to("bob", before)
    assert "Deal.\nMail me your plans.\n" in relayed.body  # "Mail me" is press text, not a MAIL line
    assert "You wrote" not in relayed.body and "Ann Smith" not in relayed.body and EMAIL["ann"] not in relayed.body


def test_a_one_line_press_is_that_line_alone_and_the_orders_below_it_apply(table: PressTable) -> None:
    """``PRESS TO bob: text`` ends at the end of its line: the lines below are orders, applied, and the
    confirmation quotes what was sent as press."""
    before = len(table.outbox())
    assert table.send("ann", "PRESS TO bob: I bid low, honestly.\nBID 3\nMAIL TURN") == "applied"
    assert table.eme().bids["ann"] == 3
    (relayed,) = table.press_to("bob", before)
    assert "I bid low, honestly.\n" in relayed.body and "BID 3" not in relayed.body and "MAIL" not in relayed.body
    (reply,) = table.to("ann", before)
    assert "Your bid of 3 is recorded" in reply.body and "Your mail is now TURN" in reply.body
    said = reply.body.split("YOUR PRESS\n")[1]
    assert "Sent as press (line 1):\n      I bid low, honestly.\n" in said and "BID 3" not in said


def test_a_one_line_press_runs_on_only_to_an_end_press_below_it() -> None:
    """The one-line form is one line; an END PRESS further down (before another PRESS) makes it a block."""
    alone = read_press("PRESS TO bob: hi\nBID 2\nPRESS TO cy\nyo\nEND PRESS\nDONE")
    assert [(p.names, p.text, p.span) for p in alone.presses] == [(("bob",), "hi", (1, 1)), (("cy",), "yo", (4, 4))]
    assert alone.body.split("\n") == ["", "BID 2", "", "", "", "DONE"]
    closed = read_press("PRESS TO bob: hi,\nlet us share Asia.\nEND PRESS\nBID 2")
    assert [(p.text, p.span) for p in closed.presses] == [("hi,\nlet us share Asia.", (1, 2))]
    assert closed.body.split("\n") == ["", "", "", "BID 2"]


def test_a_seat_relays_only_so_much_press(table: PressTable, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(press_module, "PER_HOUR", 3)
    before = len(table.outbox())
    table.send("ann", "PRESS TO ALL\none")  # two mails
    table.send("ann", "PRESS TO ALL\ntwo")  # two more would be four: refused whole
    table.send("ann", "PRESS TO cy\nthree")
    assert [row.body.split("\n")[3] for row in table.outbox()[before:] if row.purpose == "press"] == [
        "one", "one", "three"]
    assert "you have sent as much press" in " ".join(table.to("ann", before)[1].body.split())


def test_reading_press_keeps_line_numbers_and_orders_around_it() -> None:
    reading = read_press("BID 2\nPRESS TO bob and cy\nhi\nEND PRESS\nSTATUS\nPRESS\nlost")
    assert reading.body.split("\n") == ["BID 2", "", "", "", "STATUS", "", ""]
    first, second = reading.presses
    assert (first.number, first.names, first.text, first.problem) == (2, ("bob", "cy"), "hi", None)
    assert second.number == 6 and second.problem is not None


def test_the_press_setting_is_checked(table: PressTable) -> None:
    with pytest.raises(GameMasterError, match="press=loud: one of none, signed, anonymous"):
        set_game(table.db, table.name, ["press=loud"])
    assert set_game(table.db, table.name, ["press=none"]).settings.press == "none"


# --- observers -----------------------------------------------------------------------------------


def test_an_observer_gets_public_reports_and_never_a_bid_before_the_reveal(table: PressTable) -> None:
    table.add_observer()
    (welcome,) = table.watched()
    assert "observer of game g1" in welcome.body and welcome.headers["reply_to"].startswith("pbem+")
    start = len(table.outbox())
    table.send("ann", "BID 7")
    table.send("bob", "BID 2")
    table.send("ann", "BID 6")  # changed: still sealed
    assert table.watched(start) == []  # not even a mail whose arrival shows that someone bid
    table.send("cy", "BID 3")
    (report,) = table.watched(start)
    assert "All bids are in: ann 6, bob 2, cy 3." in report.body and "you" not in report.body.split("PLAYERS")[0]
    assert all(EMAIL[p] not in whole(report) for p in EMAIL)
    table.send("ann", "TAKE 1\nDONE")
    assert len(table.watched(start)) == 2


def test_an_observers_orders_are_refused_and_change_nothing(table: PressTable) -> None:
    table.add_observer()
    before = len(table.outbox())
    assert table.observer_sends("BID 0\nPRESS TO ann\nhello") == observing.REFUSED
    (reply,) = table.watched(before)
    assert "observers follow the game, they do not play" in " ".join(reply.body.split())
    assert table.eme().bids == {} and [row for row in table.outbox()[before:] if row.purpose == "press"] == []


def test_stop_removes_an_observer_with_one_goodbye_and_then_silence(table: PressTable) -> None:
    table.add_observer()
    token = table.observer_token()
    before = len(table.outbox())
    assert table.observer_sends("STOP") == observing.LEFT
    (goodbye,) = table.watched(before)
    assert "You no longer observe game g1" in " ".join(goodbye.body.split()) and not goodbye.headers["reply_to"]
    for player, coins in (("ann", 1), ("bob", 2), ("cy", 3)):
        table.send(player, f"BID {coins}")
    table.uid += 1
    again = raw_mail(OLGA, f"pbem+{token}@games.test", "STOP")
    assert process_message(table.db, table.config, again, "INBOX", 1, table.uid, NOW).outcome == observing.IGNORED
    assert table.watched(before) == [goodbye]


def test_an_observers_token_from_another_address_is_ignored(table: PressTable) -> None:
    table.add_observer()
    before = len(table.outbox())
    assert table.observer_sends("STOP", sender="mallory@evil.example") == observing.IGNORED
    assert table.outbox()[before:] == []
    with table.db.transaction() as session:
        row = find_observer(session, store.find_game(session, table.name), OLGA)
        assert row is not None and row.active


def test_observers_hear_of_moves_the_game_master_forces(table: PressTable) -> None:
    table.add_observer()
    for player, coins in (("ann", 1), ("bob", 2)):
        table.send(player, f"BID {coins}")
    before = len(table.outbox())
    force(table.db, table.name, "cy", "BID 0", mail=MailContext.make(moderator_address=MODERATOR), now=NOW)
    (report,) = table.watched(before)
    assert "All bids are in" in report.body and report.headers["reply_to"] == table.watched()[0].headers["reply_to"]


def test_an_imperial_observer_gets_the_public_report(db_url: str) -> None:
    """Imperial 2030 has no report for a reader without a seat: the core writes it (narrated for nobody)."""
    t = Table(Database(db_url), config_for())
    t.create(players=3)
    try:
        observing.add(t.db, t.name, OLGA, Sender(MODERATOR, "games.test", "moderator"), NOW)
        before = len(t.outbox())
        player, order = t.an_order()
        raw = t.mail_from(player, order)
        assert process_message(t.db, t.config, raw, "INBOX", 1, 1, NOW, moderator=t.moderator).outcome == "applied"
        (report,) = [row for row in t.outbox()[before:] if row.recipient == OLGA]
        assert "WHAT HAPPENED" in report.body and "THE AMERICAS" in report.body and "STOP" in report.body
    finally:
        t.db.dispose()


def test_the_observer_commands(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    runner = CliRunner()

    def pbem(*args: str, code: int = 0) -> str:
        result = runner.invoke(app, ["--database", url, *args], env={"PBEM_CONFIG": ""})
        assert result.exit_code == code, result.output
        return result.output

    pbem("game", "new", "g", "--kind", "eight-minute-empire", "--player", "ann:a@x.org", "--player", "bob:b@x.org",
         "--seed", "3")
    assert "Game g has no observers" in pbem("observer", "list", "g")
    assert "olga@watch.example now observes game g" in pbem("observer", "add", "g", "Olga@Watch.example")
    assert "already" in pbem("observer", "add", "g", OLGA, code=2)
    assert "holds a seat" in pbem("observer", "add", "g", "a@x.org", code=2)
    assert OLGA in pbem("observer", "list", "g")
    assert "no longer observes game g" in pbem("observer", "remove", "g", OLGA)
    assert "Game g has no observers" in pbem("observer", "list", "g")
    assert "does not observe" in pbem("observer", "remove", "g", OLGA, code=2)
