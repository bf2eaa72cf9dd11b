"""Inbound mail bookkeeping: every message handled, how far the inbox was read, replies per sender.

``inbound_messages`` holds one row per handled message, keyed by its message
key (the Message-ID, or a digest of the bytes for a mail without one;
``pbem.mail.InboundMessage.key``). The key is unique: a message fetched
twice (a crash before it was moved, a UIDVALIDITY change, a second daemon)
is recorded once and applied once. The row is written in the same
transaction as everything the message caused (orders in the log, mail in the
outbox), so "recorded" means "handled".

``mailbox_state`` is the IMAP position per mailbox: its UIDVALIDITY and the
highest UID recorded, updated in the message's transaction.

``sender_replies`` counts the direct replies sent to an address (errors,
"no token", "too big" …) so that they can be rate-limited: a mail loop with
a broken auto-responder ends after a few mails, not never.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    bindparam,
    delete,
    func,
    insert,
)
from sqlmodel import Field, Session, SQLModel, col, select

from pbem.store.models import new_row_values, table_of, utcnow

KEY_MAX = 255


class InboundOutcome:
    """What became of an inbound message (``inbound_messages.outcome``)."""

    APPLIED = "applied"  # orders applied (all of them)
    REFUSED = "refused"  # a line refused (the lines before it may stand); error reply sent
    QUERY = "query"  # only queries (STATUS, BOARD …): answered, nothing changed
    AUTOMATIC = "automatic"  # auto-reply, bounce, list or our own mail: dropped, never answered
    BOUNCE = "bounce"  # a bounce of our mail to a seat: counted against it (hard) or noted (soft), never answered
    DENIED = "denied"  # a sender the allow or deny lists refuse: nothing read; one answer, ever
    OVERSIZE = "oversize"  # above the size limit: not read
    NO_TOKEN = "no_token"  # no reply token
    UNKNOWN_TOKEN = "unknown_token"  # a token of no seat
    SPOOFED = "spoofed"  # a seat's token from another address than the seat's
    PAUSED = "paused"  # the game is paused: nothing applied
    FINISHED = "finished"  # the game is over: nothing applied
    STALE = "stale"  # orders for a position that is gone (pbem.moderator.inbound.binding): nothing applied
    UNREADABLE = "unreadable"  # not a mail at all (moved to the failed folder)

    FAILED_FOLDER = frozenset({UNREADABLE})


class InboundRow(SQLModel, table=True):
    __tablename__ = "inbound_messages"
    __table_args__ = (Index("ix_inbound_messages_game_id", "game_id"),)

    id: int | None = Field(default=None, primary_key=True)
    message_key: str = Field(sa_column=Column(String(KEY_MAX), nullable=False, unique=True))
    game_id: int | None = Field(
        default=None, sa_column=Column(Integer, ForeignKey("games.id", ondelete="SET NULL"), nullable=True))
    player: str | None = Field(default=None, sa_column=Column(String(64), nullable=True))
    mailbox: str = Field(default="", sa_column=Column(String(255), nullable=False))
    uidvalidity: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))
    uid: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))
    sender: str = Field(default="", sa_column=Column(String(320), nullable=False))
    subject: str = Field(default="", sa_column=Column(Text, nullable=False))
    outcome: str = Field(sa_column=Column(String(32), nullable=False))
    reason: str = Field(default="", sa_column=Column(Text, nullable=False))
    version: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))  # state version after it
    received: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))


class MailboxStateRow(SQLModel, table=True):
    __tablename__ = "mailbox_state"

    id: int | None = Field(default=None, primary_key=True)
    mailbox: str = Field(sa_column=Column(String(255), nullable=False, unique=True))
    uidvalidity: int = Field(sa_column=Column(BigInteger, nullable=False))
    last_uid: int = Field(sa_column=Column(BigInteger, nullable=False))
    updated: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))


class SenderReplyRow(SQLModel, table=True):
    __tablename__ = "sender_replies"
    __table_args__ = (Index("ix_sender_replies_address_sent", "address", "sent"),)

    id: int | None = Field(default=None, primary_key=True)
    address: str = Field(sa_column=Column(String(320), nullable=False))
    purpose: str = Field(sa_column=Column(String(64), nullable=False))
    sent: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))


# --- messages ----------------------------------------------------------------------------------


def normalise_key(key: str) -> str:
    """A message key that fits the column: very long Message-IDs are replaced by their digest."""
    key = key.strip()
    if len(key) <= KEY_MAX:
        return key
    return f"<sha256.{hashlib.sha256(key.encode('utf-8', 'surrogateescape')).hexdigest()}@pbem.invalid>"


_BY_KEY = select(InboundRow).where(col(InboundRow.message_key) == bindparam("key"))  # built once: run for every message


def find_message(session: Session, key: str) -> InboundRow | None:
    return session.exec(_BY_KEY, params={"key": normalise_key(key)}).first()


def is_handled(session: Session, key: str) -> bool:
    """Whether the message with ``key`` was handled (recorded): one column on the connection, not the row
    through the ORM (a receiver asks for every mail it queues)."""
    return session.connection().execute(_HANDLED, {"key": normalise_key(key)}).first() is not None


_INBOUND = table_of(InboundRow)
_HANDLED = select(_INBOUND.c.id).where(_INBOUND.c.message_key == bindparam("key"))


def message_at(session: Session, mailbox: str, uidvalidity: int, uid: int) -> InboundRow | None:
    """The message recorded at that place of the mailbox (the latest one, should a UID repeat)."""
    return session.exec(
        select(InboundRow)
        .where(col(InboundRow.mailbox) == mailbox, col(InboundRow.uidvalidity) == uidvalidity, col(InboundRow.uid) == uid)
        .order_by(col(InboundRow.id).desc())
    ).first()


def record_message(session: Session, row: InboundRow) -> InboundRow:
    """Insert ``row`` (its key normalised); a concurrent writer of the same key makes the flush fail."""
    row.message_key = normalise_key(row.message_key)
    row.subject = row.subject[:2000]
    row.reason = row.reason[:4000]
    # One INSERT on the table, not the ORM's unit of work (which cost twice the statement, for every message);
    # the row stays the caller's, with its id, and is not kept in the session.
    row.id = int(session.execute(_RECORD, new_row_values(row)).inserted_primary_key[0])  # type: ignore[attr-defined]  # a CursorResult
    return row


_RECORD = insert(_INBOUND)


def messages_of_game(session: Session, game_id: int) -> list[InboundRow]:
    return list(session.exec(select(InboundRow).where(col(InboundRow.game_id) == game_id)
                             .order_by(col(InboundRow.id))).all())


# --- the IMAP position --------------------------------------------------------------------------


@dataclass(frozen=True)
class StoredPosition:
    uidvalidity: int
    last_uid: int


def load_position(session: Session, mailbox: str) -> StoredPosition | None:
    row = session.exec(select(MailboxStateRow).where(col(MailboxStateRow.mailbox) == mailbox)).first()
    return None if row is None else StoredPosition(int(row.uidvalidity), int(row.last_uid))


def advance_position(session: Session, mailbox: str, uidvalidity: int, uid: int, now: datetime | None = None) -> None:
    """Record that ``uid`` of ``mailbox`` (at ``uidvalidity``) is handled.

    The position only grows within one UIDVALIDITY; a new UIDVALIDITY starts
    it afresh (the old UIDs mean nothing any more).
    """
    row = session.exec(select(MailboxStateRow).where(col(MailboxStateRow.mailbox) == mailbox)).first()
    if row is None:
        row = MailboxStateRow(mailbox=mailbox, uidvalidity=uidvalidity, last_uid=uid)
    elif int(row.uidvalidity) != uidvalidity:
        row.uidvalidity, row.last_uid = uidvalidity, uid
    elif uid > int(row.last_uid):
        row.last_uid = uid
    else:
        return
    row.updated = now or utcnow()
    session.add(row)
    session.flush()


# --- reply budgets -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Budget:
    """One count of direct replies and its limits: each ``None`` limit is no limit.

    ``key`` names what is counted (``sender_replies.address``): a seat's
    address, a stranger's, a domain, all strangers together (see
    ``pbem.moderator.inbound.handler``). Counts within the hour and the day are kept
    a day; a budget with an ``ever`` limit is kept for good (the "one reply,
    ever, to an address that never played" rule), so its key must not be
    shared with a budget of another kind.
    """

    key: str
    per_hour: int | None = None
    per_day: int | None = None
    ever: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", self.key.strip().lower()[:320])


def replies_since(session: Session, key: str, since: datetime | None) -> int:
    query = select(func.count(col(SenderReplyRow.id))).where(col(SenderReplyRow.address) == key.strip().lower())
    if since is not None:
        query = query.where(col(SenderReplyRow.sent) >= since)
    return session.exec(query).one()


def _has_room(session: Session, budget: Budget, now: datetime) -> bool:
    for limit, since in ((budget.per_hour, now - timedelta(hours=1)), (budget.per_day, now - timedelta(days=1)),
                         (budget.ever, None)):
        if limit is not None and replies_since(session, budget.key, since) >= limit:
            return False
    return True


def take_reply(session: Session, budgets: tuple[Budget, ...], purpose: str, now: datetime) -> bool:
    """Whether one more direct reply fits every budget; if so it is counted in each.

    A reply is sent only when all its budgets have room, and then charges
    all of them. Rows older than a day are pruned on the way, except those of
    budgets kept for good.
    """
    if not all(_has_room(session, budget, now) for budget in budgets):
        return False
    for budget in budgets:
        if budget.ever is None:
            session.execute(delete(SenderReplyRow).where(
                col(SenderReplyRow.address) == budget.key, col(SenderReplyRow.sent) < now - timedelta(days=1)))
        session.add(SenderReplyRow(address=budget.key, purpose=purpose[:64], sent=now))
    session.flush()
    return True
