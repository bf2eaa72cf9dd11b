"""Absent players: each game's policy for a missed decision and for vacations, and per seat the
decisions the stand-in took and the seat's vacation.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SETTINGS = (
    ("absent", sa.String(length=8), "alert"),
    ("absent_limit", sa.Integer(), "3"),
    ("vacation", sa.String(length=8), "stretch"),
    ("vacation_cap_days", sa.Integer(), "14"),
)


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "seat_absence" not in inspector.get_table_names():  # a database adopted from the models has it already
        op.create_table(
            "seat_absence",
            sa.Column("seat_id", sa.Integer(), nullable=False),
            sa.Column("game_id", sa.Integer(), nullable=False),
            sa.Column("stand_in", sa.JSON(), nullable=False),
            sa.Column("replace_asked", sa.Boolean(), nullable=False),
            sa.Column("vacation_until", sa.DateTime(timezone=True), nullable=True),
            sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
            sa.ForeignKeyConstraint(["seat_id"], ["seats.id"], ondelete="CASCADE"),
            sa.PrimaryKeyConstraint("seat_id"),
        )
        op.create_index(op.f("ix_seat_absence_game_id"), "seat_absence", ["game_id"], unique=False)
    columns = {c["name"] for c in inspector.get_columns("game_settings")}
    for name, kind, default in SETTINGS:
        if name not in columns:
            op.add_column("game_settings", sa.Column(name, kind, nullable=False, server_default=default))


def downgrade() -> None:
    # As in 0002: never batch mode (SQLite would rebuild the table and cascade deletes); drop in place.
    op.drop_index(op.f("ix_seat_absence_game_id"), table_name="seat_absence")
    op.drop_table("seat_absence")
    for name, _, _ in reversed(SETTINGS):
        if op.get_bind().dialect.name == "sqlite":
            op.execute(f"ALTER TABLE game_settings DROP COLUMN {name}")
        else:
            op.drop_column("game_settings", name)
