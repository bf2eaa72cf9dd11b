"""A move's mail is written after the move has committed: the moves still to tell (``moves_to_tell``); a
board's picture is stored once (``pictures``), however many mails carry it (``outbox.picture_id``).

The pictures queued mails carried in ``outbox.picture`` move into ``pictures`` (one per game, version and
picture; its alt text was the mail's ``picture_alt``), and the column goes.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02
"""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


PICTURE_FK = "fk_outbox_picture_id_pictures"
OUTBOX = sa.table("outbox", sa.column("id", sa.Integer()), sa.column("game_id", sa.Integer()),
                  sa.column("version", sa.Integer()), sa.column("picture", sa.LargeBinary()),
                  sa.column("headers", sa.JSON()), sa.column("picture_id", sa.Integer()))
PICTURES = sa.table("pictures", sa.column("id", sa.Integer()), sa.column("game_id", sa.Integer()),
                    sa.column("version", sa.Integer()), sa.column("png", sa.LargeBinary()), sa.column("alt", sa.Text()),
                    sa.column("created", sa.DateTime(timezone=True)))


def upgrade() -> None:
    bind = op.get_bind()
    inspector = sa.inspect(bind)
    tables = set(inspector.get_table_names())
    if "moves_to_tell" not in tables:  # a database adopted from the models has these already
        op.create_table(
            "moves_to_tell",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("game_id", sa.Integer(), nullable=False),
            sa.Column("version_before", sa.Integer(), nullable=False),
            sa.Column("version_after", sa.Integer(), nullable=False),
            sa.Column("state_before", sa.JSON(), nullable=False),
            sa.Column("cause", sa.String(length=128), nullable=False),
            sa.Column("source", sa.String(length=16), nullable=False),
            sa.Column("player", sa.String(length=64), nullable=False),
            sa.Column("parts", sa.JSON(), nullable=False),
            sa.Column("reply", sa.JSON(), nullable=True),
            sa.Column("also_prompt", sa.JSON(), nullable=False),
            sa.Column("note", sa.JSON(), nullable=False),
            sa.Column("private", sa.JSON(), nullable=False),
            sa.Column("created", sa.DateTime(timezone=True), nullable=False),
            sa.Column("claimed_by", sa.String(length=64), server_default="", nullable=False),
            sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
            sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
            sa.PrimaryKeyConstraint("id"),
        )
        op.create_index("ix_moves_to_tell_game_id_id", "moves_to_tell", ["game_id", "id"], unique=False)
    if "pictures" not in tables:
        op.create_table(
            "pictures",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("game_id", sa.Integer(), nullable=True),
            sa.Column("version", sa.Integer(), nullable=False),
            sa.Column("png", sa.LargeBinary(), nullable=False),
            sa.Column("alt", sa.Text(), nullable=False),
            sa.Column("created", sa.DateTime(timezone=True), nullable=False),
            sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
            sa.PrimaryKeyConstraint("id"),
        )
    columns = {c["name"] for c in inspector.get_columns("outbox")}
    if "picture_id" not in columns:
        # On SQLite in batch mode (the outbox copied once, with the reference): nothing refers to the outbox, so
        # dropping the old copy cascades nowhere.
        with op.batch_alter_table("outbox") as batch:
            batch.add_column(sa.Column("picture_id", sa.Integer(), nullable=True))
            batch.create_foreign_key(PICTURE_FK, "pictures", ["picture_id"], ["id"], ondelete="SET NULL")
            batch.create_index("ix_outbox_picture_id", ["picture_id"], unique=False)
    if "picture" in columns:
        _move_pictures(bind)
        if bind.dialect.name == "sqlite":
            op.execute("ALTER TABLE outbox DROP COLUMN picture")
        else:
            op.drop_column("outbox", "picture")


def _move_pictures(bind: sa.Connection) -> None:
    """Each picture a mail carried, stored once per game, version and picture, and the mails refer to it."""
    stored: dict[tuple[int | None, int, bytes], int] = {}
    rows = bind.execute(sa.select(OUTBOX.c.id, OUTBOX.c.game_id, OUTBOX.c.version, OUTBOX.c.picture,
                                  OUTBOX.c.headers).where(OUTBOX.c.picture.is_not(None))).all()
    now = datetime.now(UTC)
    for row_id, game_id, version, png, headers in rows:
        key = (game_id, version, hashlib.sha256(png).digest())
        if key not in stored:
            alt = str((headers or {}).get("picture_alt") or "The board")
            stored[key] = bind.execute(sa.insert(PICTURES).values(game_id=game_id, version=version, png=png, alt=alt,
                                                                  created=now).returning(PICTURES.c.id)).scalar_one()
        bind.execute(sa.update(OUTBOX).where(OUTBOX.c.id == row_id).values(picture_id=stored[key]))


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        op.execute("ALTER TABLE outbox ADD COLUMN picture BLOB")
    else:
        op.add_column("outbox", sa.Column("picture", sa.LargeBinary(), nullable=True))
    bind.execute(sa.update(OUTBOX).values(picture=sa.select(PICTURES.c.png).where(PICTURES.c.id == OUTBOX.c.picture_id)
                                          .scalar_subquery()).where(OUTBOX.c.picture_id.is_not(None)))
    with op.batch_alter_table("outbox") as batch:  # (as in upgrade: nothing refers to the outbox)
        batch.drop_index("ix_outbox_picture_id")
        batch.drop_constraint(PICTURE_FK, type_="foreignkey")
        batch.drop_column("picture_id")
    op.drop_table("pictures")
    op.drop_index("ix_moves_to_tell_game_id_id", table_name="moves_to_tell")
    op.drop_table("moves_to_tell")
