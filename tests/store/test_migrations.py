"""Schema migrations (Alembic): the migrated schema is exactly the models', on SQLite and PostgreSQL.

If this fails after a model changed, write a revision:
``python -m pbem.store.migrate revision -m "what changed"`` (see pbem/store/migrate.py).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text
from sqlmodel import SQLModel, col, select

from engine.imperial2030.decisions import pending
from pbem.daemon.sender import outgoing_mail
from pbem.games.imperial2030.orders import legal_orders
from pbem.mail import build_message
from pbem.moderator import Moderator
from pbem.store import Database, find_game, list_games, schema
from pbem.store.models import GameRow, SeatRow
from pbem.store.outbox import OutboxRow, pictures_of

EXPECTED_TABLES = {
    "games", "seats", "action_log", "snapshots", "waiting_lines", "outbox", "game_settings", "seat_tokens",
    "inbound_messages", "mailbox_state", "sender_replies", "seat_mail", "observers", "seat_absence",
    "leases", "inbound_queue", "outages", "moves_to_tell", "pictures", "processes", "game_masters",
    "open_games", "open_joins", "confirmations", "vacant_seats",
}


def schema_diff(db: Database) -> list:
    with db.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return compare_metadata(context, SQLModel.metadata)


@pytest.mark.slow
def test_migrated_schema_equals_the_models(db_url: str) -> None:
    db = Database(db_url)
    try:
        assert set(SQLModel.metadata.tables) == EXPECTED_TABLES
        assert EXPECTED_TABLES <= set(inspect(db.engine).get_table_names())
        assert schema_diff(db) == []
        assert schema.current_revisions(db.engine) == schema.head_revisions()
    finally:
        db.dispose()


def test_opening_again_is_a_no_op_and_keeps_data(db_url: str) -> None:
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
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert "alembic" in pyproject and "script.py.mako" in pyproject


def test_postgres_migrates_under_a_lock_from_two_openers(postgres_url: str) -> None:
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


def test_games_stored_before_kinds_become_imperial2030_and_play_on(db_url: str) -> None:
    """Revision 0003 adds games.kind: a database at 0002 with a game in it opens, migrates, and the game
    is an Imperial 2030 game that takes orders as before (SQLite and PostgreSQL)."""
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
        assert moderator.kind_of("old").info.name == "imperial2030" and moderator.state_json("old")["kind"] == "imperial2030"
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


def test_pictures_queued_before_0012_move_into_pictures_and_still_go_with_their_mail(db_url: str) -> None:
    """Revision 0012 stores a board's picture once: the pictures that queued mails carried themselves move into
    ``pictures`` (one per game, version and picture, with the mail's alt text), the mails refer to them, and
    the sender builds the same mail as before; downgrading puts each picture back into its mail."""
    db = Database(db_url)
    try:
        schema.downgrade(db.engine, "0011")
        board, other = b"\x89PNG one board", b"\x89PNG another"
        with db.engine.begin() as connection:
            connection.execute(text("INSERT INTO games (name, setup, status, created, kind) "
                                    "VALUES ('g', '{}', 'active', '2030-01-01 00:00:00', 'imperial2030')"))
            game = connection.execute(text("SELECT id FROM games")).scalar_one()
            for n, (png, version) in enumerate([(board, 3), (board, 3), (board, 3), (other, 4), (None, 4)]):
                headers = json.dumps({"picture_alt": f"The board after move {version}", "picture_line": 2,
                                      "from": "pbem@games.test"} if png else {"from": "pbem@games.test"})
                connection.execute(text(
                    "INSERT INTO outbox (game_id, version, recipient, purpose, message_id, subject, body, headers, "
                    "status, attempts, next_attempt, last_error, created, picture, claimed_by) VALUES (:game, "
                    ":version, :to, 'report', :id, 's', 'text', :headers, 'queued', 0, '2030-01-01 00:00:00', '', "
                    "'2030-01-01 00:00:00', :png, '')"),
                    {"game": game, "version": version, "to": f"p{n}@example.org", "id": f"<m{n}@games.test>",
                     "headers": headers, "png": png})
        db.migrate()
        assert schema_diff(db) == []
        with db.transaction() as session:
            rows = list(session.exec(select(OutboxRow).order_by(col(OutboxRow.id))).all())
            stored = pictures_of(session, {row.picture_id for row in rows if row.picture_id is not None})
        assert len(stored) == 2 and rows[4].picture_id is None
        assert rows[0].picture_id == rows[1].picture_id == rows[2].picture_id != rows[3].picture_id
        first, fourth = stored[rows[0].picture_id or 0], stored[rows[3].picture_id or 0]
        assert (first.png, first.alt) == (board, "The board after move 3") and fourth.png == other
        mail = outgoing_mail(rows[0], picture=first)
        assert mail.picture is not None and mail.picture.png == board and mail.picture.line == 2
        assert b"one board" not in bytes(build_message(outgoing_mail(rows[4])))
        schema.downgrade(db.engine, "0011")
        with db.engine.begin() as connection:
            back = connection.execute(text("SELECT picture FROM outbox ORDER BY id")).scalars().all()
        assert [bytes(png) if png is not None else None for png in back] == [board, board, board, other, None]
        db.migrate()
    finally:
        db.dispose()
