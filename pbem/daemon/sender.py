"""Delivering the outbox: committed mail, handed to the SMTP relay, retried until it is accepted.

:func:`deliver_due` claims the queued rows whose next attempt is due, oldest
first, a batch at a time (``pbem.store.outbox.claim_due``: any number of
senders may share an outbox, each mail goes to one of them), and sends each
over one connection of :class:`pbem.mail.SmtpSender`, batch after batch
until nothing is due, building each mail while the relay reads the one
before (:class:`_Built`). Per row:

* accepted -> ``sent``, marked at once in a small transaction of its own
  (see ``_send_batch``);
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
before its batch is marked sent (``PBEM_CRASH_AT=mid_send``) sends it again
once its claim has run out (``CLAIM_LEASE``), with the same Message-ID,
which mail systems collapse.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from sqlmodel import Session, col, select

from pbem import counters
from pbem.config import Limits, ModeratorSettings
from pbem.crash import crash_point
from pbem.daemon.sendlimits import hold, is_limit, room
from pbem.holders import holder_name
from pbem.mail import (
    InlinePicture,
    OutboundError,
    OutgoingMail,
    PermanentSendError,
    SmtpSender,
    TransientSendError,
    WireMail,
    wire_mail,
)
from pbem.mail.htmlbody import SEEN_NOTE
from pbem.store.models import GameRow, utcnow
from pbem.store.outbox import (
    OutboxRow,
    OutboxStatus,
    Picture,
    claim_due,
    drop_unused_pictures,
    mark_failed,
    mark_retry,
    mark_sent_many,
    pictures_of,
    release_claims,
)

if TYPE_CHECKING:
    from pbem.store import Database


log = logging.getLogger("pbem.daemon.sender")

CLAIM_LEASE = 600.0  # seconds a sender holds its claimed mails: far longer than sending a batch takes
AUTO_GENERATED = "auto-generated"  # Auto-Submitted of a row that names none (RFC 3834)


@dataclass(frozen=True)
class DeliveryReport:
    """What one run of the outbox did; ``unavailable`` says why the relay could not be used at all."""

    sent: int = 0
    retried: int = 0
    failed: int = 0
    waiting: int = 0  # rows still queued and due after the run
    unavailable: str | None = None
    held: str | None = None  # why due mail waits: a sending limit (``pbem.daemon.sendlimits``)

    @property
    def ok(self) -> bool:
        return self.unavailable is None and self.retried == 0


def deliver_due(db: Database, sender: SmtpSender, now: datetime | None = None, *, batch: int = 50,
                moderator: ModeratorSettings | None = None, worker: str | None = None,
                lease: float = CLAIM_LEASE, limits: Limits | None = None, keep_open: bool = False) -> DeliveryReport:
    """Send every due mail, batch after batch until none is due; see the module docstring.

    ``moderator`` gives From for rows queued without one (see ``outgoing_mail``);
    ``worker`` names this sender in its claims (default: this process and thread);
    ``limits`` the provider's sending limits (``pbem.daemon.sendlimits``);
    ``keep_open`` leaves the connection open when the run ends well, for the
    caller's next run (``pbem.daemon.workers.Sender``: a connection per
    run was a TCP and EHLO round trip, maybe TLS and a login, per order).
    """
    now = (now or utcnow()).astimezone(UTC)
    worker = worker or holder_name("send")
    limits = limits or Limits()
    rows, pictures, held = _claim(db, worker, now, lease, batch, limits, ())
    if not rows:
        return DeliveryReport(held=held)
    try:
        sender.open()
    except TransientSendError as exc:
        _release(db, rows, now)
        counters.send_failed("unreachable")
        log.debug("SMTP relay unavailable, %d mail(s) wait: %s", len(rows), exc)  # said once: pbem.daemon.outages
        return DeliveryReport(waiting=len(rows), unavailable=str(exc))
    totals, stopped = DeliveryReport(), False
    try:
        while rows:
            report, stopped = _send_batch(db, sender, rows, pictures, now, moderator)
            totals = _add(totals, report)
            if stopped:
                _drop_pictures(db, set(pictures))
                break
            rows, pictures, held = _claim(db, worker, now, lease, batch, limits, set(pictures))
    except BaseException:
        sender.close()
        raise
    if not keep_open:
        sender.close()
    return totals if stopped else replace(totals, held=held)


def _claim(db: Database, worker: str, now: datetime, lease: float, batch: int, limits: Limits,
           sent: Collection[int]) -> tuple[list[OutboxRow], dict[int, Picture], str | None]:
    """The next batch this sender may send, within the sending limits, with the pictures its mails carry (each
    read once, however many of them carry it); and why there is none, if held. First the pictures the batch
    before carried (``sent``) go, those no mail carries any more: once per batch, not once per mail."""
    with db.transaction() as session:
        drop_unused_pictures(session, sent)
        allowed = room(session, limits, now)
        counters.holding(allowed.by if allowed.mails == 0 else None)
        if allowed.mails == 0:
            return [], {}, allowed.reason
        rows = claim_due(session, worker, now, lease, batch if allowed.mails is None else min(batch, allowed.mails))
        _learn_kinds(session, rows)
        return rows, pictures_of(session, {row.picture_id for row in rows if row.picture_id is not None}), None


def _send_batch(db: Database, sender: SmtpSender, rows: list[OutboxRow], pictures: dict[int, Picture],
                now: datetime, moderator: ModeratorSettings | None) -> tuple[DeliveryReport, bool]:
    """Send claimed ``rows`` over the open connection, each marked sent as soon as the relay took it.

    Why not one mark per batch (cheaper by a small UPDATE per mail): a sender
    killed mid-batch would send every mail of the batch again; marked one by
    one, only the mail in flight can go twice. Returns the report and whether
    a transient failure stopped the run.
    """
    sent: list[int] = []
    failed = 0
    built = _Built(rows, pictures, moderator)
    for index, row in enumerate(rows):
        message = built.take(index)
        if isinstance(message, _UNBUILDABLE):
            _mark(db, row, "failed", now, f"cannot build the mail: {message}")
            failed += 1
            counters.send_failed("unbuildable")
            log.error("outbox mail %s (%s to %s) cannot be built: %s", row.id, row.purpose, row.recipient, message)
            continue
        if isinstance(message, Exception):
            raise message  # a bug: it ends the run in the row's turn, as when each mail was built just before it went
        try:
            sender.send_wire(message, meanwhile=built.ahead(index + 1))
        except TransientSendError as exc:
            counters.send_failed("transient")
            if is_limit(exc):  # the provider's limit, not this mail's fault: everyone waits, no attempt charged
                with db.transaction() as session:
                    until = hold(session, now)
                    release_claims(session, [id_of_row(r) for r in rows[index:]], until)
                counters.held("provider")
                log.warning("the mail server says we send too much (%s); holding the outbox until %s", exc,
                            until.isoformat(timespec="minutes"))
                return DeliveryReport(len(sent), 0, failed, waiting=len(rows) - index,
                                      held=f"the mail server asked us to slow down: {exc}"), True
            _mark(db, row, "retry", now, str(exc))
            _release(db, rows[index + 1:], now)
            log.warning("mail %s (%s to %s) not accepted, will retry: %s", row.id, row.purpose,
                        row.recipient, exc)
            return DeliveryReport(len(sent), 1, failed, waiting=len(rows) - index - 1), True
        except PermanentSendError as exc:
            _mark(db, row, "failed", now, str(exc))
            failed += 1
            counters.send_failed("permanent")
            log.error("mail %s (%s to %s) refused for good: %s", row.id, row.purpose, row.recipient, exc)
            continue
        crash_point("mid_send")
        sent.append(id_of_row(row))
        with db.statements() as connection:
            mark_sent_many(connection, sent[-1:], now)
        counters.sent(KINDS.get(row.game_id) if row.game_id is not None else None)
        counters.ANSWERS.sent((row.message_id, *((counters.move_key(row.game_id, row.version),)
                                                 if row.game_id is not None else ())), utcnow())
        log.info("sent %s to %s (game %s, version %s)", row.purpose.split(":")[0], row.recipient,
                 row.game_id, row.version)
    return DeliveryReport(len(sent), 0, failed), False


_UNBUILDABLE = (OutboundError, KeyError, ValueError)  # a row that cannot make a mail: marked failed

# Each game's kind, by its id, for the count of mails sent per kind (``pbem.counters``): a game's kind never
# changes, so each is read once per process, in the claim's transaction, the first time a mail of it goes.
KINDS: dict[int, str] = {}


def _learn_kinds(session: Session, rows: list[OutboxRow]) -> None:
    unknown = {row.game_id for row in rows if row.game_id is not None and row.game_id not in KINDS}
    if unknown:
        found = session.exec(select(GameRow.id, GameRow.kind).where(col(GameRow.id).in_(unknown))).all()
        KINDS.update((game, kind) for game, kind in found if game is not None)


class _Built:
    """A batch's mails, each built once: the next one while the relay reads the one before.

    Why: building a mail with the board's picture takes about as long as the
    relay takes to read one; done one after the other, each waited for the
    other. A mail that cannot be built is kept as its exception, for the row's turn.
    """

    def __init__(self, rows: list[OutboxRow], pictures: dict[int, Picture], moderator: ModeratorSettings | None) -> None:
        self._rows = rows
        self._pictures = pictures
        self._moderator = moderator
        self._ready: dict[int, WireMail | Exception] = {}

    def take(self, index: int) -> WireMail | Exception:
        self._build(index)
        return self._ready.pop(index)

    def ahead(self, index: int) -> Callable[[], None] | None:
        """What builds row ``index`` (for ``SmtpSender.send_wire``'s ``meanwhile``); None past the last row."""
        return (lambda: self._build(index)) if index < len(self._rows) else None

    def _build(self, index: int) -> None:
        if index not in self._ready:
            try:
                row = self._rows[index]
                picture = self._pictures.get(row.picture_id) if row.picture_id is not None else None
                self._ready[index] = _message(row, picture, self._moderator)
            except Exception as exc:  # kept for the row's turn: meanwhile must not raise
                self._ready[index] = exc


def _add(one: DeliveryReport, other: DeliveryReport) -> DeliveryReport:
    return DeliveryReport(one.sent + other.sent, one.retried + other.retried, one.failed + other.failed,
                          other.waiting, other.unavailable, other.held)


def id_of_row(row: OutboxRow) -> int:
    if row.id is None:
        raise ValueError("an outbox row that was never stored")
    return row.id


def _drop_pictures(db: Database, pictures: Collection[int]) -> None:
    """The pictures no mail carries any more, of ``pictures`` (a run that stopped before its next claim)."""
    if pictures:
        with db.transaction() as session:
            drop_unused_pictures(session, pictures)


def _release(db: Database, rows: list[OutboxRow], now: datetime) -> None:
    with db.transaction() as session:
        release_claims(session, [id_of_row(row) for row in rows], now)


def _message(row: OutboxRow, picture: Picture | None, moderator: ModeratorSettings | None) -> WireMail:
    """The row's message; with its picture when it has one, else (a picture that will not go) as plain text.

    Why fall back: the picture only repeats the text; a stored picture that
    cannot be sent must not cost the player the mail.
    """
    mail = outgoing_mail(row, moderator, picture)
    try:
        return wire_mail(mail)
    except OutboundError as exc:
        if mail.picture is None:
            raise
        log.warning("outbox mail %s (%s to %s): its picture cannot go with it (%s); sent as plain text",
                    row.id, row.purpose, row.recipient, exc)
        return wire_mail(replace(mail, picture=None))


def outgoing_mail(row: OutboxRow, moderator: ModeratorSettings | None = None,
                  picture: Picture | None = None) -> OutgoingMail:
    """The ``OutgoingMail`` an outbox row describes (what the sender builds and sends), with ``picture``, the
    stored picture the row refers to (``pbem.store.outbox.pictures_of``), beside its text.

    Rows queued by other code may carry fewer header values than the
    composer's: ``from``/``from_name`` then come from ``moderator``, the
    Date from the row's ``created``, ``Auto-Submitted`` is ``auto-generated``.
    """
    h = row.headers or {}
    if h.get("date"):
        date = datetime.fromisoformat(h["date"])
    else:
        date = row.created if row.created.tzinfo else row.created.replace(tzinfo=UTC)
    from_address = h.get("from") or (moderator.address if moderator is not None else None)
    if not from_address:
        raise ValueError("no From address: the row has none and no [moderator] address is configured")
    return OutgoingMail(
        to=row.recipient,
        subject=row.subject,
        body=row.body,
        from_address=from_address,
        from_name=h.get("from_name") or (moderator.name if moderator is not None else ""),
        to_name=h.get("to_name", ""),
        message_id=row.message_id,
        date=date,
        reply_to=h.get("reply_to") or None,
        in_reply_to=h.get("in_reply_to") or None,
        references=tuple(h.get("references") or ()),
        list_id=h.get("list_id") or None,
        decision=h.get("decision") or None,
        purpose=row.purpose,
        move=row.version if row.game_id is not None else None,
        auto_submitted=h.get("auto_submitted", AUTO_GENERATED),
        picture=InlinePicture(picture.png, picture.alt or "The board", int(h.get("picture_line") or 0),
                              str(h.get("picture_note") or SEEN_NOTE))  # rows queued before the note: English
        if picture is not None else None,
        attachment=(str(h["attachment"]["filename"]), str(h["attachment"]["text"])) if h.get("attachment") else None,
    )


def _mark(db: Database, row: OutboxRow, how: str, now: datetime, error: str) -> None:
    with db.transaction() as session:
        current = session.get(OutboxRow, row.id)
        if current is None or current.status != OutboxStatus.QUEUED:
            return  # someone else (a second sender, the game master) dealt with it meanwhile
        if how == "retry":
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
