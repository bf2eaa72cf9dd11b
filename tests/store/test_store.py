"""The store: games, seats, the append-only action log and snapshots, on SQLite and PostgreSQL.

The truth of a game is its setup plus its log; a snapshot is a cache that must
always equal the replay. Appending is safe against two writers: the unique
(game, version) constraint refuses the second, which changes nothing.
"""
from __future__ import annotations

import random

import pytest
from sqlmodel import select

from engine.imperial2030.actions import ChooseSpace, Donate, Pass
from engine.imperial2030.game import LogEntry, apply, replay
from engine.imperial2030.mapfile import default_board
from engine.imperial2030.model import GameSetup, GameState, Seat, Variant
from engine.imperial2030.randomplay import random_move
from engine.imperial2030.serialize import setup_to_json, state_to_json
from engine.imperial2030.setup import new_game
from pbem.errors import ConcurrentUpdate, GameExists, GameNotFound, StoreError
from pbem.store import (
    ActionRow,
    Database,
    SnapshotRow,
    append_actions,
    create_game,
    find_game,
    game_setup,
    latest_snapshot,
    list_games,
    load_log,
    load_state,
    log_length,
    normalise_url,
    replay_game,
    safe_url,
    save_snapshot,
    seats,
)
from pbem.store import games as store_games

BOARD = default_board()
SETUP = GameSetup(
    players=(Seat("ann", "ann@example.org"), Seat("bob", "bob@example.org"), Seat("cy", "cy@example.org")),
    seed=20300,
    variants=frozenset({Variant.TAX_INCREASE_BONUS}),
    deal=(("russia", "ann"),),
)


def random_log(setup: GameSetup, count: int, seed: int = 7) -> tuple[list[LogEntry], GameState]:
    """``count`` random legal actions from the start of ``setup``, as log entries."""
    state, _ = new_game(BOARD, setup)
    rng = random.Random(seed)
    entries = []
    for _ in range(count):
        if state.finished:
            break
        player, action = random_move(state, rng)
        entries.append(LogEntry(player, action, state.version))
        state, _ = apply(state, player, action)
    return entries, state


def stored_game(db: Database, entries: list[LogEntry], *, name: str = "g1", batch: int = 10) -> None:
    """Create the game and append ``entries`` in transactions of ``batch`` entries, snapshotting each time."""
    state, _ = new_game(BOARD, SETUP)
    with db.transaction() as session:
        game = create_game(session, name, SETUP)
        save_snapshot(session, game, state)
    for start in range(0, len(entries), batch):
        chunk = entries[start:start + batch]
        with db.transaction() as session:
            game = find_game(session, name)
            append_actions(session, game, chunk)
            state = load_state(session, game)
            save_snapshot(session, game, state)


def state_data(state: GameState) -> dict:
    return state_to_json(state)


# --- round trip -----------------------------------------------------------------------------


def test_round_trip_setup_seats_and_log(db_url: str) -> None:
    entries, final = random_log(SETUP, 60)
    db = Database(db_url)
    stored_game(db, entries)
    db.dispose()

    again = Database(db_url)  # a fresh engine: nothing cached in memory
    with again.transaction() as session:
        game = find_game(session, "g1")
        assert game_setup(game) == SETUP
        assert game.setup == setup_to_json(SETUP)
        assert [(s.seat, s.name, s.email) for s in seats(session, game)] == [
            (0, "ann", "ann@example.org"), (1, "bob", "bob@example.org"), (2, "cy", "cy@example.org")]
        assert load_log(session, game) == entries
        assert log_length(session, game) == len(entries)
        assert state_data(load_state(session, game)) == state_data(final)
        info = list_games(session)
        assert [(g.name, g.status, g.version, g.players) for g in info] == [
            ("g1", "active", len(entries), ("ann", "bob", "cy"))]
    again.dispose()


def test_replay_equals_stored_snapshot(db_url: str) -> None:
    entries, final = random_log(SETUP, 45, seed=3)
    db = Database(db_url)
    stored_game(db, entries, batch=7)
    with db.transaction() as session:
        game = find_game(session, "g1")
        snapshot = latest_snapshot(session, game)
        assert snapshot is not None and snapshot.version == len(entries)
        replayed = replay(BOARD, game_setup(game), load_log(session, game))
        assert snapshot.state == state_to_json(replayed)
        assert state_data(replay_game(session, game)) == state_data(final)
        # only the latest snapshot is kept
        assert len(session.exec(select(SnapshotRow).where(SnapshotRow.game_id == game.id)).all()) == 1
    db.dispose()


def test_load_state_continues_from_an_older_snapshot(tmp_path) -> None:
    entries, final = random_log(SETUP, 30, seed=11)
    db = Database(f"sqlite:///{tmp_path / 'p.db'}")
    stored_game(db, entries[:10], batch=10)
    with db.transaction() as session:  # append without refreshing the snapshot
        game = find_game(session, "g1")
        append_actions(session, game, entries[10:])
    with db.transaction() as session:
        game = find_game(session, "g1")
        assert latest_snapshot(session, game).version == 10
        assert state_data(load_state(session, game)) == state_data(final)


def test_a_broken_snapshot_is_ignored(tmp_path) -> None:
    """A snapshot is a cache, never the truth: garbage or a wrong version falls back to the replay."""
    entries, final = random_log(SETUP, 20, seed=5)
    db = Database(f"sqlite:///{tmp_path / 'p.db'}")
    stored_game(db, entries)
    for bad in ({"nonsense": True}, dict(state_to_json(final), version=3)):
        with db.transaction() as session:
            snapshot = latest_snapshot(session, find_game(session, "g1"))
            snapshot.state = bad
            session.add(snapshot)
        with db.transaction() as session:
            assert state_data(load_state(session, find_game(session, "g1"))) == state_data(final)


def test_a_log_that_does_not_replay_is_a_store_error(tmp_path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'p.db'}")
    stored_game(db, [])
    with db.transaction() as session:
        game = find_game(session, "g1")
        session.add(ActionRow(game_id=game.id, version=0, player="cy", action={"type": "pass"}))
    with db.transaction() as session, pytest.raises(StoreError, match="does not replay"):
        replay_game(session, find_game(session, "g1"))


# --- two writers ---------------------------------------------------------------------------------


def test_duplicate_version_is_refused_and_changes_nothing(db_url: str) -> None:
    db = Database(db_url)
    stored_game(db, [])
    state, _ = new_game(BOARD, SETUP)
    gov = state.nations["russia"].government
    first = LogEntry(gov, ChooseSpace("investor"), 0)
    with db.transaction() as session:
        append_actions(session, find_game(session, "g1"), [first])
    # a second writer that also read version 0
    with pytest.raises(ConcurrentUpdate, match="nothing was written"):
        with db.transaction() as session:
            append_actions(session, find_game(session, "g1"), [LogEntry(gov, ChooseSpace("taxation"), 0)])
    with db.transaction() as session:
        assert load_log(session, find_game(session, "g1")) == [first]
    db.dispose()


def test_unique_constraint_refuses_a_racing_writer(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Even when the writer's own check passes (it read the log before the other committed),
    the database's unique (game, version) refuses it, and its whole transaction is rolled back."""
    db = Database(db_url)
    stored_game(db, [])
    state, _ = new_game(BOARD, SETUP)
    gov = state.nations["russia"].government
    first = LogEntry(gov, ChooseSpace("investor"), 0)
    with db.transaction() as session:
        append_actions(session, find_game(session, "g1"), [first])
    monkeypatch.setattr(store_games, "log_length", lambda session, game: 0)  # the stale read
    with pytest.raises(ConcurrentUpdate, match="another writer appended version 0"):
        with db.transaction() as session:
            game = find_game(session, "g1")
            session.add(SnapshotRow(game_id=game.id, version=99, state={}))  # same transaction
            append_actions(session, game, [LogEntry(gov, ChooseSpace("taxation"), 0), LogEntry(gov, Pass(), 1)])
    monkeypatch.undo()
    with db.transaction() as session:
        game = find_game(session, "g1")
        assert load_log(session, game) == [first]
        assert latest_snapshot(session, game).version == 0  # the snapshot of the refused transaction is gone
    db.dispose()


def test_entries_must_continue_the_log(tmp_path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'p.db'}")
    stored_game(db, [])
    with pytest.raises(ConcurrentUpdate, match="log is at version 0"):
        with db.transaction() as session:
            append_actions(session, find_game(session, "g1"), [LogEntry("ann", Donate("russia", 1), 5)])


# --- games ------------------------------------------------------------------------------------------


def test_game_names_are_unique_and_looked_up(db_url: str) -> None:
    db = Database(db_url)
    stored_game(db, [])
    with pytest.raises(GameExists):
        with db.transaction() as session:
            create_game(session, "g1", SETUP)
    with pytest.raises(GameNotFound, match="no game named 'g2'; games: g1"):
        with db.transaction() as session:
            find_game(session, "g2")
    db.dispose()


def test_unknown_game_in_an_empty_database(tmp_path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'p.db'}")
    with pytest.raises(GameNotFound, match="there are no games yet"), db.transaction() as session:
        find_game(session, "nope")


# --- URLs -----------------------------------------------------------------------------------------


def test_urls_select_the_database() -> None:
    assert normalise_url("postgresql://u@h/db").drivername == "postgresql+psycopg"
    assert normalise_url("postgres://u@h/db").drivername == "postgresql+psycopg"
    assert normalise_url("postgresql+psycopg://u@h/db").drivername == "postgresql+psycopg"
    assert normalise_url("sqlite:///x.db").drivername == "sqlite"
    assert "secret" not in safe_url("postgresql+psycopg://u:secret@h/db")
    unopened = Database("postgresql://u:secret@h/db", create_tables=False)
    assert "secret" not in repr(unopened) and "secret" not in unopened.display_url


def test_bad_urls_are_clear_errors(tmp_path) -> None:
    with pytest.raises(StoreError, match="not a database URL"):
        Database("no such thing")
    with pytest.raises(StoreError, match="no database driver"):
        Database("oracle+nosuchdriver://u@h/db")
    with pytest.raises(StoreError, match="cannot open database"):
        Database(f"sqlite:///{tmp_path / 'missing-dir' / 'x.db'}")


def test_unreachable_postgres_does_not_print_the_password() -> None:
    with pytest.raises(StoreError) as info:
        Database("postgresql+psycopg://pbem:s3cret-pw@127.0.0.1:1/nodb?connect_timeout=2")
    assert "s3cret-pw" not in str(info.value)
    assert "127.0.0.1" in str(info.value)


def test_postgres_fixture_is_a_real_server(postgres_url: str) -> None:
    """The PostgreSQL leg runs against the server, in a database of its own."""
    db = Database(postgres_url)
    assert db.url.get_backend_name() == "postgresql"
    with db.transaction() as session:
        assert list_games(session) == []
    db.dispose()
