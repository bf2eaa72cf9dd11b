"""Plain-words descriptions of actions, for the engine's own refusals.

The order layer has its canonical text format; the engine only needs enough
words to tell a player what is legal instead, without depending on that layer.
"""
from __future__ import annotations

from engine.imperial2030.actions import (
    Action,
    ArmyMove,
    Attack,
    BuildFactory,
    BuyBond,
    ChooseSpace,
    ClearStanding,
    DestroyFactory,
    Donate,
    Done,
    Fight,
    FleetMove,
    ForceStop,
    Import,
    Pass,
    Passage,
    Produce,
    SetStanding,
    UpgradeBond,
)
from engine.imperial2030.board import Board


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
            return "produce in " + (", ".join(board.name(p) for p in provinces or ()) or "no factory")
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
        case FleetMove(origin, dest, attack):
            text = f"fleet {board.name(origin)} to {board.name(dest)}"
            return text + (f" attack {board.name(attack)}" if attack else "")
        case ArmyMove(origin, dest, stance, attack, attack_kind, via):
            text = f"army {board.name(origin)} to {board.name(dest)}"
            text += f" {stance.value}" if stance else ""
            text += f" attack {board.name(attack)}" if attack else ""
            text += f" {attack_kind.value}" if attack and attack_kind else ""
            return text + (" via " + ", ".join(board.name(v) for v in via) if via else "")
        case Attack(region, nation, kind):
            return f"attack {board.name(nation)}" + (f" {kind.value}" if kind else "") + f" in {board.name(region)}"
        case DestroyFactory(province):
            return f"destroy factory {board.name(province)}"
        case Done():
            return "done"
        case Fight(fight, nation, kind):
            if not fight:
                return "no fight"
            return "fight" + (f" {board.name(nation)}" if nation else "") + (f" {kind.value}" if kind else "")
        case Passage(allow):
            return "allow" if allow else "deny"
        case SetStanding(order):
            return f"standing {order.kind.value.replace('_', ' ')}" + (
                f" {board.name(order.nation)}" if order.nation else "") + (f" {order.canal}" if order.canal else "")
        case ClearStanding():
            return "standing clear"
    return repr(action)
