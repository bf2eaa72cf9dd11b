"""Delivering the outbox: committed mail, handed to the SMTP relay, retried until it is accepted.

:func:`deliver_due` takes the queued rows whose next attempt is due, oldest
first, and sends each with :class:`pbem.mail.SmtpSender`. Per row:

* accepted -> ``sent`` (marked in its own small transaction right after);
* :class:`~pbem.mail.TransientSendError` (4xx, dropped connection …) -> kept
  queued, next attempt after ``pbem.store.outbox.backoff`` (1, 2, 4 … at most
  60 minutes); the run stops there, since the next mail would most likely
  meet the same trouble;
* :class:`~pbem.mail.PermanentSendError` (5xx for this mail) or a mail that
  cannot be built -> ``failed``, kept for the game master (a stored picture
  of the board that cannot go with its mail is left out: the text goes).

When the relay cannot be reached at all, no row is touched (a relay that is
down is nobody's mail's fault): the run reports it and everything stays due,
so an SMTP outage of any length loses nothing and costs no attempts.

Delivery is at least once: a crash after the server accepted a mail and
before its row is marked sent (``PBEM_CRASH_AT=mid_send``) sends it again
after the restart, with the same Message-ID, which mail systems collapse.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from email.message import EmailMessage
from typing import TYPE_CHECKING

from sqlmodel import col, select

from pbem.config import ModeratorSettings
from pbem.mail import (
    OutboundError,
    PermanentSendError,
    SmtpSender,
    TransientSendError,
    build_message,
)
from pbem.mailflow.crash import crash_point
from pbem.mailflow.outgoing import outgoing_mail
from pbem.store.models import utcnow
from pbem.store.outbox import (
    OutboxRow,
    OutboxStatus,
    due_mail,
    mark_failed,
    mark_retry,
    mark_sent,
)

if TYPE_CHECKING:
    from pbem.store import Database


log = logging.getLogger("pbem.mailflow.outbox")


@dataclass(frozen=True)
class DeliveryReport:
    """What one run of the outbox did; ``unavailable`` says why the relay could not be used at all."""

    sent: int = 0
    retried: int = 0
    failed: int = 0
    waiting: int = 0  # rows still queued and due after the run
    unavailable: str | None = None

    @property
    def ok(self) -> bool:
        return self.unavailable is None and self.retried == 0


def deliver_due(db: Database, sender: SmtpSender, now: datetime | None = None, *, limit: int = 200,
                moderator: ModeratorSettings | None = None) -> DeliveryReport:
    """Send every due mail (at most ``limit``); see the module docstring.

    ``moderator`` gives From for rows queued without one (see ``outgoing_mail``).
    """
    now = (now or utcnow()).astimezone(UTC)
    with db.transaction() as session:
        rows = due_mail(session, now, limit)
    if not rows:
        return DeliveryReport()
    try:
        sender.open()
    except TransientSendError as exc:
        log.warning("SMTP relay unavailable, %d mail(s) wait: %s", len(rows), exc)
        return DeliveryReport(waiting=len(rows), unavailable=str(exc))
    sent = retried = failed = 0
    try:
        for index, row in enumerate(rows):
            try:
                message = _message(row, moderator)
            except (OutboundError, KeyError, ValueError) as exc:
                _mark(db, row, "failed", now, f"cannot build the mail: {exc}")
                failed += 1
                log.error("outbox mail %s (%s to %s) cannot be built: %s", row.id, row.purpose, row.recipient, exc)
                continue
            try:
                sender.send(message)
            except TransientSendError as exc:
                _mark(db, row, "retry", now, str(exc))
                retried += 1
                log.warning("mail %s (%s to %s) not accepted, will retry: %s", row.id, row.purpose,
                            row.recipient, exc)
                return DeliveryReport(sent, retried, failed, waiting=len(rows) - index - 1)
            except PermanentSendError as exc:
                _mark(db, row, "failed", now, str(exc))
                failed += 1
                log.error("mail %s (%s to %s) refused for good: %s", row.id, row.purpose, row.recipient, exc)
                continue
            crash_point("mid_send")
            _mark(db, row, "sent", now, "")
            sent += 1
            log.info("sent %s to %s (game %s, version %s)", row.purpose.split(":")[0], row.recipient,
                     row.game_id, row.version)
    finally:
        sender.close()
    return DeliveryReport(sent, retried, failed)


def _message(row: OutboxRow, moderator: ModeratorSettings | None) -> EmailMessage:
    """The row's message; with its picture when it has one, else (a picture that will not go) as plain text.

    Why fall back: the picture only repeats the text; a stored picture that
    cannot be sent must not cost the player the mail.
    """
    mail = outgoing_mail(row, moderator)
    try:
        return build_message(mail)
    except OutboundError as exc:
        if mail.picture is None:
            raise
        log.warning("outbox mail %s (%s to %s): its picture cannot go with it (%s); sent as plain text",
                    row.id, row.purpose, row.recipient, exc)
        return build_message(replace(mail, picture=None))


def _mark(db: Database, row: OutboxRow, how: str, now: datetime, error: str) -> None:
    with db.transaction() as session:
        current = session.get(OutboxRow, row.id)
        if current is None or current.status != OutboxStatus.QUEUED:
            return  # someone else (a second sender, the game master) dealt with it meanwhile
        if how == "sent":
            mark_sent(session, current, now)
        elif how == "retry":
            mark_retry(session, current, now, error)
        else:
            mark_failed(session, current, now, error)


def next_due(db: Database) -> datetime | None:
    """When the next queued mail is due (None: nothing queued)."""
    with db.transaction() as session:
        row = session.exec(select(OutboxRow.next_attempt).where(col(OutboxRow.status) == OutboxStatus.QUEUED)
                           .order_by(col(OutboxRow.next_attempt)).limit(1)).first()
    return row


def queued_count(db: Database) -> int:
    from sqlalchemy import func

    with db.transaction() as session:
        return session.exec(select(func.count(col(OutboxRow.id))).where(col(OutboxRow.status) == OutboxStatus.QUEUED)).one()
