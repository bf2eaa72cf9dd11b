"""The deadline tick's alarm on each game row (``games.next_check``): when the tick must look at the game again.

Why: the tick (``pbem.moderator.tick``) runs every minute; opening every
game each time made its cost grow with the number of games (issue 13). The
alarm lets one indexed query find the few games whose time has come.

- ``NULL``: look at the game at the next tick. :func:`wake` sets it, in the
  same transaction as every change that can move a deadline, a reminder or a
  daily digest (an action logged, settings saved, a status changed, a
  vacation set, a mail mode chosen, news kept for a digest). A change that
  does not wake its game is a bug: its deadlines wait for an alarm computed
  before it. Waking is always safe: it only costs the tick one look.
- a moment: the earliest one at which the tick may have something to do
  (a reminder, an expiry, a digest, a vacation's end); :data:`NEVER` when
  nothing can fall due until something changes, :data:`PAUSED` for a paused
  game (the tick lists those as paused without opening them, as it always did).

A tick that looks at a game first *claims* a woken one (a moment of its own
in 1970, so that a tick that dies leaves it due), then stores the alarm it
computed only if the row still holds what it saw (:func:`settle`): a change
committed meanwhile has woken the game again, and that wins.
"""
from __future__ import annotations

import secrets
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import bindparam, union_all, update
from sqlmodel import Session, col, select

from pbem.store.models import GameRow, GameStatus, as_utc, table_of

NEVER = datetime(9999, 1, 1, tzinfo=UTC)  # nothing can fall due until a change wakes the game
PAUSED = datetime(9999, 12, 31, tzinfo=UTC)  # paused: listed by every tick, never opened until resumed
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)




def wake(session: Session, game_id: int | None) -> None:
    """Have the next tick look at the game: call it in the transaction of any change that can move a deadline.

    An UPDATE of its own (not an attribute of a loaded row), so that it is
    written even when the row holds NULL already: on PostgreSQL it also takes
    the game row's lock, which orders the change against a tick's :func:`settle`.
    """
    if game_id is not None:
        session.execute(_WAKE, {"game": game_id})


# Built once: it runs for every move, and building it cost about what running it does.
_GAMES = table_of(GameRow)
_WAKE = update(_GAMES).where(_GAMES.c.id == bindparam("game")).values(next_check=None)  # on the table: no ORM


@dataclass(frozen=True)
class DueGame:
    """A game the tick lists: ``paused`` ones are only reported; ``guard`` is what :func:`settle` expects."""

    id: int
    name: str
    guard: datetime
    paused: bool = False


def due_games(session: Session, now: datetime, names: Collection[str] | None = None, *,
              everything: bool = False) -> list[DueGame]:
    """The active games whose alarm has rung by ``now`` (or all active ones), by name; woken ones are claimed.

    Three index range reads (woken, rung, paused) rather than one OR, which
    SQLite would answer by reading every game. ``names`` limits the list.
    """
    columns = (col(GameRow.id), col(GameRow.name), col(GameRow.next_check))
    active = col(GameRow.status) == GameStatus.ACTIVE
    alarm = col(GameRow.next_check)
    if everything:
        query = select(*columns).where(active)
        if names is not None:
            query = query.where(col(GameRow.name).in_(list(names)))
        rows = list(session.execute(query).all())
    else:
        parts = [select(*columns).where(active, condition)
                 for condition in (alarm.is_(None), alarm <= as_utc(now), alarm == PAUSED)]
        if names is not None:
            parts = [part.where(col(GameRow.name).in_(list(names))) for part in parts]
        rows = list(session.execute(union_all(*parts)).all())
    claim = _EPOCH + timedelta(microseconds=1 + secrets.randbelow(10**12))  # this tick's own: 1970, always due
    woken = [game_id for game_id, _, seen in rows if seen is None]
    if woken:
        session.execute(update(GameRow).where(col(GameRow.id).in_(woken), alarm.is_(None))
                        .values(next_check=claim).execution_options(synchronize_session=False))
    found = [DueGame(game_id, name, claim if seen is None else as_utc(seen),
                     not everything and seen is not None and as_utc(seen) == PAUSED) for game_id, name, seen in rows]
    return sorted(found, key=lambda game: game.name)


def settle(session: Session, alarms: Sequence[tuple[DueGame, datetime]]) -> None:
    """Store each game's next alarm, unless the game changed since it was listed (it holds NULL then: woken)."""
    if not alarms:
        return
    table = GameRow.metadata.tables["games"]  # Core: an executemany UPDATE with a WHERE of its own
    statement = (update(table).where(table.c.id == bindparam("game"), table.c.next_check == bindparam("seen"))
                 .values(next_check=bindparam("alarm")))
    session.connection().execute(statement, [{"game": game.id, "seen": game.guard, "alarm": as_utc(alarm)}
                                             for game, alarm in alarms])
