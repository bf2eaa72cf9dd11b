"""Waiting lines: the rest of a player's message, held while another player answers a question.

When a maneuver move raises a question to another government (canal passage,
a battle declaration), the lines after it wait and are applied once the
question is answered (docs/orders.md, "The maneuver"). They are moderator
state, not game state: the game is still its setup plus its log. One row per
game and player; ``lines`` is a list of ``[line number, text]`` as the player
wrote them (possibly empty: then only the end of the message waits, which
ends the maneuver), ``since`` the state version at which they began to wait.

The table is registered on ``SQLModel.metadata`` when this module is
imported (the moderator imports it), so ``Database.create_tables`` creates it
like the others; ``ensure_table`` creates it in a database opened before.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    Engine,
    ForeignKey,
    Integer,
    String,
    UniqueConstraint,
    bindparam,
    delete,
)
from sqlmodel import Field, Session, SQLModel, col, select

from pbem.store.models import GameRow, id_of, utcnow

Lines = tuple[tuple[int, str], ...]


class WaitingRow(SQLModel, table=True):
    __tablename__ = "waiting_lines"
    __table_args__ = (UniqueConstraint("game_id", "player", name="uq_waiting_lines_game_player"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(sa_column=Column(Integer, ForeignKey("games.id", ondelete="CASCADE"), nullable=False))
    player: str = Field(sa_column=Column(String(64), nullable=False))
    since: int = Field(sa_column=Column(Integer, nullable=False))
    lines: list[Any] = Field(sa_column=Column(JSON, nullable=False))
    created: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))


def ensure_table(engine: Engine) -> None:
    """Create the table if the database lacks it (a database created before this table existed)."""
    SQLModel.metadata.tables["waiting_lines"].create(engine, checkfirst=True)


_OF_GAME = (select(WaitingRow).where(col(WaitingRow.game_id) == bindparam("game"))
            .order_by(col(WaitingRow.id)))  # built once: run for every order


def load_waiting(session: Session, game: GameRow) -> dict[str, Lines]:
    """Player -> their waiting lines, for one game."""
    rows = session.exec(_OF_GAME, params={"game": game.id}).all()
    return {row.player: tuple((int(n), str(t)) for n, t in row.lines) for row in rows}


def save_waiting(session: Session, game: GameRow, waiting: Mapping[str, Sequence[tuple[int, str]]],
                 since: int) -> None:
    """Make the stored waiting lines of ``game`` exactly ``waiting``; rows left unchanged keep their ``since``."""
    old = load_waiting(session, game)
    new = {player: tuple((n, t) for n, t in lines) for player, lines in waiting.items()}
    changed = [p for p in old if old[p] != new.get(p)]
    if changed:
        session.execute(delete(WaitingRow).where(col(WaitingRow.game_id) == game.id,
                                              col(WaitingRow.player).in_(changed)))
        session.flush()
    for player, lines in new.items():
        if old.get(player) != lines:
            session.add(WaitingRow(game_id=id_of(game), player=player, since=since, lines=[list(x) for x in lines]))
    session.flush()
