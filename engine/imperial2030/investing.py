"""Investments, governments and the investor card (R-INVEST-3..8, R-NOCARD-1, R-SETUP-7)."""
from __future__ import annotations

from engine.imperial2030.actions import Action, BuyBond, Pass, UpgradeBond
from engine.imperial2030.describe import describe
from engine.imperial2030.errors import Cause, IllegalAction
from engine.imperial2030.events import (
    BondBought,
    BondUpgraded,
    Event,
    GovernmentChanged,
    InvestmentPassed,
    Reason,
    cash,
    treasury,
)
from engine.imperial2030.ledger import transfer
from engine.imperial2030.model import Bond, GameState
from engine.imperial2030.refusals import Refused


def investment_options(state: GameState, player: str, nation: str | None) -> tuple[BuyBond | UpgradeBond, ...]:
    """Every bond the player can buy or upgrade to now (R-INVEST-5); ``nation`` None = any."""
    money = state.players[player].cash
    nations = state.board.nation_ids if nation is None else (nation,)
    options: list[BuyBond | UpgradeBond] = []
    stock = state.stock()
    for n in nations:
        available = stock[n]
        options.extend(BuyBond(n, v) for v in available if v <= money)
        for bond in sorted(b for b in state.players[player].bonds if b.nation == n):
            options.extend(UpgradeBond(n, bond.value, v) for v in available if bond.value < v <= bond.value + money)
    return tuple(options)


def can_invest(state: GameState, player: str, nation: str | None) -> bool:
    """Whether ``investment_options`` would offer anything, without listing it."""
    money = state.players[player].cash
    cheapest = state.board.tables.bonds[0].value
    if money < cheapest and not state.players[player].bonds:
        return False
    nations = state.board.nation_ids if nation is None else (nation,)
    stock = state.stock()
    for n in nations:
        available = stock[n]
        if available and available[0] <= money:
            return True
        for bond in state.players[player].bonds:
            if bond.nation == n and any(bond.value < v <= bond.value + money for v in available):
                return True
    return False


def invest(state: GameState, player: str, nation: str | None, action: Action, events: list[Event]) -> None:
    """Carry out one investment (or a pass) after checking it against the options."""
    if isinstance(action, Pass):
        events.append(InvestmentPassed(player))
        return
    options = investment_options(state, player, nation)
    if action not in options:
        raise IllegalAction(_refusal(state, player, nation, action),
                            [describe(state.board, o) for o in options] + ["pass"])
    p = state.player_w(player)
    if isinstance(action, BuyBond):
        transfer(state, events, cash(player), treasury(action.nation), action.value, Reason.BOND)
        p.bonds.append(Bond(action.nation, action.value))
        events.append(BondBought(player, action.nation, action.value))
    elif isinstance(action, UpgradeBond):
        transfer(state, events, cash(player), treasury(action.nation), action.new - action.old, Reason.UPGRADE)
        p.bonds.remove(Bond(action.nation, action.old))
        p.bonds.append(Bond(action.nation, action.new))
        events.append(BondUpgraded(player, action.nation, action.old, action.new))
    p.bonds.sort()


def _refusal(state: GameState, player: str, nation: str | None, action: Action) -> Cause:
    board = state.board
    if not isinstance(action, BuyBond | UpgradeBond):
        return Cause("This is an investment: buy or upgrade a bond, or pass.", Refused.INVESTMENT_ONLY)
    if action.nation not in board.nation_by_id:
        return Cause(f"{action.nation!r} is not a nation.", Refused.NOT_A_NATION, {"text": action.nation})
    if nation is not None and action.nation != nation:
        return Cause(f"Now only {board.name(nation)} can be invested in.", Refused.ONLY_NATION, {"nation": nation})
    money = state.players[player].cash
    available = state.bonds_available(action.nation)
    target = action.value if isinstance(action, BuyBond) else action.new
    if target not in available:
        in_stock = ", ".join(str(v) for v in available) or "none"
        return Cause(f"The {board.name(action.nation)} {target} bond is not in stock (in stock: {in_stock}).",
                     Refused.BOND_NOT_IN_STOCK, {"nation": action.nation, "value": target, "stock": list(available)})
    if isinstance(action, UpgradeBond):
        if Bond(action.nation, action.old) not in state.players[player].bonds:
            return Cause(f"You hold no {board.name(action.nation)} {action.old} bond.", Refused.NO_BOND_HELD,
                         {"nation": action.nation, "value": action.old})
        if action.new <= action.old:
            return Cause("An upgrade must take a higher bond.", Refused.UPGRADE_HIGHER)
        return Cause(f"The upgrade costs {action.new - action.old}; you have {money}.", Refused.UPGRADE_COSTS,
                     {"cost": action.new - action.old, "cash": money})
    return Cause(f"The bond costs {action.value}; you have {money}.", Refused.BOND_COSTS,
                 {"cost": action.value, "cash": money})


def settle_governments(state: GameState, tie_start: str, events: list[Event]) -> None:
    """R-INVEST-6: a strictly larger investor takes over; ties go by seat from ``tie_start``."""
    order = state.seats_from(tie_start)
    totals: dict[str, dict[str, int]] = {n: {} for n in state.board.nation_ids}
    for player in order:
        for bond in state.players[player].bonds:
            held = totals[bond.nation]
            held[player] = held.get(player, 0) + bond.value
    for nation, held in totals.items():
        if not held:
            continue
        ns = state.nations[nation]
        best = max(held.values())
        if ns.government is not None and best <= held.get(ns.government, 0):
            continue
        winner = next(p for p in order if held.get(p) == best)
        events.append(GovernmentChanged(nation, ns.government, winner))
        state.nation_w(nation).government = winner
