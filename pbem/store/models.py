"""The table models, all in one module.

``games`` holds a game's setup (the seed included: replay starts there),
``seats`` its players in seating order, ``action_log`` every accepted action
with the state version it was made against (append-only; unique per game and
version, which is what keeps two writers from both appending), ``snapshots``
serialized states — a cache, never the truth.
"""
from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    UniqueConstraint,
)
from sqlalchemy import false as sa_false
from sqlmodel import Field, SQLModel

GAME_NAME_MAX = 64


def table_of(model: type[SQLModel]) -> Table:
    """The table SQLModel's metaclass made for ``model``: for the statements run on the table itself, where no
    mapped row is needed (for those run on every order, the ORM's machinery cost about twice the statement)."""
    table: Table = model.__table__  # type: ignore[attr-defined]  # made by SQLModel's metaclass, unseen by mypy
    return table


def new_row_values(row: SQLModel) -> dict[str, Any]:
    """``row``'s column values for an INSERT on its table (``table_of``), the id left to the database."""
    return {column.name: getattr(row, column.name) for column in table_of(type(row)).columns if column.name != "id"}


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """A timezone-aware UTC datetime (SQLite hands timestamps back naive: they are UTC)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


class GameStatus:
    ACTIVE = "active"
    FINISHED = "finished"


class GameRow(SQLModel, table=True):
    __tablename__ = "games"
    __table_args__ = (Index("ix_games_status_next_check", "status", "next_check"),)

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_column=Column(String(GAME_NAME_MAX), unique=True, nullable=False))
    setup: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    status: str = Field(default=GameStatus.ACTIVE, sa_column=Column(String(16), nullable=False))
    created: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))
    kind: str = Field(default="imperial2030",  # which game it is: a name of the registry pbem.games
                      sa_column=Column(String(40), nullable=False, server_default="imperial2030"))
    # The deadline tick's alarm (pbem.moderator.tick): the earliest moment it may have anything to do for this
    # game; NULL after any change, so that the next tick looks at the game and sets it again. Kept by
    # pbem.store.alarm (wake, and the far-future markers NEVER and PAUSED).
    next_check: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))


class SeatRow(SQLModel, table=True):
    __tablename__ = "seats"
    __table_args__ = (
        UniqueConstraint("game_id", "seat", name="uq_seats_game_seat"),
        UniqueConstraint("game_id", "name", name="uq_seats_game_name"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(sa_column=Column(Integer, ForeignKey("games.id", ondelete="CASCADE"), nullable=False))
    seat: int = Field(sa_column=Column(Integer, nullable=False))  # 0-based, clockwise
    name: str = Field(sa_column=Column(String(64), nullable=False))
    email: str = Field(default="", sa_column=Column(String(320), nullable=False))
    # the seat's mail language (LANGUAGE), None: the game's; here, not among the seat's mail preferences
    # (pbem.store.mailprefs), because a refusal is written in it while the move's transaction, which reads
    # none of those, holds the seat already
    language: str | None = Field(default=None, sa_column=Column(String(8), nullable=True))
    # Mail to the seat that bounced for good, in a row (pbem.moderator.inbound.bounces): a mail from the seat, or
    # a new player in it, starts the count again; at ``[limits] bounces_to_unreachable`` the seat is
    # ``unreachable``: its mail is held, not sent, and the stand-in or the deadline defaults play for it.
    bounces: int = Field(default=0, sa_column=Column(Integer, nullable=False, server_default="0"))
    unreachable: bool = Field(default=False, sa_column=Column(Boolean, nullable=False, server_default=sa_false()))


class ActionRow(SQLModel, table=True):
    __tablename__ = "action_log"
    __table_args__ = (UniqueConstraint("game_id", "version", name="uq_action_log_game_version"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(sa_column=Column(Integer, ForeignKey("games.id", ondelete="CASCADE"), nullable=False))
    version: int = Field(sa_column=Column(Integer, nullable=False))  # the state version it was made against
    player: str = Field(sa_column=Column(String(64), nullable=False))
    action: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    applied: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))


class SnapshotRow(SQLModel, table=True):
    __tablename__ = "snapshots"
    __table_args__ = (UniqueConstraint("game_id", "version", name="uq_snapshots_game_version"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(sa_column=Column(Integer, ForeignKey("games.id", ondelete="CASCADE"), nullable=False))
    version: int = Field(sa_column=Column(Integer, nullable=False))
    state: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    created: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))


def id_of(row: GameRow | SeatRow) -> int:
    """A stored row's primary key; rows are flushed before they are handed around, so it is always set."""
    if row.id is None:
        raise ValueError(f"{type(row).__name__} has not been stored yet")
    return row.id
