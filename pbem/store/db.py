"""Opening a database by URL: SQLite (the embedded default) or PostgreSQL, nothing else to configure."""
from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import (
    ArgumentError,
    NoSuchModuleError,
    OperationalError,
    SQLAlchemyError,
)
from sqlmodel import Session, create_engine

from pbem.errors import StoreError
from pbem.privatefiles import create_private_file
from pbem.store import (  # noqa: F401  (register their tables)
    absence,
    inbound,
    inqueue,
    judge,
    leases,
    mailprefs,
    masters,
    models,
    moves,
    observers,
    outages,
    outbox,
    processes,
    settings,
    tokens,
    waiting,
)
from pbem.store.schema import upgrade


def normalise_url(url: str) -> URL:
    """Parse a database URL; a bare ``postgresql://`` uses psycopg 3, the driver we ship."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise StoreError(f"not a database URL: {safe_url(url)!r} (try sqlite:///./pbem.db "
                         "or postgresql+psycopg://user@host/dbname)") from None
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def safe_url(url: str | URL) -> str:
    """The URL with any password masked, fit for messages and logs."""
    try:
        return (url if isinstance(url, URL) else make_url(url)).render_as_string(hide_password=True)
    except ArgumentError:  # not a URL: repeat what was given, a password-looking part masked
        return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", str(url))


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class Database:
    """An SQLAlchemy engine for one URL, its schema migrated to the newest revision when opened.

    Sessions are handed out by ``session()`` / ``transaction()``; nothing here
    is global, so tests open as many databases as they like.
    """

    def __init__(self, url: str, *, create_tables: bool = True) -> None:
        self.url = normalise_url(url)
        kwargs: dict[str, object] = {}
        if self.url.get_backend_name() == "sqlite":
            kwargs["connect_args"] = {"timeout": 30}
            path = self.sqlite_path
            if path is not None and path.parent.is_dir():
                create_private_file(path)  # its outbox holds reply tokens: owner-only (pbem.privatefiles)
        try:
            self.engine: Engine = create_engine(self.url, **kwargs)
        except NoSuchModuleError:
            raise StoreError(f"no database driver for {self.url.drivername!r} "
                             "(PostgreSQL needs: pip install 'pbem[postgres]')") from None
        except (ArgumentError, ImportError) as exc:
            raise StoreError(f"cannot use database {safe_url(self.url)}: {_first_line(exc)}") from None
        if self.url.get_backend_name() == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        if create_tables:
            self.create_tables()

    def __repr__(self) -> str:
        return f"Database({safe_url(self.url)!r})"

    @property
    def sqlite_path(self) -> Path | None:
        """The file of an SQLite database (None for PostgreSQL and for an in-memory SQLite)."""
        if self.url.get_backend_name() != "sqlite" or self.url.database in (None, "", ":memory:"):
            return None
        return Path(self.url.database)

    @property
    def display_url(self) -> str:
        return safe_url(self.url)

    def create_tables(self) -> None:
        """Bring the schema to the newest migration (``alembic upgrade head``, see ``pbem.store.schema``)."""
        self.migrate()

    def migrate(self, revision: str = "head") -> None:
        try:
            upgrade(self.engine, revision)
        except OperationalError as exc:
            raise StoreError(f"cannot open database {self.display_url}: {_first_line(exc)}") from None
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot migrate the database {self.display_url}: {_first_line(exc)}") from None

    def session(self) -> Session:
        return Session(self.engine, expire_on_commit=False)

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """One session in one transaction: committed when the block ends, rolled back if it raises."""
        with self.session() as session:
            with session.begin():
                yield session

    @contextmanager
    def statements(self) -> Iterator[Connection]:
        """One connection in one transaction, for table-level statements that need no ORM session: committed
        when the block ends, rolled back if it raises. Why: the sender marks each mail sent in a transaction of
        its own (``pbem.daemon.sender``), and a session's machinery cost about what the UPDATE does."""
        with self.engine.begin() as connection:
            yield connection

    def dispose(self) -> None:
        self.engine.dispose()


def _sqlite_pragmas(dbapi_connection: Any, _record: object) -> None:
    """Foreign keys on; a file database in WAL mode.

    Why WAL: a commit appends its pages to one log instead of copying the old
    pages aside first (a move's commit took ~10 ms, now ~1), and readers (the
    game master's commands, other workers) no longer wait for the writer.
    ``synchronous`` stays FULL: a commit is on disk when it returns, which
    the inbound queue relies on before a mail leaves the inbox.
    """
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode")
    if cursor.fetchone()[0] != "memory":
        cursor.execute("PRAGMA journal_mode=WAL")
    cursor.close()
