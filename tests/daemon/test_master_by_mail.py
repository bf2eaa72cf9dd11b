"""A game master runs a game by mail alone (issue 31): real Dovecot inbox, real aiosmtpd, never the CLI.

The host names the master once; from then on the master only hits Reply:
PAUSE, FORCE, REPLACE and RESUME, each answered to the master and told to
the players as the CLI's commands tell them.
"""
from __future__ import annotations

from collections.abc import Iterator
from email.message import EmailMessage
from email.utils import getaddresses
from pathlib import Path

import pytest

from pbem.daemon import MailFlow, poll_once
from pbem.moderator.gamemaster import MailContext
from pbem.moderator.mastermail.roster import host_add
from pbem.store import Database
from tests.mailflowkit import NOW, Table, mail_config, raw_mail
from tests.mailservers import DovecotAccount
from tests.smtpservers import SmtpServer

MASTER = "gm@example.org"


@pytest.fixture
def table(tmp_path: Path, dovecot: DovecotAccount, smtpd: SmtpServer) -> Iterator[Table]:
    t = Table(Database(f"sqlite:///{tmp_path / 'masters.db'}"), mail_config(dovecot, smtpd))
    yield t
    t.db.dispose()


def to(smtp: SmtpServer, address: str, since: int = 0) -> list[EmailMessage]:
    return [r.message for r in smtp.received[since:] if r.rcpt_tos == (address,)]


def text_of(message: EmailMessage) -> str:
    plain = message.get_body(("plain",))
    assert plain is not None
    return str(plain.get_content())


def reply(last: EmailMessage, body: str, sender: str = MASTER) -> bytes:
    """Reply on ``last``: To its Reply-To (the master's token address), threaded under it."""
    reply_to = getaddresses([str(last["Reply-To"])])[0][1]
    return raw_mail(sender, reply_to, body, subject=f"Re: {last['Subject']}",
                    headers=f"In-Reply-To: {last['Message-ID']}\nReferences: {last['Message-ID']}")


def master_says(t: Table, flow: MailFlow, dovecot: DovecotAccount, smtpd: SmtpServer, last: EmailMessage,
                body: str) -> tuple[EmailMessage, int]:
    """The master replies ``body`` on ``last``; the moderator's answer to the master, and where the mail began."""
    before = len(smtpd.received)
    dovecot.append(reply(last, body))
    report = poll_once(flow)
    assert report.ok, report
    [outcome] = report.inbox.outcomes
    assert outcome.outcome == "master", outcome
    [answer] = to(smtpd, MASTER, before)
    return answer, before


@pytest.mark.slow
def test_a_master_pauses_forces_replaces_and_resumes_by_mail(table: Table, dovecot: DovecotAccount,
                                                              smtpd: SmtpServer) -> None:
    t = table
    t.create(players=2)
    host_add(t.db, t.name, MASTER, MailContext.from_config(t.config), NOW)
    flow = MailFlow(t.config, t.db, moderator=t.moderator, clock=lambda: NOW)
    assert poll_once(flow).ok
    [welcome] = to(smtpd, MASTER)
    assert "PAUSE" in text_of(welcome) and "+" in str(welcome["Reply-To"])

    answer, since = master_says(t, flow, dovecot, smtpd, welcome, "PAUSE")
    assert "Line 1: PAUSE" in text_of(answer)
    assert {r.rcpt_tos for r in smtpd.received[since:]} >= {("ann@example.org",), ("bob@example.org",)}

    player, order = t.an_order()
    version = t.state().version
    answer, since = master_says(t, flow, dovecot, smtpd, answer, f"FORCE {player} {order}")
    assert t.state().version > version and "Done" in text_of(answer)
    told = text_of(to(smtpd, "bob@example.org", since)[-1])
    assert "game master" in told  # every seat reads that the game master gave the orders

    answer, since = master_says(t, flow, dovecot, smtpd, answer, "REPLACE bob carol@example.org")
    assert to(smtpd, "carol@example.org", since) and "carol@example.org" in text_of(answer)

    answer, since = master_says(t, flow, dovecot, smtpd, answer, "RESUME")
    assert "Line 1: RESUME" in text_of(answer) and "Done" in text_of(answer)
    assert to(smtpd, "ann@example.org", since) and to(smtpd, "carol@example.org", since)


@pytest.mark.slow
def test_the_masters_token_from_a_players_address_is_ignored(table: Table, dovecot: DovecotAccount,
                                                             smtpd: SmtpServer) -> None:
    t = table
    t.create(players=2)
    host_add(t.db, t.name, MASTER, MailContext.from_config(t.config), NOW)
    flow = MailFlow(t.config, t.db, moderator=t.moderator, clock=lambda: NOW)
    assert poll_once(flow).ok
    [welcome] = to(smtpd, MASTER)
    before = len(smtpd.received)
    dovecot.append(reply(welcome, "PAUSE", sender="ann@example.org"))
    report = poll_once(flow)
    [outcome] = report.inbox.outcomes
    assert outcome.outcome == "master_ignored" and len(smtpd.received) == before
