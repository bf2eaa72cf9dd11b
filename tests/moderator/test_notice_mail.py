"""The game master's notices (pause, resume, undo, replace, resend): one mail per seat, in every mail mode.

A notice is no move, so it has no mailed twin; what it owes each seat it
concerns is what a move's mail gives: one mail (never a notice and then a
separate prompt), opening with the notice and the news the seat kept for its
next mail (``MAIL TURN|ROUND|DAILY``, emptied then), then the report with the
board or without it by the seat's ``BOARD`` choice (the picture only with the
board), then the prompt when the seat must decide, its subject saying what is
asked and ``X-PBEM-Decision`` set. Notices go to every seat whatever its mode
(pbem.moderator.gamemaster.commands); the pause notice is the notice alone.
"""
from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pbem import store
from pbem.games import kind_of
from pbem.moderator import gamemaster
from pbem.moderator.deadlines import decision_since
from pbem.moderator.notify.subjects import decision_deadline, decisions_of
from pbem.store.outbox import OutboxRow
from pbem.store.settings import load_settings
from tests.dbfixtures import sqlite_url
from tests.emetable import EmeTable
from tests.mailflowkit import PLAYERS
from tests.sourcemail import BOARD, EME, IMPERIAL, MAIL, MODES, kept_news, kind_name, mail, new_table

EMAIL = dict(PLAYERS)
NOW = datetime.now(UTC).replace(microsecond=0) + timedelta(hours=1)  # the commands' clock (a real game's is now)
NOTICES = ["pause", "resume", "undo", "replace", "resend"]


@pytest.fixture(params=[IMPERIAL, EME])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def played(kind: str, url: str, mode: str, board: bool) -> EmeTable:
    """A game in ``mode`` and ``board`` whose seats kept news: Imperial's ann chose the investor space (bob must
    invest), Eight-Minute Empire's bids are in and ann took a card (bob takes next)."""
    table = new_table(kind, url)
    gamemaster.set_game(table.db, table.name, [f"mail={mode}", f"board={'on' if board else 'off'}",
                                               "deadline.default=48"])
    moves = [("ann", "RONDEL investor")] if kind == IMPERIAL else [
        ("ann", "BID 2"), ("bob", "BID 1"), ("cy", "BID 0"), ("ann", "TAKE 1\nDONE")]
    for player, text in moves:
        assert mail(table, player, text, datetime.now(UTC)) == "applied"
    return table  # type: ignore[return-value]


def rows_since(table: EmeTable, start: int) -> dict[str, OutboxRow]:
    """The mail to each address since outbox row ``start``: one each (one mail per seat per notice)."""
    found: dict[str, OutboxRow] = {}
    for row in table.outbox()[start:]:
        assert row.recipient not in found, f"two mails to {row.recipient}: {found[row.recipient].purpose}, {row.purpose}"
        found[row.recipient] = row
    return found


def prompt_of(table: EmeTable, player: str, since: datetime) -> tuple[str, str] | None:
    """(the decision, the prompt's text) the seat must answer now, its deadline counted from ``since``."""
    kind = kind_of(kind_name(table))
    state = table.state()
    decisions = decisions_of(kind, state, player)
    if not decisions:
        return None
    with table.db.transaction() as session:
        settings = load_settings(session, store.find_game(session, table.name))
    text = kind.prompt(state, player, game=table.name, deadline=decision_deadline(settings, decisions[0], since))
    assert text is not None
    return decisions[0].kind, text


def assert_one_mail_each(table: EmeTable, rows: dict[str, OutboxRow], players: list[str], purpose: str, board: bool,
                         news: dict[str, list[str]], *, since: datetime = NOW, words: str | dict[str, str] = "") -> None:
    """Each of ``players`` got one mail: its prompt first (issue 29: the question first), the notice, its kept
    news, the report by its board."""
    kind = kind_name(table)
    for player in players:
        row = rows[EMAIL.get(player, f"{player}@example.org")]
        assert row.purpose == purpose, player
        assert (BOARD[kind] in row.body) == (row.picture_id is not None) == board, player
        for line in news[player]:
            assert " ".join(line.split()) in " ".join(row.body.split()), (player, line)
        asked = prompt_of(table, player, since)
        if asked is None:
            assert row.headers.get("decision") is None, player
            continue
        decision, prompt = asked
        assert row.headers["decision"] == decision and row.body.startswith(prompt), player
        assert row.subject.startswith(f"[{table.name}] Move ") and ": please " in row.subject, row.subject
        assert row.subject.endswith(f" ({words if isinstance(words, str) else words[player]})"), row.subject
    assert all(not lines for player, lines in kept_news(table).items() if player in players)


@pytest.mark.parametrize("board", [True, False], ids=["board-on", "board-off"])
@pytest.mark.parametrize("mode", MODES)
def test_pause_then_resume_tell_every_seat_once_each(tmp_path: Path, kind: str, mode: str, board: bool) -> None:
    table = played(kind, sqlite_url(tmp_path), mode, board)
    seats = list(table.state().seating)
    news = kept_news(table)
    start = len(table.outbox())
    gamemaster.pause(table.db, table.name, mail=MAIL, now=NOW)
    paused = rows_since(table, start)
    assert sorted(paused) == sorted(EMAIL[p] for p in seats)
    for row in paused.values():  # the notice alone: nothing can be decided while paused, news wait for the resume
        assert row.purpose == "pause" and row.headers.get("decision") is None and row.picture_id is None
        assert row.body.startswith("GAME PAUSED") and BOARD[kind] not in row.body
    assert kept_news(table) == news
    start = len(table.outbox())
    gamemaster.resume(table.db, table.name, mail=MAIL, now=NOW)
    rows = rows_since(table, start)
    assert sorted(rows) == sorted(EMAIL[p] for p in seats)
    assert_one_mail_each(table, rows, seats, "resume", board, news, words="game resumed")


@pytest.mark.parametrize("board", [True, False], ids=["board-on", "board-off"])
@pytest.mark.parametrize("mode", MODES)
def test_undo_tells_every_seat_told_of_the_move_once(tmp_path: Path, kind: str, mode: str, board: bool) -> None:
    table = played(kind, sqlite_url(tmp_path), mode, board)
    seats = list(table.state().seating)
    news = kept_news(table)
    start = len(table.outbox())
    done = gamemaster.undo(table.db, table.name, mail=MAIL, now=NOW)
    rows = rows_since(table, start)
    assert sorted(rows) == sorted(EMAIL[p] for p in seats)  # ann's move was told to everyone
    assert done.mailed == len(rows)
    assert_one_mail_each(table, rows, seats, "undo", board, news, words=f"move {done.entry.version + 1} taken back")
    assert rows[EMAIL["ann"]].headers["decision"]  # the move taken back was ann's: she decides again


@pytest.mark.parametrize("board", [True, False], ids=["board-on", "board-off"])
@pytest.mark.parametrize("mode", MODES)
def test_replace_welcomes_the_new_player_and_tells_the_others_once(tmp_path: Path, kind: str, mode: str,
                                                                   board: bool) -> None:
    table = played(kind, sqlite_url(tmp_path), mode, board)
    news = kept_news(table)
    start = len(table.outbox())
    done = gamemaster.replace(table.db, table.name, "bob", "dan", "dan@example.org", mail=MAIL, now=NOW)
    rows = rows_since(table, start)
    seats = list(table.state().seating)
    assert sorted(rows) == sorted([*(f"{p}@example.org" for p in seats), EMAIL["bob"]])
    news["dan"] = []  # the news kept for bob are not the new player's: the welcome tells the position
    assert_one_mail_each(table, rows, seats, "replace", board, news,
                         words={p: "welcome, dan" if p == "dan" else "dan takes over from bob" for p in seats})
    welcome = rows["dan@example.org"]
    assert welcome.headers["reply_to"] == f"pbem+{done.token}@games.test" and f"TOKEN {done.token}" in welcome.body
    goodbye = rows[EMAIL["bob"]]
    assert goodbye.headers["reply_to"] is None and goodbye.picture_id is None and "no longer taken" in goodbye.body
    assert done.token not in goodbye.body and BOARD[kind] not in goodbye.body


@pytest.mark.parametrize("board", [True, False], ids=["board-on", "board-off"])
@pytest.mark.parametrize("mode", MODES)
def test_resend_sends_every_seat_one_mail_with_its_prompt(tmp_path: Path, kind: str, mode: str, board: bool) -> None:
    table = played(kind, sqlite_url(tmp_path), mode, board)
    seats = list(table.state().seating)
    news = kept_news(table)
    with table.db.transaction() as session:
        game = store.find_game(session, table.name)
        since = decision_since(session, game, store.load_state(session, game))
    start = len(table.outbox())
    done = gamemaster.resend(table.db, table.name, mail=MAIL, now=NOW)
    rows = rows_since(table, start)
    assert sorted(rows) == sorted(EMAIL[p] for p in seats)
    assert sorted(done.mails) == sorted((p, "prompt" if rows[EMAIL[p]].headers["decision"] else "report")
                                        for p in seats)
    assert_one_mail_each(table, rows, seats, "resend", board, news, since=since, words="sent again")



@pytest.mark.parametrize("purpose", ["resume", "undo", "replace"])
def test_board_off_keeps_the_board_out_of_every_notice(tmp_path: Path, kind: str, purpose: str) -> None:
    """The resume, undo and replace notices carry the board only to seats that take it (BOARD ON), as resend's
    report always did."""
    table = played(kind, sqlite_url(tmp_path), "every", False)
    start = len(table.outbox())
    if purpose == "resume":
        gamemaster.pause(table.db, table.name, mail=MAIL, now=NOW)
        gamemaster.resume(table.db, table.name, mail=MAIL, now=NOW)
    elif purpose == "undo":
        gamemaster.undo(table.db, table.name, mail=MAIL, now=NOW)
    else:
        gamemaster.replace(table.db, table.name, "cy" if kind == EME else "ann", "dan", "dan@example.org", mail=MAIL,
                           now=NOW)
    notices = [row for row in table.outbox()[start:] if row.purpose == purpose]
    assert notices and all(BOARD[kind] not in row.body and row.picture_id is None for row in notices)


def test_every_notice_on_both_databases(db_url: str) -> None:
    """Resume, undo, replace and resend in a row, each one mail per seat with its prompt (MAIL TURN, BOARD OFF)."""
    table = played(EME, db_url, "turn", False)
    try:
        for notice in ("resume", "undo", "replace", "resend"):
            news = {**{"dan": []}, **kept_news(table)}
            start = len(table.outbox())
            if notice == "resume":
                gamemaster.pause(table.db, table.name, mail=MAIL, now=NOW)
                start = len(table.outbox())
                gamemaster.resume(table.db, table.name, mail=MAIL, now=NOW)
            elif notice == "undo":
                gamemaster.undo(table.db, table.name, mail=MAIL, now=NOW)
            elif notice == "replace":
                gamemaster.replace(table.db, table.name, "bob", "dan", "dan@example.org", mail=MAIL, now=NOW)
            else:
                gamemaster.resend(table.db, table.name, mail=MAIL, now=NOW)
            rows = {r: row for r, row in rows_since(table, start).items() if r != EMAIL["bob"] or notice != "replace"}
            seats = list(table.state().seating)
            assert sorted(rows) == sorted(f"{p}@example.org" for p in seats), notice
            since = NOW
            if notice == "resend":
                with table.db.transaction() as session:
                    game = store.find_game(session, table.name)
                    since = decision_since(session, game, store.load_state(session, game))
            words = {"resume": "game resumed", "undo": "move 5 taken back", "resend": "sent again"}
            assert_one_mail_each(table, rows, seats, notice, False, news, since=since, words=words.get(
                notice) or {p: "welcome, dan" if p == "dan" else "dan takes over from bob" for p in seats})
    finally:
        table.db.dispose()
