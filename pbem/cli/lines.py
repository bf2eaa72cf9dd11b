"""What the CLI prints about a message of orders: what stood, what was refused, what waits, who decides next.

The position itself (``pbem state``, who decides what with which options) is
the game's to tell (``GameKind.summary_lines``, ``GameKind.pending_lines``).
"""
from __future__ import annotations

from typing import Any

from pbem.games import GameKind
from pbem.games.results import AppliedLine, Query, Refusal, Resumed, Waiting
from pbem.moderator.apply import SubmitResult


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


def query_lines(kind: GameKind, name: str, result: SubmitResult, query: Query) -> list[str]:
    header = f"line {query.line_number}: {query.line}"
    if query.kind == "status":
        return [header, *("  " + line for line in kind.summary_lines(name, result.state))]
    if query.kind == "options":
        if not kind.legal_orders(result.state, result.player):
            return [header, "  nothing to decide now"]
        answer = kind.answer_query(result.state, result.player, query, log=None, game=name)  # as OPTIONS by mail
        return [header, *(f"  {text}".rstrip() for text in answer.rstrip("\n").splitlines())]
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


def resumed_lines(resumed: Resumed) -> list[str]:
    lines = [f"Waiting orders of {resumed.player} resumed:"]
    lines.extend("  " + line for line in applied_lines(resumed.applied))
    if resumed.refusal is not None:
        lines.extend("  " + line for line in refusal_lines(resumed.refusal))
        lines.append(f"  {resumed.player} is asked to continue.")
    if resumed.waiting is not None:
        lines.extend("  " + line for line in waiting_lines(resumed.waiting))
    return lines


def submit_lines(kind: GameKind, name: str, result: SubmitResult) -> list[str]:
    lines = [f"Game {name}, orders of {result.player}: move {result.version_before} -> {result.version}."]
    lines.extend(applied_lines(result.applied))
    for query in result.queries:
        lines.extend(query_lines(kind, name, result, query))
    if result.refusal is not None:
        lines.extend(refusal_lines(result.refusal))
    if result.waiting is not None:
        lines.extend(waiting_lines(result.waiting))
    if result.ignored:
        lines.append("Not read as orders (greetings and thanks): "
                     + "; ".join(f"line {line.number}: {line.text}" for line in result.ignored) + ".")
    for resumed in result.resumed:
        lines.extend(resumed_lines(resumed))
    listed = result.refusal is not None and bool(result.refusal.legal)  # the refusal listed them already
    lines.extend(kind.pending_lines(result.state, options=not listed))
    return lines
