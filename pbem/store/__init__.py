"""Storage with SQLModel: games, seats, the append-only action log, snapshots.

SQLite is the embedded default; PostgreSQL is selected by URL only. Every
function takes the session it works in; ``Database`` hands sessions out.
"""
from pbem.store.db import Database, normalise_url, safe_url
from pbem.store.games import (
    GameInfo,
    append_actions,
    create_game,
    find_game,
    game_setup,
    latest_snapshot,
    list_games,
    load_log,
    load_state,
    log_length,
    replay_game,
    save_snapshot,
    seats,
    set_status,
)
from pbem.store.models import ActionRow, GameRow, GameStatus, SeatRow, SnapshotRow

__all__ = [
    "ActionRow",
    "Database",
    "GameInfo",
    "GameRow",
    "GameStatus",
    "SeatRow",
    "SnapshotRow",
    "append_actions",
    "create_game",
    "find_game",
    "game_setup",
    "latest_snapshot",
    "list_games",
    "load_log",
    "load_state",
    "log_length",
    "normalise_url",
    "replay_game",
    "safe_url",
    "save_snapshot",
    "seats",
    "set_status",
]
