"""``pbem check``: connect to the IMAP and SMTP servers and say plainly what works. Nothing is changed.

The inbox is IMAP, a Maildir, or none (mail comes by LMTP: ``pbem lmtp``),
and each is named as what it is. A Maildir is looked at, not opened:
opening creates it, its folders and its UID index, which a check run by
another user than the moderator's must not leave behind. IMAP: connection
and security, login, the mailbox (messages, UIDVALIDITY), the processed and
failed folders (missing ones are created on first use, so that is no
failure), IDLE (else polling) and MOVE. SMTP: connection and
security, greeting and EHLO, login (or no login configured). A
``password_command`` is run for each login, as the daemon would run it, so a
broken helper shows here. No password or token appears in the output: the
lines are built from our own words, the servers' replies and the mail layer's
error messages, which mask secrets and never quote what a command printed.
"""
from __future__ import annotations

import ssl
from dataclasses import dataclass, field

from pbem.config import Config
from pbem.daemon.mailbox import Mailbox
from pbem.errors import ConfigError
from pbem.mail import AuthMethod, MailboxError, SendError, SmtpSender, look_at_maildir

INBOX_IMAP, INBOX_MAILDIR, INBOX_LMTP = "IMAP", "The Maildir", "LMTP"


@dataclass
class CheckReport:
    lines: list[tuple[bool, str]] = field(default_factory=list)  # (ok, text); ok False marks a failure
    imap_ok: bool = False  # the inbox works, whatever it is (``inbox``)
    smtp_ok: bool = False
    inbox: str = INBOX_IMAP  # what the inbox is, as the verdict names it

    @property
    def ok(self) -> bool:
        return self.imap_ok and self.smtp_ok

    def text(self) -> list[str]:
        return [f"{'ok  ' if ok else 'FAIL'}  {line}" for ok, line in self.lines]

    def verdict(self) -> str:
        """The last line: what works, the inbox named as what it is."""
        smtp = "SMTP works" if self.smtp_ok else "SMTP does NOT work"
        if self.inbox == INBOX_LMTP:
            return f"{smtp}; mail comes by LMTP (pbem lmtp)."
        if self.ok:
            return f"{self.inbox} and SMTP work."
        return f"{self.inbox} {'works' if self.imap_ok else 'does NOT work'}; {smtp}."


def check_mail(config: Config, *, ssl_context: ssl.SSLContext | None = None) -> CheckReport:
    report = CheckReport()
    report.imap_ok = _check_inbox(config, report, ssl_context)
    report.smtp_ok = _check_smtp(config, report, ssl_context)
    return report


def _check_inbox(config: Config, report: CheckReport, context: ssl.SSLContext | None) -> bool:
    if config.maildir is not None:
        report.inbox = INBOX_MAILDIR
        return _check_maildir(config, report)
    if config.imap is None:
        report.inbox = INBOX_LMTP
        report.lines.append((True, "no [imap] or [maildir]: mail comes by LMTP (pbem lmtp, docs/hosting.md)"))
        return True
    try:
        settings = config.require_imap()
    except ConfigError as exc:
        report.lines.append((False, f"IMAP: {exc}"))
        return False
    where = f"IMAP {settings.host}:{settings.effective_port} ({settings.security})"
    inbox = Mailbox(settings, ssl_context=context)
    try:
        inbox.connect()
    except MailboxError as exc:
        report.lines.append((False, f"{where}: {exc}"))
        return False
    try:
        report.lines.append((True, f"{where}: connected, login ok as {settings.username or '(no user)'}"
                                   f"{_how(settings.auth, settings.password_command)}"))
        info = inbox.info()
        report.lines.append((True, f"mailbox {settings.mailbox!r} exists: {info.messages} message(s), "
                                   f"UIDVALIDITY {info.uidvalidity}"))
        for label, folder in (("processed", settings.processed_folder), ("failed", settings.failed_folder)):
            if inbox.has_folder(folder):
                report.lines.append((True, f"{label} folder {folder!r} exists"))
            else:
                report.lines.append((True, f"{label} folder {folder!r} missing: created on first use"))
        if inbox.supports_idle:
            report.lines.append((True, f"IDLE supported: new mail is seen at once "
                                       f"(IDLE renewed every {settings.idle_refresh:g} s)"))
        else:
            report.lines.append((True, f"IDLE not supported: polling every {settings.poll_interval:g} s"))
        report.lines.append((True, "MOVE supported" if inbox.supports_move
                             else "MOVE not supported: COPY + EXPUNGE is used"))
    except MailboxError as exc:
        report.lines.append((False, f"{where}: {exc}"))
        return False
    finally:
        inbox.close()
    return True


def _check_maildir(config: Config, report: CheckReport) -> bool:
    settings = config.maildir
    look = look_at_maildir(settings)
    where = f"Maildir {settings.path}"
    if look.problem is not None:
        report.lines.append((False, f"{where}: {look.problem}"))
        return False
    if not look.exists:
        report.lines.append((True, f"{where}: missing: created on first use"))
        return True
    report.lines.append((True, f"{where}: readable and writable, {look.messages} message(s)"))
    for label, (folder, present) in zip(("processed", "failed"), look.folders, strict=True):
        report.lines.append((True, f"{label} folder {folder!r} {'exists' if present else 'missing: created on first use'}"))
    return True


def _check_smtp(config: Config, report: CheckReport, context: ssl.SSLContext | None) -> bool:
    try:
        settings = config.require_smtp()
    except ConfigError as exc:
        report.lines.append((False, f"SMTP: {exc}"))
        return False
    where = f"SMTP {settings.host}:{settings.effective_port} ({settings.security})"
    sender = SmtpSender(settings, ssl_context=context)
    try:
        sender.open()
    except SendError as exc:
        report.lines.append((False, f"{where}: {exc}"))
        return False
    try:
        smtp = sender._smtp  # the open smtplib connection: what the server said
        greeting = ""
        if smtp is not None and smtp.ehlo_resp:
            greeting = smtp.ehlo_resp.decode("utf-8", "replace").splitlines()[0].strip()
        login = (f"login ok as {settings.username}{_how(settings.auth, settings.password_command)}"
                 if settings.username else "no login configured")
        report.lines.append((True, f"{where}: connected, greeting ok{f' ({greeting})' if greeting else ''}, "
                                   f"{login}"))
    finally:
        sender.close()
    return True


def _how(auth: AuthMethod, command: str) -> str:
    """How we logged in, when it was not with a password from the file or the environment."""
    parts = []
    if auth is AuthMethod.XOAUTH2:
        parts.append("with XOAUTH2")
    if command:
        parts.append("secret from password_command")
    return f" ({', '.join(parts)})" if parts else ""
