"""The deadline clock's restart kept with the game's settings, not read from the mail queued.

``undo``, ``replace`` and ``resume`` restart the deadlines of a game. The time
was read from the notices they queued; a game without mail queues none, so the
restart is stored in ``game_settings.clock_reset`` (older games keep being
read from their notices too).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-24
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if "clock_reset" in {c["name"] for c in sa.inspect(op.get_bind()).get_columns("game_settings")}:
        return  # a database adopted from the models (revision 0001) has it already
    op.add_column("game_settings", sa.Column("clock_reset", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    # Never batch mode here: SQLite would rebuild the table, and dropping the old one deletes, by
    # ON DELETE CASCADE, every row that refers to it (seats, the action log ...). SQLite >= 3.35
    # drops a column in place.
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE game_settings DROP COLUMN clock_reset")
    else:
        op.drop_column("game_settings", "clock_reset")
