"""Alembic's environment for pbem: the target is ``SQLModel.metadata`` with every pbem table registered.

Run programmatically by ``pbem.store.schema.upgrade`` (which passes an open
connection in ``config.attributes["connection"]``), or by the ``alembic``
command for writing new revisions::

    python -m pbem.store.migrate revision -m "what changes" --url sqlite:///./dev.db

On SQLite, migrations run in batch mode (copy-and-move tables), the only way
SQLite can alter most things in place. On PostgreSQL the whole upgrade runs in
one transaction under an advisory lock, so two processes opening a database at
the same time cannot both migrate it.
"""
from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine, text
from sqlmodel import SQLModel

import pbem.store.db  # registers every table on SQLModel.metadata

MIGRATION_LOCK = 0x7062656D  # "pbem": the advisory lock id taken while migrating on PostgreSQL

config = context.config
target_metadata = SQLModel.metadata


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )


def _run(connection: Connection) -> None:
    _configure(connection)
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": MIGRATION_LOCK})
        context.run_migrations()


def run_offline() -> None:
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=target_metadata,
                      literal_binds=True, dialect_opts={"paramstyle": "named"})
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise SystemExit("no database URL: pass --url (or set sqlalchemy.url)")
    engine = create_engine(pbem.store.db.normalise_url(url))
    try:
        with engine.begin() as conn:
            _run(conn)
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
