"""What a demo is asked and what it found: its options, its progress, its result, and the files it
leaves beside the game (``result.json`` for scripts, ``demo.json`` for ``pbem mail reply``, its ``pbem.toml``)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem.games import DEFAULT_KIND
from pbem.store.mailprefs import NEW_GAME_MAIL

DOMAIN = "demo.pbem"
MODERATOR = f"moderator@{DOMAIN}"
GAME = "demo"
STATE_FILE = "demo.json"
POWER_TO_WIN = 25


@dataclass
class DemoOptions:
    players: int = 4
    seed: int = 1
    humans: tuple[str, ...] = ()
    directory: Path | None = None
    strategy: str = "sensible"
    port: int = 0
    game: str = GAME
    timeout: float | None = None  # seconds; None: bots only -> 20 minutes, with humans -> no limit
    keep: bool = True  # keep a temporary directory after the demo (to read the mail)
    poll_interval: float = 0.01
    kind: str = DEFAULT_KIND  # which game the bots play
    variants: tuple[str, ...] = ()  # the game's rule variants
    mail: str = NEW_GAME_MAIL.value  # every seat's mail mode (pbem.store.mailprefs.MailMode), a new game's own
    moves: int | None = None  # stop once this many moves are played (tests: the start of a game); None: the end
    language: str = "en"  # every seat's mail language (pbem.languages.Language), bots' and people's
    languages: tuple[tuple[str, str], ...] = ()  # (seat, language) for the seats whose language is another


@dataclass
class DemoResult:
    directory: Path
    game: str
    state: Any
    finished: bool
    scores: tuple[tuple[str, int], ...]
    elapsed: float
    mails_delivered: int  # copies the hub wrote into Maildirs
    delivered_to: dict[str, int]  # mailbox -> copies
    outbox_sent: int
    outbox_queued: int
    outbox_failed: int
    inbound: dict[str, int]  # outcome -> messages the moderator recorded
    bot_replies: int
    replay_matches: bool | None = None
    timed_out: bool = False
    messages: int = 0  # messages the moderator handled (its inbound records)
    players: tuple[tuple[str, str, bool], ...] = ()  # (name, address, human)
    rounds: int = 0  # rounds played
    ending: tuple[str, ...] = ()  # how the game ended, in the game's words
    delivered_bytes: dict[str, int] = field(default_factory=dict)  # mailbox -> bytes of the copies delivered
    database_bytes: int = 0  # the database's files on disk at the end (pbem.db and its write-ahead log)
    kept_bytes: int = 0  # what the database keeps of the game once sent mail has lost its texts (pbem.store.weight)


@dataclass
class Progress:
    round: int = 0
    version: int = 0
    leader: str = ""
    power: int = 0
    mails: int = 0
    waiting: str = ""
    finished: bool = False
    goal: int = POWER_TO_WIN  # the score that ends the game
    unit: str = "power"  # what the score counts
    filled: float | None = None  # the bar's fill, when the score does not fill it toward the goal


def write_result(result: DemoResult) -> Path:
    """``DIR/result.json``: what the demo counted, for scripts and tests."""
    path = result.directory / "result.json"
    data = {
        "game": result.game, "finished": result.finished, "timed_out": result.timed_out,
        "round": result.rounds if result.state else None,
        "version": result.state.version if result.state else None,
        "scores": [[player, score] for player, score in result.scores],
        "elapsed": round(result.elapsed, 3), "messages": result.messages, "inbound": result.inbound,
        "bot_replies": result.bot_replies, "mails_delivered": result.mails_delivered,
        "delivered_to": result.delivered_to, "delivered_bytes": result.delivered_bytes,
        "database_bytes": result.database_bytes, "kept_bytes": result.kept_bytes, "outbox_sent": result.outbox_sent,
        "outbox_queued": result.outbox_queued, "outbox_failed": result.outbox_failed,
        "replay_matches": result.replay_matches,
        "players": [{"name": n, "address": a, "human": h} for n, a, h in result.players],
    }
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path


def write_toml(path: Path, data: dict[str, Any]) -> None:
    """A small TOML writer for the demo's flat configuration (strings, numbers, booleans)."""
    out = ["# Written by pbem demo: the demo's moderator configuration (the hub ran on the port below).", ""]
    for section, values in data.items():
        out.append(f"[{section}]")
        for key, value in values.items():
            if isinstance(value, bool):
                text = "true" if value else "false"
            elif isinstance(value, int | float):
                text = repr(value)
            else:
                text = json.dumps(str(value))
            out.append(f"{key} = {text}")
        out.append("")
    path.write_text("\n".join(out), encoding="utf-8")


def load_demo(directory: str | Path) -> dict[str, Any]:
    """What ``pbem mail reply`` needs to know about a demo: the hub's port, the players, the mail root."""
    path = Path(directory).expanduser() / STATE_FILE
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return data
    except FileNotFoundError:
        raise ValueError(f"{directory} holds no demo (no {STATE_FILE}); start one with: pbem demo --dir "
                         f"{directory}") from None


