"""The figures a monitor reads from the database: the inbound queue and the outbox, counted by state.

Why from the database, at each look: every process of a moderator shares
the queue and the outbox, so what one process counted as it went would show
its own part only, and be lost with it. These are a few counts over indexed
columns (``ix_inbound_queue_status_id``, ``ix_outbox_status_next_attempt``,
``ix_outbox_status_sent``), cheap enough for a scrape every few seconds.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func
from sqlmodel import Session, col, select

from pbem.store.inqueue import QueuedMessageRow, QueueStatus
from pbem.store.models import as_utc
from pbem.store.outbox import OutboxRow, OutboxStatus

RECENT = timedelta(hours=1)  # what "sent recently" means


@dataclass(frozen=True)
class QueueFigures:
    """The inbound queue: messages received and not yet handled, and those set aside."""

    waiting: int
    claimed: int  # being handled by a worker now
    set_aside: int  # their handling failed: kept for the game master (``pbem inbox``)
    oldest_age: float  # seconds the oldest waiting or claimed message has been in the queue (0: none)


@dataclass(frozen=True)
class OutboxFigures:
    """The outbox by state; each queued mail is in exactly one of due, retrying and later."""

    due: int  # queued, never tried, its time has come (it goes at once, unless a sending limit holds it back)
    retrying: int  # queued, tried and refused for the time being (a 4xx, a dropped connection)
    later: int  # queued, never tried, not due yet (the relay asked us to slow down, or it was written ahead)
    failed: int  # refused for good: kept for the game master
    sent_recently: int  # sent within the last ``RECENT``
    oldest_age: float  # seconds the oldest mail not yet sent has waited since it was written (0: none)


def queue_figures(session: Session, now: datetime) -> QueueFigures:
    counts = dict(session.exec(select(QueuedMessageRow.status, func.count(col(QueuedMessageRow.id)))
                               .group_by(col(QueuedMessageRow.status))).all())
    oldest = session.exec(select(func.min(col(QueuedMessageRow.received))).where(
        col(QueuedMessageRow.status).in_((QueueStatus.WAITING, QueueStatus.CLAIMED)))).one()
    return QueueFigures(int(counts.get(QueueStatus.WAITING, 0)), int(counts.get(QueueStatus.CLAIMED, 0)),
                        int(counts.get(QueueStatus.FAILED, 0)), _age(oldest, now))


def outbox_figures(session: Session, now: datetime) -> OutboxFigures:
    queued = col(OutboxRow.status) == OutboxStatus.QUEUED
    due = col(OutboxRow.next_attempt) <= now
    tried = col(OutboxRow.attempts) > 0
    retrying, due_now, later = (
        int(session.exec(select(func.count(col(OutboxRow.id))).where(queued, *where)).one())
        for where in ((tried,), (~tried, due), (~tried, ~due)))
    failed = int(session.exec(select(func.count(col(OutboxRow.id))).where(
        col(OutboxRow.status) == OutboxStatus.FAILED)).one())
    sent = int(session.exec(select(func.count(col(OutboxRow.id))).where(
        col(OutboxRow.status) == OutboxStatus.SENT, col(OutboxRow.sent) >= now - RECENT)).one())
    oldest = session.exec(select(func.min(col(OutboxRow.created))).where(queued)).one()
    return OutboxFigures(due_now, retrying, later, failed, sent, _age(oldest, now))


def _age(moment: datetime | None, now: datetime) -> float:
    return 0.0 if moment is None else max(0.0, (now - as_utc(moment)).total_seconds())
