"""Imperial 2030's bot as the moderator's mail loop (``pbem.bots.BotPlayer``) uses it: read our mails, answer.

The mail loop is the same for every game; what a mail of this game says
(a prompt, a refusal, a report, the end) and what to answer is here.

A bot reads and answers in its seat's language (the loop calls it under
``speaking(language)``): a mail is read as its English twin (``bot.english``,
see ``reading``), the strategy decides in the English order language, and
the answer is written back in the seat's words (``english.local_order``: an
option copied is the option as printed). The orders it wrote, which the loop
hands back after a refusal, are read back into English the same way. Since
the twin says what the English mail says, a seed plays one game in every
language.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from pbem.games.imperial2030.bot.english import english_order, local_order
from pbem.games.imperial2030.bot.strategy import (
    STRATEGIES,
    BotError,
    decide,
    decide_after_refusal,
)
from pbem.languages import Language, speaking, spoken
from pbem.render.env import environment


@lru_cache(maxsize=len(Language))
def _nations_heading(language: Language) -> str:
    """The report's NATIONS heading as ``language`` prints it: only a report carries it."""
    with speaking(language):
        return environment(language).from_string('{{ _("NATIONS") }}').render()


def _written(answer: str | None) -> str | None:
    """The strategy's answer (English orders) in the words of the language being written."""
    if answer is None:
        return None
    language = spoken()
    return "\n".join(local_order(line, language) for line in answer.splitlines())


class ImperialBot:
    """Reads Imperial 2030's mails and answers its prompts (strategies ``random`` and ``sensible``)."""

    strategies = STRATEGIES

    @property
    def languages(self) -> tuple[Language, ...]:
        """Every language: the bot reads a mail as its English twin, through the catalogue it was written with."""
        return tuple(Language)

    def is_report(self, text: str) -> bool:
        return f"\n{_nations_heading(spoken())}\n" in text

    def answer(self, prompt: str, strategy: str, seed: int | str, report: str | None) -> str | None:
        try:
            return _written(decide(prompt, strategy, seed=seed, report_text=report))
        except BotError:
            return None

    def answer_refusal(self, error: str, prompt: str | None, strategy: str, seed: int | str, report: str | None,
                       avoid: Sequence[str], attempt: int) -> str | None:
        language = spoken()
        refused = [english_order(line, language).upper() for line in avoid]  # the orders it wrote, in English
        return _written(decide_after_refusal(error, prompt, strategy, seed=seed, report_text=report, avoid=refused,
                                             attempt=attempt))
