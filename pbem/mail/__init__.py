"""The mail layer: IMAP in, SMTP out, reading real-world mail and building ours. No game rules here.

* :mod:`pbem.mail.inbound` — raw bytes -> :class:`InboundMessage` (sender, reply token, the
  player's text, loop guard, defects)
* :mod:`pbem.mail.outbound` — :class:`OutgoingMail` -> ``EmailMessage``; stable Message-IDs,
  threading, List-Id, token addresses
* :mod:`pbem.mail.picture` — the HTML alternative that shows a mail's board as an inline PNG
* :mod:`pbem.mail.wire` — :class:`WireMail`: a built message as the relay receives it, serialised once
* :mod:`pbem.mail.imap` — :class:`ImapInbox`: fetch by UID with UIDVALIDITY, move, IDLE/poll
* :mod:`pbem.mail.maildir` — :class:`MaildirInbox`: the same interface over a local Maildir
* :mod:`pbem.mail.smtp` — :class:`SmtpSender`: send, failures sorted into transient/permanent
* :mod:`pbem.mail.settings` — :class:`ImapSettings`, :class:`SmtpSettings`, :class:`MaildirSettings` from the config file
* :mod:`pbem.mail.credentials` — the login secret (password, environment, ``password_command``) and
  :class:`AuthMethod` (password or XOAUTH2)
* :mod:`pbem.mail.errors` — the exception hierarchy (:class:`MailError` and below)
"""
from __future__ import annotations

from pbem.mail.credentials import AuthMethod, CredentialError
from pbem.mail.errors import (
    InboundError,
    MailboxError,
    MailboxLoginError,
    MailConfigError,
    MailError,
    OutboundError,
    PermanentSendError,
    SendError,
    TransientSendError,
)
from pbem.mail.imap import FetchedMessage, FetchResult, ImapInbox, MailboxPosition
from pbem.mail.inbound import InboundMessage, parse_message, token_of_address
from pbem.mail.maildir import MaildirInbox, MaildirLook, look_at_maildir
from pbem.mail.outbound import (
    DECISION_HEADER,
    OutgoingMail,
    ReplyTo,
    Threading,
    build_message,
    domain_of,
    game_thread_id,
    list_id_for,
    message_id_for,
    reply_threading,
    thread_headers,
    token_address,
    wire_mail,
)
from pbem.mail.picture import InlinePicture
from pbem.mail.settings import (
    ImapSettings,
    MaildirSettings,
    Security,
    SmtpSettings,
    imap_settings,
    maildir_settings,
    smtp_settings,
)
from pbem.mail.smtp import SmtpSender
from pbem.mail.wire import WireMail

__all__ = [
    "DECISION_HEADER",
    "AuthMethod",
    "CredentialError",
    "FetchResult",
    "FetchedMessage",
    "ImapInbox",
    "ImapSettings",
    "InboundError",
    "InboundMessage",
    "InlinePicture",
    "MailConfigError",
    "MailError",
    "MailboxError",
    "MailboxLoginError",
    "MailboxPosition",
    "MaildirInbox",
    "MaildirLook",
    "MaildirSettings",
    "OutboundError",
    "OutgoingMail",
    "PermanentSendError",
    "ReplyTo",
    "Security",
    "SendError",
    "SmtpSender",
    "SmtpSettings",
    "Threading",
    "TransientSendError",
    "WireMail",
    "build_message",
    "domain_of",
    "game_thread_id",
    "imap_settings",
    "list_id_for",
    "look_at_maildir",
    "maildir_settings",
    "message_id_for",
    "parse_message",
    "reply_threading",
    "smtp_settings",
    "thread_headers",
    "token_address",
    "token_of_address",
    "wire_mail",
]
