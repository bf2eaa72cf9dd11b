"""PIPELINING (RFC 2920): a relay that offers it gets a mail's MAIL, RCPT and DATA in one write.

Why it matters: each command otherwise waits for its answer, a round trip
to the relay each, three per mail; a provider's relay far away costs that
many times its distance. The relay here is aiosmtpd, offering PIPELINING in
its EHLO answer (it reads commands one after the other from its input, as a
pipelining server does). Whatever the relay answers, the mail is sorted
exactly as without pipelining, and the connection stays in step for the next.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pbem.mail import SendError, SmtpSender
from tests.smtpcases import REFUSALS, prompt, refusal_is_sorted
from tests.smtpservers import RecordingHandler, SmtpServer, running_relay


class PipeliningRelay(RecordingHandler):
    """Offers PIPELINING, and notes what was waiting in its input when each MAIL came."""

    def __init__(self) -> None:
        super().__init__(pipelining=True)
        self.behind_mail: list[bytes] = []

    async def handle_MAIL(self, server: Any, session: Any, envelope: Any, address: str, mail_options: list[str]) -> str:
        self.behind_mail.append(bytes(server._reader._buffer))  # the commands sent with it, not yet read
        return await super().handle_MAIL(server, session, envelope, address, mail_options)


@pytest.fixture
def relay() -> Iterator[SmtpServer]:
    with running_relay(PipeliningRelay()) as server:
        yield server


def test_the_envelope_goes_in_one_write(relay: SmtpServer) -> None:
    with SmtpSender(relay.settings()) as sender:
        sender.send(prompt("ann@example.org"))
        sender.send(prompt("bob@example.org"))
    assert [mail.rcpt_tos for mail in relay.received] == [("ann@example.org",), ("bob@example.org",)]
    assert isinstance(relay.handler, PipeliningRelay)
    for waiting, to in zip(relay.handler.behind_mail, ("ann", "bob"), strict=True):
        assert waiting == f"RCPT TO:<{to}@example.org>\r\nDATA\r\n".encode()


@pytest.mark.parametrize(("stage", "reply", "error", "code"), REFUSALS)
def test_refusals_are_sorted_as_without_pipelining(relay: SmtpServer, stage: str, reply: str,
                                                   error: type[SendError], code: int) -> None:
    refusal_is_sorted(relay, stage, reply, error, code)
