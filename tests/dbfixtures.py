"""Databases for the store, moderator and CLI tests: SQLite in a temporary directory and PostgreSQL.

PostgreSQL runs on 127.0.0.1:5432 with trust auth on our machines (override
the server with PBEM_TEST_POSTGRES_URL). Every test gets a fresh database made
with CREATE DATABASE and dropped afterwards. When the server cannot be
reached the PostgreSQL tests are skipped, saying why, except under CI=true,
where they fail: CI must prove the PostgreSQL path.
"""
from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NoReturn

import pytest

ADMIN_URL = os.environ.get("PBEM_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def _unreachable(reason: str) -> NoReturn:
    if os.environ.get("CI") == "true":
        pytest.fail(f"PostgreSQL is required under CI=true but unusable at {ADMIN_URL}: {reason}")
    pytest.skip(f"PostgreSQL not reachable at {ADMIN_URL} ({reason}); set CI=true to make this a failure")


def _admin_engine(unreachable: Callable[[str], NoReturn] = _unreachable):  # type: ignore[no-untyped-def]
    try:
        import psycopg  # noqa: F401
    except ImportError:
        unreachable("psycopg is not installed: pip install -e '.[postgres]'")
    from sqlalchemy import create_engine

    return create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 3})


def fresh_postgres_url(prefix: str = "pbem_test", unreachable: Callable[[str], NoReturn] = _unreachable) -> Iterator[str]:
    """Create a uniquely named database, yield its URL, drop it afterwards (whatever is still connected).

    ``unreachable`` is told why when the server cannot be used, and must raise
    (the tests skip or fail; ``benchmarks/scale.py`` exits).
    """
    from sqlalchemy import text
    from sqlalchemy.exc import OperationalError

    admin = _admin_engine(unreachable)
    name = f"{prefix}_{uuid.uuid4().hex[:16]}"
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    except OperationalError as exc:
        admin.dispose()
        unreachable(str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc))
    try:
        yield admin.url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def sqlite_url(directory: Path) -> str:
    return f"sqlite:///{directory / 'pbem.db'}"


@pytest.fixture
def postgres_url() -> Iterator[str]:
    yield from fresh_postgres_url()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Each test using it runs on SQLite and on PostgreSQL."""
    if request.param == "sqlite":
        yield sqlite_url(tmp_path)
    else:
        yield from fresh_postgres_url()
