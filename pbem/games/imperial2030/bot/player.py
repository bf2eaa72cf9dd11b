"""Imperial 2030's bot as the moderator's mail loop (``pbem.bots.BotPlayer``) uses it: read our mails, answer.

The mail loop is the same for every game; what a mail of this game says
(a prompt, a refusal, a report, the end) and what to answer is here.
"""
from __future__ import annotations

from collections.abc import Sequence

from pbem.games.imperial2030.bot.reading import banner_of, is_error_mail, parse_prompt
from pbem.games.imperial2030.bot.strategy import (
    STRATEGIES,
    BotError,
    decide,
    decide_after_refusal,
)


class ImperialBot:
    """Reads Imperial 2030's mails and answers its prompts (strategies ``random`` and ``sensible``)."""

    strategies = STRATEGIES

    def game_over(self, text: str) -> bool:
        return any(" - the game is over" in line for line in text.split("\n") if line.startswith(" IMPERIAL 2030 - "))

    def prompt_of(self, text: str) -> tuple[str | None, int | None] | None:
        """(game, move) of a mail that asks a decision (a prompt, or a report carrying one); else None."""
        prompt = parse_prompt(text)
        if prompt.decision is None:
            return None
        return prompt.game, prompt.version

    def is_error(self, text: str) -> bool:
        return is_error_mail(text)

    def error_moved_on(self, text: str) -> bool:
        """Whether a refusal came after lines that stood: the game moved, a new prompt follows."""
        return "\nAPPLIED (these stand)\n" in text

    def banner(self, text: str) -> tuple[str | None, int | None]:
        return banner_of(text)

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
