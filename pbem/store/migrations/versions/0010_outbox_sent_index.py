"""Sending limits count the mail sent in the last hour and day: an index on the outbox by status and time sent.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-25
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if "ix_outbox_status_sent" not in {i["name"] for i in sa.inspect(op.get_bind()).get_indexes("outbox")}:
        op.create_index("ix_outbox_status_sent", "outbox", ["status", "sent"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_outbox_status_sent", table_name="outbox")
