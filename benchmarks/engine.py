"""Engine benchmark: seeded random legal games played to the end.

Prints the median time of one ``apply``, the median time to list every legal
order of every unit at the start of a maneuver (``maneuver_options``, what a
player's OPTIONS shows), random full Eight-Minute Empire games per second
(``--eme-games``; the goal is at least 200 on one core) and the median time to write a
turn's prompt (a sensible use of each card of the row), Imperial 2030 random
games per second when every legal option is listed at every step
(``--listed-games``: each step lists every pending decision with all its
options, as ``pending`` gives them, and picks one option uniformly; the way a
peer engine is measured, so listing is what it times), and, last, Imperial
2030's ``games per second: N``.
Each game is played by the random legal player (engine.imperial2030.randomplay) until a
nation reaches 25 power points, with a cap of 5000 actions per game (stated in
the output; a capped game counts as played). Usage:

    python benchmarks/engine.py [--games 40] [--players 2-6] [--seed 1] [--listed-games 40]
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.core.seats import Seat
from engine.eight_minute_empire import game as eme
from engine.eight_minute_empire.board import default_board as eme_board
from engine.eight_minute_empire.model import Phase
from engine.eight_minute_empire.model import Setup as EmeSetup
from engine.eight_minute_empire.model import State as EmeState
from engine.eight_minute_empire.randomplay import random_move as eme_random_move
from engine.eight_minute_empire.suggest import use_of_take
from engine.imperial2030.decisions import pending
from engine.imperial2030.game import apply
from engine.imperial2030.listing import maneuver_options
from engine.imperial2030.mapfile import default_board
from engine.imperial2030.model import GameSetup, GameState, ManeuverStep
from engine.imperial2030.randomplay import random_move
from engine.imperial2030.setup import new_game

CAP = 5000


def play(players: int, seed: int, apply_times: list[float], starts: list[GameState]) -> tuple[int, bool]:
    """Play one game; returns (actions applied, finished by the rules).

    States at the start of a maneuver are kept (states never change once made)
    so that listing their options is timed apart from the games.
    """
    board = default_board()
    state, _ = new_game(board, GameSetup(tuple(Seat(f"p{i}") for i in range(players)), seed))
    rng = random.Random(seed)
    actions = 0
    while not state.finished and actions < CAP:
        step = state.step
        if isinstance(step, ManeuverStep) and not step.moved and not step.armies_moving and step.entry is None:
            starts.append(state)
        player, action = random_move(state, rng)
        start = time.perf_counter()
        state, _ = apply(state, player, action)
        apply_times.append(time.perf_counter() - start)
        actions += 1
    return actions, state.finished


def listed_games(games: int, seed: int) -> float:
    """Random Imperial 2030 games (2-6 players in turn) per second, every legal option listed at every step.

    Unlike ``play`` (whose random player draws one unit, then one of its
    orders), each step here lists every pending decision with every option,
    then picks a decision and one of its options uniformly: what a peer engine
    that enumerates its legal moves is measured by. Same cap as ``play``.
    """
    board = default_board()
    begin = time.perf_counter()
    for i in range(games):
        state, _ = new_game(board, GameSetup(tuple(Seat(f"p{n}") for n in range(2 + i % 5)), seed + i))
        rng = random.Random(seed + i)
        actions = 0
        while not state.finished and actions < CAP:
            decision = rng.choice(pending(state))
            state, _ = apply(state, decision.player, rng.choice(decision.options).action)
            actions += 1
    return games / (time.perf_counter() - begin)


def eight_minute_games(games: int, seed: int, turns: list[object] | None = None) -> float:
    """Random full Eight-Minute Empire games (2-5 players in turn) per second; ``turns`` collects turn starts."""
    board = eme_board()
    begin = time.perf_counter()
    for i in range(games):
        state, _ = eme.new_game(board, EmeSetup(tuple(Seat(f"p{n}") for n in range(2 + i % 4)), seed + i))
        rng = random.Random(seed + i)
        while not state.finished:
            if turns is not None and state.phase is Phase.TAKE and i % 10 == 0:
                turns.append(state)
            player, action = eme_random_move(board, state, rng)
            state, _ = eme.apply(board, state, player, action)
    return games / (time.perf_counter() - begin)


def eight_minute_prompt_ms(turns: list[object]) -> float:
    """Median ms to find a sensible use of every card of the row: what a turn's prompt offers."""
    board = eme_board()
    times = []
    for state in turns:
        assert isinstance(state, EmeState) and state.current is not None
        begin = time.perf_counter()
        for place in range(1, len(state.row) + 1):
            use_of_take(board, state, state.current, place)
        times.append(time.perf_counter() - begin)
    return statistics.median(times) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--eme-games", type=int, default=200, help="Eight-Minute Empire games to play")
    parser.add_argument("--listed-games", type=int, default=40,
                        help="Imperial 2030 games played listing every legal option at every step")
    args = parser.parse_args()
    default_board()  # load the map outside the timing
    apply_times: list[float] = []
    starts: list[GameState] = []
    finished = total_actions = 0
    start = time.perf_counter()
    for i in range(args.games):
        actions, done = play(2 + i % 5, args.seed + i, apply_times, starts)
        total_actions += actions
        finished += done
    elapsed = time.perf_counter() - start
    option_times = []
    for state in starts:
        begin = time.perf_counter()
        maneuver_options(state)
        option_times.append(time.perf_counter() - begin)
    print(f"games: {args.games} (2-6 players in turn), finished by the rules: {finished}, cap: {CAP} actions/game")
    print(f"actions applied: {total_actions} ({total_actions / args.games:.0f} per game)")
    print(f"median apply: {statistics.median(apply_times) * 1e6:.1f} us")
    print(f"maneuvers started: {len(option_times)}, median time to list every legal order of every unit: "
          f"{statistics.median(option_times) * 1e6:.1f} us")
    turns: list[object] = []
    print(f"Eight-Minute Empire: {args.eme_games} random full games (2-5 players in turn), "
          f"{eight_minute_games(args.eme_games, args.seed, turns):.1f} games per second")
    print(f"Eight-Minute Empire: a turn's prompt (a use of each card of the row), median over {len(turns)} "
          f"turns: {eight_minute_prompt_ms(turns):.2f} ms")
    print(f"Imperial random games per second, every legal option listed: "
          f"{listed_games(args.listed_games, args.seed):.1f}")
    print(f"games per second: {args.games / elapsed:.1f}")


if __name__ == "__main__":
    main()
