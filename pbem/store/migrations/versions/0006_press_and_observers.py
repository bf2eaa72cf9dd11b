"""Press and observers: each game's press setting (none, signed, anonymous) and the observers of games.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-27
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "observers" not in inspector.get_table_names():  # a database adopted from the models has it already
        op.create_table(
            "observers",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("game_id", sa.Integer(), nullable=False),
            sa.Column("email", sa.String(length=320), nullable=False),
            sa.Column("token_hash", sa.String(length=64), nullable=False),
            sa.Column("added", sa.DateTime(timezone=True), nullable=False),
            sa.Column("left", sa.DateTime(timezone=True), nullable=True),
            sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
            sa.PrimaryKeyConstraint("id"),
            sa.UniqueConstraint("game_id", "email", name="uq_observers_game_email"),
            sa.UniqueConstraint("token_hash"),
        )
        op.create_index(op.f("ix_observers_game_id"), "observers", ["game_id"], unique=False)
    if "press" not in {c["name"] for c in inspector.get_columns("game_settings")}:
        op.add_column("game_settings", sa.Column("press", sa.String(length=9), nullable=False,
                                                 server_default="signed"))


def downgrade() -> None:
    # As in 0002: never batch mode (SQLite would rebuild the table and cascade deletes); drop in place.
    op.drop_index(op.f("ix_observers_game_id"), table_name="observers")
    op.drop_table("observers")
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE game_settings DROP COLUMN press")
    else:
        op.drop_column("game_settings", "press")
