"""``pbem lmtp``: the mail server hands each mail straight to the moderator over LMTP (RFC 2033).

With an MTA of one's own (Postfix, Exim), mail for the moderator's address
need not wait in a mailbox for IMAP to notice it: the MTA delivers it over
LMTP, and the moderator answers ``250`` only once the message is committed
to the inbound queue (``pbem.daemon.intake.receive``). A database that
cannot take it gets a temporary ``451``, which makes the MTA keep the mail
and try again later: nothing is lost, and nothing is acknowledged before it
is safe. The workers (``pbem.daemon.workers``) are woken at once.

Only the moderator's own address (with or without a ``+token``) is
accepted as a recipient; anything else is refused at RCPT (``550``), so the
server cannot be used to inject mail for other addresses. Each accepted
recipient gets its own answer after DATA, as LMTP wants; one mail sent to
several tokens is queued once (its Message-ID is its key), under the first.

The server speaks plain LMTP on the address it is given (loopback by
default): it is meant for the MTA on the same host or a private network.
"""
from __future__ import annotations

import asyncio
import errno
import logging
import os
from collections.abc import Callable
from datetime import datetime
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP

from pbem.config import Config
from pbem.daemon.intake import ReceiptStatus, Received, receive
from pbem.daemon.outages import Outages, Service
from pbem.errors import PbemError
from pbem.mail import token_of_address
from pbem.moderator.inbound.handler import DatabaseUnavailable
from pbem.store import Database

log = logging.getLogger("pbem.daemon.lmtp")

REFUSED_RECIPIENT = "550 5.1.1 no such mailbox here: this server takes mail for the moderator only"
TRY_LATER = "451 4.3.0 the moderator cannot store mail right now; try again later"


class CannotListen(PbemError):
    """The address to listen on cannot be had (another server holds the port, a name that is not here …)."""


class LmtpHandler:
    """aiosmtpd's handler: accept the moderator's addresses, queue each message before saying ``250``."""

    def __init__(self, db: Database, config: Config, clock: Callable[[], datetime],
                 on_queued: Callable[[], None] = lambda: None, outages: Outages | None = None) -> None:
        self.db = db
        self.config = config
        self.clock = clock
        self.on_queued = on_queued
        self.outages = outages or Outages()  # the process's (MailFlow.outages): a database down is said once
        self.address = config.require_moderator().address.lower()

    def accepts(self, address: str) -> bool:
        local, _, domain = address.lower().rpartition("@")
        wanted_local, _, wanted_domain = self.address.rpartition("@")
        return domain == wanted_domain and local.partition("+")[0] == wanted_local

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                          rcpt_options: list[str]) -> str:
        if not self.accepts(address):
            return REFUSED_RECIPIENT
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        raw = envelope.original_content or envelope.content
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        tokens = [t for t in (token_of_address(r, self.address) for r in envelope.rcpt_tos) if t]
        if tokens:  # where the MTA delivered it, as a local delivery would note it
            raw = f"Delivered-To: {self._address_of(tokens[0])}\r\n".encode() + raw
        item = Received(raw, "lmtp", "lmtp", 0, 0, token=tokens[0] if tokens else None)
        try:
            receipts = await asyncio.get_running_loop().run_in_executor(
                None, lambda: receive(self.db, self.config, [item], self.clock()))
        except DatabaseUnavailable as exc:
            self.outages.down(Service.DATABASE, str(exc))
            log.info("LMTP: message not queued (the database cannot be reached), the sender will retry")
            return self._each(envelope, TRY_LATER)
        except Exception:  # a bug: the MTA keeps the mail, nothing is lost
            log.exception("LMTP: message not queued, the sender will retry")
            return self._each(envelope, TRY_LATER)
        self.outages.up(Service.DATABASE)
        receipt = receipts[0]
        log.info("LMTP: message %s %s", receipt.key or "?", receipt.status)
        if receipt.status is ReceiptStatus.QUEUED:
            self.on_queued()
        answer = ("250 2.0.0 not a mail; dropped" if receipt.status is ReceiptStatus.UNREADABLE
                  else f"250 2.0.0 {receipt.status}")
        return self._each(envelope, answer)

    def _address_of(self, token: str) -> str:
        local, _, domain = self.address.rpartition("@")
        return f"{local}+{token}@{domain}"

    @staticmethod
    def _each(envelope: Any, line: str) -> str:
        """One answer per accepted recipient (RFC 2033, section 4.2)."""
        return "\r\n".join([line] * max(1, len(envelope.rcpt_tos)))


class LmtpController(Controller):
    """aiosmtpd's threaded controller, speaking LMTP."""

    def factory(self) -> LMTP:
        return LMTP(self.handler, **self.SMTP_kwargs)


def start_lmtp(handler: LmtpHandler, host: str, port: int) -> LmtpController:
    """Listen on ``host:port``; :class:`CannotListen` (one line, for the command) when that cannot be."""
    controller = LmtpController(handler, hostname=host, port=port, ready_timeout=10.0)
    try:
        controller.start()
    except OSError as exc:
        why = ("the address is in use (another pbem lmtp, or another server, listens there)"
               if exc.errno == errno.EADDRINUSE else os.strerror(exc.errno) if exc.errno else str(exc))
        raise CannotListen(f"cannot listen for LMTP on {host}:{port}: {why}") from None
    log.info("LMTP server listening on %s:%d", host, port)
    return controller
