"""A move's picture that arrives after its commit (``pbem.moderator.notify.latepictures``).

With mail waiting behind a message, its handler does not wait for the
helper's picture: the move commits, its mail waits for the picture, held by
it, and gets it as soon as it comes. What must hold all the same: every mail
that should carry the board carries the very picture drawn here, no mail
leaves before it has it, a player's mail of a game leaves in the order it
was written, and a picture that never comes (a crash) costs the mail only
its picture.
"""
from __future__ import annotations

import logging
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import event

from pbem.holders import gone
from pbem.moderator.inbound.handler import MessageFailed
from pbem.moderator.notify import compose, latepictures, pictures
from pbem.store.outbox import OutboxRow, OutboxStatus, claim_due, mark_sent_many
from tests import dbfixtures, test_eme_moderator, test_picture_helper
from tests.test_eme_moderator import KIND, NOW, EmeTable
from tests.test_picture_helper import drawn_here

# fixtures: each test on SQLite and on PostgreSQL (the picture's UPDATE is the database's work), with a helper
db_url, table, helper = dbfixtures.db_url, test_eme_moderator.table, test_picture_helper.helper


class Held:
    """The helper's answers to pictures no one waits for, taken only once ``release`` is called."""

    def __init__(self, asked_of: pictures.Helper, monkeypatch: pytest.MonkeyPatch) -> None:
        self._go = threading.Event()
        self.asked: list[pictures.LaterDrawing] = []
        self.woken = 0
        collect, ask = asked_of.collect, asked_of.ask

        def held_collect(later: pictures.LaterDrawing) -> pictures.Drawn:
            self._go.wait(60)
            return collect(later)

        def noted_ask(kind: str, game: str, state: Any, *, later: bool = False) -> Any:
            asked = ask(kind, game, state, later=later)
            if isinstance(asked, pictures.LaterDrawing):
                self.asked.append(asked)
            return asked

        monkeypatch.setattr(asked_of, "collect", held_collect)
        monkeypatch.setattr(asked_of, "ask", noted_ask)
        monkeypatch.setattr(pictures, "_WAKE", self._wake)

    def _wake(self) -> None:
        self.woken += 1

    def release(self) -> None:
        """Let the answers come, and wait until every picture has gone where it goes."""
        self._go.set()
        for later in self.asked:
            later.join(timeout=10)  # less than the ANSWER_WITHIN a picture left unsaid would wait


@pytest.fixture
def held(helper: pictures.Helper, monkeypatch: pytest.MonkeyPatch) -> Iterator[Held]:
    answers = Held(helper, monkeypatch)
    yield answers
    answers.release()


def send_with_mail_waiting(table: EmeTable, player: str, body: str) -> str:
    with pictures.busy(True):
        return table.send(player, body)


def waiting_for_picture(table: EmeTable) -> list[OutboxRow]:
    return [row for row in table.outbox() if row.claimed_by.startswith("picture@")]


def claim(table: EmeTable, seconds_later: float = 0.0) -> list[OutboxRow]:
    """What a sender takes now (or ``seconds_later``), marked sent."""
    now = NOW + timedelta(seconds=seconds_later)
    with table.db.transaction() as session:
        taken = claim_due(session, "test-sender", now, lease=300.0)
        mark_sent_many(session, [row.id for row in taken if row.id is not None], now)
    return taken


@pytest.mark.slow
def test_with_mail_waiting_the_move_commits_before_its_picture(table: EmeTable, held: Held) -> None:
    assert send_with_mail_waiting(table, "ann", "BID 1") == "applied"
    waiting = waiting_for_picture(table)
    assert waiting and all(row.picture is None for row in waiting)
    assert not {row.id for row in claim(table)} & {row.id for row in waiting}  # no sender takes them yet
    held.release()
    given = {row.id: row for row in table.outbox()}
    for row in waiting:
        mail = given[row.id]
        assert mail.picture == drawn_here(table) and mail.claimed_by == "" and mail.next_attempt == mail.created
        assert mail.headers["picture_alt"].startswith("Picture of the board") and mail.headers["picture_line"] >= 0
        assert {k: v for k, v in mail.headers.items() if not k.startswith("picture_")} == row.headers
    assert held.woken == 1  # the daemon's sender: that mail is due now


def held_by(table: EmeTable, later: pictures.LaterDrawing) -> list[OutboxRow]:
    return [row for row in table.outbox() if row.claimed_by == later.holder]


def the_first_bids(table: EmeTable, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two bids with no mail waiting: each waits for its picture, however long a busy machine makes it take (a
    late answer would be owed, and leave the helper busy for the moves after)."""
    monkeypatch.setattr(pictures, "DRAW_HERE_AFTER", 30.0)
    for player in ("ann", "bob"):
        assert table.send(player, "BID 0") == "applied"  # no mail waiting: nothing held


def two_moves_with_mail_waiting(table: EmeTable) -> list[bytes]:
    """The bids revealed, then a card taken, each with mail waiting: the boards after each (they differ).
    Call :func:`the_first_bids` first."""
    boards = []
    for player, order in (("cy", "BID 0"), (None, "TAKE 1\nDONE")):
        assert send_with_mail_waiting(table, player or table.eme().current or "", order) == "applied"
        boards.append(drawn_here(table))
    assert boards[0] != boards[1]
    return boards


def each_got_its_board(table: EmeTable, rows: list[list[int | None]], boards: list[bytes]) -> None:
    """Each move's held mail (``rows``, per move) has its own move's board, and is held no longer."""
    given = {row.id: row for row in table.outbox()}
    for ids, board in zip(rows, boards, strict=True):
        assert all(given[row].picture == board and given[row].claimed_by == "" for row in ids)


@pytest.mark.slow
def test_the_next_moves_picture_queues_behind_the_one_being_drawn(table: EmeTable, held: Held,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The next message finds the helper still drawing: its picture is asked all the same (the handler draws
    none), and each move's held mail gets its own move's picture."""
    the_first_bids(table, monkeypatch)
    boards = two_moves_with_mail_waiting(table)
    assert len(held.asked) == 2
    rows = [[row.id for row in held_by(table, later)] for later in held.asked]
    assert all(rows)
    held.release()
    each_got_its_board(table, rows, boards)


@pytest.mark.slow
def test_the_helper_takes_so_many_pictures_at_once(table: EmeTable, helper: pictures.Helper) -> None:
    """At most ``LATER_DEPTH`` pictures no one waits for are in the helper's hands; then the asker draws."""
    state = table.state()
    asked = [helper.ask(KIND, table.name, state, later=True) for _ in range(pictures.LATER_DEPTH)]
    assert all(isinstance(later, pictures.LaterDrawing) for later in asked)
    assert helper.ask(KIND, table.name, state, later=True) is None
    assert helper.ask(KIND, table.name, state) is None
    drop_all(asked)
    drop_all([helper.ask(KIND, table.name, state, later=True)])  # room again


@pytest.mark.slow
def test_a_picture_asked_behind_others_is_not_waited_for(table: EmeTable, helper: pictures.Helper) -> None:
    """A worker that would wait finds pictures in the helper's hands: its own joins them rather than wait
    behind them; with nothing in hand, it waits as before."""
    state = table.state()
    first = helper.ask(KIND, table.name, state, later=True)
    second = helper.ask(KIND, table.name, state)
    assert isinstance(second, pictures.LaterDrawing)
    drop_all([first, second])
    waited = helper.ask(KIND, table.name, state)
    assert isinstance(waited, pictures.Drawing) and waited.result() is not None


def drop_all(asked: list[pictures.Drawing | pictures.LaterDrawing | None]) -> None:
    """Wanted by no mail: dropped, once drawn."""
    for later in asked:
        assert isinstance(later, pictures.LaterDrawing)
        later.drop()
        later.join(timeout=30)


@pytest.mark.slow
def test_a_players_later_mail_waits_behind_the_mail_waiting_for_its_picture(table: EmeTable,
                                                                            held: Held) -> None:
    assert send_with_mail_waiting(table, "ann", "BID 1") == "applied"
    waiting = waiting_for_picture(table)
    held_for = {row.recipient: row.id for row in waiting}
    for player, bid in (("bob", "BID 2"), ("cy", "BID 0")):  # the bids revealed: a report to every player
        assert table.send(player, bid) == "applied"  # behind the held picture: held too
    later = [row for row in table.outbox() if row.recipient in held_for and (row.id or 0) > held_for[row.recipient]]
    assert later and not {row.id for row in claim(table)} & {row.id for row in later}
    held.release()
    taken = [row for row in claim(table) if row.recipient in held_for]
    assert [row.id for row in taken] == sorted(row.id for row in [*waiting, *later])


@pytest.mark.slow
def test_a_move_rolled_back_gives_its_picture_to_no_mail(table: EmeTable, held: Held,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug while writing the move's mail")

    statements: list[str] = []
    event.listen(table.db.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    before = len(table.outbox())
    with monkeypatch.context() as patched, caplog.at_level(logging.WARNING, logger="pbem.moderator.notify.pictures"):
        patched.setattr(compose.MailComposer, "turn_mail", broken)
        with pytest.raises(MessageFailed):
            send_with_mail_waiting(table, "ann", "BID 1")
        held.release()
    assert held.asked and not held.asked[0].alive()  # dropped at the rollback, not left waiting to be told
    assert len(table.outbox()) == before and table.state().version == 0
    assert not [s for s in statements if re.match(r"\s*UPDATE outbox\b", s)]
    assert not [r for r in caplog.records if r.name == pictures.__name__]
    assert send_with_mail_waiting(table, "ann", "BID 1") == "applied"


@pytest.mark.slow
def test_mail_whose_picture_never_comes_goes_without_it(table: EmeTable, held: Held) -> None:
    """A crash before the picture came: the hold runs out, and the text alone shows the board."""
    assert send_with_mail_waiting(table, "ann", "BID 1") == "applied"
    waiting = {row.id for row in waiting_for_picture(table)}
    taken = [row for row in claim(table, latepictures.PICTURE_LEASE + 1) if row.id in waiting]
    assert {row.id for row in taken} == waiting
    assert all(compose.outgoing_mail(row).picture is None for row in taken)
    held.release()  # the picture comes after all: the mail has gone, and stays as it was
    assert all(row.picture is None and row.status == OutboxStatus.SENT for row in table.outbox() if row.id in waiting)


@pytest.mark.slow
def test_a_dead_process_leaves_its_mail_free_at_once(table: EmeTable, held: Held) -> None:
    """``pbem.holders.gone`` reads a picture's hold as any claim: a process of this host that stopped."""
    assert send_with_mail_waiting(table, "ann", "BID 1") == "applied"
    holder = held.asked[0].holder
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True).stdout.strip()
    assert not gone(holder) and gone(holder.replace(f":{os.getpid()}:", f":{dead}:", 1))


@pytest.mark.slow
def test_a_helper_that_dies_while_drawing_later_pictures_costs_no_picture(
        table: EmeTable, held: Held, helper: pictures.Helper, caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two moves' pictures in its hands: each is drawn here, given to its own mail, and the failure told once."""
    the_first_bids(table, monkeypatch)
    assert helper._process is not None
    helper._process.send_signal(signal.SIGSTOP)  # it answers nothing: both questions wait in its input
    boards = two_moves_with_mail_waiting(table)
    rows = [[row.id for row in held_by(table, later)] for later in held.asked]
    assert len(rows) == 2 and all(rows)
    helper._process.kill()
    helper._process.wait()
    with caplog.at_level(logging.WARNING, logger="pbem.moderator.notify.pictures"):
        held.release()
    assert caplog.text.count("the picture helper failed") == 1
    each_got_its_board(table, rows, boards)
