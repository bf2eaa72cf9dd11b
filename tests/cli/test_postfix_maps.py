"""``pbem postfix-maps DIR``: Postfix refuses an unknown address at the games' domain while the sender is
connected (no backscatter), and hands the moderator's mail, any ``+token`` included, to ``pbem lmtp``.

The files' contents are checked as written; then a real, private Postfix
(``tests.postfixserver``) runs on them: RCPT TO an unknown address is
refused with a 5xx at RCPT, a seat's reply address is accepted, and the
mail reaches a real pbem LMTP server and is applied, through
``lmtp_fallback_relay`` because the first LMTP address given listens to
nobody (a second ``pbem lmtp`` standing in for a stopped first).
"""
from __future__ import annotations

import smtplib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from pbem.cli.postfix import postfix_maps
from pbem.daemon import MailFlow
from pbem.daemon.lmtp import LmtpHandler, start_lmtp
from pbem.daemon.workers import Appliers
from pbem.store import Database
from tests.loopback import free_port
from tests.mailflowkit import PLAYERS, Table, config_for, wait_until
from tests.postfixserver import PostfixServer
from tests.smtpservers import SmtpServer


def run(config: Path, *args: str) -> Any:
    return CliRunner().invoke(app, ["--config", str(config), "postfix-maps", *args],
                              env={"PBEM_CONFIG": "", "PBEM_DATABASE_URL": ""})


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "pbem.toml"
    path.write_text('[moderator]\naddress = "PBEM@Games.Example.org"\n')
    return path


def test_the_maps_send_the_domain_to_pbem_lmtp_and_know_only_the_moderators_address(config: Path,
                                                                                   tmp_path: Path) -> None:
    result = run(config, str(tmp_path / "maps"), "--listen", "127.0.0.1:8024")
    assert result.exit_code == 0, result.output
    transport = (tmp_path / "maps" / "transport").read_text().splitlines()
    recipients = (tmp_path / "maps" / "relay_recipients").read_text().splitlines()
    assert [line for line in transport if not line.startswith("#")] == ["games.example.org\tlmtp:inet:127.0.0.1:8024"]
    assert [line for line in recipients if not line.startswith("#")] == ["pbem@games.example.org\tOK"]
    maps = tmp_path / "maps"
    assert f"""    recipient_delimiter = +
    relay_domains = games.example.org
    transport_maps = hash:{maps / 'transport'}
    relay_recipient_maps = hash:{maps / 'relay_recipients'}
""" in result.stdout
    assert f"postmap {maps / 'transport'} {maps / 'relay_recipients'} && postfix reload" in result.stdout
    assert "lmtp_fallback_relay" not in result.stdout


def test_a_second_pbem_lmtp_is_postfixs_fallback_relay(config: Path, tmp_path: Path) -> None:
    result = run(config, str(tmp_path), "--fallback", "127.0.0.1:8025")
    assert result.exit_code == 0 and "    lmtp_fallback_relay = [127.0.0.1]:8025\n" in result.stdout
    assert "lmtp:inet:127.0.0.1:8024" in (tmp_path / "transport").read_text()  # --listen's default


def test_written_again_the_maps_are_replaced_whole(config: Path, tmp_path: Path) -> None:
    assert run(config, str(tmp_path), "--listen", "127.0.0.1:9000").exit_code == 0
    assert run(config, str(tmp_path), "--listen", "[::1]:9001").exit_code == 0
    text = (tmp_path / "transport").read_text()
    assert "lmtp:inet:[::1]:9001" in text and "9000" not in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pbem.toml", "relay_recipients", "transport"]


def test_a_bad_address_to_listen_on_is_a_usage_error(config: Path, tmp_path: Path) -> None:
    result = run(config, str(tmp_path / "maps"), "--listen", "localhost")
    assert result.exit_code == 2 and "HOST:PORT, not 'localhost'" in result.stderr
    assert not (tmp_path / "maps").exists()


@pytest.mark.slow
def test_real_postfix_refuses_an_unknown_recipient_and_hands_a_seats_mail_to_pbem_lmtp(
        tmp_path: Path, smtpd: SmtpServer) -> None:
    moderator = config_for(smtp={"host": smtpd.host, "port": smtpd.port, "security": "none"})
    table = Table(Database(f"sqlite:///{tmp_path / 'postfix.db'}"), moderator)
    table.create(players=2, now=datetime.now(UTC))
    flow = MailFlow(moderator, table.db, moderator=table.moderator, apply_inline=False)
    appliers = Appliers(flow, 1, poll=0.2)
    flow.on_queued(appliers.wake)
    lmtp_port, nobody_port = free_port(), free_port()
    maps = postfix_maps([moderator.require_moderator()], f"127.0.0.1:{nobody_port}")
    (tmp_path / "transport").write_text(maps.transport)
    (tmp_path / "relay_recipients").write_text(maps.relay_recipients)
    postfix = PostfixServer(maps.main_cf(tmp_path, f"127.0.0.1:{lmtp_port}"))
    server = None
    try:
        postfix.postmap_files(tmp_path / "transport", tmp_path / "relay_recipients")
        appliers.start()
        server = start_lmtp(LmtpHandler(table.db, moderator, flow.clock, flow.wake_workers), "127.0.0.1", lmtp_port)
        postfix.start()
        player, order = table.an_order()
        address = dict(PLAYERS)[player]
        with smtplib.SMTP("127.0.0.1", postfix.port, timeout=30) as client:
            client.ehlo("client.example.org")
            assert client.mail("stranger@forged.example")[0] == 250
            code, answer = client.rcpt("nobody@games.test")
            assert code == 550 and b"5.1.1" in answer, answer  # refused at RCPT: nothing to bounce later
            assert client.rset()[0] == 250
            refused = client.sendmail(address, [table.reply_to(player)], table.mail_from(player, order + "\n"))
            assert refused == {}
        wait_until(lambda: table.log_length() == 1, 60, f"the order applied; Postfix said: {postfix.log_text()}")
        assert [r.outcome for r in table.inbound()] == ["applied"]
        log = postfix.log_text()
        assert "User unknown in relay recipient table" in log and "status=sent" in log
    finally:
        postfix.stop()
        if server is not None:
            server.stop()
        appliers.stop()
        table.db.dispose()
