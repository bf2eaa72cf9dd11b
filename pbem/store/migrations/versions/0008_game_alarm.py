"""The deadline tick's alarm: per game, the earliest moment the tick may have something to do.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-25
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    columns = {c["name"] for c in inspector.get_columns("games")}
    if "next_check" not in columns:  # NULL: look at the game at the next tick
        op.add_column("games", sa.Column("next_check", sa.DateTime(timezone=True), nullable=True))
    indexes = {i["name"] for i in inspector.get_indexes("games")}
    if "ix_games_status_next_check" not in indexes:
        op.create_index("ix_games_status_next_check", "games", ["status", "next_check"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_games_status_next_check", table_name="games")
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE games DROP COLUMN next_check")
    else:
        op.drop_column("games", "next_check")
