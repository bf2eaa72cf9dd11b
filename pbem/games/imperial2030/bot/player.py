"""Imperial 2030's bot as the moderator's mail loop (``pbem.bots.BotPlayer``) uses it: read our mails, answer.

The mail loop is the same for every game; what a mail of this game says
(a prompt, a refusal, a report, the end) and what to answer is here.
"""
from __future__ import annotations

from collections.abc import Sequence

from pbem.games.imperial2030.bot.strategy import (
    STRATEGIES,
    BotError,
    decide,
    decide_after_refusal,
)


class ImperialBot:
    """Reads Imperial 2030's mails and answers its prompts (strategies ``random`` and ``sensible``)."""

    strategies = STRATEGIES

    def is_report(self, text: str) -> bool:
        return "\nNATIONS\n" in text

    def answer(self, prompt: str, strategy: str, seed: int | str, report: str | None) -> str | None:
        try:
            return decide(prompt, strategy, seed=seed, report_text=report)
        except BotError:
            return None

    def answer_refusal(self, error: str, prompt: str | None, strategy: str, seed: int | str, report: str | None,
                       avoid: Sequence[str], attempt: int) -> str | None:
        return decide_after_refusal(error, prompt, strategy, seed=seed, report_text=report, avoid=list(avoid),
                                    attempt=attempt)
