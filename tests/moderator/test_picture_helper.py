"""The daemon's picture helper (``pbem.moderator.notify.pictures``): a move's board drawn in a process of its own.

What the helper must never change: every mail that should carry the board
carries it, the very picture drawn in the moderator's own process, written
with its row (no second statement). What it must survive: a helper that
dies, hangs or is busy costs the picture nothing (it is drawn here), and a
move's telling that fails leaves the helper free for the next move.
"""
from __future__ import annotations

import logging
import os
import pickle
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from engine.imperial2030.mapfile import default_board, load_board
from pbem.games import KINDS, kind_of
from pbem.holders import holder_name
from pbem.languages import SOURCE, Language
from pbem.moderator.notify import pictures, turnmail
from pbem.moderator.notify.telling import tell_moves
from pbem.store import Database, find_game
from tests.dbfixtures import sqlite_url
from tests.emetable import KIND, EmeTable
from tests.helpers import standard_game
from tests.mailflowkit import config_for, mail_of, picture_of, wait_until


@pytest.fixture
def table(tmp_path: Path) -> Iterator[EmeTable]:
    t = EmeTable(Database(sqlite_url(tmp_path)), config_for())
    t.create()
    yield t
    t.db.dispose()


@pytest.fixture
def helper(monkeypatch: pytest.MonkeyPatch) -> Iterator[pictures.Helper]:
    monkeypatch.setattr(os, "cpu_count", lambda: 2)  # as on any machine with a core to spare
    pictures.start()
    assert pictures._HELPER is not None
    yield warm(pictures._HELPER)
    pictures.stop()


def warm(helper: pictures.Helper) -> pictures.Helper:
    """``helper`` once it has warmed up (until then every picture is drawn in the caller's thread)."""
    wait_until(helper._ready, timeout=60, what="the picture helper to warm up", every=0.05)
    return helper


def spy_on(helper: pictures.Helper) -> list[tuple[str, bool]]:
    """The helper's questions from now on: (game, whether the helper took it)."""
    asked: list[tuple[str, bool]] = []
    original = helper.ask

    def spied(kind: str, game: str, state: Any, language: Language = SOURCE) -> pictures.Drawing | None:
        taken = original(kind, game, state, language)
        asked.append((game, taken is not None))
        return taken

    helper.ask = spied  # type: ignore[method-assign]  # a spy on this one helper
    return asked


def drawn_here(table: EmeTable) -> bytes:
    """The picture of the game's current board, drawn in this process."""
    drawn = pictures.board_picture(kind_of(KIND), table.name, table.state())
    assert drawn is not None
    return drawn[0]


def test_the_mail_carries_the_picture_the_helper_drew(table: EmeTable, helper: pictures.Helper,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    asked = spy_on(helper)
    with caplog.at_level(logging.WARNING, logger="pbem.moderator.notify.pictures"):
        assert table.send("ann", "BID 1") == "applied"
    assert asked == [(table.name, True)] and not caplog.records  # the helper drew it, and nothing went wrong
    mail = mail_of(table.db, table.outbox()[-1])
    assert mail.picture is not None and mail.picture.png == drawn_here(table)
    assert mail.picture.alt.startswith("Picture of the board") and mail.picture.line >= 0


def test_a_row_is_written_once_with_its_picture(table: EmeTable, helper: pictures.Helper) -> None:
    """The rows wait in the session for the picture: one INSERT each, no UPDATE of the outbox afterwards."""
    statements: list[str] = []
    event.listen(table.db.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    assert table.send("ann", "BID 1") == "applied"
    assert not [s for s in statements if re.match(r"\s*UPDATE outbox\b", s)]
    assert picture_of(table.db, table.outbox()[-1])


def test_a_helper_that_dies_while_drawing_costs_no_picture(table: EmeTable, helper: pictures.Helper,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    original = helper.answer

    def killed_first(asked: pictures.Drawing) -> Any:
        assert helper._process is not None
        helper._process.kill()
        helper._process.wait()
        return original(asked)

    monkeypatch.setattr(helper, "answer", killed_first)
    with caplog.at_level(logging.WARNING, logger="pbem.moderator.notify.pictures"):
        assert table.send("ann", "BID 1") == "applied"
    assert "the picture helper failed" in caplog.text
    assert picture_of(table.db, table.outbox()[-1]) == drawn_here(table)


@pytest.mark.slow
def test_after_a_failure_a_new_helper_starts_later(table: EmeTable, helper: pictures.Helper,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    helper._fail("a test failure")
    assert helper.ask(KIND, table.name, table.state()) is None  # failed just now: drawn here for a while
    monkeypatch.setattr(pictures, "RESTART_AFTER", 0.0)
    assert helper.ask(KIND, table.name, table.state()) is None  # a new helper, warming up: drawn here meanwhile
    asked = warm(helper).ask(KIND, table.name, table.state())
    assert asked is not None and asked.result() is not None


def test_a_late_answer_is_dropped_not_taken_for_the_next_pictures(table: EmeTable, helper: pictures.Helper,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A helper slower than ``DRAW_HERE_AFTER`` (a machine busy to its last core): the handler draws the
    picture itself, and the helper's answer, when it comes, is read and dropped before its next question."""
    monkeypatch.setattr(pictures, "DRAW_HERE_AFTER", 0.0)
    before = table.state()
    first = helper.ask(KIND, table.name, before)
    assert first is not None and first.result() == pictures.draw_here(KIND, table.name, before)
    assert helper.ask(KIND, table.name, before) is None  # its answer is still owed
    monkeypatch.setattr(pictures, "DRAW_HERE_AFTER", 30.0)
    assert table.send("ann", "BID 1") == "applied"  # drawn here, or by the helper once it has answered
    assert picture_of(table.db, table.outbox()[-1]) == drawn_here(table)
    wait_until(lambda: helper.ask(KIND, table.name, table.state()) is not None, what="the owed answer dropped")
    assert table.send("bob", "BID 2") == "applied" and picture_of(table.db, table.outbox()[-1]) == drawn_here(table)


SILENT = ("import pickle, struct, sys, time; word = pickle.dumps('ready'); "
          "sys.stdout.buffer.write(struct.pack('>I', len(word)) + word); sys.stdout.flush(); time.sleep(60)")


@pytest.mark.slow
def test_a_helper_that_never_answers_is_replaced(table: EmeTable, monkeypatch: pytest.MonkeyPatch,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    """Ready, then silent: each picture is drawn here meanwhile, and after ``ANSWER_WITHIN`` it is stopped."""
    monkeypatch.setattr(pictures, "DRAW_HERE_AFTER", 0.01)
    helper = warm(pictures.Helper([sys.executable, "-c", SILENT]))
    try:
        asked = helper.ask(KIND, table.name, table.state())
        assert asked is not None and asked.result() == pictures.draw_here(KIND, table.name, table.state())
        assert helper.ask(KIND, table.name, table.state()) is None and helper._process is not None
        monkeypatch.setattr(pictures, "ANSWER_WITHIN", 0.0)
        with caplog.at_level(logging.WARNING, logger="pbem.moderator.notify.pictures"):
            assert helper.ask(KIND, table.name, table.state()) is None
        assert helper._process is None and "the picture helper failed" in caplog.text
    finally:
        helper.stop()


def test_a_busy_helper_leaves_the_picture_to_the_caller(table: EmeTable, helper: pictures.Helper) -> None:
    first = helper.ask(KIND, table.name, table.state())
    assert first is not None
    assert helper.ask(KIND, table.name, table.state()) is None  # one picture at a time
    assert table.send("ann", "BID 1") == "applied"  # drawn here meanwhile
    assert picture_of(table.db, table.outbox()[-1]) == drawn_here(table)
    assert first.result() is not None and helper.ask(KIND, table.name, table.state()) is not None


def test_a_failed_telling_leaves_the_helper_free_and_the_move_to_tell(table: EmeTable, helper: pictures.Helper,
                                                                       monkeypatch: pytest.MonkeyPatch,
                                                                       caplog: pytest.LogCaptureFixture) -> None:
    """A bug after the picture was asked (the observers' copies): the message is handled and its move stands,
    the helper's answer is collected (it is free for the next move), no mail is written, and the move waits
    to be told again (by its teller's next move of the game, or a later pass)."""
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug while writing the move's mail")

    # The helper's answer, however long it takes: a late one is owed, and collected only at the next question
    # (a machine busy enough made this test fail now and then).
    monkeypatch.setattr(pictures, "DRAW_HERE_AFTER", 30.0)
    monkeypatch.setattr(turnmail, "after_change", broken)
    queued = len(table.outbox())
    with caplog.at_level(logging.ERROR, logger="pbem.moderator.notify"):
        assert table.send("ann", "BID 1") == "applied"
    assert "could not be written" in caplog.text and "a bug while writing" in caplog.text
    assert table.state().version == 1 and not helper._busy and len(table.outbox()) == queued
    monkeypatch.undo()
    with table.db.transaction() as session:
        game_id = find_game(session, table.name).id
    assert game_id is not None
    told = tell_moves(table.db, table.config.require_moderator(), game_id, holder=holder_name("tell"))
    assert told.moves == 1 and picture_of(table.db, table.outbox()[-1]) == drawn_here(table)


def test_one_core_means_no_helper(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    pictures.start()
    assert pictures._HELPER is None and pictures.ask(KIND, "g", None) is None


def test_the_helper_warms_up_on_a_new_game_of_every_kind(monkeypatch: pytest.MonkeyPatch,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    """A helper's first picture would take many times the next one's: it draws each kind's new game first."""
    drawn: list[str] = []
    monkeypatch.setattr(pictures, "draw_here", lambda kind, game, state: drawn.append(kind))
    with caplog.at_level(logging.ERROR, logger="pbem.moderator.notify.pictures"):
        pictures.warm_up()
    assert sorted(drawn) == sorted(KINDS) and not caplog.records


@pytest.mark.parametrize("says", ["", "import sys; sys.stdout.buffer.write(b'\\0\\0\\0\\1x')"])
def test_a_helper_that_never_says_it_is_ready_is_given_up(says: str, caplog: pytest.LogCaptureFixture) -> None:
    """One that dies at once, or says something else than that it is ready: every picture is drawn here, and
    a new helper is tried again only ``RESTART_AFTER`` later."""
    helper = pictures.Helper([sys.executable, "-c", says or "pass"])
    with caplog.at_level(logging.WARNING, logger="pbem.moderator.notify.pictures"):
        helper.start()
        wait_until(lambda: helper._process is None, what="the helper to be given up")
    assert "did not warm up" in caplog.text
    assert helper.ask(KIND, "g", None) is None


def test_a_state_on_the_shipped_map_travels_without_the_map() -> None:
    """A state goes to the helper pickled; the shipped Imperial map goes as a reference to the helper's own
    copy (it was 25 of the state's 26 KB), and a map read from elsewhere still travels whole."""
    state = standard_game()
    data = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    assert len(data) < 8_000 and pickle.loads(data).board is default_board()
    own = load_board()
    copied = pickle.loads(pickle.dumps(own, protocol=pickle.HIGHEST_PROTOCOL))
    assert copied is not default_board() and copied is not own and copied.regions == own.regions


def test_the_helper_draws_an_imperial_board_as_this_process_does(helper: pictures.Helper,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The state arrives with the helper's own map, and the picture is the one drawn here."""
    monkeypatch.setattr(pictures, "DRAW_HERE_AFTER", 30.0)  # the helper's answer, however busy the machine
    state = standard_game()
    asked = helper.ask("imperial2030", "w", state)
    assert asked is not None
    assert asked.result() == pictures.draw_here("imperial2030", "w", state)
    assert helper._owed is None  # taken from the helper, not drawn here after a wait


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the process name is set through Linux's prctl")
def test_the_helper_is_named_pbem_pictures_in_ps(helper: pictures.Helper) -> None:
    """docs/hosting.md tells hosts to look for ``pbem-pictures`` in ``ps``: ``ps -e`` and ``top`` show the
    process's name, ``ps aux`` its command line; both say it."""
    process = helper._process
    assert process is not None
    proc = Path(f"/proc/{process.pid}")
    assert (proc / "comm").read_text().strip() == "pbem-pictures"
    assert "pbem-pictures" in (proc / "cmdline").read_bytes().decode().split("\0")
