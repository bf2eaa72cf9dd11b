"""The moderator's mail flow: inbound mail in one transaction each, the outbox delivered after commit.

* :mod:`pbem.mailflow.inbound` — :func:`process_message`: one raw mail -> :class:`Outcome`
  (record, orders, log, outbox in one transaction)
* :mod:`pbem.mailflow.outgoing` — :class:`MailComposer`: every outgoing mail (tokens, threading,
  headers) is queued through it
* :mod:`pbem.mailflow.outbox_sender` — :func:`deliver_due`: the outbox to SMTP, retries with backoff
* :mod:`pbem.mailflow.daemon` — :class:`MailFlow`, :func:`poll_once` (``pbem poll --once``),
  :class:`Daemon` (``pbem run``)
* :mod:`pbem.mailflow.games` — :func:`create_game_with_mail` (``pbem game new`` with mail)
* :mod:`pbem.mailflow.check` — :func:`check_mail` (``pbem check``)
* :mod:`pbem.mailflow.outages` — :class:`Outages`: what a process cannot reach, said once, tried after
  growing waits
* :mod:`pbem.mailflow.crash` — ``PBEM_CRASH_AT`` crash points for the crash-safety tests
"""
from __future__ import annotations

from pbem.mailflow.check import CheckReport, check_mail
from pbem.mailflow.crash import POINTS as CRASH_POINTS
from pbem.mailflow.crash import crash_point
from pbem.mailflow.daemon import (
    Daemon,
    MailFlow,
    PassReport,
    PollReport,
    deadline_task,
    poll_once,
)
from pbem.mailflow.games import create_game_with_mail
from pbem.mailflow.inbound import (
    DatabaseUnavailable,
    MessageFailed,
    process_message,
)
from pbem.mailflow.mailbox import Mailbox
from pbem.mailflow.outbox_sender import DeliveryReport, deliver_due
from pbem.mailflow.outcome import Outcome
from pbem.mailflow.outgoing import (
    MailComposer,
    Queued,
    decision_deadline,
    outgoing_mail,
)

__all__ = [
    "CRASH_POINTS",
    "CheckReport",
    "Daemon",
    "DatabaseUnavailable",
    "DeliveryReport",
    "MailComposer",
    "MailFlow",
    "Mailbox",
    "MessageFailed",
    "Outcome",
    "PassReport",
    "PollReport",
    "Queued",
    "check_mail",
    "crash_point",
    "create_game_with_mail",
    "deadline_task",
    "decision_deadline",
    "deliver_due",
    "outgoing_mail",
    "poll_once",
    "process_message",
]
