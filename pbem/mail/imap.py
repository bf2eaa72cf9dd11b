"""The moderator's inbox over IMAP (imapclient): fetch new mail by UID, move it away, wait for more.

Bookkeeping. IMAP names a message by (UIDVALIDITY, UID): UIDs only grow
within one UIDVALIDITY. :meth:`ImapInbox.fetch_new` takes the
:class:`MailboxPosition` the caller stored last time and returns the messages
above it together with the new position. This module stores nothing: the
moderator persists the position in the same transaction that records the
messages, so a crash before the commit refetches them.

UIDVALIDITY changes when the mailbox is recreated or its index rebuilt; old
UIDs then mean nothing. We then refetch *everything* in the mailbox and rely
on the moderator's Message-ID deduplication (``InboundMessage.key``) to skip
what was already recorded. That is cheap because handled mail is moved out of
the inbox (to the processed or failed folder), so the inbox only ever holds
the few messages not yet handled.

Waiting. :meth:`ImapInbox.wait_for_mail` uses IDLE (RFC 2177) when the server
offers it, renewed every ``idle_refresh`` seconds to stay inside server and
NAT timeouts, and otherwise sleeps and polls every ``poll_interval`` seconds.
It first reselects the mailbox and compares its UIDNEXT with the last fetch,
so mail delivered between a fetch and the IDLE is not missed.

Logging in: with ``auth = "password"`` by LOGIN; with ``auth = "xoauth2"`` by
AUTHENTICATE XOAUTH2 (imapclient's ``oauth2_login``) with the access token as
the secret. The secret is fetched anew for every connection
(:func:`pbem.mail.credentials.login_secret`: a ``password_command`` runs each
time, before the connection is opened, so that a slow helper does not eat
into the server's patience) and is dropped once the login is done.

Secrets: the secret is sent by LOGIN or AUTHENTICATE and nowhere else;
imapclient redacts both in its protocol log, error messages are built from
the server's reply, and as a last guard any error text containing the secret
is masked.
"""
from __future__ import annotations

import socket
import ssl
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import TracebackType
from typing import Any, NamedTuple

from imapclient import DELETED, IMAPClient, SocketTimeout
from imapclient.exceptions import CapabilityError, IMAPClientError, LoginError

from pbem.mail.credentials import XOAUTH2_HINT, AuthMethod, CredentialError, login_secret, mask
from pbem.mail.errors import MailboxError, MailboxLoginError
from pbem.mail.settings import ImapSettings, Security

FETCH_BATCH = 50  # messages per FETCH command: bounded memory and command length


class FetchedMessage(NamedTuple):
    """One message as stored on the server: its UID and its raw RFC 5322 bytes."""

    uid: int
    raw: bytes


@dataclass(frozen=True, slots=True)
class MailboxPosition:
    """How far the inbox has been read: the mailbox's UIDVALIDITY and the highest UID returned."""

    uidvalidity: int
    last_uid: int


@dataclass(frozen=True, slots=True)
class FetchResult:
    """What :meth:`ImapInbox.fetch_new` found.

    ``position`` is what to store once the messages are recorded;
    ``uidvalidity_changed`` says the stored position was void and the whole
    mailbox was read; ``more`` says ``limit`` left messages for the next call.
    """

    messages: tuple[FetchedMessage, ...]
    position: MailboxPosition
    uidvalidity_changed: bool
    more: bool = False


class ImapInbox:
    """One IMAP connection to the moderator's mailbox. Not thread-safe: one per thread.

    ``use_idle`` / ``use_move`` force IDLE and MOVE off (``False``) even when
    the server has them; ``None`` (the default) uses them when offered. The
    tests use that to exercise the polling and COPY+EXPUNGE fallbacks against
    a server that has both.
    """

    def __init__(
        self,
        settings: ImapSettings,
        *,
        ssl_context: ssl.SSLContext | None = None,
        use_idle: bool | None = None,
        use_move: bool | None = None,
    ) -> None:
        self.settings = settings
        self._ssl_context = ssl_context
        self._want_idle = use_idle
        self._want_move = use_move
        self._client: IMAPClient | None = None
        self._uidvalidity = 0
        self._seen_uid: int | None = None  # fetch_new has handed out everything up to this UID ...
        self._seen_validity = 0  # ... of this UIDVALIDITY
        self._folders: dict[str, str] = {}  # configured name -> server name, known to exist
        self._namespace: tuple[str, str] | None = None  # (prefix, separator) of the personal namespace

    def __repr__(self) -> str:
        s = self.settings
        state = "connected" if self._client else "closed"
        return f"ImapInbox({s.username}@{s.host}:{s.effective_port} {s.security} {s.mailbox!r}, {state})"

    # connection ----------------------------------------------------------------------------

    def connect(self) -> None:
        """Connect, secure the connection as configured, log in and select the mailbox."""
        if self._client is not None:
            return
        s = self.settings
        where = f"{s.host}:{s.effective_port}"
        try:
            secret = login_secret(s.password, s.password_command, "[imap]")
        except CredentialError as exc:
            raise MailboxLoginError(f"cannot log in to the IMAP server {where}: {exc}") from None
        context = self._ssl_context or ssl.create_default_context()
        try:
            client = IMAPClient(
                s.host,
                port=s.effective_port,
                ssl=s.security is Security.SSL,
                ssl_context=context,
                timeout=SocketTimeout(connect=s.timeout, read=s.timeout),
            )
        except (OSError, IMAPClientError) as exc:
            raise MailboxError(mask(f"cannot connect to the IMAP server {where} ({s.security}): {_reason(exc)}",
                                    secret)) from None
        try:
            if s.security is Security.STARTTLS:
                try:
                    client.starttls(context)
                except CapabilityError:
                    raise MailboxError(f"the IMAP server {where} does not offer STARTTLS") from None
            self._login(client, secret, where)
            self._client = client
            self._select()
        except MailboxError:
            self._client = None
            _shutdown(client)
            raise
        except (OSError, IMAPClientError) as exc:
            self._client = None
            _shutdown(client)
            raise MailboxError(mask(f"IMAP session with {where} failed: {_reason(exc)}", secret)) from None
        finally:
            del secret  # held for this login only

    def _login(self, client: IMAPClient, secret: str, where: str) -> None:
        """LOGIN, or AUTHENTICATE XOAUTH2 with ``secret`` as the access token; ``MailboxLoginError`` if refused."""
        s = self.settings
        xoauth2 = s.auth is AuthMethod.XOAUTH2
        if xoauth2 and "AUTH=XOAUTH2" not in {_text(cap).upper() for cap in client.capabilities()}:
            raise MailboxLoginError(f"the IMAP server {where} does not offer AUTH=XOAUTH2 (auth = \"xoauth2\"); "
                                    f"use auth = \"password\" there")
        try:
            if xoauth2:
                client.oauth2_login(s.username, secret)
            else:
                client.login(s.username, secret)
        except LoginError as exc:
            hint = f" ({XOAUTH2_HINT})" if xoauth2 else ""
            raise MailboxLoginError(
                mask(f"the IMAP server {where} refused the {'XOAUTH2 ' if xoauth2 else ''}login of "
                     f"{s.username!r}: {_reason(exc)}{hint}", secret)
            ) from None

    def close(self) -> None:
        """Log out (quietly: a connection that is already gone is closed all the same)."""
        client, self._client = self._client, None
        if client is not None:
            try:
                client.logout()
            except Exception:
                _shutdown(client)

    def __enter__(self) -> ImapInbox:
        self.connect()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    @property
    def connected(self) -> bool:
        return self._client is not None

    @property
    def uidvalidity(self) -> int:
        """The UIDVALIDITY of the selected mailbox, as of the last select or fetch."""
        return self._uidvalidity

    @property
    def capabilities(self) -> frozenset[str]:
        """The server's capabilities after login (upper case)."""
        return frozenset(_text(cap).upper() for cap in self._need().capabilities())

    @property
    def supports_idle(self) -> bool:
        return "IDLE" in self.capabilities

    @property
    def supports_move(self) -> bool:
        return "MOVE" in self.capabilities

    @property
    def uses_idle(self) -> bool:
        """Whether :meth:`wait_for_mail` will IDLE (offered and not switched off) or poll."""
        return self._want_idle is not False and self.supports_idle

    # reading -------------------------------------------------------------------------------

    def fetch_new(self, since: MailboxPosition | None = None, *, limit: int | None = None) -> FetchResult:
        """The messages above ``since`` (all of them when ``since`` is None or of another UIDVALIDITY).

        Oldest first, at most ``limit`` of them. Messages are fetched with
        ``BODY.PEEK[]``: reading does not mark them seen, so a human looking
        at the mailbox sees what is still waiting. The returned position may
        lie above the last returned UID: UIDs below the mailbox's UIDNEXT that
        were not found are gone for good (UIDs are never reused).
        """
        client = self._need()
        with self._errors("fetch"):
            uidnext = self._select().get(b"UIDNEXT")
            changed = since is not None and since.uidvalidity != self._uidvalidity
            start = 1 if since is None or changed else since.last_uid + 1
            # "UID n:*" always matches the highest UID, even below n: filter again here.
            uids = sorted(uid for uid in client.search(["UID", f"{start}:*"]) if uid >= start)
            more = limit is not None and len(uids) > limit
            if limit is not None:
                uids = uids[:limit]
            messages: list[FetchedMessage] = []
            for offset in range(0, len(uids), FETCH_BATCH):
                batch = uids[offset:offset + FETCH_BATCH]
                response = client.fetch(batch, ["BODY.PEEK[]"])
                for uid in batch:
                    raw = response.get(uid, {}).get(b"BODY[]")
                    if raw is not None:  # None: expunged meanwhile by someone else
                        messages.append(FetchedMessage(uid, bytes(raw)))
        last_uid = max([start - 1, *uids])
        if not more and isinstance(uidnext, int):
            last_uid = max(last_uid, uidnext - 1)
        if changed or self._seen_validity != self._uidvalidity:
            self._seen_uid = last_uid
        else:
            self._seen_uid = max(self._seen_uid or 0, last_uid)
        self._seen_validity = self._uidvalidity
        return FetchResult(tuple(messages), MailboxPosition(self._uidvalidity, last_uid), changed, more)

    # moving --------------------------------------------------------------------------------

    def move(self, uid: int | Sequence[int], folder: str) -> None:
        """Move message ``uid`` (or several, in one command) of the mailbox into ``folder``, creating the folder
        when missing.

        MOVE (RFC 6851) when the server has it; otherwise COPY, flag
        ``\\Deleted`` and expunge (UID EXPUNGE with UIDPLUS, so that only these
        messages go; a plain EXPUNGE without it). Moving a UID that is no
        longer there does nothing, so a repeated move after a crash is harmless.
        """
        uids = [uid] if isinstance(uid, int) else list(uid)
        if not uids:
            return
        client = self._need()
        target = self.ensure_folder(folder)
        with self._errors(f"move to {target!r}"):
            if self._want_move is not False and "MOVE" in self.capabilities:
                client.move(uids, target)
                return
            client.copy(uids, target)
            client.add_flags(uids, [DELETED])
            if "UIDPLUS" in self.capabilities:
                client.uid_expunge(uids)
            else:
                client.expunge()

    def move_to_processed(self, *uids: int) -> None:
        """Move ``uids`` to the configured processed folder: one command for a whole batch of handled mail."""
        self.move(uids, self.settings.processed_folder)

    def move_to_failed(self, uid: int) -> None:
        """Move ``uid`` to the configured failed folder (mail that could not be handled, for a human)."""
        self.move(uid, self.settings.failed_folder)

    def ensure_folder(self, folder: str) -> str:
        """The server's name for ``folder`` (namespace prefix added, ``/`` as the hierarchy separator), created if missing."""
        if folder in self._folders:
            return self._folders[folder]
        client = self._need()
        with self._errors(f"create folder {folder!r}"):
            name = self._server_name(folder)
            if not client.folder_exists(name):
                try:
                    client.create_folder(name)
                except IMAPClientError as exc:
                    if "ALREADYEXISTS" not in str(exc).upper():  # created by another client meanwhile
                        raise
                try:
                    client.subscribe_folder(name)  # so that the game master sees it in a mail client
                except IMAPClientError:
                    pass
        self._folders[folder] = name
        return name

    # waiting -------------------------------------------------------------------------------

    def wait_for_mail(self, timeout: float) -> bool:
        """Block until new mail may be there (True) or ``timeout`` seconds passed quietly (False).

        True means "fetch now"; it can be spurious (a change that was no new
        message) but never late: mail that arrived since the last
        :meth:`fetch_new` is seen before any waiting starts.

        How nothing slips through: the mailbox is selected afresh and its
        UIDNEXT compared with what :meth:`fetch_new` handed out; then IDLE is
        entered with no other command in between, so a message that arrived
        after that snapshot is announced by the server inside the IDLE (a
        command in between could carry the announcement and lose it).
        """
        deadline = time.monotonic() + max(0.0, timeout)
        with self._errors("wait for mail"):
            if self._mail_waiting():
                return True
            if self.uses_idle:
                return self._idle_until(deadline)
            return self._poll_until(deadline)

    def _idle_until(self, deadline: float) -> bool:
        client = self._need()
        while True:
            now = time.monotonic()
            if now >= deadline:
                return False
            segment_end = min(deadline, now + self.settings.idle_refresh)
            woke = False
            client.idle()
            try:
                while not woke:
                    remaining = segment_end - time.monotonic()
                    if remaining <= 0:
                        break
                    woke = any(_announces_mail(response) for response in client.idle_check(timeout=remaining))
            finally:
                _, late = client.idle_done()
            if woke or any(_announces_mail(response) for response in late):
                return True

    def _poll_until(self, deadline: float) -> bool:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            time.sleep(min(self.settings.poll_interval, remaining))
            if self._mail_waiting():
                return True

    def _mail_waiting(self) -> bool:
        """Whether the freshly selected mailbox holds mail :meth:`fetch_new` has not handed out."""
        info = self._select()
        if self._seen_uid is None or self._seen_validity != self._uidvalidity:
            return int(info.get(b"EXISTS", 0)) > 0
        uidnext = info.get(b"UIDNEXT")
        if isinstance(uidnext, int):
            return uidnext - 1 > self._seen_uid
        start = self._seen_uid + 1  # a server without UIDNEXT: ask by UID
        return any(uid >= start for uid in self._need().search(["UID", f"{start}:*"]))

    # internals -----------------------------------------------------------------------------

    def _need(self) -> IMAPClient:
        if self._client is None:
            raise MailboxError("not connected to the IMAP server (call connect() first)")
        return self._client

    def _select(self) -> dict[bytes, Any]:
        """(Re)select the mailbox: a fresh, consistent snapshot of EXISTS, UIDNEXT and UIDVALIDITY."""
        info: dict[bytes, Any] = self._need().select_folder(self._server_name(self.settings.mailbox))
        self._uidvalidity = int(info[b"UIDVALIDITY"])
        return info

    def _server_name(self, folder: str) -> str:
        if folder.upper() == "INBOX":
            return "INBOX"
        if self._namespace is None:
            prefix, separator = "", "/"
            if "NAMESPACE" in self.capabilities:
                personal = self._need().namespace().personal
                if personal:
                    prefix, separator = _text(personal[0][0]), _text(personal[0][1] or "/")
            self._namespace = (prefix, separator)
        prefix, separator = self._namespace
        name = folder.replace("/", separator) if separator != "/" else folder
        if prefix and not name.startswith(prefix):
            name = prefix + name
        return name

    @contextmanager
    def _errors(self, action: str) -> Iterator[None]:
        """Turn imapclient/socket failures into ``MailboxError`` (the daemon reconnects on it)."""
        try:
            yield
        except MailboxError:
            raise
        except (OSError, IMAPClientError) as exc:
            client, self._client = self._client, None  # the session state is unknown: start afresh
            if client is not None:
                _shutdown(client)
            s = self.settings
            raise MailboxError(mask(f"IMAP {action} on {s.host}:{s.effective_port} failed: {_reason(exc)}",
                                    s.password)) from None


def _announces_mail(response: Any) -> bool:
    """An untagged ``* n EXISTS`` (the mailbox grew); other IDLE chatter (``OK Still here``) is not mail."""
    return isinstance(response, tuple) and len(response) >= 2 and response[1] == b"EXISTS"


def _reason(exc: BaseException) -> str:
    if isinstance(exc, socket.timeout):
        return "timed out"
    if isinstance(exc, ssl.SSLError):
        return f"TLS error: {exc.reason or exc}"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    text = str(exc).strip()
    if len(text) > 3 and text[:2] in ("b'", 'b"') and text[-1] == text[1]:
        text = text[2:-1]  # imaplib puts the server's reply bytes into the message as their repr
    return text or type(exc).__name__


def _text(value: object) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _shutdown(client: IMAPClient) -> None:
    try:
        client.shutdown()
    except Exception:
        pass
