"""Crash points for the crash-safety tests: ``PBEM_CRASH_AT=<point>[:<n>]`` kills the process there.

The process ends with ``os._exit(137)`` (what a SIGKILL looks like to a
parent: no cleanup, no ``finally``, no flush, no rollback, no QUIT), at the
``n``-th time it passes the named point (the first time without ``:n``). The
points, in the order a message passes them:

``after_fetch``
    ``pbem run`` / ``pbem poll --once``: a batch of messages was fetched from
    IMAP, nothing of it handled yet.
``after_commit_before_move``
    the fetched batch is committed to the inbound queue
    (``pbem.daemon.intake``); this message is still in the inbox (not yet
    moved to the processed or failed folder), nor handled. The batch's
    handled messages are moved in one command after the last of them
    passed this point, so none is moved yet.
``mid_transaction``
    ``pbem.moderator.inbound.handler.process_message``: the message (out of the
    inbox, in the queue) is recorded, its orders applied and logged, the move
    to tell noted (the replies that belong to no move queued), all inside the
    transaction, which is not committed yet.
``after_apply_before_render``
    a message (or a game master's command, the deadline tick) applied a move
    and committed it, with the move's record (``pbem.store.moves``); its mail
    is not written yet.
``mid_render``
    ``pbem.moderator.notify.telling``: every seat's mail of a move is written
    and its record deleted, inside the transaction, which is not committed
    yet.
``mid_send``
    ``pbem.daemon.sender``: the SMTP server accepted a mail; the
    outbox row is not yet marked sent (so the mail is sent again after a
    restart: delivery is at least once, with the same Message-ID).

What must hold after a restart at any of them: every order applied exactly
once (the inbound key is unique and recorded in the same transaction as the
orders and the message's removal from the queue), every mail written once
(the move's record is deleted in the transaction that writes its mail) and
delivered at least once, the game's state equal to the replay of its log.
Unset (the normal case) costs one dictionary lookup.
"""
from __future__ import annotations

import os
import sys

ENV = "PBEM_CRASH_AT"
POINTS = ("after_fetch", "after_commit_before_move", "mid_transaction", "after_apply_before_render", "mid_render",
          "mid_send")
EXIT_CODE = 137

_passes: dict[str, int] = {}


def crash_point(name: str) -> None:
    """Die here if ``PBEM_CRASH_AT`` names this point (and this is the n-th pass)."""
    wanted = os.environ.get(ENV)
    if not wanted:
        return
    point, _, count = wanted.partition(":")
    if point != name:
        return
    _passes[name] = _passes.get(name, 0) + 1
    if _passes[name] >= (int(count) if count.isdigit() else 1):
        try:
            sys.stderr.write(f"pbem: {ENV}={wanted}: exiting with {EXIT_CODE}\n")
            sys.stderr.flush()
        finally:
            os._exit(EXIT_CODE)
