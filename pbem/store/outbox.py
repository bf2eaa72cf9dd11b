"""The outbox: every mail the moderator means to send, delivered after the transaction that wrote it.

A move's mail is written in a transaction of its own, right after the move's
(``pbem.store.moves``: the move is recorded with it, so a crash between the
two leaves it to be told later, once); a game master's notice or a reply to
a mail without orders is written with the change that caused it.

Nothing is sent inside a transaction (ARCHITECTURE): a crash after commit
leaves the mail queued, and the sender delivers it later. ``message_id`` is
unique, so queueing the same mail twice (a retried transaction, a reminder
computed again) stores it once; delivery is at least once, and receivers can
drop a duplicate by its Message-ID.

A mail that carries the board refers to the board's picture (``picture_id``:
a PNG and its alt text in ``pictures``), drawn when the mail was composed
from the state at hand: a resend after a crash sends the same picture, and
the sender needs no game state (``pbem.mail.picture`` builds the HTML part
around it; where it goes in the text is the header value ``picture_line``).
Every seat sees the same board, so a move's picture is stored once, however
many mails carry it (it was 60 KB in every seat's row), and dropped once
the last mail that carries it has been sent, or has failed for good: a long
game would otherwise keep tens of megabytes of boards the text describes.
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from typing import Any

from sqlalchemy import (
    JSON,
    Column,
    Connection,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    bindparam,
    delete,
    exists,
    insert,
    update,
)
from sqlalchemy.orm import aliased
from sqlmodel import Field, Session, SQLModel, col, select

from pbem.store.models import table_of, utcnow


class OutboxStatus:
    QUEUED = "queued"
    SENT = "sent"
    FAILED = "failed"  # permanently refused by the server; kept for the game master
    HELD = "held"  # to a seat that is unreachable (its mail bounced): never sent, kept for the game master


class PictureRow(SQLModel, table=True):
    """One picture of a game's board (one version of it), carried by one or more queued mails."""

    __tablename__ = "pictures"

    id: int | None = Field(default=None, primary_key=True)
    game_id: int | None = Field(
        default=None, sa_column=Column(Integer, ForeignKey("games.id", ondelete="CASCADE"), nullable=True))
    version: int = Field(default=0, sa_column=Column(Integer, nullable=False))
    png: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    alt: str = Field(default="", sa_column=Column(Text, nullable=False))
    created: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))


@dataclass(frozen=True)
class Picture:
    """A stored picture as the sender needs it."""

    png: bytes
    alt: str


class OutboxRow(SQLModel, table=True):
    __tablename__ = "outbox"
    __table_args__ = (
        UniqueConstraint("message_id", name="uq_outbox_message_id"),
        Index("ix_outbox_status_next_attempt", "status", "next_attempt"),
        Index("ix_outbox_game_purpose", "game_id", "purpose"),
        Index("ix_outbox_game_recipient", "game_id", "recipient"),
        Index("ix_outbox_status_sent", "status", "sent"),
        Index("ix_outbox_picture_id", "picture_id"),
    )

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
    picture_id: int | None = Field(default=None, sa_column=Column(  # the board's picture, while the mail is queued
        Integer, ForeignKey("pictures.id", ondelete="SET NULL"), nullable=True))
    claimed_by: str = Field(default="", sa_column=Column(String(64), nullable=False, server_default=""))  # a sender


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
    picture_id: int | None = None  # the board's picture, shown beside the text (see the module docstring)
    created: datetime | None = None  # when it was written and first due (default: now)


def queue_mail(session: Session, mail: QueuedMail, *, unseen: bool = False) -> OutboxRow:
    """Queue a mail in the caller's transaction; a mail already queued (same Message-ID) is kept as it is.

    The row is written with the transaction's next flush, so that the mails
    of one message go in one INSERT; ``unseen`` says the caller has checked
    already that the Message-ID is new (one query less per mail).
    """
    if not unseen:
        with session.no_autoflush:
            existing = session.exec(select(OutboxRow).where(col(OutboxRow.message_id) == mail.message_id)).first()
        if existing is not None:
            return existing
    created = mail.created or utcnow()
    row = OutboxRow(
        game_id=mail.game_id,
        version=mail.version,
        recipient=mail.recipient,
        purpose=mail.purpose,
        message_id=mail.message_id,
        subject=mail.subject,
        body=mail.body,
        headers=dict(mail.headers or {}),
        picture_id=mail.picture_id,
        created=created,
        next_attempt=created,
    )
    session.add(row)
    return row


def claim_due(session: Session, sender: str, now: datetime, lease: float, limit: int = 50) -> list[OutboxRow]:
    """Claim up to ``limit`` due mails for ``sender``, oldest first; call in its own transaction.

    Why a claim: several senders (``pbem run`` workers, a cron ``poll --once``)
    share one outbox and each mail must go out once. A claim moves the mail's
    next attempt to the end of the lease, so no other sender sees it due; a
    sender that dies lets its claims fall due again when the lease ends (and
    only then may a mail it had sent go out twice). On PostgreSQL the rows are
    read ``FOR UPDATE SKIP LOCKED``; the conditional UPDATE keeps SQLite (and
    any race) to one winner per row, and returns the rows it won (one
    statement less than reading them afterwards). The ids are picked by a
    statement of their own, not a subquery of the UPDATE: PostgreSQL may run
    such a subquery more than once and so claim more than ``limit`` rows.
    """
    due, claim = _claim_statements(session.get_bind().dialect.name)
    # the ids on the connection, not through the ORM (which cost twice the query); the claim makes the rows
    ids = list(session.connection().execute(due, {"now": now, "limit": limit}).scalars().all())
    if not ids:
        return []
    claimed = session.scalars(claim, {"ids": ids, "now": now, "until": now + timedelta(seconds=lease),
                                      "sender": sender[:64]},
                              execution_options={"synchronize_session": False, "populate_existing": True}).all()
    return sorted(claimed, key=lambda row: row.id or 0)


@cache
def _claim_statements(dialect: str) -> tuple[Any, Any]:
    """The due mails' ids and their claim, built once per dialect: building them (an alias, a subquery)
    cost more than running them (the sender claims after every order)."""
    older = aliased(OutboxRow)
    behind = exists().where(  # one player's mail of one game leaves in the order it was written
        col(older.game_id) == col(OutboxRow.game_id), col(older.recipient) == col(OutboxRow.recipient),
        col(older.id) < col(OutboxRow.id), col(older.status) == OutboxStatus.QUEUED, col(older.claimed_by) != "")
    due = (select(OutboxRow.id)
           .where(col(OutboxRow.status) == OutboxStatus.QUEUED, col(OutboxRow.next_attempt) <= bindparam("now"),
                  ~behind)
           .order_by(col(OutboxRow.id)).limit(bindparam("limit")))
    if dialect == "postgresql":
        due = due.with_for_update(skip_locked=True, of=OutboxRow)
    claim = (update(OutboxRow)
             .where(col(OutboxRow.id).in_(bindparam("ids", expanding=True)),
                    col(OutboxRow.status) == OutboxStatus.QUEUED, col(OutboxRow.next_attempt) <= bindparam("now"))
             .values(next_attempt=bindparam("until"), claimed_by=bindparam("sender"))
             .returning(OutboxRow))
    return due, claim


def store_picture(session: Session, game_id: int | None, version: int, png: bytes, alt: str) -> int:
    """Store a picture for the mails of this transaction to refer to; its id. One INSERT of its own, at once:
    the mails that refer to it are written after it."""
    statement = insert(_PICTURES).values(game_id=game_id, version=version, png=png, alt=alt, created=utcnow())
    return int(session.execute(statement.returning(_PICTURES.c.id)).scalar_one())


def pictures_of(session: Session, ids: Collection[int]) -> dict[int, Picture]:
    """The pictures with these ids (the ones the sender's claimed mails carry), by id."""
    if not ids:
        return {}
    rows = session.execute(select(PictureRow.id, PictureRow.png, PictureRow.alt)
                           .where(col(PictureRow.id).in_(sorted(ids)))).all()
    return {int(row_id): Picture(bytes(png), alt) for row_id, png, alt in rows if row_id is not None}


def drop_unused_pictures(session: Session, ids: Collection[int] | None = None) -> int:
    """Delete the pictures (of ``ids``, else all) that no mail refers to any more; how many.

    Why also all: two senders on PostgreSQL sending the last two mails of one
    picture at the same moment may each still see the other's mail refer to
    it, and leave it; a later look (``pbem.daemon.loop.MailFlow.reclaim``)
    finds it alone. A picture is stored in the transaction that writes its
    mails, so none is ever seen without the mails it was drawn for.
    """
    if ids is not None and not ids:
        return 0
    done = session.execute(_DROP_UNUSED) if ids is None else session.execute(_DROP_UNUSED_OF, {"ids": sorted(ids)})
    return int(done.rowcount)  # type: ignore[attr-defined]  # a CursorResult at run time


def mark_sent_many(session: Session | Connection, ids: Sequence[int], now: datetime) -> None:
    """Mark mails sent in one statement. A sent mail keeps its text (the record of what players were told)
    but not its picture: it no longer refers to it (the sender drops the pictures no mail carries any more
    after each batch, :func:`drop_unused_pictures`)."""
    if ids:
        session.execute(_MARK_SENT, {"ids": list(ids), "now": now})


def release_claims(session: Session, ids: Sequence[int], now: datetime) -> None:
    """Claimed mails not tried after all (the relay went away): due again at once, for any sender."""
    if ids:
        session.execute(_RELEASE, {"ids": list(ids), "now": now})


# On the table, not the mapped class: the sender runs these in transactions of their own, with no rows in the
# session to keep in step, and the mapped class's machinery cost more than the UPDATE (once per mail sent).
_OUTBOX = table_of(OutboxRow)
_QUEUED_WITH_ID = (_OUTBOX.c.id.in_(bindparam("ids", expanding=True)), _OUTBOX.c.status == OutboxStatus.QUEUED)
_PICTURES = table_of(PictureRow)
_MARK_SENT = update(_OUTBOX).where(*_QUEUED_WITH_ID).values(
    status=OutboxStatus.SENT, sent=bindparam("now"), attempts=_OUTBOX.c.attempts + 1, picture_id=None, claimed_by="")
_DROP_UNUSED = delete(_PICTURES).where(~exists().where(_OUTBOX.c.picture_id == _PICTURES.c.id))
_DROP_UNUSED_OF = _DROP_UNUSED.where(_PICTURES.c.id.in_(bindparam("ids", expanding=True)))
_RELEASE = update(_OUTBOX).where(*_QUEUED_WITH_ID).values(next_attempt=bindparam("now"), claimed_by="")


def reclaim(session: Session, gone: Callable[[str], bool], now: datetime) -> int:
    """Claims of senders that are ``gone`` (``pbem.workers.gone``) fall due at once; how many."""
    rows = session.exec(select(OutboxRow.id, OutboxRow.claimed_by)
                        .where(col(OutboxRow.status) == OutboxStatus.QUEUED, col(OutboxRow.claimed_by) != "")).all()
    dead = [row_id for row_id, holder in rows if gone(holder)]
    release_claims(session, [row_id for row_id in dead if row_id is not None], now)
    return len(dead)


def backoff(attempts: int) -> timedelta:
    """1, 2, 4 … minutes between tries, at most an hour: SMTP down for hours loses nothing."""
    return timedelta(minutes=min(60, 2 ** max(0, attempts - 1)))


def mark_retry(session: Session, row: OutboxRow, now: datetime, error: str) -> None:
    row.attempts += 1
    row.next_attempt = now + backoff(row.attempts)
    row.last_error = error[:2000]
    row.claimed_by = ""
    session.add(row)


def mark_failed(session: Session, row: OutboxRow, now: datetime, error: str) -> None:
    """Refused for good: kept, with its text, for the game master; its picture goes (once no mail carries it)."""
    picture = row.picture_id
    row.status = OutboxStatus.FAILED
    row.attempts += 1
    row.last_error = error[:2000]
    row.claimed_by = ""
    row.picture_id = None
    session.add(row)
    if picture is not None:
        session.flush()
        drop_unused_pictures(session, [picture])


FORGOTTEN = ""  # the text of a sent mail that is no longer kept (a mail is never sent without a text)


def forget_sent_texts(session: Session, before: datetime, limit: int = 500) -> int:
    """Drop the text (and any attached file) of up to ``limit`` mails sent before ``before``; the number dropped.

    Why: sent mail was nearly all of a database (14 MB per finished game, 96%
    of it the texts of sent mail), and nothing reads it once it has gone: a
    resend is written anew from the game, a digest from the seat's news, a
    reply is bound to its move by the Message-ID. What stays is the envelope:
    who got which mail about what, when, with which Message-ID and headers
    (a press mail's writer among them, for replies to it). Mail that failed
    is kept whole, for the game master.
    """
    rows = session.exec(select(OutboxRow).where(col(OutboxRow.status) == OutboxStatus.SENT,
                                                col(OutboxRow.sent) < before, col(OutboxRow.body) != FORGOTTEN)
                        .order_by(col(OutboxRow.id)).limit(limit)).all()
    for row in rows:
        row.body = FORGOTTEN
        if "attachment" in row.headers:
            row.headers = {key: value for key, value in row.headers.items() if key != "attachment"}
        session.add(row)
    return len(rows)


def mail_for_game(session: Session, game_id: int, since_version: int | None = None) -> list[OutboxRow]:
    """Every mail of a game (optionally from a version on), oldest first: for resending and tests."""
    query = select(OutboxRow).where(col(OutboxRow.game_id) == game_id)
    if since_version is not None:
        query = query.where(col(OutboxRow.version) >= since_version)
    return list(session.exec(query.order_by(col(OutboxRow.id))).all())
