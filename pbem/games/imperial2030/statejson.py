"""The public state of a game as JSON, exactly as docs/state-json.md describes it.

The keys of STATE.md are a contract: more may be added, none renamed. Pending
decisions carry their options as canonical order text (what a player would
type), with what each costs.
"""
from __future__ import annotations

from typing import Any

from engine.imperial2030.actions import Action
from engine.imperial2030.board import Board
from engine.imperial2030.decisions import Decision, pending
from engine.imperial2030.model import GameState, SetupBondsStep, TurnInfo
from pbem.games.imperial2030.orders import format_action

STATE_KEYS = ("game", "version", "finished", "turn", "pending", "investor_card", "nations", "players")
NATION_KEYS = ("government", "treasury", "power", "rondel", "factories", "flags", "armies", "fleets", "hostile")
PLAYER_KEYS = ("email", "cash", "bonds", "swiss_bank", "score")
PENDING_KEYS = ("player", "nation", "kind", "options", "default")


def order_text(board: Board, action: Action | None) -> str | None:
    return None if action is None else format_action(board, action)


def decision_json(board: Board, decision: Decision) -> dict[str, Any]:
    """One pending decision: who, for which nation, what kind, every option as order text with its cost.

    ``default`` is the passive answer applied when a deadline expires (None
    where the game master must step in).
    """
    options = []
    for option in decision.options:
        item: dict[str, Any] = {"order": format_action(board, option.action), "cost": option.cost}
        if option.steps is not None:
            item["steps"] = option.steps
        options.append(item)
    return {
        "player": decision.player,
        "nation": decision.nation,
        "kind": decision.kind.value,
        "options": options,
        "default": order_text(board, decision.default),
    }


def _turn(state: GameState) -> dict[str, Any]:
    turn: TurnInfo | None = state.turn
    return {"round": state.round, "nation": turn.nation if turn else None}


def _units(units: dict[str, int]) -> dict[str, int]:
    return {region: count for region, count in units.items() if count}


def _swiss_bank(state: GameState, player: str) -> bool:
    """R-INVEST-7; in the expert variant Swiss banks are handed out only once the bond selection ends."""
    return not isinstance(state.step, SetupBondsStep) and state.has_swiss_bank(player)


def state_json(name: str, state: GameState, kind: str = "imperial2030") -> dict[str, Any]:
    """The state object for game ``name`` (docs/state-json.md); ``kind`` is the game's kind."""
    board = state.board
    finished = state.finished
    scores = state.scores or {}
    return {
        "game": name,
        "kind": kind,
        "version": state.version,
        "finished": finished,
        "turn": _turn(state),
        "pending": [decision_json(board, d) for d in pending(state)],
        "investor_card": state.investor_card,
        "nations": {
            nation: {
                "government": n.government,
                "treasury": n.treasury,
                "power": n.power,
                "rondel": n.rondel,
                "factories": list(n.factories),
                "flags": list(n.flags),
                "armies": _units(n.armies),
                "fleets": _units(n.fleets),
                "hostile": _units(n.hostile),
            }
            for nation in board.nation_ids
            for n in (state.nations[nation],)
        },
        "players": {
            p.name: {
                "email": p.email,
                "cash": p.cash,
                "bonds": [{"nation": b.nation, "value": b.value} for b in sorted(p.bonds)],
                "swiss_bank": _swiss_bank(state, p.name),
                "score": scores.get(p.name) if finished else None,
            }
            for p in state.players.values()
        },
    }
