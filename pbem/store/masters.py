"""A game's masters: the addresses that may run the game by mail (issue 31), each with its own reply token.

The host names the first master (``pbem game new --master`` or ``pbem game
master add``); a master may ``PROMOTE`` an observer to master or ``EJECT``
another master by mail. A master's token is stored as a hash only, like a
seat's (``pbem.store.tokens``): the plaintext lives only in the mails sent to
the master, so a leaked database lets nobody run a game. A mail counts as a
master's only when it carries the token *and* comes from the master's
address; the From line alone grants nothing, and neither does a seat's token.

A row is kept when a master leaves (``left`` set, hash kept), so that a later
mail with that token is known as a former master's and does nothing; naming
the address again gives the row a fresh token.
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, DateTime, ForeignKey, Integer, String, UniqueConstraint, bindparam, func
from sqlmodel import Field, Session, SQLModel, col, select

from pbem.store.models import GameRow, id_of, utcnow
from pbem.store.observers import normalise_email  # the same address rule for both roles of a person in a game
from pbem.store.tokens import hash_token, new_token

EMAIL_MAX = 320
HOST = "host"  # ``promoted_by`` of a master the host named from the command line


class MasterRow(SQLModel, table=True):
    __tablename__ = "game_masters"
    __table_args__ = (UniqueConstraint("game_id", "email", name="uq_game_masters_game_email"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(sa_column=Column(Integer, ForeignKey("games.id", ondelete="CASCADE"), nullable=False,
                                          index=True))
    email: str = Field(sa_column=Column(String(EMAIL_MAX), nullable=False))  # lowercased
    token_hash: str = Field(sa_column=Column(String(64), nullable=False, unique=True))
    promoted_by: str = Field(default=HOST, sa_column=Column(String(EMAIL_MAX), nullable=False))
    added: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))
    left: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))

    @property
    def active(self) -> bool:
        return self.left is None


def find_master(session: Session, game: GameRow, email: str) -> MasterRow | None:
    """The master row of ``email`` in ``game``, whether still a master or gone."""
    return session.exec(select(MasterRow).where(col(MasterRow.game_id) == game.id,
                                                func.lower(MasterRow.email) == normalise_email(email))).first()


_ACTIVE = (select(MasterRow).where(col(MasterRow.game_id) == bindparam("game"), col(MasterRow.left).is_(None))
           .order_by(col(MasterRow.id)))  # built once: read for every alert


def masters_of(session: Session, game: GameRow) -> list[MasterRow]:
    """The game's masters who have not left, in the order they were named."""
    return list(session.exec(_ACTIVE, params={"game": game.id}).all())


def add_master(session: Session, game: GameRow, email: str, by: str, now: datetime) -> tuple[MasterRow, str]:
    """Make ``email`` a master of ``game`` (again, if it left) with a fresh token; (row, token in plaintext).

    ``by``: who named it (:data:`HOST`, or the promoting master's address)."""
    row = find_master(session, game, email)
    if row is None:
        row = MasterRow(game_id=id_of(game), email=normalise_email(email), token_hash="")
    token = new_token()
    row.token_hash, row.added, row.left, row.promoted_by = hash_token(token), now, None, by
    session.add(row)
    session.flush()
    return row, token


def master_for_token(session: Session, token: str) -> tuple[MasterRow, GameRow] | None:
    """The master row holding ``token`` (also one that left) and its game."""
    found = session.exec(select(MasterRow, GameRow).join(GameRow, col(GameRow.id) == col(MasterRow.game_id))
                         .where(col(MasterRow.token_hash) == hash_token(token))).first()
    return None if found is None else (found[0], found[1])


def remove_master(session: Session, row: MasterRow, now: datetime) -> None:
    row.left = now
    session.add(row)
    session.flush()
