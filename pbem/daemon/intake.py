"""The intake: received mail goes into the inbound queue first, workers take it from there.

Receivers (the IMAP fetcher of ``pbem.daemon.loop``, the LMTP server of
``pbem.daemon.lmtp``) call :func:`receive`: the bytes are committed to the
queue (``pbem.store.inqueue``) with their route, and only then does the
receiver let go of them (move them out of the inbox, answer ``250``). Workers
call :func:`apply_next`: claim one message, handle it with
``pbem.moderator.inbound.handler.process_message``, whose transaction also deletes it
from the queue. So nothing is lost between receiving and handling, and
nothing is handled twice (the message key is recorded once, the queue row is
gone in the same commit).

A message's route is its game (by the reply token it carries in an address),
else its sender: one game's mail is handled in arrival order even by many
workers. A mail whose route cannot be told (no token, unreadable) gets its
own key as route, and goes whenever a worker is free.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from pbem import counters
from pbem.config import Config
from pbem.moderator.games import Moderator
from pbem.moderator.inbound.handler import DatabaseUnavailable, MessageFailed, process_message, read
from pbem.moderator.inbound.outcome import FAILED, Outcome
from pbem.store import Database
from pbem.store.inbound import advance_position, is_handled
from pbem.store.inqueue import (
    QueuedMessageRow,
    claim_next,
    enqueue,
    finish,
    give_back,
    set_aside,
)
from pbem.store.models import as_utc
from pbem.store.observers import observer_for_token
from pbem.store.tokens import game_of_token

log = logging.getLogger("pbem.daemon")

QUEUE_CHANNEL = "pbem_inbound"  # PostgreSQL's LISTEN/NOTIFY channel: mail was queued
CLAIM_LEASE = 300.0  # seconds a worker holds a message: far more than handling one takes


@dataclass(frozen=True)
class Received:
    """One message to queue, as a receiver has it."""

    raw: bytes
    source: str  # imap, maildir, lmtp
    mailbox: str = ""
    uidvalidity: int = 0
    uid: int = 0
    token: str | None = None  # the envelope's token (LMTP knows it from RCPT TO)


class ReceiptStatus(StrEnum):
    """What became of one received message (the value is what LMTP's ``250`` says)."""

    QUEUED = "queued"
    WAITING = "waiting"  # queued before, not handled yet
    HANDLED = "handled"  # handled before (or twice in one fetch)
    UNREADABLE = "unreadable"  # no mail at all


@dataclass(frozen=True)
class Receipt:
    key: str
    status: ReceiptStatus
    reason: str = ""


def receive(db: Database, config: Config, batch: list[Received], now: datetime,
            position: tuple[str, int, int] | None = None) -> list[Receipt]:
    """Queue ``batch`` in one transaction (and advance the mailbox ``position`` in it); a receipt per message.

    Raises ``DatabaseUnavailable`` when the database cannot be reached: then
    nothing is queued and the receiver must keep the mail.
    """
    config.require_moderator()  # before the transaction: a configuration error is not a database error
    try:
        with db.transaction() as session:
            receipts: list[Receipt] = []
            for item in batch:
                receipt = _queue_one(session, config, item, now)
                if receipt.status is ReceiptStatus.WAITING and any(r.key == receipt.key for r in receipts):
                    receipt = Receipt(receipt.key, ReceiptStatus.HANDLED, "the same message twice in one fetch")
                receipts.append(receipt)
            if position is not None:
                advance_position(session, *position, now)
            if any(r.status is ReceiptStatus.QUEUED for r in receipts) and session.get_bind().dialect.name == "postgresql":
                session.execute(text(f"NOTIFY {QUEUE_CHANNEL}"))  # other processes' workers, at the commit
    except SQLAlchemyError as exc:
        raise DatabaseUnavailable(f"database unavailable: {_first_line(exc)}") from None
    return receipts


def _queue_one(session: Session, config: Config, item: Received, now: datetime) -> Receipt:
    try:
        # the header is all a route needs (the handling reads the whole mail): read as if oversize
        message, key, _ = read(item.raw, config.require_moderator(), max_bytes=0)
    except MessageFailed as exc:
        return Receipt("", ReceiptStatus.UNREADABLE, str(exc))
    if is_handled(session, key):
        return Receipt(key, ReceiptStatus.HANDLED, "already handled")
    route = _route(session, item.token or message.token, message.sender or "") or f"key:{key}"
    row = QueuedMessageRow(message_key=key, route=route, raw=item.raw, source=item.source, mailbox=item.mailbox,
                           uidvalidity=item.uidvalidity, uid=item.uid, received=now)
    return Receipt(key, ReceiptStatus.QUEUED if enqueue(session, row) else ReceiptStatus.WAITING)


def _route(session: Session, token: str | None, sender: str) -> str | None:
    """The game the token belongs to (a seat's or an observer's), else the sender."""
    if token:
        game = game_of_token(session, token)
        if game is not None:
            return f"game:{game}"
        watcher = observer_for_token(session, token)
        if watcher is not None:
            return f"game:{watcher.game_id}"
    return f"from:{sender.lower()}" if sender else None


def apply_next(db: Database, config: Config, worker: str, clock: Callable[[], datetime], *,
               moderator: Moderator | None = None) -> Outcome | None:
    """Claim and handle one queued message; None when nothing can be claimed now.

    A message whose handling fails is set aside in the queue (``failed``, with
    the reason) for the game master; when the database goes away the claim
    is given back and ``DatabaseUnavailable`` raised.
    """
    try:
        with db.transaction() as session:
            row = claim_next(session, worker, clock(), CLAIM_LEASE)
    except SQLAlchemyError as exc:
        raise DatabaseUnavailable(f"database unavailable: {_first_line(exc)}") from None
    if row is None or row.id is None:
        return None
    row_id = row.id
    try:
        outcome = process_message(db, config, row.raw, row.mailbox, row.uidvalidity, row.uid, clock(),
                                  moderator=moderator, advance=False, also=lambda session: finish(session, row_id))
    except MessageFailed as exc:
        reason = str(exc)
        log.error("queued message %s (%s) cannot be handled, set aside: %s", row_id, row.source, reason)
        _after(db, lambda session: set_aside(session, row_id, reason))
        counters.handled(None, FAILED)
        return Outcome(row.message_key, FAILED, reason, folder=FAILED)
    except DatabaseUnavailable:
        _after(db, lambda session: give_back(session, row_id, worker))
        raise
    if not outcome.duplicate:  # counted once, by the worker that handled it
        counters.handled(outcome.kind, outcome.outcome)
        game, version = outcome.game_id, outcome.version
        moved = game is not None and version is not None and version != outcome.version_before
        move = (counters.move_key(game, version),) if game is not None and version is not None and moved else ()
        counters.ANSWERS.expect(as_utc(row.received), (*outcome.queued, *move))
    return outcome


def drain(db: Database, config: Config, worker: str, clock: Callable[[], datetime], *,
          moderator: Moderator | None = None, limit: int | None = None,
          stopping: Callable[[], bool] = lambda: False,
          after_each: Callable[[Outcome], None] = lambda outcome: None) -> list[Outcome]:
    """Handle queued messages until none can be claimed (or ``limit`` are done, or ``stopping()``);
    ``after_each`` is told of each (a sender thread starts on its mail while the next is handled)."""
    outcomes: list[Outcome] = []
    while (limit is None or len(outcomes) < limit) and not stopping():
        outcome = apply_next(db, config, worker, clock, moderator=moderator)
        if outcome is None:
            break
        outcomes.append(outcome)
        after_each(outcome)
    return outcomes


def _after(db: Database, change: Callable[[Session], None]) -> None:
    try:
        with db.transaction() as session:
            change(session)
    except SQLAlchemyError as exc:  # the claim runs out by itself
        log.warning("queue not updated (%s): the claim will run out", _first_line(exc))


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
