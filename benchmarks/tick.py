"""Deadline tick benchmark (issue 13): does one tick cost the same over 10,000 idle games as over 100?

For each size N an SQLite database in a temporary directory gets N idle
two-player Imperial 2030 games: one created through the moderator, the others
copies of its rows (game, seats, settings) inserted in bulk in one
transaction. Nothing is due in them (their first reminder is a day away). One
tick settles their alarms (each game is looked at once and told when to be
looked at again; timed and printed, it is the cost after an upgrade), then
``--repeats`` ticks are timed, one hour after the games' creation, as
``pbem run`` would run them; the median counts. The sizes take turns (a tick
over the small database, one over the large, and again), so that a machine
whose speed drifts meanwhile moves both alike. Printed, last:

``deadline tick, 10000 games / 100 games: R``
    the median tick over ``--large`` games divided by the one over
    ``--small`` games. The goal: R <= 1.5 (idle games cost nothing).

``--before PATH`` also times the code of another checkout (e.g. ``git worktree
add /tmp/oldtick HEAD``) in a process of its own, at ``--before-sizes``
(default 100 and 1000: the old tick opens every game at every tick, so 10,000
games take long), and prints its figures first. Usage:

    python benchmarks/tick.py [--small 100] [--large 10000] [--repeats 51] [--before PATH]

``tick_ratio(small, large)`` is the figure for other scripts (benchmarks/scale.py).
"""
from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere; a --code root given below goes first
    sys.path.insert(0, str(ROOT))

PLAYERS = [("ann", "ann@example.org"), ("bob", "bob@example.org")]
MODERATOR = "pbem@bench.invalid"
REPEATS = 51  # timed ticks per size: an idle tick takes well under a millisecond, its median needs many
AFTER = timedelta(hours=1)  # ticks run an hour after the games were created: nothing is due yet


@dataclass(frozen=True)
class Timing:
    """One size's figures: the settling tick (every game looked at once) and the median of the timed ticks."""

    games: int
    settle_s: float
    tick_ms: float


def create_games(url: str, count: int) -> datetime:
    """``count`` idle games in the database at ``url``; when they were created (all at once)."""
    from sqlalchemy import MetaData, func, insert, select

    from pbem.moderator import Moderator
    from pbem.store import Database

    db = Database(url)
    try:
        Moderator(db).create_game("g00000", PLAYERS, deal=[("russia", "ann")], seed=1)
        meta = MetaData()
        owned = ("seats", "game_settings", "snapshots")  # the rows a game owns before its first move
        meta.reflect(db.engine, only=("games", *owned))  # the columns of this checkout's schema
        games = meta.tables["games"]
        with db.engine.begin() as conn:
            game = conn.execute(select(games)).mappings().one()
            first = int(conn.execute(select(func.max(games.c.id))).scalar_one()) + 1
            ids = range(first, first + count - 1)
            conn.execute(insert(games), [{**game, "id": i, "name": f"g{n:05d}"} for n, i in enumerate(ids, start=1)])
            for name in owned:
                table = meta.tables[name]
                rows = conn.execute(select(table).where(table.c.game_id == game["id"])).mappings().all()
                if rows:
                    conn.execute(insert(table), [{**{k: v for k, v in row.items() if k != "id"}, "game_id": i}
                                                 for i in ids for row in rows])
        created: datetime = game["created"]
        return created.replace(tzinfo=UTC) if created.tzinfo is None else created
    finally:
        db.dispose()


class IdleGames:
    """``games`` idle games in a fresh SQLite database at ``path``, settled by one tick (timed: ``settle_s``)."""

    def __init__(self, path: Path, games: int) -> None:
        from pbem.moderator.tick import tick
        from pbem.store import Database

        url = f"sqlite:///{path}"
        self.games, self.now, self._tick = games, create_games(url, games) + AFTER, tick
        self.db = Database(url)
        started = time.perf_counter()
        report = tick(self.db, self.now, moderator_address=MODERATOR)
        self.settle_s = time.perf_counter() - started
        if report.acted or report.errors:
            raise RuntimeError(f"the games were not idle: {report.lines()}")
        tick(self.db, self.now, moderator_address=MODERATOR)  # warm: the statement cache, the database's pages

    def time_one(self) -> float:
        started = time.perf_counter()
        self._tick(self.db, self.now, moderator_address=MODERATOR)
        return time.perf_counter() - started


def timed(sizes: Sequence[int], repeats: int = REPEATS) -> list[Timing]:
    """Per size, its games in a database of their own; ``repeats`` ticks of each timed, the sizes in turn."""
    with tempfile.TemporaryDirectory(prefix="pbem-tick-") as folder:
        sets: list[IdleGames] = []
        try:
            for index, games in enumerate(sizes):
                sets.append(IdleGames(Path(folder) / f"tick-{index}.db", games))
            times: list[list[float]] = [[] for _ in sets]
            gc.collect()
            gc.disable()  # as timeit does: a collection of what creating the games left behind is no tick's cost
            try:
                for _ in range(repeats):
                    for games_set, spent in zip(sets, times, strict=True):
                        spent.append(games_set.time_one())
            finally:
                gc.enable()
            return [Timing(games_set.games, games_set.settle_s, statistics.median(spent) * 1000)
                    for games_set, spent in zip(sets, times, strict=True)]
        finally:
            for games_set in sets:
                games_set.db.dispose()


def tick_ratio(small: int = 100, large: int = 10000, repeats: int = REPEATS) -> float:
    """The median tick over ``large`` idle games divided by the one over ``small`` (the goal: at most 1.5)."""
    few, many = timed([small, large], repeats)
    return many.tick_ms / few.tick_ms


def ratio_line(small: Timing, large: Timing, suffix: str = "") -> str:
    return f"deadline tick, {large.games} games / {small.games} games{suffix}: {large.tick_ms / small.tick_ms:.2f}"


def timing_line(timing: Timing, what: str = "") -> str:
    return (f"{what}{timing.games} idle games: one tick {timing.tick_ms:.2f} ms (median); "
            f"the first tick (with alarms: setting every game's) {timing.settle_s:.2f} s")


def before(code: Path, sizes: Sequence[int], repeats: int) -> list[Timing]:
    """The figures of the checkout at ``code`` (this script run there in a process of its own)."""
    done = subprocess.run([sys.executable, __file__, "--code", str(code), "--json", "--repeats", str(repeats),
                           *(f"--size={n}" for n in sizes)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the code at {code} could not be timed:\n{done.stderr}")
    return [Timing(**row) for row in json.loads(done.stdout.strip().splitlines()[-1])]


def main(argv: Sequence[str] | None = None, out: Callable[[str], Any] = print) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=100)
    parser.add_argument("--large", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=REPEATS)
    parser.add_argument("--before", type=Path, help="another checkout whose tick is timed too (the old code)")
    parser.add_argument("--before-sizes", default="100,1000", help="game counts for --before (default 100,1000)")
    parser.add_argument("--code", type=Path, help=argparse.SUPPRESS)  # internal: import pbem from there
    parser.add_argument("--size", type=int, action="append", help=argparse.SUPPRESS)  # internal, with --json
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # internal: figures as JSON
    args = parser.parse_args(argv)
    if args.json:
        found = timed(args.size or [args.small, args.large], args.repeats)
        out(json.dumps([timing.__dict__ for timing in found]))
        return 0
    if args.before is not None:
        sizes = [int(n) for n in args.before_sizes.split(",")]
        old = before(args.before, sizes, args.repeats)
        for timing in old:
            out(timing_line(timing, f"before ({args.before}): "))
        out(ratio_line(old[0], old[-1], " (before)"))
    small, large = timed([args.small, args.large], args.repeats)
    out(timing_line(small))
    out(timing_line(large))
    out(ratio_line(small, large))
    return 0


if __name__ == "__main__":
    if "--code" in sys.argv:  # before anything imports pbem: the other checkout's package comes first
        sys.path.insert(0, str(Path(sys.argv[sys.argv.index("--code") + 1]).resolve()))
    sys.exit(main())
