"""A game's masters by mail (issue 31): their addresses and hashed tokens (pbem.store.masters).

Revision ID: 0017
Revises: 0015
Create Date: 2026-12-07
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if "game_masters" in set(sa.inspect(op.get_bind()).get_table_names()):  # adopted from the models already
        return
    op.create_table(
        "game_masters",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("promoted_by", sa.String(length=320), nullable=False),
        sa.Column("added", sa.DateTime(timezone=True), nullable=False),
        sa.Column("left", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "email", name="uq_game_masters_game_email"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_index("ix_game_masters_game_id", "game_masters", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_game_masters_game_id", table_name="game_masters")
    op.drop_table("game_masters")
