"""Bot players for play by email: read the moderator's mail, answer every prompt with a legal order.

* :mod:`pbem.bots.player` — :class:`BotPlayer`, the mail loop (``pbem bot``): Maildir in, SMTP out,
  around the game's own bot (``GameKind.bot``: what a mail says, what to answer)
* :mod:`pbem.bots.mailio` — reading a mail, building the reply (shared with ``pbem mail reply``)
"""
from __future__ import annotations

from pbem.bots.player import BotPlayer, BotPool, BotStats

__all__ = ["BotPlayer", "BotPool", "BotStats"]
