"""pbem status sees every moderator process: each writes a heartbeat row (pbem.store.processes).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-07
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if "processes" not in set(sa.inspect(op.get_bind()).get_table_names()):  # adopted from the models already
        op.create_table(
            "processes",
            sa.Column("name", sa.String(length=64), nullable=False),
            sa.Column("role", sa.String(length=16), nullable=False),
            sa.Column("host", sa.String(length=64), nullable=False),
            sa.Column("pid", sa.Integer(), nullable=False),
            sa.Column("version", sa.String(length=32), nullable=False),
            sa.Column("started", sa.DateTime(timezone=True), nullable=False),
            sa.Column("seen", sa.DateTime(timezone=True), nullable=False),
            sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
            sa.Column("doing", sa.String(length=200), nullable=False),
            sa.PrimaryKeyConstraint("name"),
        )


def downgrade() -> None:
    op.drop_table("processes")
