"""The mail a move causes: who gets which mail, written into the outbox after the move has committed.

* :mod:`pbem.moderator.notify.compose` — :class:`MailComposer`: every outgoing mail (tokens, threading,
  headers) is queued through it
* :mod:`pbem.moderator.notify.turnmail` — after a move: one mail per seat that is due one, in its mail mode
* :mod:`pbem.moderator.notify.observers` — observers' mail: the public report, their STOP
* :mod:`pbem.moderator.notify.subjects` — a mail's subject, the decision it asks for, its deadline
* :mod:`pbem.moderator.notify.tokens` — the seats' reply tokens as their mail carries them
* :mod:`pbem.moderator.notify.telling` — a committed move told: its record, and every seat's mail written in
  a transaction of its own
* :mod:`pbem.moderator.notify.boards` — the pictures a composer's mail carries: drawn once per version, only
  for mail that shows the board
* :mod:`pbem.moderator.notify.pictures` — the board's picture, and the helper process that draws it
"""
from __future__ import annotations

from pbem.moderator.notify.compose import MailComposer, Queued

__all__ = ["MailComposer", "Queued"]
