"""A seat's mail says "the board is unchanged" instead of showing it again: each seat remembers which board its
last mail showed (``seat_mail.board_seen``, a digest of the board's text, and ``board_seen_move``).

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-28
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("seat_mail")}
    if "board_seen" not in columns:  # a database adopted from the models has them already
        op.add_column("seat_mail", sa.Column("board_seen", sa.String(length=32), nullable=True))
    if "board_seen_move" not in columns:
        op.add_column("seat_mail", sa.Column("board_seen_move", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seat_mail") as batch:
        batch.drop_column("board_seen_move")
        batch.drop_column("board_seen")
