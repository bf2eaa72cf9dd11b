"""The one place money moves.

Every transfer is checked (no account below zero except the unlimited bank)
and recorded as a ``MoneyMoved`` event, so conservation can be audited from
the events alone (R-PIECE-4).
"""
from __future__ import annotations

from engine.imperial2030.errors import EngineError
from engine.imperial2030.events import Account, AccountKind, Event, MoneyMoved, Reason
from engine.imperial2030.model import GameState


def balance(state: GameState, account: Account) -> int | None:
    """Money held by an account; None for the unlimited bank."""
    if account.kind is AccountKind.BANK:
        return None
    if account.kind is AccountKind.TREASURY:
        return state.nations[account.holder].treasury
    return state.players[account.holder].cash


def _add(state: GameState, account: Account, amount: int) -> None:
    if account.kind is AccountKind.TREASURY:
        state.nation_w(account.holder).treasury += amount
    elif account.kind is AccountKind.CASH:
        state.player_w(account.holder).cash += amount


def transfer(
    state: GameState, events: list[Event], source: Account, target: Account, amount: int, reason: Reason
) -> None:
    """Move ``amount`` from source to target; zero amounts record nothing."""
    if amount == 0:
        return
    if amount < 0:
        raise EngineError(f"negative transfer of {amount} for {reason}")
    available = balance(state, source)
    if available is not None and available < amount:
        raise EngineError(f"{source} cannot pay {amount} for {reason}: holds {available}")
    _add(state, source, -amount)
    _add(state, target, amount)
    events.append(MoneyMoved(source, target, amount, reason))
