"""Handing outgoing mail to the SMTP relay (smtplib), with failures sorted into *retry* and *give up*.

The outbox sender needs one decision per failed mail: keep it and try again
later, or mark it undeliverable. :meth:`SmtpSender.send` raises

* :class:`~pbem.mail.errors.TransientSendError` for 4xx replies, refused,
  dropped or timed-out connections, TLS trouble, a refused login: nothing is
  wrong with the mail, so keep it ("SMTP down for an hour loses nothing");
* :class:`~pbem.mail.errors.PermanentSendError` for a 5xx reply to MAIL FROM,
  RCPT TO or DATA: this mail will never be accepted as it is.

One connection is kept open across ``send`` calls (a run of the outbox sends
many mails) and checked with NOOP before reuse, because servers drop idle
clients; after any failure it is closed, so the next send starts clean.

Logging in (when a username is set): ``auth = "password"`` lets smtplib pick
AUTH PLAIN or LOGIN; ``auth = "xoauth2"`` sends AUTH XOAUTH2 with the access
token as the secret. The secret is fetched anew for every connection
(a ``password_command`` runs each time, see :mod:`pbem.mail.credentials`) and
dropped once the login is done. A refused login, a token included, is
transient: the mail waits until the credentials work again.
"""
from __future__ import annotations

import smtplib
import socket
import ssl
from collections.abc import Sequence
from email.message import EmailMessage
from types import TracebackType

from pbem.mail.credentials import XOAUTH2_HINT, AuthMethod, CredentialError, SmtpXoauth2, login_secret, mask
from pbem.mail.errors import PermanentSendError, SendError, TransientSendError
from pbem.mail.settings import Security, SmtpSettings


class SmtpSender:
    """Sends ``EmailMessage`` objects through one SMTP relay. Not thread-safe: one per thread."""

    def __init__(self, settings: SmtpSettings, *, ssl_context: ssl.SSLContext | None = None) -> None:
        self.settings = settings
        self._ssl_context = ssl_context
        self._smtp: smtplib.SMTP | None = None

    def __repr__(self) -> str:
        s = self.settings
        who = f"{s.username}@" if s.username else ""
        return f"SmtpSender({who}{s.host}:{s.effective_port} {s.security}, {'open' if self._smtp else 'closed'})"

    def open(self) -> None:
        """Connect, secure the connection as configured and log in (when a username is set).

        Raises :class:`TransientSendError` when that fails: ``pbem check`` can
        call this alone to say whether the relay works.
        """
        if self._smtp is not None:
            return
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
        self._ensure_open()
        assert self._smtp is not None
        s = self.settings
        where = f"{s.host}:{s.effective_port}"
        try:
            refused = self._smtp.send_message(message, from_addr=sender, to_addrs=recipients)
        except smtplib.SMTPRecipientsRefused as exc:
            self.close()
            replies = {rcpt: (code, _text(text)) for rcpt, (code, text) in exc.recipients.items()}
            codes = [code for code, _ in replies.values()]
            detail = "; ".join(f"{rcpt}: {code} {text}" for rcpt, (code, text) in replies.items())
            error = PermanentSendError if codes and all(_permanent(code) for code in codes) else TransientSendError
            raise error(f"{where} refused the recipient(s): {detail}", min(codes) if codes else None) from None
        except (smtplib.SMTPSenderRefused, smtplib.SMTPDataError) as exc:
            self.close()
            stage = "the sender" if isinstance(exc, smtplib.SMTPSenderRefused) else "the message"
            error = PermanentSendError if _permanent(exc.smtp_code) else TransientSendError
            raise error(f"{where} refused {stage}: {_reply(exc)}", exc.smtp_code) from None
        except smtplib.SMTPResponseException as exc:
            self.close()
            raise TransientSendError(f"{where} answered {_reply(exc)}", exc.smtp_code) from None
        except (smtplib.SMTPException, OSError) as exc:
            self.close()
            raise TransientSendError(f"lost the SMTP server {where} while sending: {_reason(exc)}") from None
        except (ValueError, UnicodeError) as exc:  # no recipients, or headers smtplib cannot encode
            self.close()
            raise PermanentSendError(f"cannot send this message: {exc}") from None
        if refused:
            detail = "; ".join(f"{rcpt}: {code} {_text(text)}" for rcpt, (code, text) in refused.items())
            raise PermanentSendError(f"{where} refused some recipients: {detail}",
                                     min(code for code, _ in refused.values()))

    def _ensure_open(self) -> None:
        """Open, or make sure the open connection still answers (servers drop idle clients)."""
        if self._smtp is not None:
            try:
                code, _ = self._smtp.noop()
                if code == 250:
                    return
            except (smtplib.SMTPException, OSError):
                pass
            self.close()
        self.open()


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
