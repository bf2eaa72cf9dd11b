"""Handing outgoing mail to the SMTP relay (smtplib), with failures sorted into *retry* and *give up*.

The outbox sender needs one decision per failed mail: keep it and try again
later, or mark it undeliverable. :meth:`SmtpSender.send` raises

* :class:`~pbem.mail.errors.TransientSendError` for 4xx replies, refused,
  dropped or timed-out connections, TLS trouble, a refused login: nothing is
  wrong with the mail, so keep it ("SMTP down for an hour loses nothing");
* :class:`~pbem.mail.errors.PermanentSendError` for a 5xx reply to MAIL FROM,
  RCPT TO or DATA: this mail will never be accepted as it is.

One connection is kept open across ``send`` calls (a run of the outbox sends
many mails, and ``pbem run``'s sender keeps it between runs for a while);
after an idle spell it is checked with NOOP before reuse, because servers
drop idle clients, and a kept connection found gone at MAIL FROM is opened
anew and the mail tried again on it (nothing of it was taken yet). After
any other failure it is closed, so the next send starts clean. A mail goes
as the bytes :mod:`pbem.mail.wire` made once, not serialised again here.

Logging in (when a username is set): ``auth = "password"`` lets smtplib pick
AUTH PLAIN or LOGIN; ``auth = "xoauth2"`` sends AUTH XOAUTH2 with the access
token as the secret. The secret is fetched anew for every connection
(a ``password_command`` runs each time, see :mod:`pbem.mail.credentials`) and
dropped once the login is done. A refused login, a token included, is
transient: the mail waits until the credentials work again.
"""
from __future__ import annotations

import logging
import smtplib
import socket
import ssl
import time
from collections.abc import Callable, Sequence
from email.message import EmailMessage
from types import TracebackType

from pbem.mail.credentials import XOAUTH2_HINT, AuthMethod, CredentialError, SmtpXoauth2, login_secret, mask
from pbem.mail.errors import PermanentSendError, SendError, TransientSendError
from pbem.mail.settings import Security, SmtpSettings
from pbem.mail.wire import WireMail, to_wire

log = logging.getLogger("pbem.mail.smtp")

IDLE_CHECK = 5.0  # seconds a kept connection may idle before it is checked with NOOP


class SmtpSender:
    """Sends ``EmailMessage`` objects through one SMTP relay. Not thread-safe: one per thread."""

    def __init__(self, settings: SmtpSettings, *, ssl_context: ssl.SSLContext | None = None) -> None:
        self.settings = settings
        self._ssl_context = ssl_context
        self._smtp: smtplib.SMTP | None = None
        self._used = 0.0  # time.monotonic() when the open connection last did something

    def __repr__(self) -> str:
        s = self.settings
        who = f"{s.username}@" if s.username else ""
        return f"SmtpSender({who}{s.host}:{s.effective_port} {s.security}, {'open' if self._smtp else 'closed'})"

    def open(self) -> None:
        """Connect, secure the connection as configured and log in (when a username is set).

        Raises :class:`TransientSendError` when that fails: ``pbem check`` can
        call this alone to say whether the relay works. A connection open
        already is asked NOOP and replaced when it no longer answers: a run
        of the outbox starts here, and a relay that went away since the last
        run must show as unreachable before a mail is tried (and charged an attempt).
        """
        if self._smtp is not None:
            if self._answers():
                return
            self.close()
        s = self.settings
        where = f"{s.host}:{s.effective_port}"
        try:
            secret = login_secret(s.password, s.password_command, "[smtp]") if s.username else ""
        except CredentialError as exc:
            raise TransientSendError(f"cannot log in to the SMTP server {where}: {exc}") from None
        xoauth2 = s.auth is AuthMethod.XOAUTH2
        context = self._ssl_context or ssl.create_default_context()
        smtp: smtplib.SMTP | None = None
        try:
            if s.security is Security.SSL:
                smtp = smtplib.SMTP_SSL(s.host, s.effective_port, local_hostname=s.local_hostname,
                                        timeout=s.timeout, context=context)
            else:
                smtp = smtplib.SMTP(s.host, s.effective_port, local_hostname=s.local_hostname, timeout=s.timeout)
            smtp.ehlo_or_helo_if_needed()
            if s.security is Security.STARTTLS:
                if not smtp.has_extn("starttls"):
                    raise TransientSendError(f"the SMTP server {where} does not offer STARTTLS")
                smtp.starttls(context=context)
                smtp.ehlo()
            if s.username:
                self._login(smtp, secret, where)
        except smtplib.SMTPAuthenticationError as exc:
            _quit(smtp)
            hint = f" ({XOAUTH2_HINT})" if xoauth2 else ""
            raise TransientSendError(
                mask(f"the SMTP server {where} refused the {'XOAUTH2 ' if xoauth2 else ''}login of {s.username!r}: "
                     f"{_reply(exc)}{hint}", secret), exc.smtp_code
            ) from None
        except SendError:
            _quit(smtp)
            raise
        except smtplib.SMTPResponseException as exc:
            _quit(smtp)
            raise TransientSendError(mask(f"the SMTP server {where} refused us: {_reply(exc)}", secret),
                                     exc.smtp_code) from None
        except (smtplib.SMTPException, OSError) as exc:
            _quit(smtp)
            raise TransientSendError(
                mask(f"cannot talk to the SMTP server {where} ({s.security}): {_reason(exc)}", secret)
            ) from None
        finally:
            del secret  # held for this login only
        self._smtp = smtp
        self._used = time.monotonic()

    def _login(self, smtp: smtplib.SMTP, secret: str, where: str) -> None:
        """AUTH as configured; raises ``SMTPAuthenticationError`` when refused (sorted by ``open``)."""
        s = self.settings
        if s.auth is not AuthMethod.XOAUTH2:
            smtp.login(s.username, secret)
            return
        offered = (smtp.esmtp_features.get("auth", "") if smtp.has_extn("auth") else "").upper().split()
        if "XOAUTH2" not in offered:
            raise TransientSendError(f"the SMTP server {where} does not offer AUTH XOAUTH2 (auth = \"xoauth2\"; "
                                     f"it offers {' '.join(offered) or 'no AUTH'})")
        smtp.auth("XOAUTH2", SmtpXoauth2(s.username, secret))

    def close(self) -> None:
        """Say QUIT (quietly: a connection already gone is closed all the same)."""
        smtp, self._smtp = self._smtp, None
        _quit(smtp)

    def __enter__(self) -> SmtpSender:
        self.open()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def send(self, message: EmailMessage, *, sender: str | None = None, recipients: Sequence[str] | None = None) -> None:
        """Hand ``message`` to the relay; the envelope comes from its headers unless given.

        Returns only when the server accepted the message for every
        recipient. Raises :class:`TransientSendError` or
        :class:`PermanentSendError` otherwise (see the module docstring). Our
        mails have one recipient each; should a server accept some recipients
        and refuse others, that is a :class:`PermanentSendError` naming the
        refused ones (the others got the mail: do not resend it to them).
        """
        try:
            wire = to_wire(message, sender, None if recipients is None else tuple(recipients))
        except ValueError:  # SMTPUTF8 or Bcc: smtplib's own way
            self._sorted(lambda smtp: smtp.send_message(message, from_addr=sender, to_addrs=recipients))
            return
        self.send_wire(wire)

    def send_wire(self, mail: WireMail, *, meanwhile: Callable[[], None] | None = None) -> None:
        """Hand ``mail`` (:func:`pbem.mail.wire_mail`) to the relay; returns and raises as :meth:`send` does.

        A kept connection the server has dropped, or closed with a 421 reply
        to MAIL FROM, is opened anew and the mail tried once more on it: the
        server took nothing of the mail yet, so it cannot arrive twice.

        ``meanwhile`` runs once the message's bytes are on their way and
        before the server's answer is read (at most once per call; not when
        the mail failed before DATA): work done while the relay reads the
        mail, which it would otherwise wait for. It must not raise.
        """
        self._sorted(lambda smtp: _transaction(smtp, mail, meanwhile))

    def _sorted(self, talk: Callable[[smtplib.SMTP], dict[str, tuple[int, bytes]]]) -> None:
        """Run ``talk`` over the connection, its failures sorted into transient and permanent."""
        where = f"{self.settings.host}:{self.settings.effective_port}"
        reused = self._ensure_open()
        try:
            try:
                refused = talk(self._connection())
            except _Unsent as unsent:
                if not reused:
                    raise unsent.cause from None
                log.info("the kept connection to %s was gone (%s); sending on a new one", where, _reason(unsent.cause))
                self.close()
                self.open()
                refused = talk(self._connection())
        except _Unsent as unsent:
            raise self._failure(unsent.cause, where) from None
        except (smtplib.SMTPException, OSError, ValueError, UnicodeError) as exc:
            raise self._failure(exc, where) from None
        self._used = time.monotonic()
        if refused:
            detail = "; ".join(f"{rcpt}: {code} {_text(text)}" for rcpt, (code, text) in refused.items())
            raise PermanentSendError(f"{where} refused some recipients: {detail}",
                                     min(code for code, _ in refused.values()))

    def _connection(self) -> smtplib.SMTP:
        if self._smtp is None:
            raise smtplib.SMTPServerDisconnected("not connected")
        return self._smtp

    def _failure(self, exc: BaseException, where: str) -> SendError:
        """The :class:`SendError` ``exc`` stands for; the connection is closed, so the next send starts clean."""
        self.close()
        if isinstance(exc, SendError):
            return exc
        if isinstance(exc, smtplib.SMTPRecipientsRefused):
            replies = {rcpt: (code, _text(text)) for rcpt, (code, text) in exc.recipients.items()}
            codes = [code for code, _ in replies.values()]
            detail = "; ".join(f"{rcpt}: {code} {text}" for rcpt, (code, text) in replies.items())
            error = PermanentSendError if codes and all(_permanent(code) for code in codes) else TransientSendError
            return error(f"{where} refused the recipient(s): {detail}", min(codes) if codes else None)
        if isinstance(exc, (smtplib.SMTPSenderRefused, smtplib.SMTPDataError)):
            stage = "the sender" if isinstance(exc, smtplib.SMTPSenderRefused) else "the message"
            error = PermanentSendError if _permanent(exc.smtp_code) else TransientSendError
            return error(f"{where} refused {stage}: {_reply(exc)}", exc.smtp_code)
        if isinstance(exc, smtplib.SMTPResponseException):
            return TransientSendError(f"{where} answered {_reply(exc)}", exc.smtp_code)
        if isinstance(exc, (smtplib.SMTPException, OSError)):
            return TransientSendError(f"lost the SMTP server {where} while sending: {_reason(exc)}")
        return PermanentSendError(f"cannot send this message: {exc}")  # no recipients, or headers it cannot encode

    def _ensure_open(self) -> bool:
        """Open, or keep the open connection; whether the connection kept is the one that was open.

        A connection in steady use is not asked NOOP (a round trip per mail
        for nothing: :meth:`send_wire` reconnects should the server have gone
        all the same); one idle for ``IDLE_CHECK`` seconds is (:meth:`open`).
        """
        kept = self._smtp
        if kept is not None and time.monotonic() - self._used < IDLE_CHECK:
            return True
        self.open()
        return kept is not None and self._smtp is kept

    def _answers(self) -> bool:
        """Whether the open connection still answers NOOP (servers drop idle clients)."""
        assert self._smtp is not None
        try:
            code, _ = self._smtp.noop()
        except (smtplib.SMTPException, OSError):
            return False
        if code != 250:
            return False
        self._used = time.monotonic()
        return True

    def idle_for(self) -> float | None:
        """Seconds since the open connection was last used (None: no connection is open)."""
        return None if self._smtp is None else time.monotonic() - self._used


class _Unsent(Exception):
    """The server went away before it took anything of the mail (at MAIL FROM): safe to try again."""

    def __init__(self, cause: Exception) -> None:
        super().__init__(str(cause))
        self.cause = cause


def _transaction(smtp: smtplib.SMTP, mail: WireMail,
                 meanwhile: Callable[[], None] | None = None) -> dict[str, tuple[int, bytes]]:
    """MAIL, RCPT, DATA for ``mail``, failing as ``smtplib.SMTP.sendmail`` does; the refused recipients;
    ``meanwhile`` between the message's last byte and the server's answer (see ``SmtpSender.send_wire``).

    Why not ``sendmail``: it scans the whole message with a regular
    expression to double leading dots; ``bytes.replace`` does it at memory speed.
    """
    rejected = _envelope(smtp, mail)
    smtp.send(_dot_stuffed(mail.data))
    if meanwhile is not None:
        meanwhile()
    code, reply = smtp.getreply()
    if code != 250:
        if code == 421:
            smtp.close()
        else:
            _reset(smtp)
        raise smtplib.SMTPDataError(code, reply)
    return rejected


def _envelope(smtp: smtplib.SMTP, mail: WireMail) -> dict[str, tuple[int, bytes]]:
    """MAIL, RCPT and DATA, up to the server's go-ahead for the message; the refused recipients."""
    replies = _Replies(smtp, mail)
    try:
        code, reply = replies.next()
    except smtplib.SMTPServerDisconnected as exc:
        raise _Unsent(exc) from None
    if code != 250:
        refused = smtplib.SMTPSenderRefused(code, reply, mail.sender)
        if code == 421:  # the server closes the connection
            smtp.close()
            raise _Unsent(refused)
        replies.drain()
        _reset(smtp)
        raise refused
    rejected: dict[str, tuple[int, bytes]] = {}
    for recipient in mail.recipients:
        code, reply = replies.next()
        if code not in (250, 251):
            rejected[recipient] = (code, reply)
        if code == 421:
            smtp.close()
            raise smtplib.SMTPRecipientsRefused(rejected)
    if len(rejected) == len(mail.recipients):
        replies.drain()
        _reset(smtp)
        raise smtplib.SMTPRecipientsRefused(rejected)
    code, reply = replies.next()
    if code != 354:
        raise smtplib.SMTPDataError(code, reply)
    return rejected


class _Replies:
    """The server's answers to a mail's MAIL, RCPT and DATA, one at a time.

    Why: with PIPELINING (RFC 2920, offered by Postfix and the big
    providers) the commands go in one write and their answers are read
    afterwards: one round trip to the relay where there were three (one per
    command), and a relay far away costs its round trip for each. Without
    it, each command is sent when its answer is wanted, as before.
    """

    def __init__(self, smtp: smtplib.SMTP, mail: WireMail) -> None:
        size = f" SIZE={len(mail.data)}" if smtp.does_esmtp and smtp.has_extn("size") else ""
        self._smtp = smtp
        self._commands = [f"MAIL FROM:{smtplib.quoteaddr(mail.sender)}{size}",
                          *(f"RCPT TO:{smtplib.quoteaddr(recipient)}" for recipient in mail.recipients), "DATA"]
        self._pipelined = bool(smtp.does_esmtp and smtp.has_extn("pipelining"))
        self._asked = 0
        if self._pipelined:
            smtp.send("".join(f"{command}\r\n" for command in self._commands))

    def next(self) -> tuple[int, bytes]:
        if not self._pipelined:
            self._smtp.send(f"{self._commands[self._asked]}\r\n")
        self._asked += 1
        return self._smtp.getreply()

    def drain(self) -> None:
        """After a refusal: the answers to the commands sent already, so that the next one (RSET) gets its own.
        A DATA the server took all the same (it has no recipient) is ended at once, with an empty message."""
        while self._pipelined and self._asked < len(self._commands):
            code, _ = self.next()
            if code == 354:
                self._smtp.send(".\r\n")
                self._smtp.getreply()


def _dot_stuffed(data: bytes) -> bytes:
    """``data`` as DATA carries it (RFC 5321 4.5.2): a line that starts with a dot gets another, and the end mark."""
    stuffed = data.replace(b"\n.", b"\n..")
    if stuffed.startswith(b"."):
        stuffed = b"." + stuffed
    if not stuffed.endswith(b"\r\n"):
        stuffed += b"\r\n"
    return stuffed + b".\r\n"


def _reset(smtp: smtplib.SMTP) -> None:
    """RSET after a refusal, quietly: a server gone by now shows at the next command."""
    try:
        smtp.rset()
    except (smtplib.SMTPException, OSError):
        pass


def _permanent(code: int) -> bool:
    return 500 <= code < 600


def _text(value: bytes | str) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _reply(exc: smtplib.SMTPResponseException) -> str:
    return f"{exc.smtp_code} {_text(exc.smtp_error)}".strip()


def _reason(exc: BaseException) -> str:
    if isinstance(exc, socket.timeout):
        return "timed out"
    if isinstance(exc, ssl.SSLError):
        return f"TLS error: {exc.reason or exc}"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, smtplib.SMTPServerDisconnected):
        return f"connection closed ({exc})" if str(exc) else "connection closed"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc).strip() or type(exc).__name__


def _quit(smtp: smtplib.SMTP | None) -> None:
    if smtp is None:
        return
    try:
        smtp.quit()
    except Exception:
        try:
            smtp.close()
        except Exception:
            pass
