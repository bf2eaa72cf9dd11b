"""Games created by mail wait for their players; commands by mail wait for their sender's confirmation; seats
given up wait for a player to take them over (pbem.store.judge).

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-07
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    tables = set(sa.inspect(op.get_bind()).get_table_names())
    if "open_games" not in tables:  # adopted from the models already
        op.create_table(
            "open_games",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("name", sa.String(length=64), nullable=False),
            sa.Column("kind", sa.String(length=40), nullable=False),
            sa.Column("players", sa.Integer(), nullable=False),
            sa.Column("variants", sa.JSON(), nullable=False),
            sa.Column("creator", sa.String(length=320), nullable=False),
            sa.Column("min_on_time", sa.Integer(), nullable=True),
            sa.Column("created", sa.DateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("id"),
            sa.UniqueConstraint("name"),
        )
    if "open_joins" not in tables:
        op.create_table(
            "open_joins",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("open_game_id", sa.Integer(), nullable=False),
            sa.Column("name", sa.String(length=64), nullable=False),
            sa.Column("email", sa.String(length=320), nullable=False),
            sa.Column("joined", sa.DateTime(timezone=True), nullable=False),
            sa.ForeignKeyConstraint(["open_game_id"], ["open_games.id"], ondelete="CASCADE"),
            sa.PrimaryKeyConstraint("id"),
            sa.UniqueConstraint("open_game_id", "email", name="uq_open_joins_game_email"),
            sa.UniqueConstraint("open_game_id", "name", name="uq_open_joins_game_name"),
        )
    if "confirmations" not in tables:
        op.create_table(
            "confirmations",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("token_hash", sa.String(length=64), nullable=False),
            sa.Column("address", sa.String(length=320), nullable=False),
            sa.Column("action", sa.String(length=16), nullable=False),
            sa.Column("payload", sa.JSON(), nullable=False),
            sa.Column("created", sa.DateTime(timezone=True), nullable=False),
            sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
            sa.Column("used", sa.DateTime(timezone=True), nullable=True),
            sa.PrimaryKeyConstraint("id"),
            sa.UniqueConstraint("token_hash"),
        )
    if "vacant_seats" not in tables:
        op.create_table(
            "vacant_seats",
            sa.Column("seat_id", sa.Integer(), nullable=False),
            sa.Column("game_id", sa.Integer(), nullable=False),
            sa.Column("since", sa.DateTime(timezone=True), nullable=False),
            sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
            sa.ForeignKeyConstraint(["seat_id"], ["seats.id"], ondelete="CASCADE"),
            sa.PrimaryKeyConstraint("seat_id"),
        )
        op.create_index(op.f("ix_vacant_seats_game_id"), "vacant_seats", ["game_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_vacant_seats_game_id"), table_name="vacant_seats")
    op.drop_table("vacant_seats")
    op.drop_table("confirmations")
    op.drop_table("open_joins")
    op.drop_table("open_games")
