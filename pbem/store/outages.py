"""Outages: what a moderator process could not reach (the SMTP relay, the inbox), for ``pbem status``.

Why in the database: the processes that send and read run elsewhere, and
``pbem status`` asks from any host; the outbox alone shows mail due and not
going, not why. One row per service (``smtp``, ``inbox``): the process that
finds it down writes the row (keeping ``since`` when one is there) and
renews ``seen`` at every failed try; the process that reaches it again
deletes it. A process that stops while the service is down leaves its row:
``seen`` says how old the word is (the processes try again at least every
minute or so while it is down), and its holder (``pbem.holders``) whether
that process still runs. The database itself being down is not written
here: nothing could be, and ``pbem status`` finds that out by itself.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Column, DateTime, String, Text, delete, update
from sqlmodel import Field, Session, SQLModel, col, select

from pbem.store.models import as_utc

ERROR_MAX = 300  # characters of the error kept: its first line, enough to tell "refused" from "bad password"


class OutageRow(SQLModel, table=True):
    __tablename__ = "outages"

    service: str = Field(sa_column=Column(String(32), primary_key=True))
    since: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))  # first failed try
    seen: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))  # the latest failed try
    holder: str = Field(sa_column=Column(String(64), nullable=False))  # the process that tried (pbem.holders)
    error: str = Field(default="", sa_column=Column(Text, nullable=False))


@dataclass(frozen=True)
class Outage:
    service: str
    since: datetime
    seen: datetime
    holder: str
    error: str


def report_down(session: Session, service: str, error: str, holder: str, now: datetime) -> None:
    """``service`` failed at ``now``: a new row, or the row there renewed (its ``since`` kept)."""
    text = (error.strip().splitlines() or [""])[0][:ERROR_MAX]
    renewed = session.execute(update(OutageRow).where(col(OutageRow.service) == service)
                              .values(seen=now, holder=holder, error=text))
    if not renewed.rowcount:  # type: ignore[attr-defined]  # a CursorResult at run time
        session.add(OutageRow(service=service, since=now, seen=now, holder=holder, error=text))


def report_up(session: Session, service: str) -> None:
    """``service`` worked: no outage of it is left."""
    session.execute(delete(OutageRow).where(col(OutageRow.service) == service))


def outages(session: Session) -> list[Outage]:
    """Every outage reported, the longest first."""
    rows = session.exec(select(OutageRow).order_by(col(OutageRow.since))).all()
    return [Outage(r.service, as_utc(r.since), as_utc(r.seen), r.holder, r.error) for r in rows]
