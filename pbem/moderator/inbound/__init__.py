"""One inbound mail, handled in one transaction by :func:`process_message`, and the readers it uses.

* :mod:`pbem.moderator.inbound.handler` — :func:`process_message`: one raw mail -> :class:`Outcome`
  (record, orders, log, outbox in one transaction)
* :mod:`pbem.moderator.inbound.outcome` — :class:`Outcome`: what became of a mail
* :mod:`pbem.moderator.inbound.binding` — which move a mail answers, and whether its orders still apply
* :mod:`pbem.moderator.inbound.press` — ``PRESS TO``: messages between players, relayed at once
* :mod:`pbem.moderator.inbound.preferences` — ``MAIL`` and ``BOARD``: how much mail a seat gets
* :mod:`pbem.moderator.inbound.vacation` — ``VACATION UNTIL``
* :mod:`pbem.moderator.inbound.history` — ``HISTORY``: the game's moves, as a player may read them
* :mod:`pbem.moderator.inbound.seatreplies` — the one reply to a seat's mail
"""
from __future__ import annotations

from pbem.moderator.inbound.handler import DatabaseUnavailable, MessageFailed, process_message
from pbem.moderator.inbound.outcome import Outcome

__all__ = ["DatabaseUnavailable", "MessageFailed", "Outcome", "process_message"]
