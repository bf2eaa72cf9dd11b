"""The one exception hierarchy of the mail layer.

Every failure of ``pbem.mail`` is a :class:`MailError` (itself a
:class:`pbem.errors.PbemError`, so the CLI prints it like any other error of
ours). The subclasses say what the caller should *do*, which is why they are
split the way they are:

``MailError``
    ``MailConfigError``   the settings are wrong; fix the configuration (also a ``pbem.errors.ConfigError``)
    ``InboundError``      one inbound message is unreadable; set it aside (failed folder), carry on
    ``OutboundError``     an outgoing mail cannot be built (bad address, header injection); a bug upstream
    ``MailboxError``      the IMAP server cannot be reached or refused a command; reconnect with backoff
        ``MailboxLoginError``  the IMAP server refused the login; fix the credentials
    ``SendError``         SMTP delivery of one message failed
        ``TransientSendError``   4xx, connection, TLS or login trouble: keep the mail, retry later
        ``PermanentSendError``   5xx for this message: retrying the same mail will not help

Messages never contain passwords: they are built from our own wording and the
server's reply, never from the settings object.
"""
from __future__ import annotations

from pbem.errors import ConfigError, PbemError


class MailError(PbemError):
    """Base of every error of the mail layer; ``str(error)`` is fit to print as it is."""


class MailConfigError(MailError, ConfigError):
    """A mail setting is missing or wrong (unknown security mode, bad port, no password)."""


class InboundError(MailError):
    """An inbound message cannot be read at all (empty, no header section).

    Malformed MIME is *not* this: the parser recovers and lists the defects.
    """


class OutboundError(MailError):
    """An outgoing mail cannot be built: an invalid address, a line break in a header value."""


class MailboxError(MailError):
    """The IMAP server cannot be reached, or refused a command (connect, select, fetch, move)."""


class MailboxLoginError(MailboxError):
    """The IMAP server refused the username/password (the password is never in the message)."""


class SendError(MailError):
    """Sending one message by SMTP failed; ``code`` is the SMTP reply code when the server gave one."""

    transient: bool = True

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


class TransientSendError(SendError):
    """Try again later: a 4xx reply, a refused or dropped connection, a timeout, TLS or login trouble.

    Login and TLS failures are here rather than permanent because they are about
    the server or our settings, not about the message: the outbox must keep the
    mail until the game master has fixed things.
    """

    transient = True


class PermanentSendError(SendError):
    """The server refused this message for good (5xx to MAIL FROM, RCPT TO or DATA): do not retry it."""

    transient = False
