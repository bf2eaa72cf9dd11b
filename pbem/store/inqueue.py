"""The inbound queue: mail received (from IMAP or LMTP) and not yet handled, claimed by one worker at a time.

Receiving and handling are apart so that several workers can handle mail at
once and so that a receiver (the IMAP fetcher, the LMTP server) can say "got
it" as soon as the bytes are committed here. A row is deleted in the same
transaction that records its handling (``pbem.moderator.inbound.handler``), so a mail
is either waiting here or handled, never both and never neither.

Order. Every row has a ``route``: the game its reply token belongs to (else
the sender): a worker claims the oldest waiting row whose route has no older
row waiting or claimed, so one game's mail is handled in the order it
arrived, while different games go in parallel. A claim is a conditional
UPDATE (atomic on SQLite and PostgreSQL); on PostgreSQL the candidates are
read ``FOR UPDATE SKIP LOCKED`` so that workers do not queue behind each
other. A claim is a lease: a worker that dies leaves its row to be claimed
again once ``lease_until`` has passed (the handling is idempotent: the
message key is recorded once).
"""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from functools import cache
from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    and_,
    bindparam,
    delete,
    exists,
    func,
    or_,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import aliased
from sqlmodel import Field, Session, SQLModel, col, select

from pbem.store.models import new_row_values, table_of, utcnow

ROUTE_MAX = 400


class QueueStatus:
    WAITING = "waiting"
    CLAIMED = "claimed"
    FAILED = "failed"  # its handling failed (a bug, an unreadable log): kept for the game master


class QueuedMessageRow(SQLModel, table=True):
    __tablename__ = "inbound_queue"
    __table_args__ = (
        UniqueConstraint("message_key", name="uq_inbound_queue_message_key"),
        Index("ix_inbound_queue_status_id", "status", "id"),
        Index("ix_inbound_queue_route_id", "route", "id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    message_key: str = Field(sa_column=Column(String(255), nullable=False))
    route: str = Field(sa_column=Column(String(ROUTE_MAX), nullable=False))
    raw: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    source: str = Field(sa_column=Column(String(16), nullable=False))  # imap, maildir, lmtp
    mailbox: str = Field(default="", sa_column=Column(String(255), nullable=False))
    uidvalidity: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))
    uid: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))
    status: str = Field(default=QueueStatus.WAITING, sa_column=Column(String(16), nullable=False))
    claimed_by: str = Field(default="", sa_column=Column(String(64), nullable=False))
    lease_until: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))
    attempts: int = Field(default=0, sa_column=Column(Integer, nullable=False))
    last_error: str = Field(default="", sa_column=Column(Text, nullable=False))
    received: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))


def enqueue(session: Session, row: QueuedMessageRow) -> bool:
    """Add ``row`` unless a message with its key is queued already; whether it was added.

    One statement, ``INSERT ... ON CONFLICT (message_key) DO NOTHING``, on the
    transaction's connection: a receiver queues every mail it takes, and the
    look for the key, the savepoint and the ORM's flush it replaces cost the
    receiver more than the insert itself. A concurrent receiver's copy of the
    same message loses at the unique key, as it did.
    """
    row.route = row.route[:ROUTE_MAX]
    values = new_row_values(row)
    dialect = session.get_bind().dialect
    done = session.connection().execute(_insert_new(dialect.name, dialect.insert_returning), values)
    # psycopg gives no row count for ON CONFLICT: where the database can, the new row's id tells
    return done.first() is not None if dialect.insert_returning else bool(done.rowcount)


_QUEUE = table_of(QueuedMessageRow)


@cache
def _insert_new(dialect: str, returning: bool) -> Any:
    """The queue's INSERT that leaves an already queued message key alone (the same words on both databases),
    built once: building it cost about what running it does."""
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert(_QUEUE).on_conflict_do_nothing(index_elements=[_QUEUE.c.message_key])
    return statement.returning(_QUEUE.c.id) if returning else statement


def _claimable(now: Any) -> object:
    return or_(col(QueuedMessageRow.status) == QueueStatus.WAITING,
               and_(col(QueuedMessageRow.status) == QueueStatus.CLAIMED, col(QueuedMessageRow.lease_until) < now))


@cache
def _candidates(dialect: str, candidates: int) -> Any:
    """The query for the claimable messages, oldest first, built once per dialect: building it (an alias, a
    subquery) cost more than running it."""
    older = aliased(QueuedMessageRow)
    blocked = exists().where(
        col(older.route) == col(QueuedMessageRow.route), col(older.id) < col(QueuedMessageRow.id),
        col(older.status).in_((QueueStatus.WAITING, QueueStatus.CLAIMED)))
    query = (select(QueuedMessageRow.id).where(_claimable(bindparam("now")), ~blocked)  # type: ignore[arg-type]  # an OR clause
             .order_by(col(QueuedMessageRow.id)).limit(candidates))
    if dialect == "postgresql":
        query = query.with_for_update(skip_locked=True, of=QueuedMessageRow)
    return query


def claim_next(session: Session, worker: str, now: datetime, lease: float, *, candidates: int = 8) -> QueuedMessageRow | None:
    """Claim the oldest message nobody handles whose route has nothing older pending; None when there is none.

    Call in its own transaction and commit before handling the message. The
    claim returns the row it took (UPDATE ... RETURNING) where the database
    can, rather than reading it again.
    """
    dialect = session.get_bind().dialect
    # on the connection, not through the ORM: a plain list of ids (the ORM's machinery cost twice the query)
    ids = session.connection().execute(_candidates(dialect.name, candidates), {"now": now}).scalars().all()
    for row_id in ids:
        row = _claim_one(session, dialect, row_id, worker, now, lease)
        if row is not None:
            return row
    return None


def _claim_one(session: Session, dialect: Any, row_id: int, worker: str, now: datetime,
               lease: float) -> QueuedMessageRow | None:
    params = {"row": row_id, "now": now, "worker": worker[:64], "until": now + timedelta(seconds=lease)}
    if dialect.update_returning:
        taken: QueuedMessageRow | None = session.execute(
            _claim_statement(True), params,
            execution_options={"synchronize_session": False, "populate_existing": True}).scalars().first()
        return taken
    if session.execute(_claim_statement(False), params).rowcount:  # type: ignore[attr-defined]  # a CursorResult at run time
        return session.get(QueuedMessageRow, row_id, populate_existing=True)
    return None


@cache
def _claim_statement(returning: bool) -> Any:
    """The claim of one row, built once: building it (its OR clause, its values) cost more than running it."""
    claim = (update(QueuedMessageRow)
             .where(col(QueuedMessageRow.id) == bindparam("row"), _claimable(bindparam("now")))  # type: ignore[arg-type]  # an OR clause
             .values(status=QueueStatus.CLAIMED, claimed_by=bindparam("worker"), lease_until=bindparam("until"),
                     attempts=col(QueuedMessageRow.attempts) + 1))
    return claim.returning(QueuedMessageRow) if returning else claim


def finish(session: Session, row_id: int) -> None:
    """The message is handled (call in the transaction that records it)."""
    session.execute(delete(QueuedMessageRow).where(col(QueuedMessageRow.id) == row_id))


def set_aside(session: Session, row_id: int, error: str) -> None:
    """Its handling failed: keep it, out of the way, for the game master (``pbem inbox retry``)."""
    session.execute(update(QueuedMessageRow).where(col(QueuedMessageRow.id) == row_id)
                    .values(status=QueueStatus.FAILED, last_error=error[:4000], lease_until=None))


def give_back(session: Session, row_id: int, worker: str) -> None:
    """Unclaim (the database went away, the worker stops): the next worker takes it at once."""
    session.execute(update(QueuedMessageRow).where(col(QueuedMessageRow.id) == row_id,
                                                   col(QueuedMessageRow.claimed_by) == worker[:64])
                    .values(status=QueueStatus.WAITING, lease_until=None))


def reclaim(session: Session, gone: Callable[[str], bool]) -> int:
    """Give back the claims of holders that are ``gone`` (see ``pbem.workers.gone``); how many."""
    rows = session.exec(select(QueuedMessageRow.id, QueuedMessageRow.claimed_by)
                        .where(col(QueuedMessageRow.status) == QueueStatus.CLAIMED)).all()
    dead = [row_id for row_id, holder in rows if gone(holder)]
    if dead:
        session.execute(update(QueuedMessageRow).where(col(QueuedMessageRow.id).in_(dead),
                                                       col(QueuedMessageRow.status) == QueueStatus.CLAIMED)
                        .values(status=QueueStatus.WAITING, lease_until=None))
    return len(dead)


def retry_failed(session: Session, row_id: int | None = None) -> int:
    """Put failed messages (or one) back in line; how many."""
    query = update(QueuedMessageRow).where(col(QueuedMessageRow.status) == QueueStatus.FAILED)
    if row_id is not None:
        query = query.where(col(QueuedMessageRow.id) == row_id)
    result = session.execute(query.values(status=QueueStatus.WAITING, last_error=""))
    return int(result.rowcount)  # type: ignore[attr-defined]  # a CursorResult at run time


def counts(session: Session) -> dict[str, int]:
    """How many messages are in each status."""
    rows = session.exec(select(QueuedMessageRow.status, func.count(col(QueuedMessageRow.id)))
                        .group_by(col(QueuedMessageRow.status))).all()
    return {status: int(number) for status, number in rows}


def failed_messages(session: Session) -> list[QueuedMessageRow]:
    return list(session.exec(select(QueuedMessageRow).where(col(QueuedMessageRow.status) == QueueStatus.FAILED)
                             .order_by(col(QueuedMessageRow.id))).all())
