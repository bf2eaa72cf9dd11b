"""Rows of one game read once per transaction: a memo kept in the transaction's session.

Why: a move's mail asks several things of every seat (its mail mode and
board, its news, its token), one query each. Reading the game's rows of a
table in one query and keeping them for the rest of the transaction turns a
query per seat and question into one per table. The memo lives in
``session.info``, and a session is one transaction (``Database.transaction``),
so nothing read here outlives it. The module that owns the table adds the
rows it creates (``remember``); a savepoint rolled back leaves such a row
transient, and the memo is then read again.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from sqlalchemy import inspect
from sqlmodel import Session

Row = TypeVar("Row")


def game_rows(session: Session, table: str, game_id: int,
              read: Callable[[], Iterable[tuple[int, Row]]]) -> dict[int, Row]:
    """Seat id -> row of ``table`` for the game: ``read`` once per transaction (again after a rolled-back
    savepoint dropped a row remembered)."""
    memo: dict[tuple[str, int], dict[int, Row]] = session.info.setdefault("pbem.game_rows", {})
    rows = memo.get((table, game_id))
    if rows is None or any(_gone(row) for row in rows.values()):
        rows = memo[(table, game_id)] = dict(read())
    return rows


def remember(session: Session, table: str, game_id: int, seat_id: int, row: Row) -> None:
    """A row just created (and added to the session): later questions of this transaction find it."""
    memo: dict[tuple[str, int], dict[int, Row]] = session.info.setdefault("pbem.game_rows", {})
    if (table, game_id) in memo:
        memo[(table, game_id)][seat_id] = row


def _gone(row: object) -> bool:
    state = inspect(row)
    return bool(state.transient or state.detached)
