"""A game created, filled and started by mail alone, through a real Dovecot inbox and a real SMTP relay (aiosmtpd):
CREATE by an address the host allows, JOIN by two strangers, each confirmed by replying to the confirmation mail
(To its Reply-To, as a mail client does), then every seat's welcome with its reply token, and a first order."""
from __future__ import annotations

from collections.abc import Iterator
from email.message import EmailMessage
from email.utils import getaddresses
from pathlib import Path

import pytest

from pbem.daemon import MailFlow, poll_once
from pbem.mail import token_of_address
from pbem.store import Database
from tests.mailflowkit import MODERATOR, NOW, Table, mail_config, raw_mail
from tests.mailservers import DovecotAccount
from tests.smtpservers import SmtpServer

HOST = "host@example.org"
KIM, LEA = "kim@a.example", "lea@b.example"


@pytest.fixture
def table(tmp_path: Path, dovecot: DovecotAccount, smtpd: SmtpServer) -> Iterator[Table]:
    t = Table(Database(f"sqlite:///{tmp_path / 'judge.db'}"),
              mail_config(dovecot, smtpd, judge={"creators": [HOST]}), name="friday")
    yield t
    t.db.dispose()


def received(smtpd: SmtpServer, address: str) -> list[EmailMessage]:
    return [r.message for r in smtpd.received if r.rcpt_tos == (address,)]


def reply_to(message: EmailMessage) -> str:
    return getaddresses([str(message["Reply-To"])])[0][1]


def text_of(message: EmailMessage) -> str:
    plain = message.get_body(("plain",))
    assert plain is not None
    return str(plain.get_content())


def exchange(flow: MailFlow, dovecot: DovecotAccount, raw: bytes) -> str:
    """One mail into the moderator's inbox, read and answered: its outcome."""
    dovecot.append(raw)
    report = poll_once(flow)
    assert report.ok, report
    [outcome] = report.inbox.outcomes
    return outcome.outcome


def ask_and_confirm(flow: MailFlow, dovecot: DovecotAccount, smtpd: SmtpServer, sender: str, command: str) -> None:
    assert exchange(flow, dovecot, raw_mail(sender, MODERATOR, command, subject="hello")) == "command"
    asked = received(smtpd, sender)[-1]
    assert str(asked["Subject"]) == f"Please confirm: {command}"
    assert token_of_address(reply_to(asked), MODERATOR)
    assert exchange(flow, dovecot, raw_mail(sender, reply_to(asked), "yes", subject=f"Re: {asked['Subject']}")) \
        == "command"


@pytest.mark.slow
def test_a_game_created_filled_by_join_and_started_by_mail(table: Table, dovecot: DovecotAccount,
                                                           smtpd: SmtpServer) -> None:
    flow = MailFlow(table.config, table.db, moderator=table.moderator, clock=lambda: NOW)
    ask_and_confirm(flow, dovecot, smtpd, HOST, "CREATE friday eight-minute-empire 2")
    assert "Game friday (Eight-Minute Empire) is created" in text_of(received(smtpd, HOST)[-1])

    assert exchange(flow, dovecot, raw_mail(KIM, MODERATOR, "LIST")) == "command"
    listing = text_of(received(smtpd, KIM)[-1])
    assert "friday: Eight-Minute Empire, 2 seats of 2 free" in listing and HOST not in listing

    ask_and_confirm(flow, dovecot, smtpd, KIM, "JOIN friday kim")
    assert "The game starts when 1 more player joins" in text_of(received(smtpd, KIM)[-1])
    ask_and_confirm(flow, dovecot, smtpd, LEA, "JOIN friday lea")
    poll_once(flow)  # the welcomes, queued with the last seat taken

    welcomes = {address: [m for m in received(smtpd, address) if "Welcome" in str(m["Subject"])]
                for address in (KIM, LEA)}
    assert all(len(w) == 1 for w in welcomes.values()), welcomes
    assert "Every seat is taken: the game starts now" in text_of(
        [m for m in received(smtpd, LEA) if "Welcome" not in str(m["Subject"])][-1])
    tokens = {address: token_of_address(reply_to(w[0]), MODERATOR) for address, w in welcomes.items()}
    assert all(tokens.values()) and len(set(tokens.values())) == 2

    # the started game takes its seats' mail: a question answered by its token
    [welcome] = welcomes[KIM]
    assert exchange(flow, dovecot, raw_mail(KIM, reply_to(welcome), "STATUS", subject=f"Re: {welcome['Subject']}")) \
        in ("query", "applied")
