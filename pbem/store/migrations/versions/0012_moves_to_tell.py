"""A move's mail is written after the move has committed: the moves still to tell (``moves_to_tell``).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if "moves_to_tell" not in set(sa.inspect(op.get_bind()).get_table_names()):  # adopted from the models already
        op.create_table(
            "moves_to_tell",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("game_id", sa.Integer(), nullable=False),
            sa.Column("version_before", sa.Integer(), nullable=False),
            sa.Column("version_after", sa.Integer(), nullable=False),
            sa.Column("state_before", sa.JSON(), nullable=False),
            sa.Column("cause", sa.String(length=128), nullable=False),
            sa.Column("source", sa.String(length=16), nullable=False),
            sa.Column("player", sa.String(length=64), nullable=False),
            sa.Column("parts", sa.JSON(), nullable=False),
            sa.Column("reply", sa.JSON(), nullable=True),
            sa.Column("also_prompt", sa.JSON(), nullable=False),
            sa.Column("note", sa.JSON(), nullable=False),
            sa.Column("private", sa.JSON(), nullable=False),
            sa.Column("created", sa.DateTime(timezone=True), nullable=False),
            sa.Column("claimed_by", sa.String(length=64), server_default="", nullable=False),
            sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
            sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
            sa.PrimaryKeyConstraint("id"),
        )
        op.create_index("ix_moves_to_tell_game_id_id", "moves_to_tell", ["game_id", "id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_moves_to_tell_game_id_id", table_name="moves_to_tell")
    op.drop_table("moves_to_tell")
