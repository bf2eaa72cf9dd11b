"""What the CLI prints about a game: pending decisions, refusals, applied orders, summaries."""
from __future__ import annotations

from typing import Any

from engine.imperial2030.board import Board
from engine.imperial2030.decisions import Decision, pending
from engine.imperial2030.model import GameState
from pbem.games.imperial2030.orders import format_action, legal_orders
from pbem.games.imperial2030.statejson import state_json
from pbem.moderator import (
    AppliedLine,
    NewGame,
    Query,
    Refusal,
    Resumed,
    SubmitResult,
    Waiting,
    describe_decision,
)


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
    cards = game.flag_cards
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


def refusal_lines(refusal: Refusal | Any) -> list[str]:
    """A refused line, its reason, suggestions and what is legal now.

    Also takes an order-layer ``OrderError`` (forced orders), which has no
    lines left over and names nobody the game waits for.
    """
    where = f"line {refusal.line_number}: {refusal.line}" if refusal.line_number is not None else "the message"
    lines = [f"REFUSED {where}", f"  reason: {refusal.reason}"]
    if refusal.suggestions:
        lines.append(f"  did you mean: {', '.join(refusal.suggestions)}")
    if refusal.legal:
        lines.append("  Legal now:")
        lines.extend(f"    {text}" for text in refusal.legal)
    not_applied = getattr(refusal, "not_applied", ())
    if not_applied:
        lines.append("  not applied:")
        lines.extend(f"    line {number}: {text}" for number, text in not_applied)
    waiting_for = getattr(refusal, "waiting_for", ())
    if waiting_for:
        lines.append(f"  the game waits for: {'; '.join(waiting_for)}")
    return lines


def query_lines(name: str, result: SubmitResult, query: Query) -> list[str]:
    header = f"line {query.line_number}: {query.line}"
    if query.kind == "status":
        return [header, *("  " + line for line in summary_lines(name, result.state))]
    if query.kind == "options":
        legal = legal_orders(result.state, result.player)
        return [header, *(f"  {text}" for text in legal)] if legal else [header, "  nothing to decide now"]
    return [header, f"  ({query.kind.upper()} is answered in mail reports; not available in the CLI yet)"]


def applied_lines(applied: tuple[AppliedLine, ...]) -> list[str]:
    lines = []
    for item in applied:
        lines.append("end of message: DONE" if item.implicit else f"line {item.line_number}: {item.line}")
        lines.extend(f"  {sentence}" for sentence in (item.narration or ("(no effect)",)))
    return lines


def waiting_lines(waiting: Waiting) -> list[str]:
    """'waiting for bob (…) — these lines will be applied once answered:' and the lines."""
    return [waiting.text + (":" if waiting.lines else "."),
            *(f"    line {number}: {text}" for number, text in waiting.lines)]


def resumed_lines(name: str, result: SubmitResult, resumed: Resumed) -> list[str]:
    lines = [f"Waiting orders of {resumed.player} resumed:"]
    lines.extend("  " + line for line in applied_lines(resumed.applied))
    if resumed.refusal is not None:
        lines.extend("  " + line for line in refusal_lines(resumed.refusal))
        lines.append(f"  {resumed.player} is asked to continue.")
    if resumed.waiting is not None:
        lines.extend("  " + line for line in waiting_lines(resumed.waiting))
    return lines


def submit_lines(name: str, result: SubmitResult) -> list[str]:
    lines = [f"Game {name}, orders of {result.player}: move {result.version_before} -> {result.version}."]
    lines.extend(applied_lines(result.applied))
    for query in result.queries:
        lines.extend(query_lines(name, result, query))
    if result.refusal is not None:
        lines.extend(refusal_lines(result.refusal))
    if result.waiting is not None:
        lines.extend(waiting_lines(result.waiting))
    if result.ignored:
        lines.append("Not read as orders (greetings and thanks): "
                     + "; ".join(f"line {line.number}: {line.text}" for line in result.ignored) + ".")
    for resumed in result.resumed:
        lines.extend(resumed_lines(name, result, resumed))
    listed = result.refusal is not None and bool(result.refusal.legal)  # the refusal listed them already
    lines.extend(pending_lines(result.state, options=not listed))
    return lines
