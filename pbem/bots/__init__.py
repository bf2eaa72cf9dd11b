"""Bot players for play by email: read the moderator's mail, answer every prompt with a legal order.

* :mod:`pbem.games.imperial2030.bot.reading` — the moderator's mail as text: a prompt's options, an error's "Legal now", a report's table
* :mod:`pbem.games.imperial2030.bot.strategy` — pure decisions, prompt text in, order text out (``random``, ``sensible``)
* :mod:`pbem.bots.player` — :class:`BotPlayer`, the mail loop (``pbem bot``): Maildir in, SMTP out
* :mod:`pbem.bots.mailio` — reading a mail, building the reply (shared with ``pbem mail reply``)
"""
from __future__ import annotations

from pbem.bots.player import BotPlayer, BotStats
from pbem.games.imperial2030.bot.reading import (
    Prompt,
    PromptDecision,
    Refusal,
    Report,
    parse_prompt,
    parse_refusal,
    parse_report,
)
from pbem.games.imperial2030.bot.strategy import (
    STRATEGIES,
    BotError,
    choose,
    decide,
    decide_after_refusal,
    decision_rng,
)

__all__ = [
    "STRATEGIES",
    "BotError",
    "BotPlayer",
    "BotStats",
    "Prompt",
    "PromptDecision",
    "Refusal",
    "Report",
    "choose",
    "decide",
    "decide_after_refusal",
    "decision_rng",
    "parse_prompt",
    "parse_refusal",
    "parse_report",
]
