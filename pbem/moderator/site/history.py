"""What the site already published of a game's history, kept beside its pages so that a refresh narrates and
draws only the moves that are new.

**Decision**: the refresh after a move must not cost what the whole history
costs. Narrating every move (a tenth of a second for a long game) and
building every move's picture scene (seconds) on each refresh made every
order of a long game seconds slower. The writer keeps, in the game's folder,
``history.json``: for each published move its number, what the public was
told (the sentences, in the pages' language), the file of its picture, and
a key of the log entry it came from. A refresh replays the log (applying
moves is cheap) and takes a move from this file when the key of its entry
is the same and its page and picture are on disk; only the other moves are
narrated and drawn. ``pbem site`` reads no history: it narrates and draws
everything again, and so repairs any file.

Why a file of the site and not a table: the history holds nothing the
pages do not show (the public's sentences, picture names, move numbers) and
one digest per move, and it is written, like the pages, only when its bytes
change, so a sealed answer still leaves every file as it was. Keeping it in
the database would need a migration for a cache of the pages.

The key of a move is a digest of the log row it came from (the game's id,
the row's id and when it was applied), not of the action: the row's id and
time change when the game master takes a move back and another is made in
its place, while the digest of an action could be guessed back from the
file when the action was not public. Because taking back removes the log's
tail, a row unchanged means every row before it is unchanged, so the key of
one row vouches for the replay up to it. The history is also thrown away
when the pages' language or the seats' names (a replacement renames the
player in the log and the narration) differ from those it was written in.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

FILE = "history.json"
FORMAT = 1


@dataclass(frozen=True)
class Published:
    """One move as the site published it."""

    number: int
    key: str  # :func:`entry_key` of the log row it came from
    sentences: tuple[str, ...]
    board: str  # the picture's file name


@dataclass(frozen=True)
class History:
    """What ``history.json`` holds: the language and seats it was written for, and the moves by number."""

    language: str
    players: tuple[str, ...]
    moves: Mapping[int, Published] = field(default_factory=dict)


def entry_key(game_id: int, row_id: int, applied: datetime) -> str:
    """A log row's key (see the module docstring)."""
    return hashlib.sha256(f"{game_id}:{row_id}:{applied.isoformat()}".encode()).hexdigest()[:16]


def history_bytes(history: History) -> bytes:
    """The file's bytes: one line per move, so that a long game's file stays readable and diffs small."""
    head = {"format": FORMAT, "language": history.language, "players": list(history.players)}
    lines = [json.dumps([move.number, move.key, move.board, list(move.sentences)], ensure_ascii=False)
             for move in sorted(history.moves.values(), key=lambda move: move.number)]
    text = json.dumps(head, ensure_ascii=False)[:-1] + ', "moves": [\n' + ",\n".join(lines) + "\n]}\n"
    return text.translate(_INERT).encode("utf-8")


# A player's name or words are never markup, not even in a file no page includes: a browser told it is HTML
# finds none (JSON reads these escapes as the same characters; they occur only inside strings).
_INERT = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def read_history(path: Path) -> History | None:
    """The history in ``path``; None when there is none or it cannot be read (the refresh then does it all)."""
    try:
        data: Any = json.loads(path.read_bytes())
        if data.get("format") != FORMAT:
            return None
        moves = {}
        for number, key, board, sentences in data["moves"]:
            moves[int(number)] = Published(int(number), str(key), tuple(str(s) for s in sentences), str(board))
        return History(str(data["language"]), tuple(str(p) for p in data["players"]), moves)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None
