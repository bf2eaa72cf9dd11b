"""Seat tokens: the secret in each player's Reply-To address (ARCHITECTURE, "Identity and trust").

Only a hash is stored, so a leaked database does not let anyone play
another's nation; the token itself exists only in the mails sent to the seat.
Tokens are compared case-insensitively: some mail servers lowercase the
local part of an address.
"""
from __future__ import annotations

import hashlib
import secrets
from datetime import datetime

from sqlalchemy import Column, DateTime, ForeignKey, Integer, String, bindparam, func
from sqlmodel import Field, Session, SQLModel, col, select

from pbem.store.memo import game_rows, remember
from pbem.store.models import GameRow, SeatRow, id_of, table_of, utcnow

TOKEN_BYTES = 12


class SeatTokenRow(SQLModel, table=True):
    __tablename__ = "seat_tokens"

    id: int | None = Field(default=None, primary_key=True)
    seat_id: int = Field(sa_column=Column(Integer, ForeignKey("seats.id", ondelete="CASCADE"),
                                          nullable=False, unique=True))
    token_hash: str = Field(sa_column=Column(String(64), nullable=False, unique=True))
    created: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))


def hash_token(token: str) -> str:
    return hashlib.sha256(token.strip().lower().encode()).hexdigest()


def new_token() -> str:
    """A fresh token: lowercase letters and digits only, so it survives any mail server."""
    return secrets.token_hex(TOKEN_BYTES)


def issue_token(session: Session, seat: SeatRow) -> str:
    """Give the seat a new token (replacing any old one) and return it; only its hash is kept."""
    token = new_token()
    row = token_row(session, seat)
    if row is None:
        row = SeatTokenRow(seat_id=id_of(seat), token_hash=hash_token(token))
        session.add(row)
        remember(session, SeatTokenRow.__tablename__, seat.game_id, id_of(seat), row)
    else:
        row.token_hash = hash_token(token)
        row.created = utcnow()
        session.add(row)
    session.flush()
    return token


# Built once, with bound parameters: building a statement cost about as much as running it, and both run for
# every order.
_OF_GAME = select(SeatTokenRow).join(SeatRow, col(SeatRow.id) == col(SeatTokenRow.seat_id)).where(
    col(SeatRow.game_id) == bindparam("game"))
_SEAT_AND_GAME_BY_HASH = (select(SeatRow, GameRow).join(SeatTokenRow, col(SeatTokenRow.seat_id) == col(SeatRow.id))
                          .join(GameRow, col(GameRow.id) == col(SeatRow.game_id))
                          .where(col(SeatTokenRow.token_hash) == bindparam("hash")))


def token_row(session: Session, seat: SeatRow) -> SeatTokenRow | None:
    """The seat's token row; the game's rows are read together, once per transaction (``pbem.store.memo``)."""
    def read() -> list[tuple[int, SeatTokenRow]]:
        return [(row.seat_id, row) for row in session.exec(_OF_GAME, params={"game": seat.game_id})]

    return game_rows(session, SeatTokenRow.__tablename__, seat.game_id, read).get(id_of(seat))


def seat_for_token(session: Session, token: str) -> SeatRow | None:
    """The seat whose current token ``token`` is."""
    found = seat_and_game_for_token(session, token)
    return None if found is None else found[0]


def game_of_token(session: Session, token: str) -> int | None:
    """The game of the seat whose current token ``token`` is (where a receiver queues the mail), None for
    none; one column on the connection, not the rows through the ORM (this runs for every mail received)."""
    game: int | None = session.connection().execute(_GAME_BY_HASH, {"hash": hash_token(token)}).scalar()
    return game


_SEATS, _SEAT_TOKENS = table_of(SeatRow), table_of(SeatTokenRow)
_GAME_BY_HASH = (select(_SEATS.c.game_id).join(_SEAT_TOKENS, _SEAT_TOKENS.c.seat_id == _SEATS.c.id)
                 .where(_SEAT_TOKENS.c.token_hash == bindparam("hash")).limit(1))


def seat_and_game_for_token(session: Session, token: str) -> tuple[SeatRow, GameRow] | None:
    """The seat whose current token ``token`` is, and its game, in one query (this runs for every order)."""
    row = session.exec(_SEAT_AND_GAME_BY_HASH, params={"hash": hash_token(token)}).first()
    return None if row is None else (row[0], row[1])


def has_played(session: Session, address: str) -> bool:
    """Whether ``address`` holds a seat in some game (the moderator has good reason to write to it)."""
    address = address.strip().lower()
    return session.exec(select(SeatRow.id).where(func.lower(SeatRow.email) == address).limit(1)).first() is not None
