"""Eight-Minute Empire's bot: reads the options a prompt lists and picks one (``random``) or a useful one
(``sensible``: bid one coin, take the card whose offered use does most for its cost).

The prompt's options for a turn are a card and a sensible use of it
(``TAKE 3; MOVE 12-13, 12-9``, see ``prompts``); the sensible bot weighs them
by what they do (armies placed, armies moved out, a city, armies destroyed)
against the card's cost read from the row in the same mail.
"""
from __future__ import annotations

import itertools
import random
import re
from collections.abc import Sequence

from pbem.games.optionsblock import blocks

STRATEGIES = ("random", "sensible")
_BANNER = re.compile(r"^EIGHT-MINUTE EMPIRE - (?P<game>\S+) - (?P<what>.*)$", re.MULTILINE)
_ROW = re.compile(r"^  (\d)  cost (\d)  ", re.MULTILINE)
WORTH = {"PLACE": 1.0, "MOVE": 1.2, "CITY": 2.5, "DESTROY": 1.5}  # per army, path, city or army destroyed
COIN = 0.8  # what a coin is worth against those
PLAYERS_HEAD = "PLAYERS (seating order"


def worth(line: str, costs: dict[int, int]) -> float:
    """What an option does, less the coins its card costs."""
    value = 0.0
    for order in (part.strip() for part in line.split(";")):
        word, _, rest = order.partition(" ")
        items = [item for item in rest.split(",") if item.strip()]
        if word == "TAKE":
            value -= COIN * costs.get(int(rest), 0)
        elif word == "PLACE":
            value += WORTH[word] * sum(int(item.split("x")[1]) if "x" in item else 1 for item in items)
        elif word in WORTH:
            value += WORTH[word] * max(1, len(items))
    return value


def options_of(text: str) -> list[str]:
    """The ready-to-copy orders of the mail's first options block, as every game prints it
    (``pbem.games.optionsblock``: a line ending in ':', like the bid's range, only introduces the lines after it)."""
    found = blocks(text)
    return list(found[0].orders) if found else []


def decision_key(text: str) -> str:
    """What a prompt asks, and nothing of when or how it was mailed: the game and the reader (the last
    banner: the prompt's), the row, the players' standing and the options.

    The bot's choices are seeded with this and its seed. The whole text would
    not do: a prompt holds its deadline (a time of the clock), and what it
    tells since the seat's last mail depends on the seat's mail mode, so the
    same seed played another game on every run and in every mode.
    """
    lines = text.replace("\r\n", "\n").split("\n")
    heads = [index for index, line in enumerate(lines) if line.startswith(PLAYERS_HEAD)]
    players = list(itertools.takewhile(bool, lines[heads[0] + 1:])) if heads else []
    banners = [f"{match.group('game')} {match.group('what')}" for match in _BANNER.finditer(text)][-1:]
    row = dict.fromkeys(line.strip() for line in lines if _ROW.match(line))  # the row, told once or twice
    return "\n".join([*banners, *row, *players, *options_of(text)])


class EightMinuteBot:
    """Answers Eight-Minute Empire prompts by mail."""

    @property
    def strategies(self) -> tuple[str, ...]:
        return STRATEGIES

    def is_report(self, text: str) -> bool:
        return f"\n{PLAYERS_HEAD}" in text

    def answer(self, prompt: str, strategy: str, seed: int | str, report: str | None) -> str | None:
        options = options_of(prompt)
        if not options:
            return None
        return self._pick(options, strategy, random.Random(f"{seed}\x1f{decision_key(prompt)}"), prompt)

    def answer_refusal(self, error: str, prompt: str | None, strategy: str, seed: int | str, report: str | None,
                       avoid: Sequence[str], attempt: int) -> str | None:
        if attempt > 3:
            return "DONE"
        options = [o for o in options_of(prompt or "") if o.upper() not in avoid]
        if not options:
            return "DONE"
        rng = random.Random(f"{seed}\x1f{decision_key(prompt or '')}\x1fretry {attempt}\x1f{sorted(avoid)}")
        return self._pick(options, strategy, rng, prompt or "")

    def _pick(self, options: list[str], strategy: str, rng: random.Random, prompt: str) -> str:
        if strategy != "sensible":
            return rng.choice(options)
        if options[0].startswith("BID"):
            return "BID 1" if "BID 1" in options else options[0]
        if options[0].startswith("TAKE"):
            costs = {int(place): int(cost) for place, cost in _ROW.findall(prompt)}
            return max(options, key=lambda o: (worth(o, costs), rng.random()))
        return options[0]  # the use the prompt offers first: the engine's sensible one, or DONE
