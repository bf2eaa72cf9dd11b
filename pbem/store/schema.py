"""The schema's revisions with Alembic: every database is brought to the newest when it is opened.

Games run for months; the schema will change under them. A deployed database
(SQLite or PostgreSQL) is therefore never recreated but migrated in place by
the revisions in ``pbem/store/migrations/versions`` (they ship inside the
package, so an installed pbem migrates without any files of the source tree).

``Database`` calls :func:`upgrade` when it opens (``Database(url)``; pass
``create_tables=False`` to skip it). A database already at the newest
revision costs one query. On PostgreSQL the upgrade runs in one transaction
under an advisory lock, so two processes starting together migrate once.

A database made before migrations existed (tables created straight from the
models, no ``alembic_version`` table) is adopted: the first revision creates
only the tables it lacks, then the database is at that revision like any other.

A database at a revision this pbem has no file for was migrated by a newer
pbem (a rollback of the package, a host not upgraded yet): :func:`upgrade`
refuses it before anything is written (``SchemaTooNew``, one line naming
both versions), so every command that opens the database says so.

Versions follow the schema: pbem's version is ``0.N.P`` where ``N`` is the
number of the newest revision here (``0010`` is pbem 0.10) and ``P`` counts
the releases without a schema change. So a new revision comes with a new
minor version (``tests/store/test_schema_versions.py`` fails until it does), the
version alone tells a host whether an upgrade migrates the database (and a
rollback needs the backup taken before it), and a revision unknown here
names the pbem that wrote it (:func:`release_of`).

Writing a new revision, and the developer's command line
(``python -m pbem.store.migrate``), are ``pbem.store.migrate``'s: they open
a ``Database``, which builds on this module.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError

from pbem import __version__
from pbem.errors import SchemaTooNew

SCRIPT_LOCATION = Path(__file__).resolve().parent / "migrations"

_lock = threading.Lock()
_migrating = threading.Lock()  # Alembic's ``context`` is process-global: one migration at a time per process
_heads: tuple[str, ...] | None = None
_known: frozenset[str] | None = None


def alembic_config(url: str | None = None) -> Config:
    """An Alembic ``Config`` pointing at the packaged migrations (no alembic.ini needed)."""
    config = Config()
    config.set_main_option("script_location", str(SCRIPT_LOCATION))
    config.set_main_option("version_path_separator", "os")
    if url:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


@contextmanager
def on_connection(engine: Engine, url: str | None = None) -> Iterator[Config]:
    """An Alembic ``Config`` whose ``env.py`` runs on one connection of ``engine``, in one transaction.

    One at a time per process: Alembic's ``context`` is process-global.
    """
    config = alembic_config(url)
    with _migrating, engine.begin() as connection:
        config.attributes["connection"] = connection
        yield config


def forget_revisions() -> None:
    """Read the revision files again at the next question (a new one was just written)."""
    global _heads, _known
    with _lock:
        _heads = _known = None


def script_directory() -> ScriptDirectory:
    return ScriptDirectory.from_config(alembic_config())


def head_revisions() -> tuple[str, ...]:
    """The newest revision(s) of the packaged migrations (read once per process)."""
    global _heads
    with _lock:
        if _heads is None:
            _heads = tuple(sorted(script_directory().get_heads()))
        return _heads


def known_revisions() -> frozenset[str]:
    """Every revision of the packaged migrations (read once per process)."""
    global _known
    with _lock:
        if _known is None:
            _known = frozenset(script.revision for script in script_directory().walk_revisions())
        return _known


def release_of(revision: str) -> str | None:
    """The pbem release (``major.minor``) whose newest schema revision is ``revision``; None when it is no number."""
    return f"0.{int(revision)}" if revision.isdigit() else None


def refuse_newer(revisions: tuple[str, ...] | list[str], where: str,
                 advice: str = "upgrade pbem, or restore the backup taken before the upgrade") -> None:
    """Raise ``SchemaTooNew`` when ``where`` is at a revision this pbem has no file for (a newer pbem's).

    One line naming the pbem that wrote it, this pbem, and ``advice``.
    """
    unknown = sorted(set(revisions) - known_revisions())
    if not unknown:
        return
    revision = unknown[-1]
    release = release_of(revision)
    writer = f"pbem {release}, schema revision {revision}" if release else f"schema revision {revision}"
    raise SchemaTooNew(f"{where} was migrated by a newer pbem ({writer}); this is pbem {__version__} "
                       f"(schema revision {', '.join(head_revisions())}), which cannot use it: {advice}")


def current_revisions(engine: Engine) -> tuple[str, ...]:
    """The revision(s) the database is at; empty for a database never migrated."""
    with engine.connect() as connection:
        return tuple(sorted(MigrationContext.configure(connection).get_current_heads()))


def is_current(engine: Engine) -> bool:
    return current_revisions(engine) == head_revisions()


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Migrate the database of ``engine`` to ``revision`` (the newest by default), in place.

    Raises ``SchemaTooNew`` when a newer pbem migrated it (nothing is
    written), ``SQLAlchemyError`` when the database cannot be reached or a
    revision fails; a failure because another process migrated at the same
    moment (SQLite has no lock for it) is retried once.
    """
    current = current_revisions(engine)
    if revision == "head" and current == head_revisions():
        return
    refuse_newer(current, f"the database {engine.url.render_as_string(hide_password=True)}")
    for attempt in range(2):
        try:
            _run_upgrade(engine, revision)
            return
        except SQLAlchemyError:
            if attempt == 0 and revision == "head" and not is_current(engine):
                continue  # e.g. "table already exists": someone else was migrating; look again
            if revision == "head" and is_current(engine):
                return
            raise


def _run_upgrade(engine: Engine, revision: str) -> None:
    with on_connection(engine) as config:
        command.upgrade(config, revision)


def downgrade(engine: Engine, revision: str) -> None:
    with on_connection(engine) as config:
        command.downgrade(config, revision)
