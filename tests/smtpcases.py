"""A prompt mail and the relay's refusals that the SMTP tests send and sort (tests/mail/test_mail_smtp.py and
test_smtp_pipelining.py, the second with pipelining on)."""
from __future__ import annotations

from datetime import UTC, datetime
from email.message import EmailMessage

import pytest

from pbem.mail import (
    OutgoingMail,
    PermanentSendError,
    SendError,
    SmtpSender,
    TransientSendError,
    build_message,
    message_id_for,
    token_address,
)
from tests.smtpservers import SmtpServer

MODERATOR = "pbem@games.example"


def prompt(to: str = "ann@example.org", version: int = 3) -> EmailMessage:
    return build_message(OutgoingMail(
        to=to,
        subject="[Zürich] Round 3: your turn",
        body="Österreich chose Investor.\nYour turn: choose a rondel space.\n",
        from_address=MODERATOR,
        from_name="Imperial 2030",
        message_id=message_id_for("zurich", version, to, "prompt", domain="games.example"),
        date=datetime(2030, 6, 3, 8, 0, tzinfo=UTC),
        reply_to=token_address(MODERATOR, "k7dq2m9x"),
        decision="rondel",
    ))


REFUSALS = [  # (stage, the relay's answer, the error it makes, its code)
    ("RCPT", "451 4.3.0 Mailbox temporarily unavailable, try later", TransientSendError, 451),
    ("RCPT", "550 5.1.1 No such user", PermanentSendError, 550),
    ("MAIL", "421 4.7.0 Too many connections", TransientSendError, 421),
    ("MAIL", "553 5.7.1 Sender address rejected", PermanentSendError, 553),
    ("DATA", "452 4.3.1 Insufficient system storage", TransientSendError, 452),
    ("DATA", "554 5.7.1 Message rejected as spam", PermanentSendError, 554),
]


def refusal_is_sorted(relay: SmtpServer, stage: str, reply: str, error: type[SendError], code: int) -> None:
    """The relay answers ``stage`` with ``reply``: ``error`` with ``code``; the next mail goes through."""
    relay.reply(stage, reply)
    sender = SmtpSender(relay.settings())
    with pytest.raises(SendError) as caught:
        sender.send(prompt())
    assert type(caught.value) is error
    assert caught.value.code == code
    assert caught.value.transient is (error is TransientSendError)
    assert reply.split(" ", 1)[1] in str(caught.value)
    assert relay.received == []
    # The next mail goes through once the server accepts again.
    relay.handler.replies.clear()
    sender.send(prompt("bob@example.org"))
    sender.close()
    assert [r.rcpt_tos for r in relay.received] == [("bob@example.org",)]
