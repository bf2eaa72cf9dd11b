"""Eight-Minute Empire's bot: reads the options a prompt lists and picks one (``random``) or a useful one
(``sensible``: bid little, take a card it can use, place and move armies out, build cities)."""
from __future__ import annotations

import random
import re
from collections.abc import Sequence

STRATEGIES = ("random", "sensible")
_OPTION = re.compile(r"^    ([A-Z]+ ?.*)$")
_BANNER = re.compile(r"^EIGHT-MINUTE EMPIRE - (?P<game>\S+) - ")


def options_of(text: str) -> list[str]:
    """The ready-to-copy orders under "Your options:"."""
    lines = text.replace("\r\n", "\n").split("\n")
    if "Your options:" not in lines:
        return []
    start = lines.index("Your options:") + 1
    found = []
    for line in lines[start:]:
        match = _OPTION.match(line)
        if match is None:
            break
        found.append(match.group(1).strip())
    return found


class EightMinuteBot:
    """Answers Eight-Minute Empire prompts by mail."""

    @property
    def strategies(self) -> tuple[str, ...]:
        return STRATEGIES

    def game_over(self, text: str) -> bool:
        return " - the game is over" in "\n".join(text.lstrip().split("\n")[:3])

    def prompt_of(self, text: str) -> tuple[str | None, int | None] | None:
        if not options_of(text):
            return None
        match = _BANNER.match(text.lstrip())
        return (match.group("game") if match else None), None

    def is_error(self, text: str) -> bool:
        return "\nREFUSED\n" in text

    def error_moved_on(self, text: str) -> bool:
        return "\nAPPLIED (these stand)\n" in text

    def banner(self, text: str) -> tuple[str | None, int | None]:
        match = _BANNER.match(text.lstrip())
        return (match.group("game") if match else None), None

    def is_report(self, text: str) -> bool:
        return "\nPLAYERS (seating order)\n" in text

    def answer(self, prompt: str, strategy: str, seed: int | str, report: str | None) -> str | None:
        options = options_of(prompt)
        if not options:
            return None
        rng = random.Random(f"{seed}:{prompt}")
        return self._pick(options, strategy, rng)

    def answer_refusal(self, error: str, prompt: str | None, strategy: str, seed: int | str, report: str | None,
                       avoid: Sequence[str], attempt: int) -> str | None:
        if attempt > 3:
            return "DONE"
        options = [o for o in options_of(prompt or "") if o.upper() not in avoid]
        if not options:
            return "DONE"
        return self._pick(options, strategy, random.Random(f"{seed}:{attempt}:{error}"))

    def _pick(self, options: list[str], strategy: str, rng: random.Random) -> str:
        if strategy != "sensible":
            return rng.choice(options)
        bids = [o for o in options if o.startswith("BID")]
        if bids:
            return min(bids, key=lambda o: int(o.split()[1]) if o.split()[1] != "0" else 1)
        takes = [o for o in options if o.startswith("TAKE")]
        if takes:
            return rng.choice(takes[:3])
        useful = [o for o in options if not o.startswith(("DONE", "DESTROY"))] or options
        return rng.choice(useful)
