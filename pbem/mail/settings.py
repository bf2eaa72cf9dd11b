"""Connection settings for the IMAP and SMTP servers, and how to read them from the config file.

The ``[imap]`` and ``[smtp]`` tables of the TOML configuration map onto
:class:`ImapSettings` and :class:`SmtpSettings` through :func:`imap_settings`
and :func:`smtp_settings`. The secret comes from exactly one of ``password``,
the environment variable named by ``password_env`` (both read with the file),
or ``password_command``, which is only kept here and run at every login
(:mod:`pbem.mail.credentials`). ``auth`` says how it is used: as a password,
or as an OAuth2 access token (``xoauth2``). Password and command are kept out
of ``repr``, so that a settings object printed in a log or a traceback shows
no secret.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from pbem.mail.credentials import AuthMethod, parse_choice
from pbem.mail.errors import MailConfigError


class Security(StrEnum):
    """How the connection is protected: ``none`` (plain), ``starttls`` (upgrade), ``ssl`` (TLS from the start)."""

    NONE = "none"
    STARTTLS = "starttls"
    SSL = "ssl"

    @classmethod
    def parse(cls, value: object, where: str = "security") -> Security:
        """The mode named by ``value`` (case-insensitive); ``MailConfigError`` naming the choices otherwise."""
        return parse_choice(cls, value, where)


IMAP_DEFAULT_PORTS = {Security.NONE: 143, Security.STARTTLS: 143, Security.SSL: 993}
SMTP_DEFAULT_PORTS = {Security.NONE: 25, Security.STARTTLS: 587, Security.SSL: 465}


@dataclass(frozen=True)
class ImapSettings:
    """Where the moderator's mailbox is and how to log in.

    ``idle_refresh`` is how long one IDLE command may last before it is renewed:
    RFC 2177 servers drop idle clients after 30 minutes, and NAT boxes often
    forget quiet connections sooner, so the default stays well inside both.
    ``poll_interval`` is the sleep between checks when the server has no IDLE.
    ``password_command``, when set, is run at each login instead of using
    ``password`` (see :mod:`pbem.mail.credentials`).
    """

    host: str
    port: int | None = None
    security: Security = Security.SSL
    username: str = ""
    password: str = field(default="", repr=False)
    password_command: str = field(default="", repr=False)
    auth: AuthMethod = AuthMethod.PASSWORD
    mailbox: str = "INBOX"
    processed_folder: str = "processed"
    failed_folder: str = "failed"
    timeout: float = 60.0
    poll_interval: float = 60.0
    idle_refresh: float = 9 * 60.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "security", Security.parse(self.security, "[imap] security"))
        object.__setattr__(self, "auth", AuthMethod.parse(self.auth, "[imap] auth"))
        _check_server(self.host, self.port, "[imap]")
        _check_login(self.username, self.password, self.password_command, self.auth, "[imap]")

    @property
    def effective_port(self) -> int:
        """The port, or the usual one for the security mode (143, or 993 for ``ssl``)."""
        return self.port or IMAP_DEFAULT_PORTS[self.security]


@dataclass(frozen=True)
class SmtpSettings:
    """The relay that takes our outgoing mail; login is optional (no username means no AUTH)."""

    host: str
    port: int | None = None
    security: Security = Security.STARTTLS
    username: str = ""
    password: str = field(default="", repr=False)
    password_command: str = field(default="", repr=False)
    auth: AuthMethod = AuthMethod.PASSWORD
    timeout: float = 60.0
    local_hostname: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "security", Security.parse(self.security, "[smtp] security"))
        object.__setattr__(self, "auth", AuthMethod.parse(self.auth, "[smtp] auth"))
        _check_server(self.host, self.port, "[smtp]")
        _check_login(self.username, self.password, self.password_command, self.auth, "[smtp]")

    @property
    def effective_port(self) -> int:
        """The port, or the usual one for the security mode (25, 587 for ``starttls``, 465 for ``ssl``)."""
        return self.port or SMTP_DEFAULT_PORTS[self.security]


#: The keys each mail table accepts (any other is an error; config.example.toml lists them all).
MAILDIR_KEYS = ("path", "processed_folder", "failed_folder", "poll_interval", "fsync")
SECRET_KEYS = ("password", "password_env", "password_command")  # exactly one of them (or none)
IMAP_KEYS = ("host", "port", "security", "username", *SECRET_KEYS, "auth", "mailbox", "processed_folder",
             "failed_folder", "timeout", "poll_interval", "idle_refresh")
SMTP_KEYS = ("host", "port", "security", "username", *SECRET_KEYS, "auth", "timeout", "local_hostname")


@dataclass(frozen=True)
class MaildirSettings:
    """A local Maildir as the moderator's inbox (``[maildir]``, instead of ``[imap]``).

    ``path`` is the Maildir (created with ``cur/ new/ tmp/`` when missing);
    the processed and failed folders are Maildir++ subfolders of it
    (``.processed``, ``.failed``). ``poll_interval`` is how often
    ``wait_for_mail`` looks into ``new/`` (a directory listing, cheap);
    ``fsync`` makes the UID index durable before UIDs are handed out.
    """

    path: Path
    processed_folder: str = "processed"
    failed_folder: str = "failed"
    poll_interval: float = 0.5
    fsync: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.path, Path):
            if not isinstance(self.path, str) or not self.path.strip():
                raise MailConfigError("[maildir] path must be a non-empty string")
            object.__setattr__(self, "path", Path(self.path))
        if isinstance(self.poll_interval, bool) or not isinstance(self.poll_interval, int | float) \
                or self.poll_interval <= 0:
            raise MailConfigError("[maildir] poll_interval must be a positive number of seconds")
        for name in ("processed_folder", "failed_folder"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip() or value.strip(". /") == "":
                raise MailConfigError(f"[maildir] {name} must be a folder name")

    @property
    def mailbox(self) -> str:
        """The mailbox name recorded with inbound messages: ``maildir:<path>``."""
        return f"maildir:{self.path}"


def maildir_settings(section: Mapping[str, Any], *, base: str | os.PathLike[str] | None = None) -> MaildirSettings:
    """``MaildirSettings`` from the ``[maildir]`` table: path, processed_folder, failed_folder, poll_interval, fsync.

    ``~`` in ``path`` is expanded; a relative path is taken relative to
    ``base`` (the config file's directory) when given.
    """
    where = "[maildir]"
    _reject_unknown(section, where, set(MAILDIR_KEYS))
    path = Path(_string(section, "path", where, required=True)).expanduser()
    if not path.is_absolute() and base is not None:
        path = Path(base) / path
    fsync = section.get("fsync", True)
    if not isinstance(fsync, bool):
        raise MailConfigError(f"{where} fsync must be true or false")
    return MaildirSettings(
        path=path,
        processed_folder=_string(section, "processed_folder", where) or "processed",
        failed_folder=_string(section, "failed_folder", where) or "failed",
        poll_interval=_seconds(section, "poll_interval", where, 0.5),
        fsync=fsync,
    )


def imap_settings(section: Mapping[str, Any], env: Mapping[str, str] | None = None) -> ImapSettings:
    """``ImapSettings`` from the ``[imap]`` table: host, port, security, username, one of password,
    password_env and password_command, auth, mailbox, processed_folder, failed_folder, timeout,
    poll_interval, idle_refresh. The command is not run here."""
    where = "[imap]"
    _reject_unknown(section, where, set(IMAP_KEYS))
    password, command = _secret_source(section, where, os.environ if env is None else env)
    return ImapSettings(
        host=_string(section, "host", where, required=True),
        port=_port(section, where),
        security=Security.parse(section.get("security", "ssl"), f"{where} security"),
        username=_string(section, "username", where),
        password=password,
        password_command=command,
        auth=_auth(section, where),
        mailbox=_string(section, "mailbox", where) or "INBOX",
        processed_folder=_string(section, "processed_folder", where) or "processed",
        failed_folder=_string(section, "failed_folder", where) or "failed",
        timeout=_seconds(section, "timeout", where, 60.0),
        poll_interval=_seconds(section, "poll_interval", where, 60.0),
        idle_refresh=_seconds(section, "idle_refresh", where, 9 * 60.0),
    )


def smtp_settings(section: Mapping[str, Any], env: Mapping[str, str] | None = None) -> SmtpSettings:
    """``SmtpSettings`` from the ``[smtp]`` table: host, port, security, username, one of password,
    password_env and password_command, auth, timeout, local_hostname. The command is not run here."""
    where = "[smtp]"
    _reject_unknown(section, where, set(SMTP_KEYS))
    password, command = _secret_source(section, where, os.environ if env is None else env)
    return SmtpSettings(
        host=_string(section, "host", where, required=True),
        port=_port(section, where),
        security=Security.parse(section.get("security", "starttls"), f"{where} security"),
        username=_string(section, "username", where),
        password=password,
        password_command=command,
        auth=_auth(section, where),
        timeout=_seconds(section, "timeout", where, 60.0),
        local_hostname=_string(section, "local_hostname", where) or None,
    )


def _check_server(host: str, port: int | None, where: str) -> None:
    if not isinstance(host, str) or not host.strip():
        raise MailConfigError(f"{where} host must be a non-empty string")
    if port is not None and (isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536):
        raise MailConfigError(f"{where} port must be a number from 1 to 65535, not {port!r}")


def _check_login(username: str, password: str, command: str, auth: AuthMethod, where: str) -> None:
    """One secret source at most; XOAUTH2 must name the account the token is for."""
    if password and command:
        raise MailConfigError(f"{where}: give one of password, password_env or password_command, not several")
    if auth is AuthMethod.XOAUTH2 and not username:
        raise MailConfigError(f'{where} auth = "xoauth2" needs username (the account the token is for)')


def _auth(section: Mapping[str, Any], where: str) -> AuthMethod:
    """``auth``; ``xoauth2`` needs a source for the token (a command, as tokens expire within the hour)."""
    auth = AuthMethod.parse(section.get("auth", AuthMethod.PASSWORD.value), f"{where} auth")
    if auth is AuthMethod.XOAUTH2 and not any(key in section for key in SECRET_KEYS):
        raise MailConfigError(f'{where} auth = "xoauth2" needs password_command: a command that prints a fresh '
                              "access token (an OAuth2 helper)")
    return auth


def _reject_unknown(section: Mapping[str, Any], where: str, known: set[str]) -> None:
    unknown = sorted(set(section) - known)
    if unknown:
        raise MailConfigError(f"{where}: unknown setting(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")


def _string(section: Mapping[str, Any], key: str, where: str, required: bool = False) -> str:
    value = section.get(key)
    if value is None:
        if required:
            raise MailConfigError(f"{where} {key} is required")
        return ""
    if not isinstance(value, str):
        raise MailConfigError(f"{where} {key} must be a string")
    return value.strip()


def _port(section: Mapping[str, Any], where: str) -> int | None:
    value = section.get("port")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise MailConfigError(f"{where} port must be a number")
    return value


def _seconds(section: Mapping[str, Any], key: str, where: str, default: float) -> float:
    value = section.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise MailConfigError(f"{where} {key} must be a positive number of seconds")
    return float(value)


def _secret_source(section: Mapping[str, Any], where: str, env: Mapping[str, str]) -> tuple[str, str]:
    """(password, password_command): the password from ``password`` or ``password_env``, or the command.

    At most one of the three keys may be given. The command is checked to be
    a non-empty string, not run: that happens at each login. Errors name the
    key or the variable, never a value.
    """
    given = [key for key in SECRET_KEYS if key in section]
    if len(given) > 1:
        raise MailConfigError(f"{where}: give one of password, password_env or password_command, "
                              f"not {' and '.join(given)}")
    if "password_command" in section:
        command = section["password_command"]
        if not isinstance(command, str) or not command.strip():
            raise MailConfigError(f"{where} password_command must be a command line (run with /bin/sh -c)")
        return "", command.strip()
    if "password_env" in section:
        name = section["password_env"]
        if not isinstance(name, str) or not name:
            raise MailConfigError(f"{where} password_env must name an environment variable")
        if name not in env:
            raise MailConfigError(f"{where}: the environment variable {name} (password_env) is not set")
        return env[name], ""
    value = section.get("password", "")
    if not isinstance(value, str):
        raise MailConfigError(f"{where} password must be a string")
    return value, ""
