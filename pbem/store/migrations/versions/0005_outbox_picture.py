"""The outbox keeps the picture of the board a mail shows (PNG bytes), drawn when the mail was composed.

Rows queued before have none: they go out as plain text, as they were meant to.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-26
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if "picture" in {c["name"] for c in sa.inspect(op.get_bind()).get_columns("outbox")}:
        return  # a database adopted from the models (revision 0001) has it already
    op.add_column("outbox", sa.Column("picture", sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    # As in 0002: never batch mode (SQLite would rebuild the table and cascade deletes); drop in place.
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE outbox DROP COLUMN picture")
    else:
        op.drop_column("outbox", "picture")
