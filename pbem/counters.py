"""What this process did, counted for a monitor: orders handled, mails sent, holds, defaults, latency.

The endpoint that shows them (``pbem.daemon.metrics``) adds what the
database says at scrape time (the inbound queue, the outbox, outages);
here are the events only a process sees as they happen. They live in
:data:`REGISTRY`, this project's own ``prometheus_client`` registry (not the
library's global one, so that nothing another library registers shows up
unasked, and a test can read exactly these).

Why a module of the lowest layer (beside ``pbem.errors``): the deadline
tick of the moderator core (``pbem.moderator.tick``) counts the defaults and
stand-in moves it makes, and the daemon counts what it receives and sends;
the core must not import the daemon, so what both bump sits below both. It
imports nothing of the project and does no I/O: a counter is a number in
memory.

Labels are small, fixed sets: a game's *kind* (``imperial2030``), an
outcome or a failure's kind. Never a game's name (hosts and game masters
choose those, and a name can say more than a host wants shown; the kind is
enough to tell where trouble lies, and keeps the number of series bounded),
never an address, token or anything a player wrote.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from datetime import datetime

from prometheus_client import CollectorRegistry, Counter, Histogram

REGISTRY = CollectorRegistry(auto_describe=True)
_lock = threading.Lock()
NO_GAME = "none"  # the kind label of a mail that belongs to no game (a reply to a stranger, a test mail)

MAILS_HANDLED = Counter(
    "pbem_mails_handled", "Received mails handled, by the game's kind and the outcome (applied: orders applied; "
    "refused: a line refused; stale, query, no_token, spoofed ...; failed: set aside)",
    ["kind", "outcome"], registry=REGISTRY)
MAILS_SENT = Counter("pbem_mails_sent", "Mails the SMTP relay accepted, by game kind", ["kind"], registry=REGISTRY)
SEND_FAILURES = Counter(
    "pbem_send_failures", "Mails not sent, by failure: transient (kept, tried again), permanent (refused for good), "
    "unbuildable (no mail could be made of the row), unreachable (no connection to the relay: nothing was tried)",
    ["failure"], registry=REGISTRY)
SENDING_HOLDS = Counter(
    "pbem_sending_holds", "Times due mail was held back by a sending limit: limit (the configured hourly or daily "
    "limit is reached), provider (the relay asked us to slow down)", ["by"], registry=REGISTRY)
DEADLINE_MOVES = Counter(
    "pbem_deadline_moves", "Moves made for a player at a deadline, by game kind: default (the passive default) or "
    "stand_in (the bot played an absent player's turn)", ["kind", "by"], registry=REGISTRY)
# From a second to a day: a mail answered within the second, or one that waited for a relay down for hours.
LATENCY_BUCKETS = (0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0, 3600.0, 4 * 3600.0, 86400.0)
ORDER_TO_MAIL = Histogram(
    "pbem_order_to_mail_seconds", "From a received mail's arrival in the inbound queue to the relay's acceptance of "
    "the first mail it caused (observed by the process that handled the mail, when it also sent that mail)",
    buckets=LATENCY_BUCKETS, registry=REGISTRY)

for _failure in ("transient", "permanent", "unbuildable", "unreachable"):
    SEND_FAILURES.labels(_failure)  # a series from the start: an alert on its rate needs a zero to start from
for _by in ("limit", "provider"):
    SENDING_HOLDS.labels(_by)


def handled(kind: str | None, outcome: str) -> None:
    MAILS_HANDLED.labels(kind or NO_GAME, outcome).inc()


def sent(kind: str | None) -> None:
    MAILS_SENT.labels(kind or NO_GAME).inc()


def send_failed(failure: str) -> None:
    SEND_FAILURES.labels(failure).inc()


def held(by: str) -> None:
    SENDING_HOLDS.labels(by).inc()


_holding: set[str] = set()  # what held this process's last delivery run back ("limit", "provider")


def holding(by: str | None) -> None:
    """A delivery run found the outbox held back ``by`` a limit (None: free to send): a hold by the configured
    limits is counted when it starts, not at each run it lasts (the relay's own is counted by :func:`held`)."""
    with _lock:
        if by == "limit" and by not in _holding:
            SENDING_HOLDS.labels(by).inc()
        _holding.clear()
        if by is not None:
            _holding.add(by)


def deadline_move(kind: str, by: str) -> None:
    DEADLINE_MOVES.labels(kind, by).inc()


def move_key(game_id: int, version: int) -> str:
    """What names a move's mails to :class:`Answers` besides their Message-IDs (one never looks like the other)."""
    return f"move:{game_id}:{version}"


class Answers:
    """The mails each handled order caused, waiting for the first of them to be sent (:data:`ORDER_TO_MAIL`).

    Why in memory: the inbound queue's row, which knows when the mail came,
    is gone once the mail is handled; the process that handled it wakes its
    own sender at once, which sends the answer in nearly every case. An
    answer sent by another process is not observed (the histogram counts
    fewer, never wrong times). At most ``keep`` orders are remembered, the
    oldest forgotten first: a relay down for days must not grow the memory.

    An order is known by the Message-IDs of the mails its handling queued,
    and, when it moved a game, by the move (:func:`move_key`): a worker that
    tells a game's moves tells every move not yet told, so the mail of one
    order's move may be queued by the worker of the next order of that game.
    And the sender may take an answer in the moment between the commit that
    queued it and the worker's :meth:`expect`: the last ``early`` mails sent
    that nobody expected are kept for that moment, so such an order is timed
    too.
    """

    def __init__(self, keep: int = 10_000, early: int = 256) -> None:
        self.keep = keep
        self.early = early
        self._lock = threading.Lock()
        self._orders: OrderedDict[int, tuple[datetime, tuple[str, ...]]] = OrderedDict()  # when it came, its keys
        self._keys: dict[str, int] = {}  # a Message-ID or move key -> the order's number
        self._unexpected: OrderedDict[str, datetime] = OrderedDict()  # sent before anyone expected it -> when
        self._next = 0

    def expect(self, arrived: datetime, keys: Iterable[str]) -> None:
        """An order that came at ``arrived`` caused the mails named by ``keys`` (Message-IDs, its move)."""
        found = tuple(keys)
        if not found:
            return
        with self._lock:
            gone = [self._unexpected.pop(k) for k in found if k in self._unexpected]
            if not gone:
                self._next += 1
                self._orders[self._next] = (arrived, found)
                self._keys.update(dict.fromkeys(found, self._next))
                while len(self._orders) > self.keep:
                    self._forget(self._orders.popitem(last=False)[1][1])
        if gone:
            ORDER_TO_MAIL.observe(max(0.0, (min(gone) - arrived).total_seconds()))

    def sent(self, keys: Iterable[str], at: datetime) -> None:
        """The relay accepted the mail named by ``keys`` at ``at``: the first mail of an order is observed, once."""
        names = tuple(keys)
        with self._lock:
            order = next((self._keys[k] for k in names if k in self._keys), None)
            if order is None:
                for key in names:
                    self._unexpected[key] = at
                while len(self._unexpected) > self.early:
                    self._unexpected.popitem(last=False)
                return
            arrived, found = self._orders.pop(order)
            self._forget(found)
        ORDER_TO_MAIL.observe(max(0.0, (at - arrived).total_seconds()))

    def _forget(self, keys: tuple[str, ...]) -> None:
        for key in keys:
            self._keys.pop(key, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._orders)


ANSWERS = Answers()
