"""How an Imperial 2030 bot maneuvers, and answers the questions during another nation's maneuver (a battle,
a canal's passage): the moves its prompt lists, planned by a score per move (``strategy`` dispatches here).
"""
from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pbem.games.imperial2030.bot.pieces import (
    MAY_MOVE_RE,
    MOVE_RE,
    Context,
    map_board,
    nation_ids,
    nation_of_title,
    normal,
    open_options,
    random_single,
    region_id,
)
from pbem.games.imperial2030.bot.reading import (
    Prompt,
    PromptDecision,
)

# --- maneuver --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Move:
    unit: str  # FLEET or ARMY
    origin: str
    dest: str
    order: str
    detail: str
    capacity: int  # how many units may move from origin (fleets: 1, the prompt does not tell)


def maneuver_moves(decision: PromptDecision, context: Context) -> tuple[list[Move], list[str]]:
    """Every move the prompt offers (alternatives included), and the other orders (attacks, DONE …)."""
    moves: list[Move] = []
    others: list[str] = []
    for option in decision.options:
        count = MAY_MOVE_RE.search(option.group)
        capacity = int(count.group("count")) if count else 1
        for order in option.orders:
            if order.upper() in context.avoid:
                continue
            match = MOVE_RE.match(order)
            if match:
                moves.append(Move(match.group("unit").upper(), match.group("origin"), match.group("dest"), order,
                                   option.detail, capacity))
            else:
                others.append(order)
    return moves, others


def plan_moves(moves: Sequence[Move], score: Callable[[Move], float], threshold: float) -> list[str]:
    """Fleets first, then armies; per origin at most its capacity; one unit per destination; best score first."""
    lines: list[str] = []
    for unit in ("FLEET", "ARMY"):
        used: dict[str, int] = {}
        taken: set[str] = set()
        ranked = sorted(((score(m), i, m) for i, m in enumerate(moves) if m.unit == unit), reverse=True,
                        key=lambda item: (item[0], -item[1]))
        for value, _, move in ranked:
            if value < threshold:
                break
            if used.get(move.origin, 0) >= move.capacity or normal(move.dest) in taken:
                continue
            used[move.origin] = used.get(move.origin, 0) + 1
            taken.add(normal(move.dest))
            lines.append(move.order)
    return lines


def random_maneuver(prompt: Prompt, decision: PromptDecision, rng: random.Random, context: Context) -> str:
    if context.attempt or rng.random() < 0.2:
        return "DONE"
    moves, _ = maneuver_moves(decision, context)
    weights = {m.order: rng.random() for m in moves}
    lines = plan_moves(moves, lambda m: weights[m.order] if "by sea" not in m.detail else weights[m.order] / 3, 0.5)
    return "\n".join([*lines, "DONE"])


def sensible_maneuver(prompt: Prompt, decision: PromptDecision, rng: random.Random, context: Context) -> str:
    if context.attempt:
        return "DONE"
    nation = nation_of_title(decision.title)
    board = map_board()
    owner: dict[str, str] = {}  # region id -> nation id of the flag there
    if context.report is not None:
        for name, row in context.report.nations.items():
            nation_id = nation_ids().get(normal(name))
            for region_name in row.flag_regions:
                region = region_id(region_name)
                if region and nation_id:
                    owner[region] = nation_id
    moves, _ = maneuver_moves(decision, context)
    noise = {m.order: rng.random() * 0.5 for m in moves}

    def score(move: Move) -> float:
        dest = region_id(move.dest)
        if dest is None:
            return -1.0
        region = board.regions[dest]
        if move.unit == "ARMY" and ("by sea" in move.detail or move.order.upper().endswith(("HOSTILE", "FRIENDLY"))):
            return -1.0  # convoys may lose their fleet to an earlier line; foreign homes start fights
        if region.is_home:
            return 0.0 if region.nation == nation else -1.0
        flag = owner.get(dest)
        if flag is None:
            value = 4.0
        elif flag == nation:
            value = 0.3
        else:
            value = 3.0
        return value + noise[move.order]

    lines = plan_moves(moves, score, 2.0)
    return "\n".join([*lines, "DONE"])


# --- questions during a maneuver, Swiss bank --------------------------------------------------------------


def sensible_battle(prompt: Prompt, decision: PromptDecision, rng: random.Random, context: Context) -> str:
    """Fight for home provinces of one's own nation; otherwise let the unit in."""
    title = decision.title.upper()
    nation = None
    match = re.match(r"^DECIDE WHETHER (?P<defender>.+?) FIGHTS .+? IN (?P<region>.+)$", title)
    fights = [o for o in open_options(decision, context) if o.upper().startswith("FIGHT")]
    if match:
        nation = nation_ids().get(normal(match.group("defender")))
        region = region_id(match.group("region"))
        if region and nation and map_board().regions[region].nation == nation and fights:
            return fights[0]
    quiet = [o for o in open_options(decision, context) if o.upper() == "NO FIGHT"]
    return quiet[0] if quiet else random_single(prompt, decision, rng, context)


