"""Where the IMAP and SMTP secrets come from, and how they are presented to the server.

Three sources, exactly one per server: ``password`` (written in the file),
``password_env`` (an environment variable, read when the file is read) and
``password_command`` (a command that prints the secret, run at every login).
The command is what msmtp's ``passwordeval`` and isync's ``PassCmd`` do: it
lets a password manager (``pass``, ``secret-tool``) hold the password, and it
lets an OAuth2 helper hand out a fresh access token whenever one is needed,
refreshing it as it sees fit. pbem keeps the result in memory only for the
login it was fetched for and writes it nowhere.

The command line goes to ``/bin/sh -c``, as with msmtp and isync, so that a
line copied from an existing mail setup (pipes, ``~``, quotes) means the same
here. It gets no input, has :data:`PASSWORD_COMMAND_TIMEOUT` seconds, and its
error output goes to pbem's own standard error unchanged (the helper's own
diagnostics, such as gpg's, are what the user needs to see). The secret is the
first line of its standard output, line break removed.

Two ways to log in (``auth``): ``password`` (IMAP LOGIN, SMTP AUTH PLAIN or
LOGIN, as smtplib picks) and ``xoauth2`` (SASL XOAUTH2, the bearer token
mechanism of Gmail and Microsoft 365; the secret is the access token).

Secrets never reach a message or a log: failures of the command name the
section and the exit status, never anything the command printed, and errors
from the servers are masked with :func:`mask` as a last guard.
"""
from __future__ import annotations

import os
import signal
import subprocess
from enum import StrEnum
from typing import TypeVar

from pbem.mail.errors import MailConfigError

#: Seconds a ``password_command`` may take (a password manager may ask gpg-agent, an OAuth2 helper may refresh).
PASSWORD_COMMAND_TIMEOUT = 30.0

SHELL = "/bin/sh"

XOAUTH2_HINT = ("the access token may have expired or been revoked, or lack the mail scope: "
                "check what the password_command prints")


Choice = TypeVar("Choice", bound=StrEnum)


def parse_choice(kind: type[Choice], value: object, where: str) -> Choice:
    """The member of ``kind`` named by ``value`` (case-insensitive); ``MailConfigError`` naming the choices."""
    if isinstance(value, kind):
        return value
    if isinstance(value, str):
        try:
            return kind(value.strip().lower())
        except ValueError:
            pass
    raise MailConfigError(f"{where} must be one of {'|'.join(m.value for m in kind)}, not {value!r}")


class AuthMethod(StrEnum):
    """How the moderator logs in: with a password, or with an OAuth2 access token (SASL XOAUTH2)."""

    PASSWORD = "password"
    XOAUTH2 = "xoauth2"

    @classmethod
    def parse(cls, value: object, where: str = "auth") -> AuthMethod:
        """The method named by ``value`` (case-insensitive); ``MailConfigError`` naming the choices otherwise."""
        return parse_choice(cls, value, where)


class CredentialError(MailConfigError):
    """The secret could not be had: the ``password_command`` failed, timed out or printed nothing.

    A configuration error by kind; the IMAP and SMTP layers re-raise it as
    their login failure (``MailboxLoginError``, ``TransientSendError``), so
    that the daemon retries and the outbox keeps its mail: a helper that
    cannot refresh a token while the network is down must not stop the
    moderator for good.
    """


def login_secret(password: str, command: str, where: str, *, timeout: float = PASSWORD_COMMAND_TIMEOUT) -> str:
    """The secret for one login: the output of ``command`` when one is set, else ``password``.

    ``where`` (``"[imap]"``) names the section in errors. Called anew for
    every connection, so a helper that refreshes tokens is asked every time.
    """
    if not command:
        return password
    return run_password_command(command, where, timeout=timeout)


def run_password_command(command: str, where: str, *, timeout: float = PASSWORD_COMMAND_TIMEOUT) -> str:
    """Run ``command`` with ``/bin/sh -c`` and return the first line it prints, line break removed.

    Raises :class:`CredentialError` for a command that cannot be started,
    exits with a status other than 0, is killed, runs longer than
    ``timeout`` seconds, or prints no line (or no UTF-8). The message names
    ``where`` and the status, never the command's output. The command runs in
    its own process group, so that on a timeout its children (``pass`` runs
    gpg) are stopped with it and cannot keep the pipe open.
    """
    what = f"{where} password_command"
    try:
        process = subprocess.Popen([SHELL, "-c", command], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=None, start_new_session=True)
    except OSError as exc:
        raise CredentialError(f"{what} could not be started: {exc.strerror or type(exc).__name__}") from None
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        raise CredentialError(f"{what} did not finish within {timeout:g} s and was stopped") from None
    except BaseException:
        _kill_group(process)
        raise
    status = process.returncode
    if status != 0:
        raise CredentialError(f"{what} failed: {_status(status)} (run it by hand to see why)")
    line = output.split(b"\n", 1)[0].removesuffix(b"\r")
    if not line:
        raise CredentialError(f"{what} printed nothing: it must print the password or token on its first line")
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        raise CredentialError(f"{what} printed something that is not UTF-8 text") from None


def _status(code: int) -> str:
    """An exit status in words: ``exit status 1``, ``killed by signal 9 (SIGKILL)``; 126 and 127 explained."""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            return f"killed by signal {-code}"
        return f"killed by signal {-code} ({name})"
    meaning = {126: " (not executable)", 127: " (command not found)"}.get(code, "")
    return f"exit status {code}{meaning}"


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Stop the command and everything it started, and reap it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:  # already gone
        pass
    try:
        process.communicate(timeout=5)
    except (subprocess.TimeoutExpired, OSError, ValueError):
        process.kill()
        process.wait()


def xoauth2_string(user: str, token: str) -> str:
    """The SASL XOAUTH2 client response: ``user=<user>^Aauth=Bearer <token>^A^A`` (before base64)."""
    return f"user={user}\x01auth=Bearer {token}\x01\x01"


class SmtpXoauth2:
    """The ``authobject`` for ``smtplib.SMTP.auth("XOAUTH2", ...)``; its ``repr`` hides the token.

    smtplib calls it without a challenge for the initial response (sent with
    AUTH, RFC 4954), and with the decoded challenge when the server answers
    334. With XOAUTH2 a 334 after the initial response is the server's error
    report (a JSON object): the client must answer with an empty response,
    after which the server sends its failure code.
    """

    __slots__ = ("_token", "_user")

    def __init__(self, user: str, token: str) -> None:
        self._user = user
        self._token = token

    def __repr__(self) -> str:
        return f"SmtpXoauth2({self._user!r}, token=***)"

    def __call__(self, challenge: bytes | None = None, /) -> str:
        return xoauth2_string(self._user, self._token) if challenge is None else ""


def mask(text: str, *secrets: str) -> str:
    """``text`` with every secret of three characters or more replaced by ``***`` (a last guard for messages)."""
    for secret in secrets:
        if secret and len(secret) >= 3:
            text = text.replace(secret, "***")
    return text
