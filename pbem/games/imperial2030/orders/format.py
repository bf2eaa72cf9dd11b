"""Actions back into canonical order text.

The canonical text is what the moderator shows in prompts, option lists and
reports, and what a player can copy into a reply: so it must parse back to the
very same action (``parse_order(state, player, format_action(board, a)) == a``).
Names are the board's display names (``New York``), except rondel spaces,
which are written by id: "production" alone would depend on where the marker
stands, and the text must not. Keywords are upper case (``FLEET Rome TO
Mediterranean Sea``, ``ARMY Paris TO Mumbai HOSTILE VIA Mediterranean Sea,
Indian Ocean``), unit kinds lower case as in ``IMPORT army Moscow``, canals by
name (``STANDING ALLOW Europe Suez``).
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
from engine.imperial2030.model import StandingKind, StandingOrder
from pbem.games.imperial2030.orders.keywords import Keyword

NOTHING = "nothing"  # "PRODUCE nothing": distinct from "PRODUCE", which means every factory
TO = "TO"
IN = "IN"
VIA = "VIA"
FACTORY = "FACTORY"
CLEAR = "CLEAR"

# The answer keyword each kind of standing order repeats: STANDING ALLOW ..., STANDING NO FIGHT ...
STANDING_KEYWORDS: dict[StandingKind, Keyword] = {
    StandingKind.ALLOW: Keyword.ALLOW,
    StandingKind.DENY: Keyword.DENY,
    StandingKind.FIGHT: Keyword.FIGHT,
    StandingKind.NO_FIGHT: Keyword.NO_FIGHT,
    StandingKind.FORCE: Keyword.FORCE,
    StandingKind.NO_FORCE: Keyword.NO_FORCE,
}


def canal_name(canal: str) -> str:
    """A canal as players write it: ``suez`` -> ``Suez``."""
    return canal.replace("_", " ").title()


def standing_text(board: Board, order: StandingOrder) -> str:
    """The words after STANDING: ``ALLOW Europe Suez``, ``NO FIGHT``, ``FORCE Russia``."""
    text = STANDING_KEYWORDS[order.kind].text
    if order.nation is not None:
        text += f" {board.name(order.nation)}"
    if order.canal is not None:
        text += f" {canal_name(order.canal)}"
    return text


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
        case FleetMove(origin, dest, attack):
            text = f"{Keyword.FLEET.text} {board.name(origin)} {TO} {board.name(dest)}"
            return text + (f" {Keyword.ATTACK.text} {board.name(attack)}" if attack else "")
        case ArmyMove(origin, dest, stance, attack, attack_kind, via):
            text = f"{Keyword.ARMY.text} {board.name(origin)} {TO} {board.name(dest)}"
            if stance is not None:
                text += f" {stance.value.upper()}"
            if attack is not None:
                text += f" {Keyword.ATTACK.text} {board.name(attack)}"
                text += f" {attack_kind.value}" if attack_kind is not None else ""
            if via:
                text += f" {VIA} " + ", ".join(board.name(sea) for sea in via)
            return text
        case Attack(region, nation, kind):
            unit = f" {kind.value}" if kind is not None else ""
            return f"{Keyword.ATTACK.text} {board.name(nation)}{unit} {IN} {board.name(region)}"
        case DestroyFactory(province):
            return f"{Keyword.DESTROY.text} {FACTORY} {board.name(province)}"
        case Done():
            return Keyword.DONE.text
        case Fight(False, _, _):
            return Keyword.NO_FIGHT.text
        case Fight(True, nation, kind):
            return " ".join([Keyword.FIGHT.text] + ([board.name(nation)] if nation else [])
                            + ([kind.value] if kind else []))
        case Passage(allow):
            return (Keyword.ALLOW if allow else Keyword.DENY).text
        case SetStanding(order):
            return f"{Keyword.STANDING.text} {standing_text(board, order)}"
        case ClearStanding():
            return f"{Keyword.STANDING.text} {CLEAR}"
    raise TypeError(f"not an action: {action!r}")
