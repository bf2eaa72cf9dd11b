"""The mail a move causes: who gets which mail, written into the outbox inside the move's transaction.

* :mod:`pbem.moderator.notify.compose` — :class:`MailComposer`: every outgoing mail (tokens, threading,
  headers) is queued through it
* :mod:`pbem.moderator.notify.turnmail` — after a move: one mail per seat that is due one, in its mail mode
* :mod:`pbem.moderator.notify.observers` — observers' mail: the public report, their STOP
* :mod:`pbem.moderator.notify.subjects` — a mail's subject, the decision it asks for, its deadline
* :mod:`pbem.moderator.notify.tokens` — the seats' reply tokens as their mail carries them
* :mod:`pbem.moderator.notify.pictures` — the board's picture, and the helper process that draws it
* :mod:`pbem.moderator.notify.latepictures` — pictures that reach their mail after the commit
"""
from __future__ import annotations

from pbem.moderator.notify.compose import MailComposer, Queued

__all__ = ["MailComposer", "Queued"]
