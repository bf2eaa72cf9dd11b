"""A bounce as a host's Postfix hands it over: the real relay took our mail, the DSN comes back over LMTP from
the null sender, and it counts against the seat without a word sent back."""
from __future__ import annotations

import smtplib
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import col, select

from pbem.store.models import SeatRow
from tests import bouncesamples
from tests.daemon.test_lmtp import Rig
from tests.mailflowkit import MODERATOR, wait_until
from tests.smtpservers import SmtpServer


@pytest.fixture
def rig(tmp_path: Path, smtpd: SmtpServer) -> Iterator[Rig]:
    r = Rig(tmp_path, smtpd)
    r.start()
    yield r
    r.stop()


def deliver_bounce(rig: Rig, raw: bytes) -> None:
    client = smtplib.LMTP("127.0.0.1", rig.port)
    try:
        assert client.sendmail("", [MODERATOR], raw) == {}  # MAIL FROM:<>, as every DSN comes
    finally:
        client.quit()


def test_a_postfix_bounce_over_lmtp_counts_against_the_seat_and_is_not_answered(rig: Rig, smtpd: SmtpServer) -> None:
    rig.flow.deliver()  # the welcome mails, through the real relay
    sent = [mail for mail in smtpd.received if "ann@example.org" in mail.rcpt_tos]
    assert sent
    before = len(smtpd.received)
    deliver_bounce(rig, bouncesamples.postfix_failed(sent[-1].data, "ann@example.org"))
    wait_until(lambda: [r.outcome for r in rig.table.inbound()] == ["bounce"], what="the bounce handled")
    with rig.table.db.transaction() as session:
        assert session.exec(select(SeatRow.bounces).where(col(SeatRow.name) == "ann")).one() == 1
    rig.flow.deliver()
    assert len(smtpd.received) == before
