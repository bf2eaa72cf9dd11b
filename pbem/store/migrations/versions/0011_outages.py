"""pbem status names what is down: the outages a moderator process reports (the SMTP relay, the inbox).

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-28
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if "outages" not in set(sa.inspect(op.get_bind()).get_table_names()):  # adopted from the models already
        op.create_table(
            "outages",
            sa.Column("service", sa.String(length=32), nullable=False),
            sa.Column("since", sa.DateTime(timezone=True), nullable=False),
            sa.Column("seen", sa.DateTime(timezone=True), nullable=False),
            sa.Column("holder", sa.String(length=64), nullable=False),
            sa.Column("error", sa.Text(), nullable=False),
            sa.PrimaryKeyConstraint("service"),
        )


def downgrade() -> None:
    op.drop_table("outages")
