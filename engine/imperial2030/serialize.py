"""Setups, states and log entries to and from plain JSON data.

A stored snapshot is only a cache: the truth is the setup plus the log. Both
directions are exact, so ``state_from_json(state_to_json(s)) == s`` holds and is
tested; the board is not stored, only referenced.
"""
from __future__ import annotations

from typing import Any

from engine.core.log import LogEntry
from engine.core.seats import Seat
from engine.imperial2030.actions import Action, action_from_json, action_to_json
from engine.imperial2030.board import Board, SpaceAction
from engine.imperial2030.errors import EngineError
from engine.imperial2030.model import (
    ActionStep,
    Bond,
    Entry,
    FinishedStep,
    ForceStopStep,
    GameSetup,
    GameState,
    InvestMode,
    InvestSlot,
    InvestStep,
    ManeuverStep,
    NationState,
    PlayerState,
    RondelStep,
    SetupBondsStep,
    Stance,
    StandingKind,
    StandingOrder,
    Step,
    TurnInfo,
    UnitKind,
    Variant,
)


class SerializationError(EngineError):
    """Stored data that does not describe a game."""


def setup_to_json(setup: GameSetup) -> dict[str, Any]:
    return {
        "players": [{"name": s.name, "email": s.email} for s in setup.players],
        "seed": setup.seed,
        "variants": sorted(v.value for v in setup.variants),
        "deal": [[n, p] for n, p in setup.deal],
        "start_player": setup.start_player,
    }


def setup_from_json(data: dict[str, Any]) -> GameSetup:
    try:
        return GameSetup(
            players=tuple(Seat(p["name"], p.get("email", "")) for p in data["players"]),
            seed=int(data.get("seed", 0)),
            variants=frozenset(Variant(v) for v in data.get("variants", ())),
            deal=tuple((n, p) for n, p in data.get("deal", ())),
            start_player=data.get("start_player"),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise SerializationError(f"not a game setup: {exc}") from None


def entry_to_json(entry: LogEntry[Action]) -> dict[str, Any]:
    return {"player": entry.player, "version": entry.version, "action": action_to_json(entry.action)}


def entry_from_json(data: dict[str, Any]) -> LogEntry[Action]:
    try:
        return LogEntry(data["player"], action_from_json(data["action"]), int(data["version"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise SerializationError(f"not a log entry: {exc}") from None


def _step_to_json(step: Step) -> dict[str, Any]:
    match step:
        case SetupBondsStep(nation, queue):
            return {"type": "setup_bonds", "nation": nation, "queue": list(queue)}
        case RondelStep():
            return {"type": "rondel"}
        case ForceStopStep(target, queue):
            return {"type": "force_stop", "target": target, "queue": list(queue)}
        case ActionStep(action):
            return {"type": "action", "action": action.value}
        case InvestStep(mode, queue, tie_start, rounds_after):
            return {
                "type": "invest",
                "mode": mode.value,
                "queue": [[s.player, s.nation] for s in queue],
                "tie_start": tie_start,
                "rounds_after": list(rounds_after),
            }
        case ManeuverStep(armies_moving, moved, carried, denied, entry):
            return {
                "type": "maneuver",
                "armies_moving": armies_moving,
                "moved": [[k.value, r, n] for k, r, n in moved],
                "carried": [[s, n] for s, n in carried],
                "denied": list(denied),
                "entry": None if entry is None else {
                    "kind": entry.kind.value,
                    "origin": entry.origin,
                    "dest": entry.dest,
                    "seas": list(entry.seas),
                    "stance": entry.stance.value if entry.stance else None,
                    "canals": list(entry.canals),
                    "askers": list(entry.askers),
                    "attack": entry.attack,
                    "attack_kind": entry.attack_kind.value if entry.attack_kind else None,
                },
            }
        case FinishedStep(reason):
            return {"type": "finished", "reason": reason}
    raise SerializationError(f"unknown step {step!r}")


def _step_from_json(data: dict[str, Any]) -> Step:
    kind = data["type"]
    if kind == "setup_bonds":
        return SetupBondsStep(data["nation"], tuple(data["queue"]))
    if kind == "rondel":
        return RondelStep()
    if kind == "force_stop":
        return ForceStopStep(data["target"], tuple(data["queue"]))
    if kind == "action":
        return ActionStep(SpaceAction(data["action"]))
    if kind == "invest":
        return InvestStep(
            InvestMode(data["mode"]),
            tuple(InvestSlot(p, n) for p, n in data["queue"]),
            data["tie_start"],
            tuple(data["rounds_after"]),
        )
    if kind == "maneuver":
        e = data["entry"]
        entry = None if e is None else Entry(
            UnitKind(e["kind"]), e["origin"], e["dest"], tuple(e["seas"]),
            Stance(e["stance"]) if e["stance"] else None, tuple(e["canals"]), tuple(e["askers"]),
            e.get("attack"), UnitKind(e["attack_kind"]) if e.get("attack_kind") else None)
        return ManeuverStep(
            data["armies_moving"],
            tuple((UnitKind(k), r, n) for k, r, n in data["moved"]),
            tuple((s, n) for s, n in data["carried"]),
            tuple(data["denied"]),
            entry,
        )
    if kind == "finished":
        return FinishedStep(data["reason"])
    raise SerializationError(f"unknown step type {kind!r}")


def state_to_json(state: GameState) -> dict[str, Any]:
    """The complete state (not the public view of STATE.md, which the moderator builds)."""
    turn = state.turn
    return {
        "setup": setup_to_json(state.setup),
        "version": state.version,
        "round": state.round,
        "investor_card": state.investor_card,
        "step": _step_to_json(state.step),
        "turn": None if turn is None else {
            "nation": turn.nation,
            "passed_investor": turn.passed_investor,
            "stopped_on_investor": turn.stopped_on_investor,
        },
        "nations": {
            nid: {
                "treasury": n.treasury,
                "power": n.power,
                "rondel": n.rondel,
                "government": n.government,
                "factories": list(n.factories),
                "armies": dict(n.armies),
                "fleets": dict(n.fleets),
                "hostile": dict(n.hostile),
                "flags": list(n.flags),
                "tax_column": n.tax_column,
            }
            for nid, n in state.nations.items()
        },
        "players": [
            {"name": p.name, "email": p.email, "cash": p.cash, "bonds": [[b.nation, b.value] for b in p.bonds]}
            for p in state.players.values()
        ],
        "scores": state.scores,
        "standing": {
            player: [{"kind": o.kind.value, "nation": o.nation, "canal": o.canal} for o in orders]
            for player, orders in state.standing.items()
        },
    }


def state_from_json(board: Board, data: dict[str, Any]) -> GameState:
    try:
        turn = data["turn"]
        return GameState(
            board=board,
            setup=setup_from_json(data["setup"]),
            nations={nid: NationState(**n) for nid, n in data["nations"].items()},
            players={
                p["name"]: PlayerState(p["name"], p["email"], p["cash"], [Bond(n, v) for n, v in p["bonds"]])
                for p in data["players"]
            },
            investor_card=data["investor_card"],
            step=_step_from_json(data["step"]),
            turn=None if turn is None else TurnInfo(**turn),
            round=data["round"],
            version=data["version"],
            scores=data["scores"],
            standing={
                player: tuple(StandingOrder(StandingKind(o["kind"]), o["nation"], o["canal"]) for o in orders)
                for player, orders in data.get("standing", {}).items()
            },
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise SerializationError(f"not a game state: {exc}") from None
