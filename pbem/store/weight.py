"""What a SQLite database weighs for a game once its sent mail has lost its texts.

``pbem demo`` prints it beside the bytes on disk. A demo's game ends within
minutes, so its sent mail still has its texts, which are nearly all of the
file; a real game's mail loses them after ``[limits] keep_sent_mail_days``
(``pbem.store.outbox.forget_sent_texts``), and what a finished game then
keeps for good is this figure. It is measured, not estimated: on a copy
(the online backup), every sent mail forgotten, the file vacuumed.
"""
from __future__ import annotations

import sqlite3
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from pbem.store.backup import backup_sqlite
from pbem.store.db import Database
from pbem.store.outbox import forget_sent_texts

BATCH = 5000


def bytes_once_forgotten(path: Path) -> int:
    """The size of the SQLite database at ``path`` once every sent mail keeps only its envelope, vacuumed."""
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "weighed.db"
        backup_sqlite(path, copy)
        db = Database(f"sqlite:///{copy}")
        try:
            later = datetime.now(UTC).replace(year=datetime.now(UTC).year + 100)
            while True:
                with db.transaction() as session:
                    if not forget_sent_texts(session, later, BATCH):
                        break
        finally:
            db.dispose()
        connection = sqlite3.connect(copy)
        try:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            connection.execute("PRAGMA journal_mode=DELETE")
            connection.execute("VACUUM")
        finally:
            connection.close()
        return copy.stat().st_size
