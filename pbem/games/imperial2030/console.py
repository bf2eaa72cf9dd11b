"""What the CLI prints about an Imperial game: the position, its setup, who decides what with which options."""
from __future__ import annotations

from typing import Any

from engine.imperial2030.board import Board
from engine.imperial2030.decisions import Decision, pending
from engine.imperial2030.model import GameState
from pbem.games.imperial2030.orders import format_action
from pbem.games.imperial2030.runmessage import describe_decision
from pbem.games.imperial2030.statejson import state_json
from pbem.games.kind import NewGame


def money(amount: int) -> str:
    return f"{amount}m"


def option_lines(board: Board, decision: Decision, indent: str = "    ") -> list[str]:
    lines = []
    for option in decision.options:
        detail = []
        if option.steps is not None and option.steps:
            detail.append(f"{option.steps} space" + ("s" if option.steps != 1 else ""))
        detail.append(f"cost {option.cost}")
        lines.append(f"{indent}{format_action(board, option.action):<34} ({', '.join(detail)})")
    if decision.limit > 1:
        lines.append(f"{indent}(up to {decision.limit} of these may be combined in one order)")
    if decision.default is not None:
        lines.append(f"{indent}default if no answer: {format_action(board, decision.default)}")
    return lines


def pending_lines(state: GameState, *, options: bool = True) -> list[str]:
    """Who must decide what next; ``options`` lists every legal order (left out after a refusal that lists them)."""
    if state.finished:
        return ["The game is over."]
    decisions = pending(state)
    lines = []
    for decision in decisions:
        if not options:
            lines.append(f"Waiting for {describe_decision(state.board, decision)}.")
            continue
        lines.append(f"Waiting for {describe_decision(state.board, decision)}; options:")
        lines.extend(option_lines(state.board, decision))
    return lines


def names(board: Board, ids: list[str] | tuple[str, ...]) -> str:
    return ", ".join(board.name(i) for i in ids) or "-"


def bonds_text(board: Board, bonds: Any) -> str:
    return ", ".join(f"{board.name(b.nation)} {b.value}" for b in sorted(bonds)) or "-"


def units_text(board: Board, units: dict[str, int]) -> str:
    return ", ".join(f"{board.name(r)}" + (f" x{c}" if c > 1 else "") for r, c in units.items() if c)


def summary_lines(name: str, state: GameState) -> list[str]:
    """A short human summary of the whole position."""
    board = state.board
    if state.finished:
        where = "finished"
    elif state.turn is not None:
        where = f"round {state.round}, {board.name(state.turn.nation)} to play"
    else:
        where = "setting up (expert bond selection)"
    lines = [f"Game {name}: move {state.version}, {where}."]
    lines.append("Nations:")
    for nation in board.nation_ids:
        n = state.nations[nation]
        rondel = board.name(n.rondel) if n.rondel else "-"
        lines.append(f"  {board.name(nation):<7} government {n.government or '-':<8} treasury {n.treasury:>3}  "
                     f"power {n.power:>2}  rondel {rondel:<10} factories {names(board, n.factories)}")
        extra = []
        if n.flags:
            extra.append(f"flags {names(board, n.flags)}")
        if units_text(board, n.armies):
            extra.append(f"armies {units_text(board, n.armies)}")
        if units_text(board, n.fleets):
            extra.append(f"fleets {units_text(board, n.fleets)}")
        if units_text(board, n.hostile):
            extra.append(f"hostile {units_text(board, n.hostile)}")
        if extra:
            lines.append("          " + "; ".join(extra))
    lines.append("Players:")
    data = state_json(name, state)["players"]
    for player in state.players.values():
        notes = []
        if player.name == state.investor_card:
            notes.append("investor card")
        if data[player.name]["swiss_bank"]:
            notes.append("Swiss bank")
        if data[player.name]["score"] is not None:
            notes.append(f"score {data[player.name]['score']}")
        note = f"  [{', '.join(notes)}]" if notes else ""
        lines.append(f"  {player.name:<8} cash {player.cash:>3}  bonds {bonds_text(board, player.bonds)}{note}")
    lines.extend(pending_lines(state))
    return lines


def new_game_lines(game: NewGame) -> list[str]:
    state = game.state
    board = state.board
    setup = state.setup
    variants = ", ".join(sorted(v.value for v in setup.variants)) or "standard"
    lines = [f"Game {game.name} created: {len(setup.players)} players, seed {setup.seed}, rules: {variants}."]
    lines.append("Seats (clockwise):")
    cards = getattr(game, "flag_cards", {})
    for index, seat in enumerate(setup.players, start=1):
        player = state.players[seat.name]
        lines.append(f"  {index}. {seat.name} <{seat.email}>")
        if cards.get(seat.name):
            lines.append(f"     flag cards: {names(board, cards[seat.name])}")
        lines.append(f"     cash {player.cash}; bonds: {bonds_text(board, player.bonds)}")
    governments = [f"{board.name(n)} {state.nations[n].government}" for n in board.nation_ids
                   if state.nations[n].government]
    lines.append("Governments: " + ("; ".join(governments) or "none yet"))
    lines.append("Treasuries: " + "; ".join(f"{board.name(n)} {state.nations[n].treasury}" for n in board.nation_ids))
    lines.append(f"Investor card: {state.investor_card or 'none'}")
    lines.extend(pending_lines(state))
    return lines
