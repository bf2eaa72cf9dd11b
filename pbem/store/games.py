"""Reading and writing games: every function takes the session it works in.

The truth of a game is its setup plus its action log; ``load_state`` replays
them, starting from the latest snapshot when one is usable and falling back to
a full replay when it is not.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session, select

from engine.imperial2030.actions import action_to_json
from engine.imperial2030.board import Board
from engine.imperial2030.errors import EngineError
from engine.imperial2030.game import LogEntry, apply, replay
from engine.imperial2030.model import GameSetup, GameState
from engine.imperial2030.serialize import (
    entry_from_json,
    setup_from_json,
    setup_to_json,
    state_from_json,
    state_to_json,
)
from pbem.errors import ConcurrentUpdate, GameExists, GameNotFound, StoreError
from pbem.store.models import ActionRow, GameRow, SeatRow, SnapshotRow


@dataclass(frozen=True)
class GameInfo:
    """One line of ``pbem game list``."""

    name: str
    status: str
    version: int
    players: tuple[str, ...]
    created: datetime
    kind: str = "imperial2030"


# --- games and seats ---------------------------------------------------------------


def create_game(session: Session, name: str, setup: GameSetup) -> GameRow:
    """Insert a game and its seats; ``GameExists`` if the name is taken (also by a concurrent writer)."""
    if session.exec(select(GameRow.id).where(GameRow.name == name)).first() is not None:
        raise GameExists(f"a game named {name!r} exists already")
    game = GameRow(name=name, setup=setup_to_json(setup))
    session.add(game)
    try:
        session.flush()
    except IntegrityError:
        raise GameExists(f"a game named {name!r} exists already") from None
    assert game.id is not None
    for index, seat in enumerate(setup.players):
        session.add(SeatRow(game_id=game.id, seat=index, name=seat.name, email=seat.email))
    session.flush()
    return game


def find_game(session: Session, name: str) -> GameRow:
    game = session.exec(select(GameRow).where(GameRow.name == name)).first()
    if game is None:
        known = session.exec(select(GameRow.name).order_by(GameRow.name)).all()
        hint = f"; games: {', '.join(known)}" if known else "; there are no games yet"
        raise GameNotFound(f"no game named {name!r}{hint}")
    return game


def seats(session: Session, game: GameRow) -> list[SeatRow]:
    return list(session.exec(select(SeatRow).where(SeatRow.game_id == game.id).order_by(SeatRow.seat)).all())


def game_setup(game: GameRow) -> GameSetup:
    try:
        return setup_from_json(game.setup)
    except EngineError as exc:
        raise StoreError(f"game {game.name!r}: stored setup is unreadable: {exc}") from None


def set_status(session: Session, game: GameRow, status: str) -> None:
    if game.status != status:
        game.status = status
        session.add(game)
        session.flush()


def list_games(session: Session) -> list[GameInfo]:
    versions = dict(
        session.exec(select(ActionRow.game_id, func.count(ActionRow.id)).group_by(ActionRow.game_id)).all()
    )
    result = []
    for game in session.exec(select(GameRow).order_by(GameRow.name)).all():
        names = tuple(s.name for s in seats(session, game))
        result.append(GameInfo(game.name, game.status, versions.get(game.id, 0), names, game.created, game.kind))
    return result


# --- the action log -------------------------------------------------------------------


def log_length(session: Session, game: GameRow) -> int:
    """The number of logged actions, i.e. the version the next action is made against."""
    return session.exec(select(func.count(ActionRow.id)).where(ActionRow.game_id == game.id)).one()


def load_log(session: Session, game: GameRow, since: int = 0) -> list[LogEntry]:
    rows = session.exec(
        select(ActionRow).where(ActionRow.game_id == game.id, ActionRow.version >= since).order_by(ActionRow.version)
    ).all()
    entries = []
    for row in rows:
        try:
            entries.append(entry_from_json({"player": row.player, "version": row.version, "action": row.action}))
        except EngineError as exc:
            raise StoreError(f"game {game.name!r}: log entry {row.version} is unreadable: {exc}") from None
    return entries


def append_actions(session: Session, game: GameRow, entries: Sequence[LogEntry]) -> None:
    """Append entries to the log, which must continue it exactly.

    If another writer appended first, the unique (game, version) constraint (or
    the check before it) refuses the write with ``ConcurrentUpdate``; the
    caller's transaction must then be rolled back (``Database.transaction``
    does so as the exception leaves it), so nothing of it is written.
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
    for entry in entries:
        session.add(ActionRow(game_id=game.id, version=entry.version, player=entry.player,
                              action=action_to_json(entry.action)))
    try:
        session.flush()
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
    return session.exec(
        select(SnapshotRow).where(SnapshotRow.game_id == game.id).order_by(SnapshotRow.version.desc())  # type: ignore[attr-defined]
    ).first()


def save_snapshot(session: Session, game: GameRow, state: GameState) -> None:
    """Keep one snapshot per game: the given state's, replacing older ones."""
    session.exec(delete(SnapshotRow).where(SnapshotRow.game_id == game.id))  # type: ignore[call-overload]
    session.add(SnapshotRow(game_id=game.id, version=state.version, state=state_to_json(state)))
    session.flush()


def replay_game(session: Session, game: GameRow, board: Board) -> GameState:
    """The state by full replay of setup and log: the truth."""
    try:
        return replay(board, game_setup(game), load_log(session, game))
    except EngineError as exc:
        raise StoreError(f"game {game.name!r}: the log does not replay: {exc}") from None


def load_state(session: Session, game: GameRow, board: Board) -> GameState:
    """The current state: the latest snapshot plus the log entries after it, else a full replay.

    A snapshot that cannot be read, belongs to another setup, or lies beyond the
    log is ignored: the log is the truth.
    """
    snapshot = latest_snapshot(session, game)
    if snapshot is not None:
        try:
            state = state_from_json(board, snapshot.state)
            if state.version == snapshot.version and setup_to_json(state.setup) == game.setup:
                for entry in load_log(session, game, since=snapshot.version):
                    if entry.version != state.version:
                        raise StoreError("gap in the log")
                    state, _ = apply(state, entry.player, entry.action)
                if state.version == log_length(session, game):
                    return state
        except (EngineError, StoreError):
            pass
    return replay_game(session, game, board)
