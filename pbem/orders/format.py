"""Actions back into canonical order text.

The canonical text is what the moderator shows in prompts, option lists and
reports, and what a player can copy into a reply: so it must parse back to the
very same action (``parse_order(state, player, format_action(board, a)) == a``).
Names are the board's display names (``New York``), except rondel spaces,
which are written by id: "production" alone would depend on where the marker
stands, and the text must not.
"""
from __future__ import annotations

from engine.actions import (
    Action,
    BuildFactory,
    BuyBond,
    ChooseSpace,
    Donate,
    ForceStop,
    Import,
    Pass,
    Produce,
    UpgradeBond,
)
from engine.board import Board
from pbem.orders.keywords import Keyword

NOTHING = "nothing"  # "PRODUCE nothing": distinct from "PRODUCE", which means every factory


def format_action(board: Board, action: Action) -> str:
    match action:
        case ChooseSpace(space):
            return f"{Keyword.RONDEL.text} {space}"
        case ForceStop(force):
            return (Keyword.FORCE if force else Keyword.NO_FORCE).text
        case BuildFactory(city):
            return f"{Keyword.BUILD.text} {board.name(city)}"
        case Produce(None):
            return Keyword.PRODUCE.text
        case Produce(provinces):
            listed = ", ".join(board.name(p) for p in provinces or ()) or NOTHING
            return f"{Keyword.PRODUCE.text} {listed}"
        case Import(units):
            if not units:
                return Keyword.IMPORT.text
            return f"{Keyword.IMPORT.text} " + ", ".join(f"{u.kind.value} {board.name(u.region)}" for u in units)
        case BuyBond(nation, value):
            return f"{Keyword.BUY.text} {board.name(nation)} {value}"
        case UpgradeBond(nation, old, new):
            return f"{Keyword.UPGRADE.text} {board.name(nation)} {old} TO {new}"
        case Pass():
            return Keyword.PASS.text
        case Donate(nation, amount):
            return f"{Keyword.DONATE.text} {amount} TO {board.name(nation)}"
    raise TypeError(f"not an action: {action!r}")
