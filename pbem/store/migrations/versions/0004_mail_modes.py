"""Mail modes: each seat's choice of how much mail it gets (and its news kept for the next digest),
and each game's defaults for them.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-25
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "seat_mail" not in inspector.get_table_names():  # a database adopted from the models has it already
        op.create_table(
            "seat_mail",
            sa.Column("seat_id", sa.Integer(), nullable=False),
            sa.Column("game_id", sa.Integer(), nullable=False),
            sa.Column("mode", sa.String(length=8), nullable=True),
            sa.Column("board", sa.Boolean(), nullable=True),
            sa.Column("news", sa.JSON(), nullable=False),
            sa.Column("news_since", sa.DateTime(timezone=True), nullable=True),
            sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
            sa.ForeignKeyConstraint(["seat_id"], ["seats.id"], ondelete="CASCADE"),
            sa.PrimaryKeyConstraint("seat_id"),
        )
        op.create_index(op.f("ix_seat_mail_game_id"), "seat_mail", ["game_id"], unique=False)
    columns = {c["name"] for c in inspector.get_columns("game_settings")}
    if "mail_default" not in columns:
        op.add_column("game_settings", sa.Column("mail_default", sa.String(length=8), nullable=False,
                                                 server_default="every"))
    if "board_default" not in columns:
        op.add_column("game_settings", sa.Column("board_default", sa.Boolean(), nullable=False,
                                                 server_default=sa.true()))


def downgrade() -> None:
    # As in 0002: never batch mode (SQLite would rebuild the table and cascade deletes); drop in place.
    op.drop_index(op.f("ix_seat_mail_game_id"), table_name="seat_mail")
    op.drop_table("seat_mail")
    for column in ("board_default", "mail_default"):
        if op.get_bind().dialect.name == "sqlite":
            op.execute(f"ALTER TABLE game_settings DROP COLUMN {column}")
        else:
            op.drop_column("game_settings", column)
