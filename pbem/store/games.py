"""Reading and writing games: every function takes the session it works in.

The truth of a game is its setup plus its action log; ``load_state`` replays
them, starting from the latest snapshot when one is usable and falling back to
a full replay when it is not. Setups, actions and states are the game's own
values, turned to and from JSON by the rules of the game's kind
(``rules_of``); nothing here knows any game.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import bindparam, delete, func, insert, update
from sqlalchemy.engine import CursorResult
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, col, select

from engine.core.errors import EngineError
from engine.core.log import LogEntry, replay
from engine.core.protocol import Rules
from pbem.errors import ConcurrentUpdate, GameExists, GameNotFound, StoreError
from pbem.games import DEFAULT_KIND, UnknownKind, kind_of
from pbem.store.alarm import wake
from pbem.store.memo import game_rows
from pbem.store.models import ActionRow, GameRow, SeatRow, SnapshotRow, id_of, table_of, utcnow

# Built once, with bound parameters: building a statement cost about as much as running it, and this runs for
# every order.
_APPEND = insert(table_of(ActionRow))
_LOG_LENGTH = select(func.count(col(ActionRow.id))).where(col(ActionRow.game_id) == bindparam("game"))
_LOG_SINCE = (select(ActionRow).where(col(ActionRow.game_id) == bindparam("game"), col(ActionRow.version) >= bindparam("since"))
              .order_by(col(ActionRow.version)))
_SEATS = select(SeatRow).where(col(SeatRow.game_id) == bindparam("game"))
_LATEST_SNAPSHOT = (select(SnapshotRow).where(col(SnapshotRow.game_id) == bindparam("game"))
                    .order_by(col(SnapshotRow.version).desc()))


@dataclass(frozen=True)
class GameInfo:
    """One line of ``pbem game list``."""

    name: str
    status: str
    version: int
    players: tuple[str, ...]
    created: datetime
    kind: str = "imperial2030"


Anything = Any  # a game's own setup, action or state: opaque here


def rules_of(game: GameRow) -> Rules[Any, Any, Any, Any]:
    """The game's kind, as the rules the store needs of it; ``StoreError`` when this moderator does not know it."""
    try:
        return kind_of(game.kind)
    except UnknownKind as exc:
        raise StoreError(f"game {game.name!r}: {exc}") from None


# --- games and seats ---------------------------------------------------------------


def create_game(session: Session, name: str, setup: Anything, kind: str = DEFAULT_KIND) -> GameRow:
    """Insert a game and its seats; ``GameExists`` if the name is taken (also by a concurrent writer)."""
    if session.exec(select(GameRow.id).where(col(GameRow.name) == name)).first() is not None:
        raise GameExists(f"a game named {name!r} exists already")
    rules = kind_of(kind)
    game = GameRow(name=name, kind=kind, setup=rules.setup_to_json(setup))
    session.add(game)
    try:
        session.flush()
    except IntegrityError:
        raise GameExists(f"a game named {name!r} exists already") from None
    assert game.id is not None
    for index, seat in enumerate(rules.seats(setup)):
        session.add(SeatRow(game_id=game.id, seat=index, name=seat.name, email=seat.email))
    session.flush()
    return game


def find_game(session: Session, name: str) -> GameRow:
    game = session.exec(select(GameRow).where(col(GameRow.name) == name)).first()
    if game is None:
        known = session.exec(select(GameRow.name).order_by(col(GameRow.name))).all()
        hint = f"; games: {', '.join(known)}" if known else "; there are no games yet"
        raise GameNotFound(f"no game named {name!r}{hint}")
    return game


def seats(session: Session, game: GameRow) -> list[SeatRow]:
    """The game's seats in seat order, read once per transaction (``pbem.store.memo``: a move's mail asks for
    them in several places). Seats are only ever made with their game (``create_game``), so none can be
    added after they were read."""
    def read() -> list[tuple[int, SeatRow]]:
        return [(id_of(row), row) for row in session.exec(_SEATS, params={"game": game.id})]

    return sorted(game_rows(session, SeatRow.__tablename__, id_of(game), read).values(), key=lambda row: row.seat)


def game_setup(game: GameRow) -> Anything:
    try:
        return rules_of(game).setup_from_json(game.setup)
    except EngineError as exc:
        raise StoreError(f"game {game.name!r}: stored setup is unreadable: {exc}") from None


def set_status(session: Session, game: GameRow, status: str) -> None:
    """Finish or reopen a game; wakes the deadline tick's alarm (a reopened game has deadlines again)."""
    if game.status != status:
        game.status = status
        session.add(game)
        session.flush()
        wake(session, game.id)


def list_games(session: Session) -> list[GameInfo]:
    versions = dict(
        session.exec(select(ActionRow.game_id, func.count(col(ActionRow.id))).group_by(col(ActionRow.game_id))).all()
    )
    result = []
    for game in session.exec(select(GameRow).order_by(col(GameRow.name))).all():
        names = tuple(s.name for s in seats(session, game))
        result.append(GameInfo(game.name, game.status, versions.get(id_of(game), 0), names, game.created, game.kind))
    return result


# --- the action log -------------------------------------------------------------------


def log_length(session: Session, game: GameRow) -> int:
    """The number of logged actions, i.e. the version the next action is made against."""
    # on the connection (no ORM machinery, no autoflush: ``append_actions`` flushes what it adds at once)
    length: int = session.connection().execute(_LOG_LENGTH, {"game": game.id}).scalar_one()
    return length


def load_log(session: Session, game: GameRow, since: int = 0) -> list[LogEntry[Any]]:
    rows = session.exec(_LOG_SINCE, params={"game": game.id, "since": since}).all()
    rules = rules_of(game)
    entries = []
    for row in rows:
        try:
            entries.append(LogEntry(row.player, rules.action_from_json(row.action), row.version))
        except (EngineError, KeyError, TypeError, ValueError) as exc:
            raise StoreError(f"game {game.name!r}: log entry {row.version} is unreadable: {exc}") from None
    return entries


def append_actions(session: Session, game: GameRow, entries: Sequence[LogEntry[Any]]) -> None:
    """Append entries to the log, which must continue it exactly.

    If another writer appended first, the unique (game, version) constraint (or
    the check before it) refuses the write with ``ConcurrentUpdate``; the
    caller's transaction must then be rolled back (``Database.transaction``
    does so as the exception leaves it), so nothing of it is written.
    The game's deadline alarm is woken (``pbem.store.alarm``): the actions
    answer decisions and ask new ones, whose clocks start now.
    """
    if not entries:
        return
    name = game.name  # read now: after a failed flush the row's attributes are expired
    expected = log_length(session, game)
    for offset, entry in enumerate(entries):
        if entry.version != expected + offset:
            raise ConcurrentUpdate(
                f"game {name!r} changed meanwhile: the log is at version {expected}, "
                f"the actions were made against version {entries[0].version}; nothing was written"
            )
    rules, game_id, applied = rules_of(game), id_of(game), utcnow()
    rows = [{"game_id": game_id, "version": entry.version, "player": entry.player,
             "action": rules.action_to_json(entry.action), "applied": applied} for entry in entries]
    try:
        # on the table, not through the ORM's unit of work (which cost twice the INSERT, for every move)
        session.execute(_APPEND, rows)
        wake(session, game.id)
    except IntegrityError:
        raise ConcurrentUpdate(
            f"game {name!r} changed meanwhile: another writer appended version {entries[0].version} "
            "first; nothing was written"
        ) from None
    except OperationalError as exc:  # SQLite: the other writer holds the lock
        raise ConcurrentUpdate(f"game {name!r} is being written by someone else ({exc.orig}); "
                               "nothing was written") from None


# --- snapshots (a cache) ----------------------------------------------------------------


def latest_snapshot(session: Session, game: GameRow) -> SnapshotRow | None:
    return session.exec(_LATEST_SNAPSHOT, params={"game": game.id}).first()


def save_snapshot(session: Session, game: GameRow, state: Anything) -> None:
    """Keep one snapshot per game: the given state's, written over the older one in place (one UPDATE, not a
    DELETE and an INSERT, nor a SELECT first: this runs for every move). The UPDATE runs on the table (the
    ORM's bulk UPDATE cost twice the statement); a snapshot already read in this session is given the new
    values as they are now stored, so a later ``load_state`` uses it."""
    rules = rules_of(game)
    version, data, created = rules.version(state), rules.state_to_json(state), utcnow()
    session.flush()  # the bulk statements below bypass the unit of work: what it holds goes first
    changed = cast(CursorResult[Any], session.execute(_SAVE_SNAPSHOT, {"game": game.id, "new_version": version,
                                                                       "new_state": data, "new_created": created}))
    if changed.rowcount != 1:  # none yet (or several, from before): start afresh
        session.execute(delete(SnapshotRow).where(col(SnapshotRow.game_id) == game.id))
        session.add(SnapshotRow(game_id=id_of(game), version=version, state=data))
        session.flush()
        return
    for held in list(session.identity_map.values()):
        if isinstance(held, SnapshotRow) and held.game_id == game.id:
            for name, value in (("version", version), ("state", data), ("created", created)):
                set_committed_value(held, name, value)


_SNAPSHOTS = table_of(SnapshotRow)
_SAVE_SNAPSHOT = update(_SNAPSHOTS).where(_SNAPSHOTS.c.game_id == bindparam("game")).values(
    version=bindparam("new_version"), state=bindparam("new_state"), created=bindparam("new_created"))


def replay_game(session: Session, game: GameRow) -> Anything:
    """The state by full replay of setup and log: the truth."""
    try:
        return replay(rules_of(game), game_setup(game), load_log(session, game))
    except EngineError as exc:
        raise StoreError(f"game {game.name!r}: the log does not replay: {exc}") from None


def load_state(session: Session, game: GameRow) -> Anything:
    """The current state: the latest snapshot plus the log entries after it, else a full replay.

    A snapshot that cannot be read, belongs to another setup, or lies beyond the
    log is ignored: the log is the truth.
    """
    snapshot = latest_snapshot(session, game)
    if snapshot is not None:
        try:
            rules = rules_of(game)
            state = rules.state_from_json(snapshot.state)
            if rules.version(state) == snapshot.version \
                    and rules.setup_to_json(rules.setup_of(state)) == game.setup:
                for entry in load_log(session, game, since=snapshot.version):
                    if entry.version != rules.version(state):
                        raise StoreError("gap in the log")
                    state, _ = rules.apply(state, entry.player, entry.action)
                if rules.version(state) == log_length(session, game):
                    return state
        except (EngineError, StoreError, KeyError, TypeError, ValueError):
            pass
    return replay_game(session, game)
