"""What a finished game keeps for good (issue 29: at most 1 MB of database per finished game): measured on a copy
with every sent mail's text forgotten, the database itself untouched."""
from __future__ import annotations

from pathlib import Path

from pbem.store import Database
from pbem.store.outbox import FORGOTTEN, OutboxStatus
from pbem.store.weight import bytes_once_forgotten
from tests.emetable import EmeTable
from tests.mailflowkit import NOW, config_for


def test_the_weight_once_forgotten_is_measured_on_a_copy_and_is_less(tmp_path: Path) -> None:
    path = tmp_path / "game.db"
    table = EmeTable(Database(f"sqlite:///{path}"), config_for())
    table.create()
    for _ in range(20):  # a few kilobytes of sent mail, so that forgetting it shows
        table.send("ann", "HISTORY ALL")
    with table.db.transaction() as session:
        for row in table.outbox():
            row.status, row.sent = OutboxStatus.SENT, NOW
            session.add(row)
    bodies = [row.body for row in table.outbox()]
    table.db.dispose()
    on_disk = sum(p.stat().st_size for p in tmp_path.glob("game.db*"))
    kept = bytes_once_forgotten(path)
    assert 0 < kept < on_disk
    again = EmeTable(Database(f"sqlite:///{path}"), config_for())
    assert [row.body for row in again.outbox()] == bodies and FORGOTTEN not in bodies
    again.db.dispose()
