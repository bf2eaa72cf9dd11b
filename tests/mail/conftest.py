"""The mail tests' ``game``: a game of each kind by mail, whose mails carry the board's picture."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.store import Database
from tests.mailflowkit import config_for
from tests.picturemail import KINDS, Game


@pytest.fixture(params=KINDS)
def game(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Game]:
    g = Game(Database(f"sqlite:///{tmp_path / 'picture.db'}"), config_for())
    g.start(request.param)
    yield g
    g.db.dispose()
