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
    with op.batch_alter_table("game_settings") as batch:
        batch.add_column(sa.Column("clock_reset", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("game_settings") as batch:
        batch.drop_column("clock_reset")
