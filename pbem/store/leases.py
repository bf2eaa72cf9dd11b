"""Leases: a named job that at most one process does at a time (the deadline tick, reading one inbox).

Any number of ``pbem run`` and ``poll --once`` processes may share one
database; some work must still be done by one of them at a time. A lease is a
row (name, holder, until): taking it succeeds when nobody holds it, when the
taker holds it already (renewal), or when the holder's time ran out (a
process that died lets go by itself). Every step is one conditional UPDATE or
one INSERT, atomic on SQLite and PostgreSQL alike, so two takers never both
win.
"""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import Column, DateTime, String, bindparam, delete, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Field, Session, SQLModel, col, select

from pbem.store.models import table_of

LEASE_NAME_MAX = 128


class LeaseRow(SQLModel, table=True):
    __tablename__ = "leases"

    name: str = Field(sa_column=Column(String(LEASE_NAME_MAX), primary_key=True))
    holder: str = Field(sa_column=Column(String(64), nullable=False))
    until: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))


def take_lease(session: Session, name: str, holder: str, now: datetime, seconds: float,
               gone: Callable[[str], bool] = lambda holder: False) -> bool:
    """Whether ``holder`` holds ``name`` until ``now + seconds`` (taken or renewed); call in its own transaction.

    A lease whose holder is ``gone`` (a dead process, ``pbem.holders.gone``) is taken over at once.
    """
    name = name[:LEASE_NAME_MAX]
    until = now + timedelta(seconds=seconds)
    taken = session.execute(
        update(LeaseRow).where(col(LeaseRow.name) == name)
        .where((col(LeaseRow.holder) == holder) | (col(LeaseRow.until) < now))
        .values(holder=holder, until=until))
    if taken.rowcount:  # type: ignore[attr-defined]  # a CursorResult at run time
        return True
    current = session.exec(select(LeaseRow.holder).where(col(LeaseRow.name) == name)).first()
    if current is not None:
        if not gone(current):
            return False
        taken = session.execute(update(LeaseRow).where(col(LeaseRow.name) == name, col(LeaseRow.holder) == current)
                                .values(holder=holder, until=until))
        return bool(taken.rowcount)  # type: ignore[attr-defined]  # a CursorResult at run time
    try:
        with session.begin_nested():
            session.add(LeaseRow(name=name, holder=holder, until=until))
    except IntegrityError:  # someone holds it
        return False
    return True


def release_lease(session: Session, name: str, holder: str) -> None:
    """Let go of ``name`` if ``holder`` holds it (a clean stop: the next process need not wait out the lease)."""
    session.execute(delete(LeaseRow).where(col(LeaseRow.name) == name[:LEASE_NAME_MAX], col(LeaseRow.holder) == holder))


def lease_until(session: Session, name: str) -> datetime | None:
    """Until when lease ``name`` is held (it may have run out), None when nobody took it.

    Read on the transaction's connection, not as a mapped row: the sender asks
    before every batch whether the relay's hold is on (``pbem.daemon.sendlimits``),
    and the ORM's machinery cost twice the query.
    """
    until: datetime | None = session.connection().execute(_UNTIL, {"name": name}).scalar()
    return until


_LEASES = table_of(LeaseRow)
_UNTIL = select(_LEASES.c.until).where(_LEASES.c.name == bindparam("name"))
