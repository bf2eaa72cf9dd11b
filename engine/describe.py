"""Plain-words descriptions of actions, for the engine's own refusals.

The order layer has its canonical text format; the engine only needs enough
words to tell a player what is legal instead, without depending on that layer.
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


def describe(board: Board, action: Action) -> str:
    match action:
        case ChooseSpace(space):
            return f"rondel {space}"
        case ForceStop(force):
            return "force a stop on Investor" if force else "no force"
        case BuildFactory(city):
            return f"build a factory in {board.name(city)}"
        case Produce(None):
            return "produce in every factory"
        case Produce(provinces):
            return "produce in " + (", ".join(board.name(p) for p in provinces) or "no factory")  # type: ignore[union-attr]
        case Import(units):
            if not units:
                return "import nothing"
            return "import " + ", ".join(f"{u.kind.value} {board.name(u.region)}" for u in units)
        case BuyBond(nation, value):
            return f"buy {board.name(nation)} {value}"
        case UpgradeBond(nation, old, new):
            return f"upgrade {board.name(nation)} {old} to {new}"
        case Pass():
            return "pass"
        case Donate(nation, amount):
            return f"donate {amount} to {board.name(nation)}"
    return repr(action)
