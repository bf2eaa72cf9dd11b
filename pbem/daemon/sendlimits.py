"""Sending limits: what a mail provider lets an account send, and what it says when that is used up.

Providers cap sending (Gmail a few hundred a day for a private account,
others per hour). ``[limits] max_mails_per_hour`` and ``max_mails_per_day``
keep pbem under the cap: the outbox sends only as much as the last hour and
the last day leave room for, and the rest waits, queued, never dropped. A
relay that answers "too many messages" (a 4xx reply that speaks of a limit:
421, 450, 451, 452 or 454) has said the same thing in its own way: every
sender holds back until the hold ends (a lease named ``smtp-hold``), and the
mail it refused is not charged an attempt, for nothing was wrong with it.

``waiting_reason`` tells the game master why mail waits (``pbem poll``,
``pbem status``, ``pbem game show``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func
from sqlmodel import Session, col, select

from pbem.config import Limits
from pbem.mail import SendError
from pbem.render.text import utc_stamp
from pbem.store.leases import lease_until, release_lease, take_lease
from pbem.store.models import as_utc
from pbem.store.outbox import OutboxRow, OutboxStatus

HOLD = "smtp-hold"
HOLD_FOR = timedelta(minutes=15)  # after a "too many messages" answer: the providers' windows are minutes to hours
LIMIT_CODES = frozenset({421, 450, 451, 452, 454})
# Words of a "you send too much" answer; a bare "try again later" is any temporary trouble, not a limit.
LIMIT_WORDS = re.compile(r"too many|\brate\b|\blimit|quota|exceeded|throttl|slow down", re.IGNORECASE)


@dataclass(frozen=True)
class Room:
    """How many mails may go now (``None``: no limit) and, when none may, why and until when."""

    mails: int | None
    reason: str | None = None
    until: datetime | None = None
    by: str | None = None  # what holds the mail back: "provider" (it asked us to slow down) or "limit" ([limits])


def sent_since(session: Session, since: datetime) -> int:
    return session.exec(select(func.count(col(OutboxRow.id))).where(
        col(OutboxRow.status) == OutboxStatus.SENT, col(OutboxRow.sent) >= since)).one()


def room(session: Session, limits: Limits, now: datetime) -> Room:
    """What the hold and the hour's and the day's limits leave room for now."""
    hold = lease_until(session, HOLD)
    if hold is not None and as_utc(hold) > now:
        return Room(0, f"the mail server asked us to slow down; sending again at {utc_stamp(as_utc(hold))}",
                    as_utc(hold), "provider")
    rooms = [Room(None)]
    for limit, span, what in ((limits.max_mails_per_hour, timedelta(hours=1), "hour"),
                              (limits.max_mails_per_day, timedelta(days=1), "day")):
        if limit <= 0:
            continue
        left = limit - sent_since(session, now - span)
        if left > 0:
            rooms.append(Room(left))
            continue
        until = _next_free(session, now - span) + span
        rooms.append(Room(0, f"the limit of {limit} mails {'an' if what == 'hour' else 'a'} {what} "
                             f"([limits] max_mails_per_{what}) is reached; "
                             f"sending again at {utc_stamp(until)}", until, "limit"))
    waiting = [r for r in rooms if r.mails == 0]
    if waiting:
        return max(waiting, key=lambda r: r.until or now)
    counted = [r.mails for r in rooms if r.mails is not None]
    return Room(min(counted) if counted else None)


def _next_free(session: Session, window_start: datetime) -> datetime:
    """When the oldest mail sent inside the window was sent: it leaves the window one span later."""
    oldest = session.exec(select(func.min(col(OutboxRow.sent))).where(
        col(OutboxRow.status) == OutboxStatus.SENT, col(OutboxRow.sent) >= window_start)).one()
    return as_utc(oldest) if oldest is not None else window_start


def is_limit(exc: SendError) -> bool:
    """Whether a refusal says "you are sending too much" rather than "something is wrong"."""
    return exc.code in LIMIT_CODES and bool(LIMIT_WORDS.search(str(exc)))


def hold(session: Session, now: datetime) -> datetime:
    """Every sender holds back for ``HOLD_FOR``; returns until when."""
    release_lease(session, HOLD, "relay")
    take_lease(session, HOLD, "relay", now, HOLD_FOR.total_seconds())
    return now + HOLD_FOR


def waiting_reason(session: Session, limits: Limits, now: datetime) -> str | None:
    """Why due mail is not going out now (None: nothing holds it back)."""
    return room(session, limits, now).reason

