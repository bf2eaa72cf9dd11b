"""A bot for any game that prints its options in the one block (``pbem.games.optionsblock``).

It holds no knowledge of a game: ``random`` copies one option from the
prompt, chosen by its seed, the prompt's first line (the plain mails'
banner: game, move, reader) and the options offered (never the whole text:
a prompt holds its deadline and news that differ with the mail mode, and
the same seed must play the same game), ``first`` copies the first. After a
refusal it copies an option it has not tried. A game with a strategy of its
own writes its own ``Bot``; a game without one (the toy kind of the tests, a
third game's first draft) plays the demo with this.
"""
from __future__ import annotations

import random
from collections.abc import Sequence

from pbem.games.optionsblock import blocks, options_in


class OptionsBot:
    """``pbem.games.kind.Bot`` from the options block alone."""

    strategies = ("random", "first")

    def is_report(self, text: str) -> bool:
        """A mail without options tells where the game stands: the loop keeps the latest for ``answer``."""
        return not blocks(text)

    def answer(self, prompt: str, strategy: str, seed: int | str, report: str | None) -> str | None:
        """One order per options block of the prompt (a seat asked two things answers both)."""
        banner = next((line for line in prompt.splitlines() if line.strip()), "")  # the game, the move, the reader
        chosen = [self._pick(block.orders, strategy, f"{seed}:{banner}") for block in blocks(prompt) if block.orders]
        return "\n".join(chosen) or None

    def answer_refusal(self, error: str, prompt: str | None, strategy: str, seed: int | str, report: str | None,
                       avoid: Sequence[str], attempt: int) -> str | None:
        left = [order for order in options_in(error) or options_in(prompt or "") if order.upper() not in avoid]
        return self._pick(tuple(left), strategy, f"{seed}:{attempt}") if left else None

    def _pick(self, orders: Sequence[str], strategy: str, seed: int | str) -> str:
        if strategy == "first":
            return orders[0]
        return random.Random(f"{seed}:{'|'.join(orders)}").choice(list(orders))
