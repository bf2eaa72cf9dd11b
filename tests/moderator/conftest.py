"""The moderator's tests share a game of Eight-Minute Empire (``table``, unless a module sets its own), and
``game``: one game of each kind by mail, as (kind, table)."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.store import Database
from tests.emetable import EmeTable
from tests.mailflowkit import Table, config_for


@pytest.fixture
def table(db_url: str) -> Iterator[EmeTable]:
    """A three-player game of Eight-Minute Empire, on each database."""
    t = EmeTable(Database(db_url), config_for())
    t.create()
    yield t
    t.db.dispose()


@pytest.fixture(params=["imperial2030", "eight-minute-empire"])
def game(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, EmeTable]]:
    """A game by mail on SQLite, every seat on ``MAIL EVERY`` with the board: Imperial for two, EME for three."""
    kind = str(request.param)
    table = EmeTable(Database(f"sqlite:///{tmp_path / 'game.db'}"), config_for())
    if kind == "imperial2030":
        Table.create(table, players=2)
    else:
        table.create(players=3)
    yield kind, table
    table.db.dispose()
