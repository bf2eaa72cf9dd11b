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
* :mod:`pbem.moderator.inbound.words` — renders the templates below

Every word a player reads lives in a template (issue 28). The convention:
the inbound core's texts are ``templates/core/<what it says>.j2``, one file
a text (``stale_orders``, ``orders_applied_late``, ``history_attached``,
``preference_refused``, ``mail_preferences``, ``history``) or one file a
family with one switch that picks the text (``refusal.j2`` by ``reason``,
the answer to a mail not read as orders; ``vacation.j2`` by ``to``, own or
others; ``preference_refusal.j2`` by ``refusal.wrong``; ``press_told.j2`` by
each press's ``refusal.problem``); pieces several templates share are macros
(``until.j2``, ``names.j2``, ``mail_mode.j2``). Python decides which text and
hands its values, typed (an enum for the switch, dataclasses, str, int),
never an English sentence; the template holds the words, every sentence
marked for translation (``_()``/``ngettext`` with named placeholders), and a
comment at its top saying where it is used and what each value means. Log
lines, the inbound record's reasons and mail headers (subjects) are not
player text and stay in Python.
"""
from __future__ import annotations

from pbem.moderator.inbound.handler import DatabaseUnavailable, MessageFailed, process_message
from pbem.moderator.inbound.outcome import Outcome

__all__ = ["DatabaseUnavailable", "MessageFailed", "Outcome", "process_message"]
