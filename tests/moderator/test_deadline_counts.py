"""A monitor counts the moves the deadline tick makes for a player (``pbem_deadline_moves_total``): the passive
default and the stand-in apart, by game kind, once each, and only when the move was committed."""
from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest

from pbem import counters
from pbem.moderator.gamemaster import set_game
from pbem.moderator.tick import tick
from pbem.store import Database
from tests.emetable import EmeTable
from tests.mailflowkit import NOW, config_for

MODERATOR = "pbem@games.test"
KIND = "eight-minute-empire"


def moves(by: str) -> float:
    return counters.REGISTRY.get_sample_value("pbem_deadline_moves_total", {"kind": KIND, "by": by}) or 0.0


@pytest.fixture
def table(db_url: str) -> Iterator[EmeTable]:
    t = EmeTable(Database(db_url), config_for())
    t.create()
    yield t
    t.db.dispose()


def test_a_missed_bid_taken_by_its_default_is_counted_once(table: EmeTable) -> None:
    for player, coins in (("ann", 2), ("cy", 1)):
        table.send(player, f"BID {coins}")
    defaults, stand_ins = moves("default"), moves("stand_in")
    done = tick(table.db, NOW + timedelta(hours=49), moderator_address=MODERATOR)
    assert [item.player for item in done.defaults] == ["bob"]
    tick(table.db, NOW + timedelta(hours=49, minutes=1), moderator_address=MODERATOR)  # nothing more is due
    assert (moves("default") - defaults, moves("stand_in") - stand_ins) == (1, 0)


def test_a_bid_the_stand_in_makes_is_counted_as_the_stand_ins(table: EmeTable) -> None:
    set_game(table.db, table.name, ["absent=bot"])
    for player, coins in (("ann", 2), ("cy", 1)):
        table.send(player, f"BID {coins}")
    defaults, stand_ins = moves("default"), moves("stand_in")
    done = tick(table.db, NOW + timedelta(hours=49), moderator_address=MODERATOR)
    assert [item.player for item in done.defaults] == ["bob"]
    assert (moves("default") - defaults, moves("stand_in") - stand_ins) == (0, 1)
