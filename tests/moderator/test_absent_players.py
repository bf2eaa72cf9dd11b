"""Absent players: the stand-in (absent = bot) plays a seat that never answers, every report says so, and the
game master is asked to replace the seat after absent_limit decisions in a row."""
from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from engine.eight_minute_empire.randomplay import random_move
from pbem.games import kind_of
from pbem.moderator.deadlines import game_deadlines
from pbem.moderator.gamemaster import set_game
from pbem.moderator.tick import tick
from pbem.store import Database, find_game, load_state
from pbem.store.absence import vacations_of
from tests.emetable import EMAIL, EmeTable
from tests.mailflowkit import NOW, config_for

KIND = kind_of("eight-minute-empire")
MODERATOR = "pbem@games.test"
GAME_MASTER = "gm@example.org"
NOTE = "the stand-in (the moderator's bot) played for bob"


@pytest.fixture
def table(db_url: str) -> Iterator[EmeTable]:
    t = EmeTable(Database(db_url), config_for())
    t.create()
    set_game(t.db, t.name, ["absent=bot", "absent_limit=3"])
    yield t
    t.db.dispose()


@pytest.mark.slow
def test_a_seat_that_never_answers_is_played_by_the_stand_in_and_the_game_ends(table: EmeTable) -> None:
    """bob sends nothing all game: each of his decisions expires and the stand-in takes it; ann and cy play."""
    rng = random.Random(3)
    clock = NOW
    stand_ins = 0
    while not table.eme().finished:
        state = table.eme()
        player, action = random_move(KIND.board, state, rng)  # type: ignore[attr-defined]
        if player != "bob":
            assert table.send(player, KIND.format_action(state, action)) in ("applied", "refused")
            continue
        clock += timedelta(hours=49)
        before = len(table.outbox())
        done = tick(table.db, clock, moderator_address=MODERATOR, game_master=GAME_MASTER)
        assert [item.player for item in done.defaults] == ["bob"], done
        stand_ins += 1
        told = [row for row in table.outbox()[before:] if NOTE in " ".join(row.body.split())]
        if table.eme().phase.value != "bid":  # a sealed bid is told to bob alone (R8-BID-1)
            assert {row.recipient for row in told} >= {EMAIL["ann"], EMAIL["cy"]} or table.eme().finished
    assert stand_ins >= 8  # a bid and every one of bob's turns


@pytest.mark.slow
def test_the_game_master_is_asked_once_to_replace_after_the_limit(table: EmeTable) -> None:
    for player, coins in (("ann", 2), ("cy", 1)):
        table.send(player, f"BID {coins}")
    clock = NOW + timedelta(hours=49)
    tick(table.db, clock, moderator_address=MODERATOR, game_master=GAME_MASTER)  # bob's bid by the stand-in
    rng = random.Random(1)
    asked = []
    for _ in range(60):
        state = table.eme()
        if state.finished:
            break
        if state.current == "bob":
            clock += timedelta(hours=49)
            tick(table.db, clock, moderator_address=MODERATOR, game_master=GAME_MASTER)
        else:
            player, action = random_move(KIND.board, state, rng)  # type: ignore[attr-defined]
            table.send(player, KIND.format_action(state, action))
        asked = [row for row in table.outbox() if row.recipient == GAME_MASTER and row.purpose == "replace"]
    assert len(asked) == 1 and "pbem replace g1 bob NEW" in asked[0].body



def test_a_vacation_longer_than_the_game_allows_is_refused_and_changes_nothing(table: EmeTable) -> None:
    far = (NOW + timedelta(days=30)).strftime("%Y-%m-%d")
    assert table.send("cy", f"VACATION UNTIL {far}\nBID 2") == "refused"
    (reply,) = [row for row in table.outbox() if row.recipient == EMAIL["cy"]][-1:]
    assert "this game allows at most 14 days away" in " ".join(reply.body.split())
    assert table.eme().bids == {}


def test_a_stretch_vacation_moves_the_players_deadlines_and_everyone_is_told(table: EmeTable) -> None:
    until = NOW + timedelta(days=5)
    before = len(table.outbox())
    assert table.send("cy", f"VACATION UNTIL {until:%Y-%m-%d}") == "query"
    notes = [row for row in table.outbox()[before:] if row.purpose == "vacation"]
    assert {row.recipient for row in notes} == {EMAIL["ann"], EMAIL["bob"]}
    assert all("the deadlines of cy's decisions wait" in " ".join(row.body.split()) for row in notes)
    with table.db.transaction() as session:
        game = find_game(session, table.name)
        due = {d.player: d.due for d in game_deadlines(session, game, load_state(session, game))}
    back = until.replace(hour=0) + timedelta(days=1)
    assert due["cy"] >= back + timedelta(hours=48) and due["ann"] < back


def test_a_vacation_until_a_day_is_told_as_the_end_of_that_day(table: EmeTable) -> None:
    """``VACATION UNTIL 2030-06-08`` is away all of that day: stored as the next midnight UTC, told as the day."""
    before = len(table.outbox())
    assert table.send("cy", "VACATION UNTIL 2030-06-08") == "query"
    told = [" ".join(row.body.split()) for row in table.outbox()[before:]]
    assert len(told) == 3 and all("until the end of 2030-06-08 (UTC)" in text for text in told)
    assert not any("2030-06-09" in text for text in told)
    with table.db.transaction() as session:
        assert vacations_of(session, find_game(session, table.name)) == {"cy": datetime(2030, 6, 9, tzinfo=UTC)}
    assert table.send("cy", "VACATION UNTIL 2030-06-08 18:30") == "query"
    assert "You are away until 2030-06-08 18:30 UTC" in " ".join(table.to("cy")[-1].body.split())


def test_a_bot_vacation_lets_the_stand_in_play_at_once(table: EmeTable) -> None:
    set_game(table.db, table.name, ["vacation=bot"])
    assert table.send("bob", f"VACATION UNTIL {NOW + timedelta(days=3):%Y-%m-%d}") == "query"
    soon = datetime.now(UTC) + timedelta(hours=1)  # the game's clock is the real one: long before any deadline
    done = tick(table.db, soon, moderator_address=MODERATOR)
    assert [(item.player, "vacation" in item.detail) for item in done.defaults] == [("bob", True)]
    assert "bob" in table.eme().bids
