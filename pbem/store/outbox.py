"""The outbox: every mail the moderator means to send, written in the same
transaction as the change that caused it and delivered afterwards.

Nothing is sent inside a transaction (ARCHITECTURE): a crash after commit
leaves the mail queued, and the sender delivers it later. ``message_id`` is
unique, so queueing the same mail twice (a retried transaction, a reminder
computed again) stores it once; delivery is at least once, and receivers can
drop a duplicate by its Message-ID.

A mail that carries the board keeps the board's picture (PNG bytes) in
``picture``, drawn when the mail was composed from the state at hand: a
resend after a crash sends the same picture, and the sender needs no game
state (``pbem.mail.picture`` builds the HTML part around it; its alt text and
place are header values, ``picture_alt`` and ``picture_line``).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    ForeignKey,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlmodel import Field, Session, SQLModel, col, select

from pbem.store.models import utcnow


class OutboxStatus:
    QUEUED = "queued"
    SENT = "sent"
    FAILED = "failed"  # permanently refused by the server; kept for the game master


class OutboxRow(SQLModel, table=True):
    __tablename__ = "outbox"
    __table_args__ = (UniqueConstraint("message_id", name="uq_outbox_message_id"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int | None = Field(
        default=None, sa_column=Column(Integer, ForeignKey("games.id", ondelete="CASCADE"), nullable=True))
    version: int = Field(default=0, sa_column=Column(Integer, nullable=False))
    recipient: str = Field(sa_column=Column(String(320), nullable=False))
    purpose: str = Field(sa_column=Column(String(64), nullable=False))  # report, prompt, error, welcome, reminder…
    message_id: str = Field(sa_column=Column(String(255), nullable=False))
    subject: str = Field(sa_column=Column(Text, nullable=False))
    body: str = Field(sa_column=Column(Text, nullable=False))
    headers: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    status: str = Field(default=OutboxStatus.QUEUED, sa_column=Column(String(16), nullable=False))
    attempts: int = Field(default=0, sa_column=Column(Integer, nullable=False))
    next_attempt: datetime = Field(default_factory=utcnow,
                                   sa_column=Column(DateTime(timezone=True), nullable=False))
    last_error: str = Field(default="", sa_column=Column(Text, nullable=False))
    created: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))
    sent: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))
    picture: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))  # the board, PNG


@dataclass(frozen=True)
class QueuedMail:
    """What a caller asks to send; the outbox adds bookkeeping."""

    recipient: str
    purpose: str
    message_id: str
    subject: str
    body: str
    game_id: int | None = None
    version: int = 0
    headers: dict[str, Any] | None = None  # extra header values (reply_to, decision, in_reply_to, list_id…)
    picture: bytes | None = None  # the board as a PNG, shown beside the text (see the module docstring)


def queue_mail(session: Session, mail: QueuedMail) -> OutboxRow:
    """Queue a mail in the caller's transaction; a mail already queued (same Message-ID) is kept as it is."""
    existing = session.exec(select(OutboxRow).where(col(OutboxRow.message_id) == mail.message_id)).first()
    if existing is not None:
        return existing
    row = OutboxRow(
        game_id=mail.game_id,
        version=mail.version,
        recipient=mail.recipient,
        purpose=mail.purpose,
        message_id=mail.message_id,
        subject=mail.subject,
        body=mail.body,
        headers=dict(mail.headers or {}),
        picture=mail.picture,
    )
    session.add(row)
    session.flush()
    return row


def due_mail(session: Session, now: datetime, limit: int = 100) -> list[OutboxRow]:
    """Queued mail whose next attempt is due, oldest first."""
    rows = session.exec(
        select(OutboxRow)
        .where(col(OutboxRow.status) == OutboxStatus.QUEUED, col(OutboxRow.next_attempt) <= now)
        .order_by(col(OutboxRow.id))
        .limit(limit)
    ).all()
    return list(rows)


def mark_sent(session: Session, row: OutboxRow, now: datetime) -> None:
    """A sent mail keeps its text (the record of what players were told) but not its picture: a long game
    would otherwise keep tens of megabytes of boards the text already describes."""
    row.status = OutboxStatus.SENT
    row.sent = now
    row.attempts += 1
    row.picture = None
    session.add(row)


def backoff(attempts: int) -> timedelta:
    """1, 2, 4 … minutes between tries, at most an hour: SMTP down for hours loses nothing."""
    return timedelta(minutes=min(60, 2 ** max(0, attempts - 1)))


def mark_retry(session: Session, row: OutboxRow, now: datetime, error: str) -> None:
    row.attempts += 1
    row.next_attempt = now + backoff(row.attempts)
    row.last_error = error[:2000]
    session.add(row)


def mark_failed(session: Session, row: OutboxRow, now: datetime, error: str) -> None:
    row.status = OutboxStatus.FAILED
    row.attempts += 1
    row.last_error = error[:2000]
    session.add(row)


def mail_for_game(session: Session, game_id: int, since_version: int | None = None) -> list[OutboxRow]:
    """Every mail of a game (optionally from a version on), oldest first: for resending and tests."""
    query = select(OutboxRow).where(col(OutboxRow.game_id) == game_id)
    if since_version is not None:
        query = query.where(col(OutboxRow.version) >= since_version)
    return list(session.exec(query.order_by(col(OutboxRow.id))).all())
