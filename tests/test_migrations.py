"""Schema migrations (Alembic): the migrated schema is exactly the models', on SQLite and PostgreSQL.

If this fails after a model changed, write a revision:
``python -m pbem.store.migrate revision -m "what changed"`` (see pbem/store/migrate.py).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from dbfixtures import db_url, postgres_url  # noqa: F401  (fixtures)
from sqlalchemy import create_engine, inspect, text
from sqlmodel import SQLModel

from engine.imperial2030.decisions import pending
from pbem.games.imperial2030.orders import legal_orders
from pbem.store import Database, find_game, list_games, schema
from pbem.store.models import GameRow, SeatRow

EXPECTED_TABLES = {
    "games", "seats", "action_log", "snapshots", "waiting_lines", "outbox", "game_settings", "seat_tokens",
    "inbound_messages", "mailbox_state", "sender_replies", "seat_mail", "observers", "seat_absence",
    "leases", "inbound_queue", "outages", "moves_to_tell",
}


def schema_diff(db: Database) -> list:
    with db.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return compare_metadata(context, SQLModel.metadata)


@pytest.mark.slow
def test_migrated_schema_equals_the_models(db_url: str) -> None:  # noqa: F811
    db = Database(db_url)
    try:
        assert set(SQLModel.metadata.tables) == EXPECTED_TABLES
        assert EXPECTED_TABLES <= set(inspect(db.engine).get_table_names())
        assert schema_diff(db) == []
        assert schema.current_revisions(db.engine) == schema.head_revisions()
    finally:
        db.dispose()


def test_opening_again_is_a_no_op_and_keeps_data(db_url: str) -> None:  # noqa: F811
    db = Database(db_url)
    with db.transaction() as session:
        session.add(GameRow(name="kept", setup={}))
    db.dispose()
    again = Database(db_url)
    try:
        with again.transaction() as session:
            assert find_game(session, "kept").name == "kept"
        assert schema.is_current(again.engine)
    finally:
        again.dispose()


def test_a_database_made_before_migrations_is_adopted(tmp_path: Path) -> None:
    """Tables created straight from the models (the old way), some missing: created, data kept, stamped."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = create_engine(url)
    old = [SQLModel.metadata.tables[name] for name in ("games", "seats", "action_log", "snapshots")]
    SQLModel.metadata.create_all(engine, tables=old)
    with engine.begin() as connection:
        connection.execute(text("INSERT INTO games (name, setup, status, created) "
                                "VALUES ('legacy', '{}', 'active', '2030-01-01 00:00:00')"))
    engine.dispose()
    db = Database(url)
    try:
        assert EXPECTED_TABLES <= set(inspect(db.engine).get_table_names())
        assert schema_diff(db) == []
        with db.transaction() as session:
            assert [g.name for g in list_games(session)] == ["legacy"]
    finally:
        db.dispose()


def test_downgrade_and_upgrade_again(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'down.db'}")
    try:
        schema.downgrade(db.engine, "base")
        assert set(inspect(db.engine).get_table_names()) <= {"alembic_version"}
        db.migrate()
        assert schema_diff(db) == []
        with db.transaction() as session:
            session.add(GameRow(name="g", setup={}))
            session.flush()
            session.add(SeatRow(game_id=1, seat=0, name="ann", email="ann@example.org"))
    finally:
        db.dispose()


def test_without_create_tables_nothing_is_touched(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'none.db'}", create_tables=False)
    try:
        assert inspect(db.engine).get_table_names() == []
        assert schema.current_revisions(db.engine) == ()
    finally:
        db.dispose()


def test_the_migrations_ship_inside_the_package() -> None:
    location = schema.SCRIPT_LOCATION
    assert location.is_dir() and location.parent == Path(schema.__file__).resolve().parent
    assert (location / "env.py").is_file() and (location / "script.py.mako").is_file()
    assert [p.name for p in sorted((location / "versions").glob("0*.py"))][0] == "0001_initial_schema.py"
    assert schema.head_revisions() == tuple(sorted(schema.script_directory().get_heads()))
    pyproject = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    assert "alembic" in pyproject and "script.py.mako" in pyproject


def test_postgres_migrates_under_a_lock_from_two_openers(postgres_url: str) -> None:  # noqa: F811
    """Two processes opening a fresh PostgreSQL database at once: one migrates, the other waits and finds it done."""
    import threading

    errors: list[BaseException] = []

    def open_it() -> None:
        try:
            Database(postgres_url).dispose()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    db = Database(postgres_url)
    try:
        assert schema_diff(db) == []
    finally:
        db.dispose()


@pytest.mark.parametrize("name", sorted(EXPECTED_TABLES))
def test_every_table_is_created_by_a_revision(name: str) -> None:
    sources = [path.read_text() for path in (schema.SCRIPT_LOCATION / "versions").glob("0*.py")]
    assert any(f'"{name}"' in source for source in sources)


def test_games_stored_before_kinds_become_imperial2030_and_play_on(db_url: str) -> None:  # noqa: F811
    """Revision 0003 adds games.kind: a database at 0002 with a game in it opens, migrates, and the game
    is an Imperial 2030 game that takes orders as before (SQLite and PostgreSQL)."""
    from pbem.moderator import Moderator

    db = Database(db_url)
    Moderator(db).create_game("old", [("ann", "ann@example.org"), ("bob", "bob@example.org")],
                              deal=[("russia", "ann")], seed=1)
    first = Moderator(db).state("old")
    player = pending(first)[0].player
    assert Moderator(db).submit("old", player, legal_orders(first, player)[0]).ok
    schema.downgrade(db.engine, "0002")
    assert "kind" not in {c["name"] for c in inspect(db.engine).get_columns("games")}
    db.dispose()
    reopened = Database(db_url)  # opening migrates to the newest revision
    try:
        moderator = Moderator(reopened)
        assert [(g.name, g.kind) for g in list_games_of(reopened)] == [("old", "imperial2030")]
        assert moderator.kind_of("old").name == "imperial2030" and moderator.state_json("old")["kind"] == "imperial2030"
        state = moderator.state("old")
        assert state.version == 1  # the move stored before replays
        decider = pending(state)[0].player
        assert moderator.submit("old", decider, legal_orders(state, decider)[0]).ok
        assert moderator.state("old").version == 2
    finally:
        reopened.dispose()


def list_games_of(db: Database) -> list:  # type: ignore[type-arg]
    with db.transaction() as session:
        return list_games(session)
