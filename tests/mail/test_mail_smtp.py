"""SmtpSender against aiosmtpd on loopback: delivery, failures sorted into transient and permanent, and
logging in with a password_command and with XOAUTH2."""
from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller

from pbem.mail import (
    DECISION_HEADER,
    AuthMethod,
    Security,
    SendError,
    SmtpSender,
    SmtpSettings,
    TransientSendError,
    WireMail,
    message_id_for,
    smtp,
)
from pbem.mail.wire import to_wire
from tests.loopback import free_port
from tests.mailservers import secret_command
from tests.smtpcases import MODERATOR, REFUSALS, prompt, refusal_is_sorted
from tests.smtpservers import SMTP_PASSWORD, SMTP_TOKEN, SMTP_USER, CountingHandler, RecordingHandler, SmtpServer


def test_send_delivers_headers_and_body(smtpd: SmtpServer) -> None:
    with SmtpSender(smtpd.settings()) as sender:
        sender.send(prompt())
    [received] = smtpd.received
    assert received.mail_from == MODERATOR
    assert received.rcpt_tos == ("ann@example.org",)
    assert received.authenticated_as is None
    message = received.message
    assert message["Subject"] == "[Zürich] Round 3: your turn"
    assert message["Message-ID"] == message_id_for("zurich", 3, "ann@example.org", "prompt", domain="games.example")
    assert message["Reply-To"] == "Imperial 2030 <pbem+k7dq2m9x@games.example>"
    assert message[DECISION_HEADER] == "rondel"
    assert message["Auto-Submitted"] == "auto-generated"
    assert message.get_content().replace("\r\n", "\n") == "Österreich chose Investor.\nYour turn: choose a rondel space.\n"


def test_one_connection_serves_many_sends_and_envelope_can_be_given(smtpd: SmtpServer) -> None:
    sender = SmtpSender(smtpd.settings())
    try:
        sender.send(prompt("ann@example.org"))
        sender.send(prompt("bob@example.org"))
        sender.send(prompt("cat@example.org"), sender="pbem+bounces@games.example", recipients=["gm@example.org"])
    finally:
        sender.close()
    assert [(r.mail_from, r.rcpt_tos) for r in smtpd.received] == [
        (MODERATOR, ("ann@example.org",)),
        (MODERATOR, ("bob@example.org",)),
        ("pbem+bounces@games.example", ("gm@example.org",)),
    ]


def test_a_restarted_relay_is_reconnected_on_the_next_send() -> None:
    """The relay restarts (or drops idle clients) between two sends: the second must reconnect, not fail."""
    port = free_port()
    first, second = RecordingHandler(), RecordingHandler()
    controller = Controller(first, hostname="127.0.0.1", port=port)
    controller.start()
    sender = SmtpSender(SmtpSettings(host="127.0.0.1", port=port, security=Security.NONE, timeout=5,
                                     local_hostname="pbem.test"))
    try:
        sender.send(prompt("ann@example.org"))
        controller.stop()
        controller = Controller(second, hostname="127.0.0.1", port=port)
        controller.start()
        sender.send(prompt("bob@example.org"))
    finally:
        sender.close()
        controller.stop()
    assert [r.rcpt_tos for r in first.received] == [("ann@example.org",)]
    assert [r.rcpt_tos for r in second.received] == [("bob@example.org",)]


@pytest.mark.parametrize(("stage", "reply", "error", "code"), REFUSALS)
def test_refusals_are_sorted_by_reply_code(smtpd: SmtpServer, stage: str, reply: str,
                                           error: type[SendError], code: int) -> None:
    refusal_is_sorted(smtpd, stage, reply, error, code)


def test_connection_refused_is_transient() -> None:
    port = free_port()
    sender = SmtpSender(SmtpSettings(host="127.0.0.1", port=port, security=Security.NONE, timeout=5))
    refused = f"cannot talk to the SMTP server 127.0.0.1:{port} \\(none\\): connection refused"
    with pytest.raises(TransientSendError, match=refused):
        sender.send(prompt())


def test_a_server_that_hangs_up_at_once_is_transient() -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def hang_up() -> None:
        connection, _ = listener.accept()
        connection.close()

    thread = threading.Thread(target=hang_up)
    thread.start()
    try:
        sender = SmtpSender(SmtpSettings(host="127.0.0.1", port=port, security=Security.NONE, timeout=5))
        with pytest.raises(TransientSendError, match="connection closed"):
            sender.send(prompt())
    finally:
        thread.join()
        listener.close()


def test_login(smtpd: SmtpServer) -> None:
    with SmtpSender(smtpd.settings(username=SMTP_USER, password=SMTP_PASSWORD)) as sender:
        sender.send(prompt())
    assert [r.authenticated_as for r in smtpd.received] == [SMTP_USER]


def test_a_refused_login_is_transient_and_hides_the_password(smtpd: SmtpServer) -> None:
    settings = smtpd.settings(username=SMTP_USER, password="wrong-Secret-987")
    with pytest.raises(TransientSendError) as caught:
        SmtpSender(settings).send(prompt())
    text = str(caught.value)
    assert "refused the login of 'relay-user'" in text and "535" in text
    assert "wrong-Secret-987" not in text and "wrong-Secret-987" not in repr(settings)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    assert smtpd.received == []


@pytest.mark.parametrize("security", [Security.STARTTLS, Security.SSL])
def test_tls_modes(smtpd_tls: SmtpServer, security: Security) -> None:
    assert smtpd_tls.tls is not None
    port = smtpd_tls.ssl_port if security is Security.SSL else smtpd_tls.port
    settings = smtpd_tls.settings(security=security, port=port, username=SMTP_USER, password=SMTP_PASSWORD)
    with SmtpSender(settings, ssl_context=smtpd_tls.tls.client_context()) as sender:
        sender.send(prompt())
    assert [r.authenticated_as for r in smtpd_tls.received] == [SMTP_USER]


def test_an_untrusted_certificate_is_a_transient_tls_error(smtpd_tls: SmtpServer) -> None:
    settings = smtpd_tls.settings(security=Security.SSL, port=smtpd_tls.ssl_port)
    with pytest.raises(TransientSendError, match="TLS error: CERTIFICATE_VERIFY_FAILED"):
        SmtpSender(settings).open()


def test_starttls_against_a_server_without_it(smtpd: SmtpServer) -> None:
    with pytest.raises(TransientSendError, match="does not offer STARTTLS"):
        SmtpSender(smtpd.settings(security=Security.STARTTLS)).open()


# --- password_command and XOAUTH2 ---------------------------------------------------------------------


def test_password_command_runs_at_every_login(tmp_path: Path, smtpd: SmtpServer) -> None:
    helper = secret_command(tmp_path, SMTP_PASSWORD)
    sender = SmtpSender(smtpd.settings(username=SMTP_USER, password_command=helper.command))
    try:
        sender.send(prompt("ann@example.org"))
        sender.send(prompt("bob@example.org"))
        assert helper.runs == 1  # one login serves the open connection
        sender.close()
        sender.send(prompt("cat@example.org"))
    finally:
        sender.close()
    assert helper.runs == 2  # a new connection asks again: nothing is cached
    assert [r.authenticated_as for r in smtpd.received] == [SMTP_USER] * 3


def test_no_login_no_command(tmp_path: Path, smtpd: SmtpServer) -> None:
    helper = secret_command(tmp_path, SMTP_PASSWORD)
    with SmtpSender(smtpd.settings(password_command=helper.command)) as sender:  # no username: a plain relay
        sender.send(prompt())
    assert helper.runs == 0


def test_a_failing_password_command_is_transient_and_names_the_status(smtpd: SmtpServer) -> None:
    settings = smtpd.settings(username=SMTP_USER, password_command="echo Half-A-Secret-56; exit 2")
    with pytest.raises(TransientSendError) as caught:
        SmtpSender(settings).send(prompt())  # the mail stays in the outbox until the helper works again
    text = str(caught.value)
    assert "[smtp] password_command failed: exit status 2" in text and "Half-A-Secret-56" not in text
    assert smtpd.received == []


def test_xoauth2_with_a_token_from_the_helper(tmp_path: Path, smtpd: SmtpServer) -> None:
    helper = secret_command(tmp_path, SMTP_TOKEN)
    settings = smtpd.settings(username=SMTP_USER, password_command=helper.command, auth=AuthMethod.XOAUTH2)
    with SmtpSender(settings) as sender:
        sender.send(prompt())
    assert [r.authenticated_as for r in smtpd.received] == [SMTP_USER]
    assert smtpd.handler.xoauth2_logins == ["ok"] and helper.runs == 1


def test_a_refused_token_is_transient_with_a_hint_and_hidden(tmp_path: Path, smtpd: SmtpServer) -> None:
    helper = secret_command(tmp_path, "Expired-Token-4242")
    settings = smtpd.settings(username=SMTP_USER, password_command=helper.command, auth="xoauth2")
    with pytest.raises(TransientSendError) as caught:
        SmtpSender(settings).send(prompt())
    text = str(caught.value)
    assert f"refused the XOAUTH2 login of {SMTP_USER!r}: 535" in text and "may have expired" in text
    assert "Expired-Token-4242" not in text
    assert smtpd.handler.xoauth2_logins == ["refused"]  # the error report was answered as XOAUTH2 wants
    helper.hand_out(SMTP_TOKEN)  # the helper got a fresh token: the next attempt goes through
    with SmtpSender(settings) as sender:
        sender.send(prompt())
    assert [r.authenticated_as for r in smtpd.received] == [SMTP_USER]


def test_xoauth2_against_a_relay_without_it_says_so(tmp_path: Path) -> None:
    controller = Controller(RecordingHandler(), hostname="127.0.0.1", port=free_port(), auth_require_tls=False,
                            auth_exclude_mechanism=["XOAUTH2"])
    controller.start()
    try:
        settings = SmtpSettings(host="127.0.0.1", port=controller.port, security=Security.NONE, timeout=5,
                                username=SMTP_USER, password_command="echo t0ken", auth="xoauth2")
        with pytest.raises(TransientSendError, match=r"does not offer AUTH XOAUTH2 .*it offers LOGIN PLAIN"):
            SmtpSender(settings).open()
    finally:
        controller.stop()


@pytest.mark.parametrize("security", [Security.STARTTLS, Security.SSL])
def test_xoauth2_over_tls(tmp_path: Path, smtpd_tls: SmtpServer, security: Security) -> None:
    assert smtpd_tls.tls is not None
    port = smtpd_tls.ssl_port if security is Security.SSL else smtpd_tls.port
    settings = smtpd_tls.settings(security=security, port=port, username=SMTP_USER, auth="xoauth2",
                                  password_command=secret_command(tmp_path, SMTP_TOKEN).command)
    with SmtpSender(settings, ssl_context=smtpd_tls.tls.client_context()) as sender:
        sender.send(prompt())
    assert [r.authenticated_as for r in smtpd_tls.received] == [SMTP_USER]


# --- a kept connection ------------------------------------------------------------------------------------


@pytest.fixture
def counting() -> Iterator[tuple[CountingHandler, SmtpSettings]]:
    handler = CountingHandler()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        yield handler, SmtpSettings(host="127.0.0.1", port=controller.port, security=Security.NONE, timeout=5,
                                    local_hostname="pbem.test")
    finally:
        controller.stop()


def wired(to: str) -> WireMail:
    return to_wire(prompt(to))


def test_mails_in_a_row_share_one_connection_and_ask_no_noop(counting: tuple[CountingHandler, SmtpSettings]) -> None:
    handler, settings = counting
    with SmtpSender(settings) as sender:
        for to in ("ann@example.org", "bob@example.org", "cat@example.org"):
            sender.send_wire(wired(to))
    assert (handler.ehlos, handler.noops) == (1, 0)
    assert [r.rcpt_tos for r in handler.received] == [("ann@example.org",), ("bob@example.org",), ("cat@example.org",)]


def test_a_connection_that_idled_is_checked_with_noop(counting: tuple[CountingHandler, SmtpSettings],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    handler, settings = counting
    monkeypatch.setattr(smtp, "IDLE_CHECK", 0.0)
    with SmtpSender(settings) as sender:
        sender.send_wire(wired("ann@example.org"))
        sender.send_wire(wired("bob@example.org"))
        assert sender.idle_for() is not None
    assert (handler.ehlos, handler.noops) == (1, 2)  # one before each mail: each found the connection idle
    assert len(handler.received) == 2


def test_a_421_at_mail_from_on_a_kept_connection_sends_on_a_new_one(
        counting: tuple[CountingHandler, SmtpSettings]) -> None:
    """The server closes a kept connection with 421 before it took anything: once more, on a new one."""
    handler, settings = counting
    with SmtpSender(settings) as sender:
        sender.send_wire(wired("ann@example.org"))
        handler.once["MAIL"] = "421 4.4.2 Idle too long, closing connection"
        sender.send_wire(wired("bob@example.org"))
    assert handler.ehlos == 2
    assert [r.rcpt_tos for r in handler.received] == [("ann@example.org",), ("bob@example.org",)]


def test_a_421_at_mail_from_on_a_new_connection_is_not_tried_again(
        counting: tuple[CountingHandler, SmtpSettings]) -> None:
    handler, settings = counting
    handler.once["MAIL"] = "421 4.7.0 Too many connections"
    sender = SmtpSender(settings)
    with pytest.raises(TransientSendError) as caught:
        sender.send_wire(wired("ann@example.org"))
    assert caught.value.code == 421 and handler.ehlos == 1 and handler.received == []


def test_a_421_after_data_on_a_kept_connection_is_not_sent_again(
        counting: tuple[CountingHandler, SmtpSettings]) -> None:
    """After DATA the server may have kept the mail: sending it again at once could deliver it twice."""
    handler, settings = counting
    sender = SmtpSender(settings)
    sender.send_wire(wired("ann@example.org"))
    handler.once["DATA"] = "421 4.3.0 Shutting down"
    with pytest.raises(TransientSendError) as caught:
        sender.send_wire(wired("bob@example.org"))
    assert caught.value.code == 421
    assert sender.idle_for() is None  # closed: the next mail starts clean
    sender.send_wire(wired("cat@example.org"))
    sender.close()
    assert [r.rcpt_tos for r in handler.received] == [("ann@example.org",), ("cat@example.org",)]
    assert handler.ehlos == 2


def test_a_dropped_kept_connection_and_a_dead_relay_is_transient() -> None:
    """The kept connection is gone and so is the relay: the mail waits, nothing is raised but TransientSendError."""
    port = free_port()
    controller = Controller(RecordingHandler(), hostname="127.0.0.1", port=port)
    controller.start()
    sender = SmtpSender(SmtpSettings(host="127.0.0.1", port=port, security=Security.NONE, timeout=5))
    try:
        sender.send_wire(wired("ann@example.org"))
    finally:
        controller.stop()
    with pytest.raises(TransientSendError, match="connection refused"):
        sender.send_wire(wired("bob@example.org"))
    assert sender.idle_for() is None
