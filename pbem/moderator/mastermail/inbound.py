"""A mail carrying a master's token: recorded, its lines done one by one, and one reply to the master.

Security (issue 31): the token alone is not enough, nor the From line alone.
A mail with a master's token from another address than that master's (or
from no single address), or with the token of a master who left, is
recorded and does nothing, unanswered (a forger learns nothing and cannot
make us mail anyone). A seat's or an observer's token never reaches this
module: it is a master's token or nothing (``pbem.store.masters``).
The replies to a master count in the master's own budget (``[limits]
replies_per_sender_per_hour`` and ``_per_day``), so that an autoresponder
that answers our answers cannot keep a loop going; the commands are done
all the same.

Order of work, and why: the mail is first recorded (with the mailbox
position, in one transaction), then its lines are done, each in the
transaction of the CLI command it runs (``.run``), then the reply is queued.
So a mail's commands are done at most once: a crash between the record and
the reply loses the rest of the commands and the reply, never doubles a
``FORCE`` or an ``UNDO``; the master, who gets no reply, sees the game as it
is in the players' mails and may write again.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from pbem.config import Config
from pbem.mail import InboundMessage, token_address
from pbem.moderator.gamemaster.common import MailContext, _stamp, _transaction
from pbem.moderator.mastermail.lines import read_lines
from pbem.moderator.mastermail.mailing import ANSWER, HELP, game_language, queue_to_master, said, subject
from pbem.moderator.mastermail.run import Answer, Master, run_line
from pbem.store import Database, find_game
from pbem.store.inbound import Budget, InboundRow, advance_position, find_message, record_message, take_reply
from pbem.store.masters import master_for_token

DONE, IGNORED = "master", "master_ignored"  # inbound outcomes (inbound_messages.outcome)
DUPLICATE = "duplicate"  # the same mail, handled before (as ``pbem.moderator.inbound.outcome`` says it)


@dataclass(frozen=True)
class Outcome:
    """What became of a master's mail; the inbound handler tells it as its own ``Outcome``."""

    key: str
    outcome: str
    reason: str
    sender: str
    game: str | None = None
    queued: tuple[str, ...] = ()
    kind: str | None = None
    game_id: int | None = None


def master_mail(db: Database, config: Config, message: InboundMessage, key: str, mailbox: str, uidvalidity: int,
                uid: int, now: datetime, *, also: Callable[[Session], None] | None = None,
                advance: bool = True) -> Outcome | None:
    """Handle ``message`` when its token is a master's (see the module docstring); None when it is not."""
    from_master = _record(db, message, key, mailbox, uidvalidity, uid, now, also, advance)
    if from_master is None or isinstance(from_master, Outcome):
        return from_master
    game, kind, email, game_id = from_master
    mail = MailContext.from_config(config)
    master = Master(db, game, kind, email, mail, now)
    answers = [run_line(master, line) for line in read_lines(message.body)]
    queued = _reply(db, config, message, key, game, email, answers, now)
    reason = f"{sum(1 for a in answers if a.done)} of {len(answers)} master line(s) done"
    return Outcome(key, DONE, reason, message.sender or "", game=game, queued=queued, kind=kind, game_id=game_id)


def _record(db: Database, message: InboundMessage, key: str, mailbox: str, uidvalidity: int, uid: int,
            now: datetime, also: Callable[[Session], None] | None,
            advance: bool) -> Outcome | tuple[str, str, str, int | None] | None:
    """In one transaction: the record and the mailbox position; (game, kind, master's address) to go on."""
    assert message.token is not None
    try:
        with _transaction(db) as session:
            found = master_for_token(session, message.token)
            if found is None:
                return None
            row, game = found
            existing = find_message(session, key)
            if existing is not None:
                return Outcome(key, DUPLICATE, f"already handled ({existing.outcome})", existing.sender)
            sender = (message.sender or "").strip().lower()
            trusted = message.sender_problem is None and sender == row.email and row.active
            outcome = DONE if trusted else IGNORED
            reason = ("master commands" if trusted else "a master's token from " + (sender or "(no address)")
                      + (", not from the master's address" if row.active else ", but that master left"))
            record_message(session, InboundRow(
                message_key=key, game_id=game.id, player=None, mailbox=mailbox, uidvalidity=uidvalidity, uid=uid,
                sender=sender[:320], subject=message.subject, outcome=outcome, reason=reason, received=now))
            if advance:
                advance_position(session, mailbox, uidvalidity, uid, now)
            if also is not None:
                also(session)
            if not trusted:
                return Outcome(key, IGNORED, reason, sender, game=game.name, kind=game.kind, game_id=game.id)
            return game.name, game.kind, row.email, game.id
    except IntegrityError:  # the same mail, recorded meanwhile by another worker
        return Outcome(key, DUPLICATE, "already handled", message.sender or "")


def _reply(db: Database, config: Config, message: InboundMessage, key: str, name: str, email: str,
           answers: list[Answer], now: datetime) -> tuple[str, ...]:
    """The one reply to the master: each line and what became of it (HELP when asked, or when no line was read)."""
    identity = config.moderator
    if identity is None or message.token is None:
        return ()
    token = message.token.strip().lower()  # as the master's mail brought it back (some servers change case)
    with _transaction(db) as session:
        game = find_game(session, name)
        limits = config.limits
        budget = Budget(f"master:{email}", limits.replies_per_sender_per_hour, limits.replies_per_sender_per_day)
        if not take_reply(session, (budget,), "master", now):  # a mail loop with an autoresponder stops here
            _note(session, key, answers, "; reply suppressed (rate limit)")
            return ()
        with game_language(session, game):
            parts = [said(ANSWER, what=a.what, number=a.line.number, line=a.line.text, **a.values) for a in answers]
            if not answers or any(a.what in ("help", "unknown") for a in answers):
                parts.append(said(HELP, address=token_address(identity.address, token)))
            body = "\n\n".join(parts) + "\n"
            row = queue_to_master(session, game, email, token, identity, key=f"master_reply:{_stamp(now)}:{key}",
                                  subject=subject(name, "reply"), body=body, now=now, replying=message)
        _note(session, key, answers)
        return (row.message_id,)


def _note(session: Session, key: str, answers: list[Answer], more: str = "") -> None:
    """The mail's record says how many of its lines were done (it was written before they were)."""
    record = find_message(session, key)
    if record is not None:
        record.reason = f"{sum(1 for a in answers if a.done)} of {len(answers)} master line(s) done{more}"
        session.add(record)

