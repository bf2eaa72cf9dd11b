"""Games that wait for players, and the one-time confirmations that mail by strangers needs (issue 31).

A game in ``games`` always has every seat (its state is the replay of a setup
naming them), so a game created by mail with open seats lives here until it is
full: ``open_games`` holds what its creator chose, ``open_joins`` the players
who confirmed a seat; when the last seat is taken the real game is created
(``pbem.moderator.gamemaster.newgame``) and the open game's row goes.

A command that takes a seat (``JOIN``) is only done once the address it came
from answers a confirmation mail (double opt-in, as mailing lists do): anyone
can write any From. The confirmation's token (``confirmations``) is random
(128 bits), kept only as a hash, bound to the address that asked, used once and
expires: a guess, a second answer, or an answer from another address does
nothing.

A seat whose player gives it up (``RESIGN``) is marked in ``vacant_seats`` until somebody takes it over.
"""
from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import JSON, Column, DateTime, ForeignKey, Integer, String, UniqueConstraint, delete, func
from sqlmodel import Field, Session, SQLModel, col, select

from pbem.store.absence import SeatAbsenceRow
from pbem.store.models import GAME_NAME_MAX, ActionRow, GameRow, SeatRow, as_utc, id_of, utcnow

CONFIRMATION_BYTES = 16  # 128 bits: never guessed within any budget of mail
CONFIRMATION_HOURS = 48


class OpenGameRow(SQLModel, table=True):
    """A game created by mail that waits for its players (its name is taken: no game may have it)."""

    __tablename__ = "open_games"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_column=Column(String(GAME_NAME_MAX), unique=True, nullable=False))
    kind: str = Field(sa_column=Column(String(40), nullable=False))
    players: int = Field(sa_column=Column(Integer, nullable=False))  # the seats: the game starts when all are taken
    variants: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    creator: str = Field(sa_column=Column(String(320), nullable=False))  # never shown to anyone but the host
    # the entry requirement: the on-time record (per cent, :func:`on_time_record`) a player needs to JOIN
    min_on_time: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))
    created: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))


class OpenJoinRow(SQLModel, table=True):
    """A player who confirmed a seat of an open game (by name; the address only to mail them)."""

    __tablename__ = "open_joins"
    __table_args__ = (UniqueConstraint("open_game_id", "email", name="uq_open_joins_game_email"),
                      UniqueConstraint("open_game_id", "name", name="uq_open_joins_game_name"))

    id: int | None = Field(default=None, primary_key=True)
    open_game_id: int = Field(sa_column=Column(Integer, ForeignKey("open_games.id", ondelete="CASCADE"),
                                               nullable=False))
    name: str = Field(sa_column=Column(String(64), nullable=False))
    email: str = Field(sa_column=Column(String(320), nullable=False))
    joined: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))


class ConfirmationRow(SQLModel, table=True):
    """A command waiting for its sender's confirmation: what to do, for whom, until when."""

    __tablename__ = "confirmations"

    id: int | None = Field(default=None, primary_key=True)
    token_hash: str = Field(sa_column=Column(String(64), nullable=False, unique=True))
    address: str = Field(sa_column=Column(String(320), nullable=False))  # lowercased: who asked, and may answer
    action: str = Field(sa_column=Column(String(16), nullable=False))  # "join"
    payload: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))
    expires: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    used: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))


class VacantSeatRow(SQLModel, table=True):
    """A seat its player gave up (``RESIGN`` by mail): anyone without a seat in the game may take it over
    (``TAKEOVER``); until then the player keeps it, and the game's deadlines and stand-in go on as for any seat."""

    __tablename__ = "vacant_seats"

    seat_id: int = Field(sa_column=Column(Integer, ForeignKey("seats.id", ondelete="CASCADE"), primary_key=True))
    game_id: int = Field(sa_column=Column(Integer, ForeignKey("games.id", ondelete="CASCADE"), nullable=False,
                                          index=True))
    since: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))


def _hash(token: str) -> str:
    return hashlib.sha256(token.strip().lower().encode()).hexdigest()


def ask_confirmation(session: Session, address: str, action: str, payload: dict[str, Any], now: datetime,
                     hours: float = CONFIRMATION_HOURS) -> str:
    """Store a command to confirm and return its token (lowercase hex, so a mail server's lowercasing is
    harmless); only the hash is kept."""
    token = secrets.token_hex(CONFIRMATION_BYTES)
    session.add(ConfirmationRow(token_hash=_hash(token), address=address.strip().lower(), action=action,
                                payload=payload, created=now, expires=now + timedelta(hours=hours)))
    session.flush()
    return token


def is_stale_confirmation(session: Session, token: str, sender: str) -> bool:
    """Whether ``token`` was a confirmation sent to ``sender`` that is used or expired (worth telling them so)."""
    row = session.exec(select(ConfirmationRow).where(col(ConfirmationRow.token_hash) == _hash(token))).first()
    return row is not None and row.address == sender.strip().lower()


def take_confirmation(session: Session, token: str, sender: str, now: datetime) -> ConfirmationRow | None:
    """The confirmation ``token`` answers, marked used, if it is unused, unexpired and ``sender`` is the address
    it was sent to; else None, and nothing changes (another address cannot spend it either)."""
    row = session.exec(select(ConfirmationRow).where(col(ConfirmationRow.token_hash) == _hash(token))).first()
    if row is None or row.used is not None or as_utc(row.expires) <= now or row.address != sender.strip().lower():
        return None
    row.used = now
    session.add(row)
    session.flush()
    return row


def open_game_named(session: Session, name: str) -> OpenGameRow | None:
    return session.exec(select(OpenGameRow).where(func.lower(OpenGameRow.name) == name.strip().lower())).first()


def open_games(session: Session) -> list[OpenGameRow]:
    return list(session.exec(select(OpenGameRow).order_by(col(OpenGameRow.name))))


def joins_of(session: Session, game: OpenGameRow) -> list[OpenJoinRow]:
    """The players of an open game, in the order they joined (their seating order)."""
    return list(session.exec(select(OpenJoinRow).where(col(OpenJoinRow.open_game_id) == game.id)
                             .order_by(col(OpenJoinRow.joined), col(OpenJoinRow.id))))


def joins_at(session: Session, address: str) -> list[OpenJoinRow]:
    """The seats ``address`` took in games still waiting for players."""
    return list(session.exec(select(OpenJoinRow).where(col(OpenJoinRow.email) == address.strip().lower())))


def create_open_game(session: Session, name: str, kind: str, players: int, variants: list[str],
                     creator: str, now: datetime, min_on_time: int | None = None) -> OpenGameRow:
    row = OpenGameRow(name=name, kind=kind, players=players, variants=variants, creator=creator.strip().lower(),
                      created=now, min_on_time=min_on_time)
    session.add(row)
    session.flush()
    return row


def add_join(session: Session, game: OpenGameRow, name: str, email: str, now: datetime) -> OpenJoinRow:
    assert game.id is not None
    row = OpenJoinRow(open_game_id=game.id, name=name, email=email.strip().lower(), joined=now)
    session.add(row)
    session.flush()
    return row


@dataclass(frozen=True)
class OnTime:
    """A player's on-time record over every game they hold a seat in (njudge's "dedication", simpler): of the
    decisions their seats took, how many they took themselves, before the deadline made the stand-in take
    them (``pbem.store.absence``). Counted by seat: a seat taken over brings its earlier decisions along."""

    own: int
    decisions: int

    @property
    def per_cent(self) -> int | None:
        """Rounded down; None before any decision (a newcomer has no record)."""
        return self.own * 100 // self.decisions if self.decisions else None


def on_time_record(session: Session, address: str) -> OnTime:
    address = address.strip().lower()
    held = list(session.exec(select(SeatRow).where(func.lower(SeatRow.email) == address)))
    decisions = stood_in = 0
    for seat in held:
        decisions += session.exec(select(func.count(col(ActionRow.id))).where(
            col(ActionRow.game_id) == seat.game_id, col(ActionRow.player) == seat.name)).one()
        absent = session.get(SeatAbsenceRow, id_of(seat))
        stood_in += len(absent.stand_in) if absent is not None else 0
    return OnTime(max(decisions - stood_in, 0), decisions)


def vacant_seats(session: Session, game: GameRow) -> list[SeatRow]:
    """The game's seats given up and not taken over yet, in seating order."""
    return list(session.exec(select(SeatRow).join(VacantSeatRow, col(VacantSeatRow.seat_id) == col(SeatRow.id))
                             .where(col(VacantSeatRow.game_id) == game.id).order_by(col(SeatRow.seat))))


def set_vacant(session: Session, seat: SeatRow, vacant: bool, now: datetime) -> None:
    """Mark the seat given up, or taken over again."""
    row = session.get(VacantSeatRow, id_of(seat))
    if vacant and row is None:
        session.add(VacantSeatRow(seat_id=id_of(seat), game_id=seat.game_id, since=now))
    elif not vacant and row is not None:
        session.delete(row)
    session.flush()


def close_open_game(session: Session, game: OpenGameRow) -> None:
    """The game is created (or given up): its waiting rows go."""
    session.execute(delete(OpenJoinRow).where(col(OpenJoinRow.open_game_id) == game.id))
    session.delete(game)
    session.flush()
