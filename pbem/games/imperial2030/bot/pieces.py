"""What every Imperial 2030 bot chooser uses: the bot's context, the map's names, the prompt's numbers.

Split from ``pbem.games.imperial2030.bot.strategy`` (the entry points and the choosers of the rondel,
factory, production, import and investment) and ``bot.maneuvers`` (the maneuver and the questions during
it), so that each holds one part of the bot's play.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import lru_cache

from engine.imperial2030.board import Board
from engine.imperial2030.mapfile import default_board
from pbem.games.imperial2030.bot.reading import (
    NationRow,
    Prompt,
    PromptDecision,
    Report,
)

MOVE_RE = re.compile(r"^(?P<unit>FLEET|ARMY) (?P<origin>.+?) TO (?P<dest>.+?)(?: (?P<stance>HOSTILE|FRIENDLY))?$",
                      re.IGNORECASE)
MAY_MOVE_RE = re.compile(r"\((?P<count>\d+) may move\)")
COST_RE = re.compile(r"costs? (?P<cost>\d+)")
TREASURY_COST_RE = re.compile(r"(?P<cost>\d+) from the treasury")
INTEREST_RE = re.compile(r"interest (?P<a>\d+)(?: -> (?P<b>\d+))?")
BOND_RE = re.compile(r"^(?:BUY (?P<nation>.+?) (?P<value>\d+)|UPGRADE (?P<unation>.+?) (?P<old>\d+) TO (?P<new>\d+))$",
                      re.IGNORECASE)
NATION_IN_TITLE = (
    re.compile(r"FOR (?P<nation>[A-Z ]+)$"),
    re.compile(r"WHAT (?P<nation>[A-Z ]+) (?:PRODUCES|IMPORTS)$"),
    re.compile(r"^MOVE (?P<nation>[A-Z ]+?)(?:'S?)? FLEETS"),  # no possessive in some languages' twins
)


class BotError(ValueError):
    """The text holds nothing to decide (no options)."""


@dataclass(frozen=True)
class Context:
    """What the bot weighs besides the prompt: the latest report, what was refused, how often it retried."""

    report: Report | None = None
    avoid: frozenset[str] = frozenset()
    attempt: int = 0


NO_CONTEXT = Context()  # a prompt weighed alone: no report, nothing refused yet


# --- shared pieces -----------------------------------------------------------------------------------


def open_options(decision: PromptDecision, context: Context) -> list[str]:
    """Every single order the decision offers, minus those refused before (all of them if that leaves none)."""
    orders = [o for o in decision.all_orders() if o.upper() not in context.avoid]
    return orders or list(decision.all_orders())


def last_resort(decision: PromptDecision, context: Context) -> str:
    kind = decision.kind
    if kind == "maneuver":
        return "DONE"
    if kind == "import":
        return "IMPORT"
    if kind == "production":
        return "PRODUCE"
    orders = open_options(decision, context)
    if decision.default and decision.default.upper() not in context.avoid:
        return decision.default
    passes = [o for o in orders if o.upper() in ("PASS", "NO FORCE", "NO FIGHT", "ALLOW")]
    return passes[0] if passes else orders[0]


def random_single(prompt: Prompt, decision: PromptDecision, rng: random.Random, context: Context) -> str:
    return rng.choice(open_options(decision, context))


def random_rondel(prompt: Prompt, decision: PromptDecision, rng: random.Random, context: Context) -> str:
    """A random space; half the time with the action the prompt's example gives for it, in the same mail."""
    chosen = rng.choice(open_options(decision, context))
    if not context.attempt and rng.random() < 0.5:
        for example in decision.examples:
            if len(example) > 1 and example[0] == chosen:
                return "\n".join(example)
    return chosen


@lru_cache(maxsize=1)
def map_board() -> Board:
    return default_board()


def normal(text: str) -> str:
    return " ".join(text.lower().replace("_", " ").split())


@lru_cache(maxsize=1)
def region_ids() -> dict[str, str]:
    board = map_board()
    names: dict[str, str] = {}
    for region in board.regions.values():
        for name in (region.name, region.id, *region.aliases):
            names.setdefault(normal(name), region.id)
    return names


@lru_cache(maxsize=1)
def nation_ids() -> dict[str, str]:
    names: dict[str, str] = {}
    for nation in map_board().nations:
        for name in (nation.name, nation.id, *nation.aliases):
            names.setdefault(normal(name), nation.id)
    return names


def region_id(name: str) -> str | None:
    return region_ids().get(normal(name))


def nation_of_title(title: str) -> str | None:
    """The nation a decision is for, from its title (``CHOOSE A RONDEL SPACE FOR EUROPE``) as a board id."""
    for pattern in NATION_IN_TITLE:
        match = pattern.search(title.upper())
        if match:
            nation = nation_ids().get(normal(match.group("nation")))
            if nation:
                return nation
    return None


def row_of(report: Report | None, nation: str | None) -> NationRow | None:
    if report is None or nation is None:
        return None
    name = map_board().name(nation)
    for key, row in report.nations.items():
        if normal(key) == normal(name):
            return row
    return None


def treasury_of(prompt: Prompt, nation: str | None, row: NationRow | None) -> int | None:
    if nation is not None:
        name = normal(map_board().name(nation))
        for key, amount in prompt.treasuries.items():
            if normal(key) == name:
                return amount
    return row.treasury if row is not None else None


def int_of(pattern: re.Pattern[str], text: str, group: str = "cost", default: int = 0) -> int:
    match = pattern.search(text)
    return int(match.group(group)) if match else default


