"""The moderator's tests share a game of Eight-Minute Empire: ``table``, unless a module sets its own."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from pbem.store import Database
from tests.emetable import EmeTable
from tests.mailflowkit import config_for


@pytest.fixture
def table(db_url: str) -> Iterator[EmeTable]:
    """A three-player game of Eight-Minute Empire, on each database."""
    t = EmeTable(Database(db_url), config_for())
    t.create()
    yield t
    t.db.dispose()
