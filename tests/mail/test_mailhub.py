"""The local mail hub (pbem mailhub): SMTP in on loopback, one Maildir per address out."""
from __future__ import annotations

import asyncio
import os
import smtplib
from email import message_from_bytes
from email.message import EmailMessage
from pathlib import Path
from types import SimpleNamespace

import pytest

from pbem.mail import MaildirInbox, parse_message
from pbem.mail.hub import MailHub, MailHubError, _Delivery, _Handler, is_loopback_host, mailbox_name


def message(to: str, subject: str = "hello", body: str = "RONDEL investor\n") -> EmailMessage:
    m = EmailMessage()
    m["From"] = "Ann <ann@example.org>"
    m["To"] = to
    m["Subject"] = subject
    m["Message-ID"] = f"<{subject}@example.org>"
    m.set_content(body)
    return m


def files(maildir: Path, sub: str = "new") -> list[Path]:
    directory = maildir / sub
    return sorted(directory / name for name in os.listdir(directory)) if directory.is_dir() else []


@pytest.fixture
def hub(tmp_path: Path):  # type: ignore[no-untyped-def]
    with MailHub(tmp_path / "mail", fsync=False) as running:
        yield running


def send(hub: MailHub, mail: EmailMessage, recipients: list[str] | None = None, sender: str | None = None) -> None:
    with smtplib.SMTP("127.0.0.1", hub.port, local_hostname="localhost", timeout=10) as smtp:
        smtp.send_message(mail, from_addr=sender, to_addrs=recipients)


def test_mail_lands_in_the_maildir_of_its_recipient(hub: MailHub) -> None:
    assert hub.port > 0 and hub.running
    send(hub, message("bot1@demo.pbem", body="RONDEL investor\n.a line with a dot\n"))
    delivered = files(hub.root / "bot1@demo.pbem")
    assert len(delivered) == 1
    assert files(hub.root / "bot1@demo.pbem", "tmp") == []
    raw = delivered[0].read_bytes()
    parsed = message_from_bytes(raw)
    assert parsed["Delivered-To"] == "bot1@demo.pbem"
    assert parsed["Return-Path"] == "<ann@example.org>"
    assert "by mailhub.pbem (pbem mailhub)" in parsed["Received"]
    assert parsed["To"] == "bot1@demo.pbem" and parsed["Subject"] == "hello"
    assert parsed.get_payload() == "RONDEL investor\n.a line with a dot\n"  # dot-stuffing undone
    assert b"\r\n" not in raw  # Maildir files have Unix line ends
    assert hub.delivered == 1 and hub.accepted == 1


def test_plus_addresses_go_to_the_base_address_keeping_the_to_header(hub: MailHub) -> None:
    send(hub, message("moderator+7f3a9c0d@demo.pbem"))
    assert not (hub.root / "moderator+7f3a9c0d@demo.pbem").exists()
    (path,) = files(hub.root / "moderator@demo.pbem")
    raw = path.read_bytes()
    parsed = message_from_bytes(raw)
    assert parsed["To"] == "moderator+7f3a9c0d@demo.pbem"
    assert parsed["Delivered-To"] == "moderator+7f3a9c0d@demo.pbem"
    # the moderator's parser finds the seat's token in it
    inbound = parse_message(raw, moderator_address="moderator@demo.pbem")
    assert inbound.token == "7f3a9c0d" and inbound.sender == "ann@example.org"
    assert hub.maildir_for("Moderator+x@Demo.pbem") == hub.root / "moderator@demo.pbem"


def test_one_copy_per_recipient(hub: MailHub) -> None:
    send(hub, message("bot1@demo.pbem"), ["bot1@demo.pbem", "BOT2@demo.pbem", "moderator+t0ken@demo.pbem"])
    assert len(files(hub.root / "bot1@demo.pbem")) == 1
    assert len(files(hub.root / "bot2@demo.pbem")) == 1
    assert len(files(hub.root / "moderator@demo.pbem")) == 1
    assert hub.delivered == 3 and hub.accepted == 1
    assert hub.wait_delivered(3, 0.1) and not hub.wait_delivered(4, 0.05)


def test_addresses_that_cannot_be_a_directory_are_refused(hub: MailHub) -> None:
    with smtplib.SMTP("127.0.0.1", hub.port, local_hostname="localhost", timeout=10) as smtp:
        smtp.ehlo()
        smtp.mail("ann@example.org")
        for bad in ("../etc@demo.pbem", "a/b@demo.pbem", "noat", ".hidden@demo.pbem", "x@-bad.pbem"):
            code, _ = smtp.rcpt(bad)
            assert code == 550, bad
        code, _ = smtp.rcpt("ok@demo.pbem")
        assert code == 250
        smtp.rset()
    assert sorted(os.listdir(hub.root)) == []


def test_mailbox_names() -> None:
    assert mailbox_name("Bot1@Demo.PBEM") == "bot1@demo.pbem"
    assert mailbox_name("<moderator+abc@demo.pbem>") == "moderator@demo.pbem"
    assert mailbox_name("first.last@example.org") == "first.last@example.org"
    for bad in ("", "x", "@x.org", "a@", "..@x.org", "a/b@x.org", "a@x..org", "+tag@x.org", 'a"b@x.org'):
        assert mailbox_name(bad) is None, bad


def test_it_listens_on_loopback_only(tmp_path: Path) -> None:
    assert is_loopback_host("127.0.0.1") and is_loopback_host("::1") and is_loopback_host("localhost")
    assert not is_loopback_host("0.0.0.0") and not is_loopback_host("192.0.2.1")
    for host in ("0.0.0.0", "::", "192.0.2.1"):
        with pytest.raises(MailHubError, match="loopback"):
            MailHub(tmp_path, host)


def test_clients_that_are_not_on_loopback_are_refused(tmp_path: Path) -> None:
    hub = MailHub(tmp_path)
    handler = _Handler(hub)
    envelope = SimpleNamespace(mail_from=None, mail_options=[], rcpt_tos=[], content=b"", original_content=b"")
    outside = SimpleNamespace(peer=("192.0.2.7", 40000), host_name="evil")
    inside = SimpleNamespace(peer=("127.0.0.1", 40000), host_name="localhost")
    run = asyncio.run
    assert run(handler.handle_MAIL(None, outside, envelope, "a@x.org", [])).startswith("550")
    assert run(handler.handle_RCPT(None, outside, envelope, "b@x.org", [])).startswith("550")
    assert run(handler.handle_DATA(None, outside, envelope)).startswith("550")
    assert run(handler.handle_MAIL(None, inside, envelope, "a@x.org", [])).startswith("250")
    assert envelope.rcpt_tos == []


def test_start_stop_and_a_taken_port(tmp_path: Path) -> None:
    hub = MailHub(tmp_path / "a", fsync=True).start()
    try:
        send(hub, message("x@demo.pbem"))
        assert len(files(hub.root / "x@demo.pbem")) == 1
        with pytest.raises(MailHubError, match="cannot listen"):
            MailHub(tmp_path / "b", port=hub.port).start()
    finally:
        hub.stop()
    assert not hub.running
    hub.stop()  # twice: harmless
    with pytest.raises(OSError):
        smtplib.SMTP("127.0.0.1", hub.port, timeout=2)


def test_the_moderator_reads_hub_mail_through_a_maildir_inbox(hub: MailHub) -> None:
    for i in range(3):
        send(hub, message(f"moderator+tok{i}xyz@demo.pbem", subject=f"m{i}"))
    with MaildirInbox(hub.maildir_for("moderator@demo.pbem")) as inbox:
        result = inbox.fetch_new(None)
        tokens = [parse_message(raw, moderator_address="moderator@demo.pbem").token for _, raw in result.messages]
        assert tokens == ["tok0xyz", "tok1xyz", "tok2xyz"]


def test_a_listener_is_told_about_each_delivery(tmp_path: Path) -> None:
    seen: list[tuple[str, Path]] = []

    def listener(name: str, path: Path) -> None:
        seen.append((name, path))
        raise RuntimeError("a broken listener does not refuse the mail")

    with MailHub(tmp_path, fsync=False, on_delivery=listener) as hub:
        send(hub, message("bot1+x@demo.pbem"))
    assert [name for name, _ in seen] == ["bot1@demo.pbem"]
    assert seen[0][1].parent == tmp_path / "bot1@demo.pbem" / "new"


@pytest.mark.slow
def test_pbem_mailhub_runs_until_terminated(tmp_path: Path) -> None:
    import re
    import signal
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    process = subprocess.Popen([sys.executable, "-m", "pbem.cli", "mailhub", "--root", str(tmp_path / "hub"),
                                "--port", "0", "--no-fsync"], cwd=root, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        match = re.search(r"SMTP on 127\.0\.0\.1:(\d+)", first)
        assert match, first
        with smtplib.SMTP("127.0.0.1", int(match.group(1)), local_hostname="localhost", timeout=10) as smtp:
            smtp.send_message(message("moderator+abcd@demo.pbem"))
        assert len(files(tmp_path / "hub" / "moderator@demo.pbem")) == 1
    finally:
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=20)
    assert process.returncode == 0, output
    assert "1 mail(s) delivered" in output
    refused = subprocess.run([sys.executable, "-m", "pbem.cli", "mailhub", "--root", str(tmp_path), "--host",
                              "0.0.0.0"], cwd=root, env=env, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "loopback" in refused.stderr


def test_mail_files_named_in_the_order_they_came(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The moderator's Maildir reads mails of the same modification time in the order of their names: two
    bots' sealed bids 0.095 s and 0.102 s into one second were named "M95000" and "M102000", read the
    wrong way round, and the game's log changed with the clock."""
    delivery = _Delivery(tmp_path, "hub", fsync=False)
    names = []
    for now in (1000.095, 1000.102, 1000.102, 1000.9):
        monkeypatch.setattr("pbem.mail.hub.time.time", lambda now=now: now)
        names.append(delivery.unique())
    assert sorted(names) == names
    for _ in range(8):  # the counter past 9
        names.append(delivery.unique())
    assert sorted(names[-6:]) == names[-6:]
