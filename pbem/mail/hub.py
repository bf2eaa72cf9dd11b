"""A small local mail hub: SMTP in on loopback, one Maildir per address out (``pbem mailhub``).

The moderator, the players' mail clients and the bots of ``pbem demo`` need
real mail between them on one machine with nothing installed. The hub is an
aiosmtpd server that

* listens on a loopback address only (``127.0.0.1``, ``::1``, ``localhost``;
  anything else is refused at start-up, and a client whose address is not
  loopback is refused with 550 as well);
* accepts mail for any well-formed address and delivers one copy per
  envelope recipient into ``ROOT/<address>/`` (a Maildir: ``cur/ new/ tmp/``,
  written to ``tmp/`` and renamed into ``new/``, so a reader never sees half a
  message);
* delivers a plus-address ``local+tag@host`` into the Maildir of the base
  address ``local@host``, leaving the message's ``To`` as it is: the
  moderator's ``moderator+TOKEN@demo.pbem`` replies all land in
  ``ROOT/moderator@demo.pbem/``;
* adds ``Return-Path``, ``Delivered-To`` (the envelope recipient, plus part
  included, where the inbound parser also looks for a reply token) and a
  ``Received`` line on top of each delivered copy.

Use it from the command line (``pbem mailhub --root DIR --port 2525``) or in
the same process (``MailHub(root).start()`` ... ``.stop()``, or ``with``): the
demo and the tests do that. ``port=0`` picks a free port; :attr:`MailHub.port`
says which.
"""
from __future__ import annotations

import asyncio
import ipaddress
import itertools
import os
import re
import socket
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path
from types import TracebackType

from aiosmtpd.smtp import SMTP, Envelope, Session

from pbem.errors import PbemError
from pbem.privatefiles import make_private_dirs, open_private

DEFAULT_PORT = 2525
DATA_SIZE_LIMIT = 10 * 1024 * 1024

_LOCAL_RE = re.compile(r"^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$")
_DOMAIN_RE = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$")


class MailHubError(PbemError):
    """The hub cannot start (not a loopback address, port taken, root not writable)."""


def mailbox_name(address: str) -> str | None:
    """The Maildir directory name of ``address``: lowercased, ``+tag`` dropped; None when not an address we take.

    Only plain ``local@domain`` addresses are taken: no quoted local parts,
    no ``/``, no leading dot, no ``..`` - the name becomes a directory.
    """
    text = address.strip().strip("<>").strip().lower()
    local, at, domain = text.rpartition("@")
    if not at or not local or not domain or len(text) > 254:
        return None
    local = local.split("+", 1)[0]
    if not local or "/" in local or not _LOCAL_RE.match(local) or not _DOMAIN_RE.match(domain):
        return None
    return f"{local}@{domain}"


def is_loopback_host(host: str) -> bool:
    """Whether every address ``host`` names is a loopback address."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except socket.gaierror:
        return False
    return bool(infos) and all(ipaddress.ip_address(str(info[4][0]).split("%")[0]).is_loopback for info in infos)


class _Delivery:
    """Writes messages into Maildirs under ``root``: unique names, ``tmp/`` then ``new/``."""

    def __init__(self, root: Path, hostname: str, fsync: bool) -> None:
        self.root = root
        self.hostname = hostname
        self.fsync = fsync
        self._counter = itertools.count(1)
        self._lock = threading.Lock()
        self._made: set[Path] = set()

    def maildir(self, name: str) -> Path:
        path = self.root / name
        if path not in self._made:
            for sub in ("cur", "new", "tmp"):
                make_private_dirs(path / sub)  # mail carries token addresses: owner-only (pbem.privatefiles)
            self._made.add(path)
        return path

    def unique(self) -> str:
        now = time.time()
        with self._lock:
            count = next(self._counter)
        host = self.hostname.replace("/", "\\057").replace(":", "\\072")
        # Digits padded: a reader that orders mails of the same modification time by name (the Maildir
        # inbox) reads them in the order they came ("M95000" sorted after "M102000").
        return f"{int(now)}.M{int(now % 1 * 1e6):06d}P{os.getpid()}Q{count:06d}.{host}"

    def deliver(self, name: str, data: bytes) -> Path:
        directory = self.maildir(name)
        unique = self.unique()
        temporary = directory / "tmp" / unique
        with open_private(temporary, "wb") as handle:
            handle.write(data)
            if self.fsync:
                handle.flush()
                os.fsync(handle.fileno())
        final = directory / "new" / unique
        os.rename(temporary, final)
        return final


class _Handler:
    """The aiosmtpd handler: loopback clients only, well-formed recipients, one copy per recipient."""

    def __init__(self, hub: MailHub) -> None:
        self.hub = hub

    def _refuse_peer(self, session: Session) -> str | None:
        peer = session.peer[0] if isinstance(session.peer, tuple) and session.peer else ""
        try:
            if ipaddress.ip_address(str(peer).split("%")[0]).is_loopback:
                return None
        except ValueError:
            pass
        return "550 5.7.1 this hub only takes mail from loopback clients"

    async def handle_MAIL(self, server: SMTP, session: Session, envelope: Envelope, address: str,
                          mail_options: list[str]) -> str:
        refused = self._refuse_peer(session)
        if refused:
            return refused
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(self, server: SMTP, session: Session, envelope: Envelope, address: str,
                          rcpt_options: list[str]) -> str:
        refused = self._refuse_peer(session)
        if refused:
            return refused
        if mailbox_name(address) is None:
            return f"550 5.1.3 not a deliverable address here: {address}"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        refused = self._refuse_peer(session)
        if refused:
            return refused
        content = envelope.original_content if envelope.original_content is not None else envelope.content
        if isinstance(content, str):
            content = content.encode("utf-8", "surrogateescape")
        try:
            self.hub._deliver_all(session, envelope, bytes(content or b""))
        except OSError as exc:
            return f"451 4.3.0 cannot store the message now: {exc.strerror or exc}"
        return "250 2.0.0 delivered"


class MailHub:
    """The hub; ``start()`` serves in a background thread, ``stop()`` ends it.

    ``on_delivery(mailbox_name, path)`` is called (in the hub's thread) for
    every copy written, after the rename into ``new/``. ``delivered`` counts
    the copies written; :meth:`wait_delivered` waits for that count to reach a
    number (the demo uses both to tell the moderator and the bots that mail came).
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        hostname: str = "mailhub.pbem",
        fsync: bool = True,
        on_delivery: Callable[[str, Path], None] | None = None,
        data_size_limit: int = DATA_SIZE_LIMIT,
    ) -> None:
        if not is_loopback_host(host):
            raise MailHubError(f"the mail hub listens on loopback addresses only (127.0.0.1, ::1, localhost), "
                               f"not {host!r}")
        self.root = Path(root).expanduser()
        self.host = host
        self.port = port
        self.hostname = hostname
        self.on_delivery = on_delivery
        self.data_size_limit = data_size_limit
        self._delivery = _Delivery(self.root, hostname, fsync)
        self._handler = _Handler(self)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None
        self._ids = itertools.count(1)
        self._delivered = 0
        self._accepted = 0
        self._condition = threading.Condition()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"MailHub({str(self.root)!r}, {self.host}:{self.port}, {state})"

    # life cycle ------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> MailHub:
        """Bind and serve in a daemon thread; returns once the port accepts connections."""
        if self.running:
            return self
        try:
            make_private_dirs(self.root)
        except OSError as exc:
            raise MailHubError(f"cannot create the hub's root {self.root}: {exc.strerror}") from None
        ready = threading.Event()
        failure: list[BaseException] = []
        loop = asyncio.new_event_loop()
        self._loop = loop

        def run() -> None:
            asyncio.set_event_loop(loop)
            try:
                self._server = loop.run_until_complete(loop.create_server(self._protocol, host=self.host,
                                                                          port=self.port))
                self.port = int(self._server.sockets[0].getsockname()[1])
            except BaseException as exc:  # handed to the starting thread
                failure.append(exc)
                ready.set()
                loop.close()
                return
            ready.set()
            try:
                loop.run_forever()
            finally:
                self._shutdown(loop)

        self._thread = threading.Thread(target=run, name="pbem-mailhub", daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            self._thread.join()
            self._thread = None
            self._loop = None
            error = failure[0]
            reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
            raise MailHubError(f"the mail hub cannot listen on {self.host}:{self.port}: {reason}") from None
        return self

    def stop(self) -> None:
        """Stop serving (open sessions are cut) and wait for the thread to end."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        if thread.is_alive():
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout=10)
        self._thread = None
        self._loop = None

    def __enter__(self) -> MailHub:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    def _protocol(self) -> SMTP:
        return SMTP(self._handler, hostname=self.hostname, ident="pbem mailhub",
                    data_size_limit=self.data_size_limit, loop=self._loop)

    def _shutdown(self, loop: asyncio.AbstractEventLoop) -> None:
        server = self._server
        if server is not None:
            server.close()
        tasks = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
        if server is not None:
            try:
                loop.run_until_complete(asyncio.wait_for(server.wait_closed(), 2))
            except (TimeoutError, RuntimeError):
                pass
        loop.close()

    # delivery --------------------------------------------------------------------------------

    def maildir_for(self, address: str) -> Path:
        """Where mail for ``address`` (plus part ignored) is delivered."""
        name = mailbox_name(address)
        if name is None:
            raise MailHubError(f"not an address the hub delivers to: {address!r}")
        return self.root / name

    def ensure_maildir(self, address: str) -> Path:
        """Create the Maildir of ``address`` now (so that a reader can watch it before any mail)."""
        name = mailbox_name(address)
        if name is None:
            raise MailHubError(f"not an address the hub delivers to: {address!r}")
        return self._delivery.maildir(name)

    @property
    def delivered(self) -> int:
        """Copies written into Maildirs since start (one per recipient)."""
        with self._condition:
            return self._delivered

    @property
    def accepted(self) -> int:
        """Messages accepted by SMTP since start (one per DATA, whatever the number of recipients)."""
        with self._condition:
            return self._accepted

    def wait_delivered(self, count: int, timeout: float) -> bool:
        """Wait until at least ``count`` copies were delivered; False on timeout."""
        with self._condition:
            return self._condition.wait_for(lambda: self._delivered >= count, timeout)

    def _deliver_all(self, session: Session, envelope: Envelope, content: bytes) -> None:
        body = content.replace(b"\r\n", b"\n")
        now = datetime.now(UTC)
        peer = session.peer[0] if isinstance(session.peer, tuple) and session.peer else "unknown"
        helo = session.host_name or "unknown"
        mail_from = envelope.mail_from or ""
        ident = f"{int(time.time() * 1000):x}.{next(self._ids)}"
        written: list[tuple[str, Path]] = []
        for rcpt in envelope.rcpt_tos:
            name = mailbox_name(rcpt)
            if name is None:  # pragma: no cover - refused at RCPT already
                continue
            trace = (
                f"Return-Path: <{mail_from}>\n"
                f"Delivered-To: {rcpt}\n"
                f"Received: from {helo} ([{peer}])\n\tby {self.hostname} (pbem mailhub) with ESMTP id {ident}\n"
                f"\tfor <{rcpt}>; {format_datetime(now)}\n"
            ).encode("utf-8", "replace")
            written.append((name, self._delivery.deliver(name, trace + body)))
        with self._condition:
            self._accepted += 1
            self._delivered += len(written)
            self._condition.notify_all()
        if self.on_delivery is not None:
            for name, path in written:
                try:
                    self.on_delivery(name, path)
                except Exception:  # a listener's trouble must not refuse the mail
                    pass
