"""Several workers on one database: outbox claims, leases, the inbound queue, and the indexes the hot
queries need.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEXES = (
    ("ix_outbox_status_next_attempt", "outbox", ["status", "next_attempt"]),
    ("ix_outbox_game_purpose", "outbox", ["game_id", "purpose"]),
    ("ix_outbox_game_recipient", "outbox", ["game_id", "recipient"]),
    ("ix_inbound_messages_game_id", "inbound_messages", ["game_id"]),
)


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    tables = set(inspector.get_table_names())
    if "claimed_by" not in {c["name"] for c in inspector.get_columns("outbox")}:
        op.add_column("outbox", sa.Column("claimed_by", sa.String(length=64), nullable=False, server_default=""))
    for name, table, columns in INDEXES:
        if name not in {i["name"] for i in inspector.get_indexes(table)}:
            op.create_index(name, table, columns, unique=False)
    if "leases" not in tables:  # a database adopted from the models has these already
        op.create_table(
            "leases",
            sa.Column("name", sa.String(length=128), nullable=False),
            sa.Column("holder", sa.String(length=64), nullable=False),
            sa.Column("until", sa.DateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("name"),
        )
    if "inbound_queue" not in tables:
        op.create_table(
            "inbound_queue",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("message_key", sa.String(length=255), nullable=False),
            sa.Column("route", sa.String(length=400), nullable=False),
            sa.Column("raw", sa.LargeBinary(), nullable=False),
            sa.Column("source", sa.String(length=16), nullable=False),
            sa.Column("mailbox", sa.String(length=255), nullable=False),
            sa.Column("uidvalidity", sa.BigInteger(), nullable=False),
            sa.Column("uid", sa.BigInteger(), nullable=False),
            sa.Column("status", sa.String(length=16), nullable=False),
            sa.Column("claimed_by", sa.String(length=64), nullable=False),
            sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
            sa.Column("attempts", sa.Integer(), nullable=False),
            sa.Column("last_error", sa.Text(), nullable=False),
            sa.Column("received", sa.DateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("id"),
            sa.UniqueConstraint("message_key", name="uq_inbound_queue_message_key"),
        )
        op.create_index("ix_inbound_queue_status_id", "inbound_queue", ["status", "id"], unique=False)
        op.create_index("ix_inbound_queue_route_id", "inbound_queue", ["route", "id"], unique=False)


def downgrade() -> None:
    # As in 0002: never batch mode (SQLite would rebuild the table and cascade deletes); drop in place.
    op.drop_index("ix_inbound_queue_route_id", table_name="inbound_queue")
    op.drop_index("ix_inbound_queue_status_id", table_name="inbound_queue")
    op.drop_table("inbound_queue")
    op.drop_table("leases")
    for name, table, _ in reversed(INDEXES):
        op.drop_index(name, table_name=table)
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE outbox DROP COLUMN claimed_by")
    else:
        op.drop_column("outbox", "claimed_by")
