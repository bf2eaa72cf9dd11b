"""The SMTP relay of the tests: aiosmtpd on loopback (Dovecot is in ``tests/mailservers.py``).

``smtpd`` / ``smtpd_tls``: aiosmtpd's ``Controller`` on free loopback ports,
collecting what it receives; replies can be forced per stage (``451``,
``550``) and a login is offered (not required): PLAIN and LOGIN with
``SMTP_USER``/``SMTP_PASSWORD``, and XOAUTH2 with ``SMTP_USER``/``SMTP_TOKEN``.
"""
from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from typing import Any

import pytest

from pbem.mail.settings import Security, SmtpSettings
from tests.loopback import TlsFiles, free_port

# SMTP --------------------------------------------------------------------------------------

SMTP_USER = "relay-user"
SMTP_PASSWORD = "relay-secret-42"
SMTP_TOKEN = "relay-access-token-7f3a"  # the one bearer token the relay takes for SMTP_USER by XOAUTH2


@dataclass(frozen=True)
class ReceivedMail:
    """One message as the SMTP server received it: envelope and bytes."""

    mail_from: str
    rcpt_tos: tuple[str, ...]
    data: bytes
    authenticated_as: str | None

    @property
    def message(self) -> EmailMessage:
        parsed = BytesParser(policy=policy.default).parsebytes(self.data)
        assert isinstance(parsed, EmailMessage)
        return parsed


class RecordingHandler:
    """An aiosmtpd handler that keeps every message; ``replies[stage]`` forces an answer to MAIL, RCPT or DATA;
    ``pipelining``: the relay offers PIPELINING (RFC 2920), as Postfix and the large providers do (aiosmtpd,
    which reads one command after the other, does not say so itself)."""

    def __init__(self, *, pipelining: bool = False) -> None:
        self.received: list[ReceivedMail] = []
        self.replies: dict[str, str] = {}
        self.xoauth2_logins: list[str] = []  # "ok" or "refused", one per AUTH XOAUTH2
        self.pipelining = pipelining

    async def handle_EHLO(self, server: Any, session: Any, envelope: Any, hostname: str,
                          responses: list[str]) -> list[str]:
        session.host_name = hostname
        return [*responses[:-1], "250-PIPELINING", responses[-1]] if self.pipelining else responses

    async def auth_XOAUTH2(self, server: Any, args: list[str]) -> Any:
        """SASL XOAUTH2 as Gmail's relay does it: the initial response (or one after an empty challenge);
        a bad token gets a JSON error as a 334 challenge, the client's empty answer, then 535."""
        from aiosmtpd.smtp import AuthResult, LoginPassword

        if len(args) == 2:
            try:
                response: Any = base64.b64decode(args[1], validate=True)
            except ValueError:
                return AuthResult(success=False, handled=False, message="501 5.5.2 Cannot decode response")
        else:
            response = await server.challenge_auth("")
            if not isinstance(response, bytes):  # aborted or undecodable: challenge_auth has answered 501
                return AuthResult(success=False, handled=True)
        fields = dict(part.split("=", 1) for part in response.decode("utf-8", "replace").split("\x01") if "=" in part)
        if fields.get("user") == SMTP_USER and fields.get("auth") == f"Bearer {SMTP_TOKEN}":
            self.xoauth2_logins.append("ok")
            return AuthResult(success=True, auth_data=LoginPassword(SMTP_USER.encode(), b""))
        self.xoauth2_logins.append("refused")
        error = json.dumps({"status": "401", "schemes": "bearer", "scope": "https://mail.test/"})
        answer = await server.challenge_auth(error)
        if not isinstance(answer, bytes):
            return AuthResult(success=False, handled=True)
        if answer:  # the client must answer the error report with an empty response
            return AuthResult(success=False, handled=False, message="501 5.5.2 Expected an empty response")
        return AuthResult(success=False, handled=False,
                          message="535 5.7.8 Username and Password not accepted (invalid token)")

    async def handle_MAIL(self, server: Any, session: Any, envelope: Any, address: str, mail_options: list[str]) -> str:
        if "MAIL" in self.replies:
            return self.replies["MAIL"]
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: list[str]) -> str:
        if "RCPT" in self.replies:
            return self.replies["RCPT"]
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if "DATA" in self.replies:
            return self.replies["DATA"]
        login = session.auth_data.login.decode() if session.authenticated and session.auth_data else None
        self.received.append(ReceivedMail(envelope.mail_from, tuple(envelope.rcpt_tos), bytes(envelope.content), login))
        return "250 Message accepted for delivery"


def _authenticator(server: Any, session: Any, envelope: Any, mechanism: str, auth_data: Any) -> Any:
    from aiosmtpd.smtp import AuthResult, LoginPassword

    ok = (isinstance(auth_data, LoginPassword) and auth_data.login.decode() == SMTP_USER
          and auth_data.password.decode() == SMTP_PASSWORD)
    return AuthResult(success=ok, handled=False, auth_data=auth_data if ok else None)


@dataclass
class SmtpServer:
    """A running aiosmtpd: where it listens, what it got, how to make it refuse."""

    host: str
    port: int
    handler: RecordingHandler
    ssl_port: int = 0
    tls: TlsFiles | None = None

    @property
    def received(self) -> list[ReceivedMail]:
        return self.handler.received

    def reply(self, stage: str, answer: str) -> None:
        """From now on answer ``stage`` (MAIL, RCPT or DATA) with ``answer``, e.g. ``451 4.3.0 try later``."""
        self.handler.replies[stage] = answer

    def settings(self, **overrides: Any) -> SmtpSettings:
        values: dict[str, Any] = dict(host=self.host, port=self.port, security=Security.NONE, timeout=10.0,
                                      local_hostname="pbem.test")
        values.update(overrides)
        return SmtpSettings(**values)


def _controller(handler: RecordingHandler, port: int, **kwargs: Any) -> Any:
    from aiosmtpd.controller import Controller

    return Controller(handler, hostname="127.0.0.1", port=port, server_hostname="smtp.test",
                      authenticator=_authenticator, auth_require_tls=False, **kwargs)


class CountingHandler(RecordingHandler):
    """Counts connections (EHLO) and NOOPs; ``once[stage]`` answers the next MAIL or DATA so, one time."""

    def __init__(self) -> None:
        super().__init__()
        self.ehlos = 0
        self.noops = 0
        self.once: dict[str, str] = {}

    async def handle_EHLO(self, server: Any, session: Any, envelope: Any, hostname: str,
                          responses: list[str]) -> list[str]:
        self.ehlos += 1
        return await super().handle_EHLO(server, session, envelope, hostname, responses)

    async def handle_NOOP(self, server: Any, session: Any, envelope: Any, arg: str) -> str:
        self.noops += 1
        return "250 OK"

    async def handle_MAIL(self, server: Any, session: Any, envelope: Any, address: str, mail_options: list[str]) -> str:
        if "MAIL" in self.once:
            return self.once.pop("MAIL")
        return await super().handle_MAIL(server, session, envelope, address, mail_options)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if "DATA" in self.once:
            return self.once.pop("DATA")
        return await super().handle_DATA(server, session, envelope)


@contextmanager
def running_relay(handler: RecordingHandler) -> Iterator[SmtpServer]:
    """An aiosmtpd relay on a free loopback port with ``handler``, stopped at the end."""
    controller = _controller(handler, free_port())
    controller.start()
    try:
        yield SmtpServer("127.0.0.1", controller.port, handler)
    finally:
        controller.stop()


@pytest.fixture
def smtpd() -> Iterator[SmtpServer]:
    with running_relay(RecordingHandler()) as server:
        yield server


@pytest.fixture
def smtpd_tls(tls_files: TlsFiles) -> Iterator[SmtpServer]:
    """STARTTLS on ``port``, TLS from the first byte on ``ssl_port``; one handler for both."""
    handler = RecordingHandler()
    starttls = _controller(handler, free_port(), tls_context=tls_files.server_context())
    implicit = _controller(handler, free_port(), ssl_context=tls_files.server_context())
    starttls.start()
    implicit.start()
    try:
        yield SmtpServer("127.0.0.1", starttls.port, handler, implicit.port, tls_files)
    finally:
        starttls.stop()
        implicit.stop()
