"""Names for the processes and threads that share one database (in claims and leases).

A name says which host, process and thread holds a claim, so that a game
master reading the ``outbox`` or ``inbound_queue`` tables can tell who is
sending what, and so that two threads of one process never take each
other's claims for their own.
"""
from __future__ import annotations

import os
import socket
import threading

_HOST = socket.gethostname().split(".")[0][:24] or "host"


def holder_name(role: str) -> str:
    """``role@host:pid:thread``, at most 64 characters (the claim columns' width)."""
    return f"{role[:8]}@{_HOST}:{os.getpid()}:{threading.get_ident() % 1_000_000}"[:64]


def host_name() -> str:
    """This host's short name, as the names here carry it."""
    return _HOST


def process_name(role: str) -> str:
    """``role@host:pid``: the whole process, for its heartbeat (``pbem.store.processes``); :func:`gone` reads it."""
    return f"{role[:8]}@{_HOST}:{os.getpid()}"[:64]


def gone(name: str) -> bool:
    """Whether the holder called ``name`` is a process of this host that no longer runs.

    Why: a claim normally lasts until its lease runs out (minutes), which is
    right for a holder on another host that may be alive; but a process
    restarted after a crash on the same host should not wait for its own dead
    predecessor's claims.
    """
    _, _, where = name.partition("@")
    host, _, rest = where.partition(":")
    pid_text = rest.partition(":")[0]
    if host != _HOST or not pid_text.isdigit() or int(pid_text) == os.getpid():
        return False
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, someone else's
        return False
    return False
