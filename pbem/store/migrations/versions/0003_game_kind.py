"""Each game records which game it is (its kind), so that one moderator can serve several games.

Games stored before kinds existed are Imperial 2030 games.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if "kind" in {c["name"] for c in sa.inspect(op.get_bind()).get_columns("games")}:
        return  # a database adopted from the models (revision 0001) has it already
    op.add_column("games", sa.Column("kind", sa.String(length=40), nullable=False, server_default="imperial2030"))


def downgrade() -> None:
    # Never batch mode here: SQLite would rebuild the table, and dropping the old one deletes, by
    # ON DELETE CASCADE, every row that refers to it (seats, the action log ...). SQLite >= 3.35
    # drops a column in place.
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE games DROP COLUMN kind")
    else:
        op.drop_column("games", "kind")
