"""Bounces and who may write: a seat's hard bounces in a row and whether it is unreachable
(``seats.bounces``, ``seats.unreachable``), and a game's lists of addresses and domains that may, or may
not, write to it (``game_settings.allow``, ``game_settings.deny``; empty for the games stored before).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-07
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    seats = {c["name"] for c in inspector.get_columns("seats")}
    if "bounces" not in seats:  # adopted from the models
        op.add_column("seats", sa.Column("bounces", sa.Integer(), nullable=False, server_default="0"))
    if "unreachable" not in seats:
        op.add_column("seats", sa.Column("unreachable", sa.Boolean(), nullable=False, server_default=sa.false()))
    settings = {c["name"] for c in inspector.get_columns("game_settings")}
    for name in ("allow", "deny"):
        if name not in settings:
            op.add_column("game_settings", sa.Column(name, sa.JSON(), nullable=False, server_default="[]"))


def downgrade() -> None:
    with op.batch_alter_table("game_settings") as batch:
        batch.drop_column("deny")
        batch.drop_column("allow")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("unreachable")
        batch.drop_column("bounces")
