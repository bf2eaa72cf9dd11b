"""Cutting the body of an email into order lines.

Real mail carries more than orders: quoted history, signatures, greetings
after an ``END``. Only what the player meant as orders survives, each with the
line number the player sees in the message, so that a refusal can point at it.
"""
from __future__ import annotations

from dataclasses import dataclass

COMMENT = "#"
QUOTE = ">"
SEPARATOR = ";"
SIGNATURE = "--"  # "-- " by convention; a bare "--" too, because mail clients strip trailing spaces
END = "end"


@dataclass(frozen=True, slots=True)
class MessageLine:
    """One order as written: its 1-based line number in the message and its text (trimmed)."""

    number: int
    text: str

    def __str__(self) -> str:
        return f"line {self.number}: {self.text}"


def split_message(text: str) -> list[MessageLine]:
    """The orders of a message, in order.

    One order per line, several on a line separated by ``;``; blank lines,
    ``#`` comments (whole lines, or the end of a line) and ``>`` quoted lines
    are skipped; a signature line (``-- ``) or a line ``END`` ends the orders.
    Orders from one line share its number.
    """
    result: list[MessageLine] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if stripped == SIGNATURE or stripped.casefold() == END:
            break
        if stripped.startswith(QUOTE):
            continue
        content = stripped.split(COMMENT, 1)[0]
        for part in content.split(SEPARATOR):
            order = part.strip()
            if order:
                result.append(MessageLine(number, order))
    return result
