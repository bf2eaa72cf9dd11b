"""Moves whose mail is still to be written: the queue between applying a move and telling it.

Why a table: a move is applied in one short transaction (the log, the
snapshot, the inbound message's key) and its mail is written after that
commit, in a transaction of its own (``pbem.moderator.notify.telling``), so
that composing every seat's mail and drawing the board never hold up the
next move. What the mail needs beyond the log is written here in the move's
own transaction: a crash between the two loses nothing, and the row is
deleted in the transaction that writes the mail, so nothing is told twice.

A row holds the position before the move (its JSON: the log tells the
actions, and the position after them and what they did are replayed from
it), the tag that makes the mails' Message-IDs (``cause``), where the move
came from (``source``: a player's mail, ``force``, a deadline's default, the
stand-in, ``pbem order``), whose orders they were, the words only the
sender's reply carries (refusal, answers, notes, press confirmation), the
threading of the player's mail that the reply answers, the players to prompt
besides, and the note and private lines of a move no player mailed.

``claimed_by`` and ``claimed_until`` say which process applied the move and
until when it may be left to it to tell it: the one that applied a move
tells it right after its commit, and any process tells the rows whose claim
has run out or whose process has died (``pbem.holders.gone``).
"""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    bindparam,
    delete,
    exists,
    func,
    insert,
    or_,
    update,
)
from sqlmodel import Field, Session, SQLModel, col, select

from pbem.store.models import GameRow, as_utc, new_row_values, table_of, utcnow

CLAIM = 60.0  # seconds the process that applied a move has to tell it before another process may


class Source:
    """Where a move came from (``moves_to_tell.source``)."""

    MAIL = "mail"
    FORCE = "force"
    ORDER = "order"
    DEADLINE = "deadline"
    STAND_IN = "stand-in"


class MoveToTellRow(SQLModel, table=True):
    __tablename__ = "moves_to_tell"
    __table_args__ = (Index("ix_moves_to_tell_game_id_id", "game_id", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(sa_column=Column(Integer, ForeignKey("games.id", ondelete="CASCADE"), nullable=False))
    version_before: int = Field(sa_column=Column(Integer, nullable=False))
    version_after: int = Field(sa_column=Column(Integer, nullable=False))
    state_before: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))  # the game's own JSON
    cause: str = Field(sa_column=Column(String(128), nullable=False))  # in the Message-IDs of the move's mail
    source: str = Field(sa_column=Column(String(16), nullable=False))  # Source
    player: str = Field(sa_column=Column(String(64), nullable=False))  # whose orders
    parts: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))  # the sender's reply
    reply: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))  # its threading
    also_prompt: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    note: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    private: dict[str, list[str]] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))
    claimed_by: str = Field(default="", sa_column=Column(String(64), nullable=False, server_default=""))
    claimed_until: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))


def add_move(session: Session, row: MoveToTellRow, holder: str, now: datetime) -> None:
    """Record a move to tell in the move's transaction, claimed by ``holder`` (who tells it after the commit).
    One INSERT on the table: the row stays the caller's, with its id, and is not kept in the session."""
    row.claimed_by = holder[:64]
    row.claimed_until = now + timedelta(seconds=CLAIM)
    row.id = int(session.execute(_ADD, new_row_values(row)).scalar_one())


def first_move(session: Session, game_id: int, *, lock: bool = False) -> int | None:
    """The id of the game's move told next (moves are told in the order they were applied). ``lock`` (on
    PostgreSQL): lock it for this transaction, waiting while another transaction tells it; None then when it
    was told meanwhile (the next is not looked for: ask again)."""
    found = session.execute(_FIRST_LOCKED if lock else _FIRST, {"game": game_id}).first()
    return int(found[0]) if found is not None else None


def move_of(session: Session, row_id: int) -> tuple[MoveToTellRow, GameRow] | None:
    """A move to tell, with its game; None when it is gone (told)."""
    found = session.exec(select(MoveToTellRow, GameRow).join(GameRow, col(GameRow.id) == col(MoveToTellRow.game_id))
                         .where(col(MoveToTellRow.id) == row_id)).first()
    return (found[0], found[1]) if found is not None else None


def more_moves(session: Session, game_id: int) -> bool:
    """Whether the game has a move to tell (asked in the transaction that told one, after its writes)."""
    return session.execute(_FIRST, {"game": game_id}).first() is not None


def told(session: Session, row_id: int, *, first: bool = False) -> bool:
    """Delete a move told, in the transaction that wrote its mail; False when it was gone (told by another), or,
    with ``first``, when an older move of its game waits (it must be told first)."""
    result = session.execute(_TOLD_IF_FIRST if first else _TOLD, {"id": row_id})
    return bool(result.rowcount)  # type: ignore[attr-defined]  # a CursorResult at run time


# On the table, not the mapped class: these run for every move, and the mapped class's machinery cost more than
# the statements (as the outbox's sender found).
_MOVES = table_of(MoveToTellRow)
_ADD = insert(_MOVES).returning(_MOVES.c.id)  # built once: building it cost about what running it does
_FIRST = select(_MOVES.c.id).where(_MOVES.c.game_id == bindparam("game")).order_by(_MOVES.c.id).limit(1)
_FIRST_LOCKED = _FIRST.with_for_update()
_TOLD = delete(_MOVES).where(_MOVES.c.id == bindparam("id"))
_OLDER = _MOVES.alias("older")
_TOLD_IF_FIRST = _TOLD.where(~exists().where(_OLDER.c.game_id == _MOVES.c.game_id, _OLDER.c.id < _MOVES.c.id))


def left_over(session: Session, now: datetime, gone: Callable[[str], bool]) -> list[int]:
    """The games with a move to tell that nobody is telling: its claim ran out, or its process is ``gone``."""
    rows = session.exec(select(MoveToTellRow.game_id, MoveToTellRow.claimed_by, MoveToTellRow.claimed_until)
                        .order_by(col(MoveToTellRow.id))).all()
    games: list[int] = []
    now = as_utc(now)
    for game_id, holder, until in rows:
        free = until is None or as_utc(until) <= now or not holder or gone(holder)
        if free and game_id not in games:
            games.append(game_id)
    return games


def to_tell(session: Session) -> int:
    """How many moves wait for their mail to be written (``pbem status``)."""
    return int(session.exec(select(func.count(col(MoveToTellRow.id)))).one())


def forget_claims(session: Session, gone: Callable[[str], bool]) -> int:
    """The moves claimed by processes that are ``gone`` may be told by anyone at once; how many."""
    rows = session.exec(select(MoveToTellRow.id, MoveToTellRow.claimed_by)
                        .where(or_(col(MoveToTellRow.claimed_by) != "",
                                   col(MoveToTellRow.claimed_until).is_not(None)))).all()
    dead = [row_id for row_id, holder in rows if gone(holder)]
    if dead:
        session.execute(update(MoveToTellRow).where(col(MoveToTellRow.id).in_(dead))
                        .values(claimed_by="", claimed_until=None))
    return len(dead)
