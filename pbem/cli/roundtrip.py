"""``pbem check --send-test ADDRESS``: a mail sent to the moderator's own plus-address, found in its inbox.

The inbox is the one the moderator reads: IMAP, or a local Maildir
(``[maildir]``, filled by the host's mail server or ``pbem mailhub``).

Before friends are invited, the game master should see the whole way a
player's reply travels work once: SMTP takes a mail for
``moderator+<token>@host``; the provider delivers it to the moderator's inbox
with the token intact (some providers do not do plus-addressing, or strip
it); the moderator can move it to the processed folder; and IDLE notices it
(else polling does). Then one test mail goes to ADDRESS (the game master's
own address) so they can see that the moderator's mail reaches people and
does not land in spam.

The test mail says ``Auto-Submitted: auto-generated`` and comes from the
moderator itself: a ``pbem run`` that sees it first drops it unanswered (it
may then be in the processed folder rather than the inbox: stop the daemon
while checking).
"""
from __future__ import annotations

import secrets
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.parser import BytesHeaderParser
from email.utils import format_datetime, formataddr

from pbem.config import Config
from pbem.daemon.mailbox import Mailbox
from pbem.errors import ConfigError
from pbem.mail import FetchedMessage, MailboxError, MaildirInbox, SendError, SmtpSender, SmtpSettings, token_address
from pbem.mail.inbound import parse_message
from pbem.store.models import utcnow

WAIT_SECONDS = 120.0  # providers deliver to themselves within seconds; a minute or two covers a slow day


@dataclass
class RoundTrip:
    """Each step as (ok, what was seen); ``ok`` only when every step worked."""

    lines: list[tuple[bool, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.lines) and all(ok for ok, _ in self.lines)

    def text(self) -> list[str]:
        return [f"{'ok  ' if ok else 'FAIL'}  {line}" for ok, line in self.lines]


def round_trip(config: Config, address: str, *, wait: float = WAIT_SECONDS,
               ssl_context: ssl.SSLContext | None = None,
               clock: Callable[[], float] = time.monotonic) -> RoundTrip:
    """Send to the moderator's plus-address, find it in the inbox, move it; then mail ``address``."""
    report = RoundTrip()
    try:
        identity, smtp = config.require_moderator(), config.require_smtp()
        inbox: Mailbox | MaildirInbox = (MaildirInbox(config.maildir) if config.maildir is not None
                                         else Mailbox(config.require_imap(), ssl_context=ssl_context))
    except ConfigError as exc:
        report.lines.append((False, str(exc)))
        return report
    token = f"check{secrets.token_hex(6)}"
    plus = token_address(identity.address, token)
    message_id = f"<pbem-check.{token}@{identity.domain}>"
    mail = _mail(identity.address, identity.name, plus, message_id, "pbem check: the way back to the moderator",
                 "This mail tests that mail to the moderator's plus-address arrives;\n"
                 "it can be deleted.")
    if not _send(smtp, mail, ssl_context, report, f"SMTP took a test mail for {plus}"):
        return report
    try:
        inbox.connect()
        _find(inbox, message_id, token, identity.address, wait, clock, report)
    except MailboxError as exc:
        report.lines.append((False, f"{'Maildir' if isinstance(inbox, MaildirInbox) else 'IMAP'}: {exc}"))
    finally:
        inbox.close()
    if not report.ok:
        return report
    outward = _mail(identity.address, identity.name, address, f"<pbem-check-out.{token}@{identity.domain}>",
                    "pbem check: a test mail from your moderator",
                    "This is a test mail from a pbem moderator. If it arrived (and not in\n"  # mail: 78 columns
                    "the spam folder), the moderator's mail reaches people. Nothing needs\n"
                    "an answer.")
    _send(smtp, outward, ssl_context, report, f"a test mail to {address} was taken by SMTP: see that it arrived, "
                                              "and not in the spam folder")
    return report


def _find(inbox: Mailbox | MaildirInbox, message_id: str, token: str, moderator: str, wait: float,
          clock: Callable[[], float], report: RoundTrip) -> None:
    started = clock()
    fetched = _arrived(inbox, message_id)
    while fetched is None and clock() - started < wait:
        inbox.wait_for_mail(min(5.0, max(0.1, wait - (clock() - started))))
        fetched = _arrived(inbox, message_id)
    if fetched is None:
        report.lines.append((False, f"the test mail did not arrive in the inbox within {wait:g} s (is plus-"
                                    "addressing on? is pbem run taking mail meanwhile? stop it while checking)"))
        return
    took = clock() - started
    report.lines.append((True, f"it arrived in the inbox after {took:.1f} s "
                               f"({'noticed by IDLE' if inbox.uses_idle else 'found by polling'})"))
    seen = parse_message(fetched.raw, moderator_address=moderator).address_token
    if seen is None or seen.lower() != token:
        report.lines.append((False, "plus-addressing: the token did not arrive with it (this provider strips "
                                    f"'+…' from addresses: players' replies cannot be told apart); saw {seen!r}"))
        return
    report.lines.append((True, "plus-addressing works: the reply token arrived intact"))
    inbox.move_to_processed(fetched.uid)
    report.lines.append((True, f"moved it to the processed folder {inbox.settings.processed_folder!r}"))


def _arrived(inbox: Mailbox | MaildirInbox, message_id: str) -> FetchedMessage | None:
    """The test mail, if it is in the inbox: IMAP searches for it; a Maildir (local, read whole) is looked through."""
    if isinstance(inbox, Mailbox):
        found = inbox.with_message_id(message_id)
        return inbox.fetch_uids(found[:1])[0] if found else None
    headers = BytesHeaderParser()
    return next((message for message in inbox.fetch_new(None).messages
                 if (headers.parsebytes(message.raw)["Message-ID"] or "").strip() == message_id), None)


def _send(settings: SmtpSettings, mail: EmailMessage, context: ssl.SSLContext | None, report: RoundTrip,
          done: str) -> bool:
    sender = SmtpSender(settings, ssl_context=context)
    try:
        sender.open()
        sender.send(mail)
    except SendError as exc:
        report.lines.append((False, f"SMTP: {exc}"))
        return False
    finally:
        sender.close()
    report.lines.append((True, done))
    return True


def _mail(sender: str, name: str | None, to: str, message_id: str, subject: str, text: str) -> EmailMessage:
    mail = EmailMessage()
    mail["From"] = formataddr((name or "", sender))
    mail["To"] = to
    mail["Subject"] = subject
    mail["Date"] = format_datetime(utcnow())
    mail["Message-ID"] = message_id
    mail["Auto-Submitted"] = "auto-generated"
    mail.set_content(text + "\n")
    return mail
