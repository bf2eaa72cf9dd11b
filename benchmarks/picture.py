"""Board picture benchmark: the median cost of drawing one board as a PNG, and its size.

A picture is drawn for every order applied by mail, so its cost counts per
order. Two patterns are timed, per game kind:

- cache-hostile: several seeded random games, a board every ``--every``
  moves from the setup on, drawn round-robin across the games (so that
  caches kept between pictures are not flattered by a run of near-identical
  boards). Prints ``board picture, imperial2030: median X ms, Y KB``.
- per move, as the moderator draws them: ``--interleaved`` games (other
  seeds, each started some way into its play), one picture after every
  move, the games' moves interleaved (game 1 move k, game 2 move k, ...,
  then move k+1), as a host applying their orders in turn would. Many moves
  change nothing on the board (a bid, an investment), so the median over
  the pictures whose board differs from that game's previous one is printed
  too: ``board picture per move, imperial2030, 20 games interleaved: median
  X ms (changed boards: median Y ms, N of M), Z KB``.

Only ``render_png`` is timed (the game's scene is built beforehand;
``--with-scene`` times both), in CPU time of this process (a busy machine
stretches wall time, printed too). The second pattern runs after the first,
in the same process, as a host's would after other games.

Usage (``PYTHONPATH`` picks the code measured: an older tree's ``pbem`` goes
first, e.g. ``PYTHONPATH=/tmp/old python benchmarks/picture.py``):

    python benchmarks/picture.py [--games 6] [--moves 400] [--every 8] [--interleaved 20] [--per-game 30]
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# This folder's engine.py would hide the engine package; the project goes after PYTHONPATH, so that an older
# tree's code can be measured.
HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != HERE] + [str(HERE.parent)]

from engine.core.seats import Seat  # noqa: E402
from engine.eight_minute_empire import game as eme  # noqa: E402
from engine.eight_minute_empire.board import default_board as eme_board  # noqa: E402
from engine.eight_minute_empire.model import Setup as EmeSetup  # noqa: E402
from engine.eight_minute_empire.randomplay import random_move as eme_random_move  # noqa: E402
from engine.imperial2030.game import apply  # noqa: E402
from engine.imperial2030.mapfile import default_board  # noqa: E402
from engine.imperial2030.model import GameSetup  # noqa: E402
from engine.imperial2030.randomplay import random_move  # noqa: E402
from engine.imperial2030.setup import new_game  # noqa: E402
from pbem.games.eight_minute_empire.kind import EightMinuteEmpire  # noqa: E402
from pbem.games.imperial2030.kind import Imperial2030  # noqa: E402
from pbem.render.picture import render_png  # noqa: E402


@dataclass(frozen=True)
class Kind:
    """How to set up a seeded random game of one kind, and play one random move of it."""

    start: Callable[[int], Any]
    step: Callable[[Any, random.Random], Any]


EME_BOARD = eme_board()
IMPERIAL = Kind(lambda seed: new_game(default_board(), GameSetup(tuple(Seat(f"p{i}") for i in range(6)), seed))[0],
                lambda state, rng: apply(state, *random_move(state, rng))[0])
EME = Kind(lambda seed: eme.new_game(EME_BOARD, EmeSetup(tuple(Seat(f"p{n}", f"p{n}@x.org")  # 2-5 players
                                                               for n in range(2 + seed % 4)), seed))[0],
           lambda state, rng: eme.apply(EME_BOARD, state, *eme_random_move(EME_BOARD, state, rng))[0])


def played(kind: Kind, seed: int, moves: int) -> list[Any]:
    """A seeded random game's states: the setup, then the state after each move, ``moves`` moves at most."""
    state, rng = kind.start(seed), random.Random(seed)
    states = [state]
    for _ in range(moves):
        if state.finished:
            break
        state = kind.step(state, rng)
        states.append(state)
    return states


def imperial_states(games: int, moves: int, every: int) -> list[Any]:
    """Seeded random Imperial 2030 games (6 players), a state every ``every`` moves from the setup on."""
    return round_robin([played(IMPERIAL, seed, moves)[::every] for seed in range(1, games + 1)])


def eme_states(games: int, moves: int, every: int) -> list[Any]:
    """Seeded random Eight-Minute Empire games (2-5 players), a state every ``every`` moves to the end."""
    return round_robin([played(EME, seed, moves)[::every] for seed in range(1, games + 1)])


def imperial_runs(games: int, moves: int) -> list[list[Any]]:
    """Per game (seeds from 101), the states after each of ``moves`` moves, from some way into its play."""
    return [played(IMPERIAL, seed, seed * 37 % 300 + moves)[seed * 37 % 300 + 1:] for seed in range(101, 101 + games)]


def eme_runs(games: int, moves: int) -> list[list[Any]]:
    """Per game (seeds from 101, 2-5 players), the states after each of up to ``moves`` moves."""
    return [played(EME, seed, moves)[1:] for seed in range(101, 101 + games)]


def round_robin(played: list[list[Any]]) -> list[Any]:
    """The games' states taken in turn: each game's next board, game after game."""
    return [states[turn] for turn in range(max(map(len, played))) for states in played if turn < len(states)]


def measure(name: str, picture: Callable[[Any], Any], states: list[Any], with_scene: bool) -> None:
    """Times in CPU seconds of this process (a busy machine stretches wall time, not these); wall time too."""
    render_png(picture(states[0]))  # load Pillow and the fonts outside the timing
    times, walls, sizes = [], [], []
    for state in states:
        scene = None if with_scene else picture(state)
        begin, wall = time.process_time(), time.perf_counter()
        data = render_png(scene if scene is not None else picture(state))
        times.append(time.process_time() - begin)
        walls.append(time.perf_counter() - wall)
        sizes.append(len(data))
    print(f"board picture, {name}: median {statistics.median(times) * 1e3:.1f} ms, "
          f"{statistics.median(sizes) / 1024:.1f} KB ({len(states)} pictures; CPU time, wall "
          f"{statistics.median(walls) * 1e3:.1f} ms; max {max(times) * 1e3:.1f} ms)")


def measure_per_move(name: str, picture: Callable[[Any, str], Any], runs: list[list[Any]], with_scene: bool) -> None:
    """One picture per move, the games interleaved; also the median over boards that changed (see the doc)."""
    turns = [(game, states[turn]) for turn in range(max(map(len, runs))) for game, states in enumerate(runs)
             if turn < len(states)]
    scenes = [None if with_scene else picture(state, f"game{game}") for game, state in turns]
    times, walls, sizes, changed = [], [], [], []
    last: dict[int, Any] = {}
    for (game, state), scene in zip(turns, scenes, strict=True):
        begin, wall = time.process_time(), time.perf_counter()
        scene = scene if scene is not None else picture(state, f"game{game}")
        data = render_png(scene)
        times.append(time.process_time() - begin)
        walls.append(time.perf_counter() - wall)
        sizes.append(len(data))
        if last.get(game) != scene:
            changed.append(times[-1])
        last[game] = scene
    print(f"board picture per move, {name}, {len(runs)} games interleaved: median "
          f"{statistics.median(times) * 1e3:.1f} ms (changed boards: median {statistics.median(changed) * 1e3:.1f} ms, "
          f"{len(changed)} of {len(times)}), {statistics.median(sizes) / 1024:.1f} KB (CPU time, wall "
          f"{statistics.median(walls) * 1e3:.1f} ms; max {max(times) * 1e3:.1f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=6, help="seeded games per kind")
    parser.add_argument("--moves", type=int, default=400, help="random moves per game, at most")
    parser.add_argument("--every", type=int, default=8, help="moves between two pictures")
    parser.add_argument("--with-scene", action="store_true", help="time building the scene too")
    parser.add_argument("--interleaved", type=int, default=20, help="games drawn move by move, interleaved")
    parser.add_argument("--per-game", type=int, default=30, help="moves (pictures) per interleaved game")
    args = parser.parse_args()
    imperial, eight = Imperial2030(), EightMinuteEmpire()
    measure("imperial2030", lambda s: imperial.picture(s, game="w"),
            imperial_states(args.games, args.moves, args.every), args.with_scene)
    measure("eight-minute-empire", lambda s: eight.picture(s, game="g"),
            eme_states(args.games, args.moves, args.every), args.with_scene)
    measure_per_move("imperial2030", lambda s, game: imperial.picture(s, game=game),
                     imperial_runs(args.interleaved, args.per_game), args.with_scene)
    measure_per_move("eight-minute-empire", lambda s, game: eight.picture(s, game=game),
                     eme_runs(args.interleaved, args.per_game), args.with_scene)
    print(f"(code measured: {Path(sys.modules[render_png.__module__].__file__ or '').parent})")


if __name__ == "__main__":
    main()
