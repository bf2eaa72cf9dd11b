"""Public site benchmark: the CPU of writing a long game's pages, in full and in the refresh after a move.

A three-player Imperial 2030 game of ``--moves`` logged moves (375 by
default, as long as the demo game ``pbem demo --players 3 --seed 1``) is
built in a new SQLite database by applying seeded random legal moves
(``engine.imperial2030.randomplay``) through the store, as the moderator
records them; then, in CPU time of this process (wall time too):

``full site, new folder``
    ``pbem site DIR`` into an empty folder: every page and every picture.
``full site, nothing changed``
    ``pbem site DIR`` again: every page rendered and compared, no picture.
``refresh after one more move``
    one more move recorded, then the refresh the moderator runs after its
    mail (``refresh_safely``), ``--refreshes`` times: the median and the
    largest, with the files written and pictures drawn by the last one.
    The goal is at most 100 ms on the 375-move game.

The code measured is the one on the path: this tree, or an older one named by
``PYTHONPATH``, so that before and after can be compared with the same
script (only ``write_site`` and ``refresh_safely`` are called)::

    python benchmarks/site.py [--moves 375] [--refreshes 5]
    PYTHONPATH=/path/to/old/tree python benchmarks/site.py
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# This folder's engine.py would hide the engine package; the project goes after PYTHONPATH.
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != HERE] + [str(HERE.parent)]

from engine.core.log import LogEntry  # noqa: E402
from engine.imperial2030.randomplay import random_move  # noqa: E402
from pbem.moderator.site.write import refresh_safely, write_site  # noqa: E402
from pbem.store import Database, find_game, load_state  # noqa: E402
from pbem.store.games import append_actions, rules_of, save_snapshot  # noqa: E402
from pbem.store.models import id_of  # noqa: E402
from tests.mailflowkit import Table, config_for  # noqa: E402


def build(db: Database, moves: int, seed: int) -> tuple[int, Callable[[], bool]]:
    """A new three-player game of up to ``moves`` random moves; its id, and a way to record one more move
    (False once the game is over)."""
    table = Table(db, config_for())
    table.create(players=3)
    rng = random.Random(seed)

    def more(count: int) -> bool:
        with db.transaction() as session:
            game = find_game(session, table.name)
            rules, state = rules_of(game), load_state(session, game)
            for _ in range(count):
                if state.finished:
                    return False
                player, action = random_move(state, rng)
                version = rules.version(state)
                state, _ = rules.apply(state, player, action)
                append_actions(session, game, [LogEntry(player, action, version)])
            save_snapshot(session, game, state)
        return True

    more(moves)
    with db.transaction() as session:
        game_id = id_of(find_game(session, table.name))
    return game_id, lambda: more(1)


def timed(call: Callable[[], Any]) -> tuple[float, float, Any]:
    """(CPU seconds, wall seconds, result) of one call."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = call()
    return time.process_time() - cpu, time.perf_counter() - wall, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=375)
    parser.add_argument("--refreshes", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pbem-site-bench-") as directory:
        db = Database(f"sqlite:///{directory}/site.db")
        game_id, one_more = build(db, options.moves, options.seed)
        with db.transaction() as session:
            logged = int(load_state(session, find_game(session, "g1")).version)
        print(f"game: Imperial 2030, 3 players, {logged} moves logged (seeded random play, seed {options.seed})")
        folder = Path(directory) / "site"
        cpu, wall, done = timed(lambda: write_site(db, folder))
        print(f"full site, new folder: {cpu * 1000:.0f} ms CPU ({wall * 1000:.0f} ms wall), "
              f"{done.files} files, {done.pictures} pictures")
        cpu, wall, done = timed(lambda: write_site(db, folder))
        print(f"full site, nothing changed: {cpu * 1000:.0f} ms CPU ({wall * 1000:.0f} ms wall), "
              f"{done.files} files, {done.pictures} pictures")
        times: list[float] = []
        for _ in range(options.refreshes):
            if not one_more():
                break
            cpu, wall, done = timed(lambda: refresh_safely(db, folder, game_id))
            times.append(cpu)
        if times:
            print(f"refresh after one more move: median {statistics.median(times) * 1000:.0f} ms CPU, "
                  f"largest {max(times) * 1000:.0f} ms, over {len(times)} moves; the last wrote {done.files} "
                  f"files and drew {done.pictures} pictures")


if __name__ == "__main__":
    main()
