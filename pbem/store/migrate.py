"""Writing new schema revisions, and the developer's command line for the schema.

The revisions themselves, and migrating a database to the newest when it
opens, are ``pbem.store.schema``'s (its docstring says how versions follow
them).

Writing a new revision after changing a model (``pbem/store/*.py``)::

    python -m pbem.store.migrate revision -m "add deadlines" --autogenerate

writes ``versions/NNNN_<slug>.py`` from the difference between a scratch
SQLite database at the newest revision and ``SQLModel.metadata``; read it,
fix what autogenerate cannot know (renames, data moves), set ``pbem.__version__``
to the new minor version, and run the tests: ``tests/store/test_migrations.py``
fails while the migrated schema and the models differ.

The command line also prints the newest revision (``heads``) and migrates a
database by opening it (``upgrade --url``).
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

from alembic import command
from sqlmodel import create_engine

from pbem.store.db import Database
from pbem.store.schema import SCRIPT_LOCATION, forget_revisions, head_revisions, on_connection, upgrade


def _next_number() -> str:
    numbers = [int(m.group(1)) for p in (SCRIPT_LOCATION / "versions").glob("*.py")
               if (m := re.match(r"^(\d{4})_", p.name))]
    return f"{max(numbers, default=0) + 1:04d}"


def new_revision(message: str, *, autogenerate: bool = True, url: str | None = None) -> Path:
    """Write a new revision file; with ``autogenerate`` from a scratch database at the newest revision."""
    number = _next_number()
    slug = re.sub(r"[^a-z0-9]+", "_", message.lower()).strip("_")[:40] or "change"
    with tempfile.TemporaryDirectory(prefix="pbem-revision-") as scratch:
        target = url or f"sqlite:///{Path(scratch) / 'scratch.db'}"
        engine = create_engine(target)
        try:
            upgrade(engine)
            with on_connection(engine, target) as config:
                script = command.revision(config, message=message, autogenerate=autogenerate,
                                          rev_id=number)
        finally:
            engine.dispose()
    assert script is not None and not isinstance(script, list)
    path = Path(script.path)
    final = path.with_name(f"{number}_{slug}.py")
    path.rename(final)
    forget_revisions()
    return final


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pbem.store.migrate",
                                     description="pbem schema migrations (Alembic)")
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("upgrade", help="migrate a database to the newest revision")
    up.add_argument("--url", required=True)
    rev = sub.add_parser("revision", help="write a new revision")
    rev.add_argument("-m", "--message", required=True)
    rev.add_argument("--empty", action="store_true", help="no autogenerate: an empty revision to fill in")
    sub.add_parser("heads", help="print the newest revision")
    args = parser.parse_args(argv)
    if args.command == "heads":
        print(" ".join(head_revisions()))
    elif args.command == "upgrade":
        Database(args.url).dispose()
    else:
        print(new_revision(args.message, autogenerate=not args.empty))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
