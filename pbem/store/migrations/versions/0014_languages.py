"""Mail in each seat's language: a seat's choice (``seats.language``, None: the game's) and the game's
default (``game_settings.language``, English for the games stored before).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-07
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "language" not in {c["name"] for c in inspector.get_columns("seats")}:  # adopted from the models
        op.add_column("seats", sa.Column("language", sa.String(length=8), nullable=True))
    if "language" not in {c["name"] for c in inspector.get_columns("game_settings")}:
        op.add_column("game_settings", sa.Column("language", sa.String(length=8), nullable=False,
                                                 server_default="en"))


def downgrade() -> None:
    with op.batch_alter_table("game_settings") as batch:
        batch.drop_column("language")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("language")
