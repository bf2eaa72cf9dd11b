"""Observers: people who follow a game by mail without a seat (``pbem observer add NAME EMAIL``).

An observer gets the game's public reports and nothing a seat alone may see.
Each observer has a reply token like a seat's, stored as a hash only
(``pbem.store.tokens``), so that hitting Reply on a report with ``STOP``
names the game and the observer without trusting a From line alone. The
token grants nothing but leaving: observers cannot order.

A row is kept when the observer leaves (``left`` is set, the token hash
stays): a later mail with that token is then recognised as a former
observer's and not answered, so "STOP" is followed by one goodbye and
nothing more. Adding the address again gives the row a new token.
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, DateTime, ForeignKey, Integer, String, UniqueConstraint, bindparam, func
from sqlmodel import Field, Session, SQLModel, col, select

from pbem.store.models import GameRow, id_of, utcnow
from pbem.store.tokens import hash_token, new_token

EMAIL_MAX = 320


class ObserverRow(SQLModel, table=True):
    __tablename__ = "observers"
    __table_args__ = (UniqueConstraint("game_id", "email", name="uq_observers_game_email"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(sa_column=Column(Integer, ForeignKey("games.id", ondelete="CASCADE"), nullable=False,
                                          index=True))
    email: str = Field(sa_column=Column(String(EMAIL_MAX), nullable=False))  # lowercased
    token_hash: str = Field(sa_column=Column(String(64), nullable=False, unique=True))
    added: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))
    left: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))

    @property
    def active(self) -> bool:
        return self.left is None


def normalise_email(email: str) -> str:
    return email.strip().lower()


def find_observer(session: Session, game: GameRow, email: str) -> ObserverRow | None:
    """The observer row of ``email`` in ``game``, whether still observing or gone."""
    return session.exec(select(ObserverRow).where(col(ObserverRow.game_id) == game.id,
                                                  func.lower(ObserverRow.email) == normalise_email(email))).first()


_OBSERVING = (select(ObserverRow).where(col(ObserverRow.game_id) == bindparam("game"), col(ObserverRow.left).is_(None))
              .order_by(col(ObserverRow.id)))  # built once: run for every move


def observers_of(session: Session, game: GameRow) -> list[ObserverRow]:
    """The game's observers who have not left, in the order they were added."""
    return list(session.exec(_OBSERVING, params={"game": game.id}).all())


def add_observer(session: Session, game: GameRow, email: str, now: datetime) -> tuple[ObserverRow, str]:
    """Make ``email`` an observer of ``game`` (again, if it left) with a fresh token; (row, token in plaintext)."""
    row = find_observer(session, game, email)
    if row is None:
        row = ObserverRow(game_id=id_of(game), email=normalise_email(email), token_hash="")
    token = new_token()
    row.token_hash, row.added, row.left = hash_token(token), now, None
    session.add(row)
    session.flush()
    return row, token


def issue_observer_token(session: Session, row: ObserverRow) -> str:
    """A new token for the observer (the old one stops working); only its hash is kept."""
    token = new_token()
    row.token_hash = hash_token(token)
    session.add(row)
    session.flush()
    return token


def observer_for_token(session: Session, token: str) -> ObserverRow | None:
    """The observer row holding ``token`` (also one that left: see the module docstring)."""
    return session.exec(select(ObserverRow).where(col(ObserverRow.token_hash) == hash_token(token))).first()


def remove_observer(session: Session, row: ObserverRow, now: datetime) -> None:
    row.left = now
    session.add(row)
    session.flush()
