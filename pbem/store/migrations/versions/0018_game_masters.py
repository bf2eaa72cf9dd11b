"""A game's masters by mail (issue 31): their addresses and hashed tokens (pbem.store.masters); when a game
master last gave the pending decisions more time (game_settings.extended_at, EXTEND).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-07
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "extended_at" not in {c["name"] for c in inspector.get_columns("game_settings")}:  # adopted from the models
        op.add_column("game_settings", sa.Column("extended_at", sa.DateTime(timezone=True), nullable=True))
    if "game_masters" in set(inspector.get_table_names()):
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
    with op.batch_alter_table("game_settings") as batch:
        batch.drop_column("extended_at")
