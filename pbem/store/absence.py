"""Absent players: which decisions the stand-in took for a seat, and the seat's vacation.

The stand-in (the game's own bot, when the game's ``absent`` policy is
``bot``) plays a decision whose deadline passed without an answer. Its moves
are remembered per seat, so that "missed in a row" can be counted against the
log (any move of the seat's own in between starts the count again) and the
game master asked, once per run of misses, to replace the seat.
"""
from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, Boolean, Column, DateTime, ForeignKey, Integer
from sqlmodel import Field, Session, SQLModel, col, select

from pbem.store.alarm import wake
from pbem.store.models import ActionRow, GameRow, SeatRow, id_of


class SeatAbsenceRow(SQLModel, table=True):
    __tablename__ = "seat_absence"

    seat_id: int = Field(sa_column=Column(Integer, ForeignKey("seats.id", ondelete="CASCADE"), primary_key=True))
    game_id: int = Field(sa_column=Column(Integer, ForeignKey("games.id", ondelete="CASCADE"), nullable=False,
                                          index=True))
    stand_in: list[Any] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))  # log versions
    replace_asked: bool = Field(default=False, sa_column=Column(Boolean, nullable=False))
    vacation_until: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))


def _row(session: Session, seat: SeatRow) -> SeatAbsenceRow:
    row = session.exec(select(SeatAbsenceRow).where(col(SeatAbsenceRow.seat_id) == seat.id)).first()
    return row if row is not None else SeatAbsenceRow(seat_id=id_of(seat), game_id=seat.game_id)


def stood_in(session: Session, game: GameRow, seat: SeatRow, versions: range) -> int:
    """Record the log versions the stand-in played for the seat; the number of its decisions missed in a row."""
    row = _row(session, seat)
    row.stand_in = sorted({*row.stand_in, *versions})
    session.add(row)
    session.flush()
    own = session.exec(select(ActionRow.version).where(col(ActionRow.game_id) == game.id,
                                                       col(ActionRow.player) == seat.name)
                       .order_by(col(ActionRow.version).desc())).all()
    played_by_bot = set(row.stand_in)
    missed = 0
    for version in own:
        if version not in played_by_bot:
            break
        missed += 1
    if missed <= len(versions):  # the run of misses starts anew: the game master may be asked again
        row.replace_asked = False
        session.add(row)
    return missed


def ask_replace_once(session: Session, seat: SeatRow) -> bool:
    """Whether the game master should be asked to replace the seat now (only once per run of misses)."""
    row = _row(session, seat)
    if row.replace_asked:
        return False
    row.replace_asked = True
    session.add(row)
    session.flush()
    return True


def vacations_of(session: Session, game: GameRow, now: datetime | None = None) -> dict[str, datetime]:
    """Player -> when they are back, for the seats of ``game`` on vacation (at ``now``, or at any time)."""
    rows = session.exec(select(SeatRow.name, SeatAbsenceRow.vacation_until)
                        .join(SeatAbsenceRow, col(SeatAbsenceRow.seat_id) == col(SeatRow.id))
                        .where(col(SeatRow.game_id) == game.id, col(SeatAbsenceRow.vacation_until).is_not(None))).all()
    found: dict[str, datetime] = {}
    for name, until in rows:
        if until is None:
            continue
        back = until if until.tzinfo is not None else until.replace(tzinfo=UTC)  # SQLite hands back naive UTC
        if now is None or back > now:
            found[name] = back
    return found


def set_vacation(session: Session, seat: SeatRow, until: datetime | None) -> None:
    """Set or end the seat's vacation; wakes the deadline tick's alarm (stretched deadlines, the stand-in)."""
    wake(session, seat.game_id)
    row = _row(session, seat)
    row.vacation_until = until
    session.add(row)
    session.flush()


def unreachable_of(session: Session, game: GameRow) -> frozenset[str]:
    """The players of ``game`` whose mail bounced too often (``seats.unreachable``): the stand-in plays for them."""
    return frozenset(session.exec(select(SeatRow.name).where(col(SeatRow.game_id) == game.id,
                                                             col(SeatRow.unreachable).is_(True))).all())
