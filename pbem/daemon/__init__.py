"""The moderator's transport: mail in (IMAP, Maildir, LMTP), the inbound queue's workers, mail out.

It decides nothing about games: each received mail is handed to the
moderator core (``pbem.moderator.inbound``) in a transaction of its own, and
what the core queued in the outbox is delivered after the commit.

* :mod:`pbem.daemon.loop` — :class:`MailFlow`: one pass (the inbox, the queue, the outbox, the tasks)
* :mod:`pbem.daemon.service` — :class:`Daemon` (``pbem run``) and :func:`poll_once` (``pbem poll --once``)
* :mod:`pbem.daemon.intake` — received mail into the inbound queue, and the queue drained
* :mod:`pbem.daemon.workers` — ``pbem run``'s threads: queue workers, the sender, the queue listener
* :mod:`pbem.daemon.lmtp` — mail handed over by Postfix or Exim (``pbem lmtp``)
* :mod:`pbem.daemon.mailbox` — :class:`Mailbox`: the IMAP inbox as the loop reads it
* :mod:`pbem.daemon.sender` — :func:`deliver_due`: the outbox to SMTP, retries with backoff
* :mod:`pbem.daemon.sendlimits` — the relay's hourly and daily sending limits
* :mod:`pbem.daemon.outages` — :class:`Outages`: what a process cannot reach, said once, tried after
  growing waits
* :mod:`pbem.daemon.logformat` — the log as text or JSON lines
* :mod:`pbem.daemon.metrics` — the metrics page a monitor scrapes (``[metrics] listen``)
"""
from __future__ import annotations

from pbem.daemon.loop import MailFlow, PassReport, deadline_task
from pbem.daemon.mailbox import Mailbox
from pbem.daemon.sender import DeliveryReport, deliver_due
from pbem.daemon.service import Daemon, PollReport, poll_once

__all__ = ["Daemon", "DeliveryReport", "MailFlow", "Mailbox", "PassReport", "PollReport", "deadline_task",
           "deliver_due", "poll_once"]
