"""``pbem check --send-test ADDRESS``: the whole way a player's reply travels, seen working once.

The servers are real: Dovecot holds the moderator's inbox, aiosmtpd is the
relay. Between them the test plays the provider's mail system: the relay
hands mail for the moderator's domain to Dovecot (an IMAP APPEND, as local
delivery would), keeping the ``+token`` as it came, or stripping it (a
provider without plus-addressing). Everything else it keeps, as sent out.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from pbem.cli.roundtrip import round_trip
from pbem.config import load_config, parse_config
from pbem.mail.hub import MailHub
from tests.mailflowkit import mailbox_config_text
from tests.mailservers import DovecotAccount
from tests.smtpservers import RecordingHandler, SmtpServer, running_relay


class Delivering(RecordingHandler):
    """The relay of a provider: mail for games.test goes into the Dovecot inbox, the rest is kept as sent."""

    def __init__(self, account: DovecotAccount, *, strip_plus: bool = False) -> None:
        super().__init__()
        self.account = account
        self.strip_plus = strip_plus

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        answer = await super().handle_DATA(server, session, envelope)
        for rcpt in envelope.rcpt_tos:
            if rcpt.endswith("@games.test"):
                delivered = re.sub(r"\+[^@]*@", "@", rcpt) if self.strip_plus else rcpt
                data = bytes(envelope.content)
                if self.strip_plus:
                    data = data.replace(rcpt.encode(), delivered.encode())
                self.account.append(f"Delivered-To: {delivered}\r\n".encode() + data)
        return answer


@pytest.fixture
def relay(dovecot: DovecotAccount) -> Iterator[SmtpServer]:
    with running_relay(Delivering(dovecot)) as server:
        yield server


def config_file(tmp_path: Path, account: DovecotAccount, smtp: SmtpServer) -> Path:
    path = tmp_path / "pbem.toml"
    path.write_text(mailbox_config_text(account, smtp, f"sqlite:///{tmp_path / 'pbem.db'}"))
    return path


def test_send_test_passes_when_the_whole_round_trip_works(tmp_path: Path, dovecot: DovecotAccount,
                                                          relay: SmtpServer) -> None:
    path = config_file(tmp_path, dovecot, relay)
    result = CliRunner().invoke(app, ["--config", str(path), "check", "--send-test", "gm@example.org",
                                      "--wait", "20"], env={"PBEM_CONFIG": "", "PBEM_DATABASE_URL": ""})
    assert result.exit_code == 0, result.output
    for seen in ("it arrived in the inbox", "noticed by IDLE", "plus-addressing works",
                 "moved it to the processed folder", "a test mail to gm@example.org", "The round trip works"):
        assert seen in result.stdout
    assert dovecot.uids("INBOX") == [] and len(dovecot.uids("processed")) == 1
    outward = [r for r in relay.handler.received if r.rcpt_tos == ("gm@example.org",)]
    assert len(outward) == 1 and outward[0].message["Auto-Submitted"] == "auto-generated"
    assert dovecot.password not in result.output


def test_a_provider_that_strips_the_plus_fails_the_round_trip(tmp_path: Path,
                                                              dovecot: DovecotAccount) -> None:
    with running_relay(Delivering(dovecot, strip_plus=True)) as server:
        trip = round_trip(load_config(config_file(tmp_path, dovecot, server), {}), "gm@example.org", wait=20)
    assert not trip.ok
    assert any("plus-addressing: the token did not arrive" in line for line in trip.text())
    assert not any(r.rcpt_tos == ("gm@example.org",) for r in server.handler.received)  # no test mail to the GM then


@pytest.mark.slow
def test_mail_that_never_arrives_fails_after_the_wait(tmp_path: Path, dovecot: DovecotAccount) -> None:
    with running_relay(RecordingHandler()) as server:  # a relay that delivers nothing to the moderator
        trip = round_trip(load_config(config_file(tmp_path, dovecot, server), {}), "gm@example.org", wait=1.5)
    assert not trip.ok and any("did not arrive in the inbox within 1.5 s" in line for line in trip.text())


def test_the_test_mails_keep_their_lines_within_78_columns(tmp_path: Path, dovecot: DovecotAccount,
                                                           relay: SmtpServer) -> None:
    """The game master reads the mail to ADDRESS in their own client: mail lines of at most 78 columns."""
    trip = round_trip(load_config(config_file(tmp_path, dovecot, relay), {}), "gm@example.org", wait=20)
    assert trip.ok, trip.text()
    bodies = [r.message.get_payload(decode=True).decode() for r in relay.handler.received]
    assert len(bodies) == 2 and "the moderator's mail reaches" in " ".join(bodies[1].split())
    assert [line for body in bodies for line in body.splitlines() if len(line) > 78] == []


def test_send_test_works_with_a_maildir_inbox(tmp_path: Path) -> None:
    """Before: ``[maildir]`` (the host's mail server, or ``pbem mailhub``, delivering into a local folder) was refused
    with "no [imap] section: the moderator cannot read its mail"."""
    with MailHub(tmp_path / "hub") as hub:
        config = parse_config({"moderator": {"address": "moderator@demo.pbem"},
                               "smtp": {"host": "127.0.0.1", "port": hub.port, "security": "none"},
                               "maildir": {"path": str(hub.ensure_maildir("moderator@demo.pbem"))}}, None, {})
        trip = round_trip(config, "gm@example.org", wait=20)
        assert trip.ok, trip.text()
        text = "\n".join(trip.text())
        assert "plus-addressing works" in text and "found by polling" in text
        assert "moved it to the processed folder 'processed'" in text
        assert hub.wait_delivered(2, 10)  # and the mail to the game master went out
