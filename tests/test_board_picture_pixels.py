"""The board picture's pixels are pinned: drawing may get faster, never different.

A picture goes out with every order applied by mail; to be cheaper, the
renderer remembers what does not change from one move to the next (the size
of a place, the route and dashes of a line). These tests hold the decoded
pixels of a few varied boards (setup, crowded boards after random play, both
games) to the SHA-256 digests the renderer gives with every cache empty, and
check that warm caches, cold ones, any order of drawing and
several threads give those pixels. The digests depend on the scenes too: a change to a game's rules
or random player that changes the states below changes them (then regenerate
them with ``python tests/test_board_picture_pixels.py`` from a renderer known
to be right).
"""
from __future__ import annotations

import hashlib
import io
import random
import sys
import threading
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent))  # helpers, when run as a script

from helpers import position, standard_game  # noqa: E402

from engine.core.seats import Seat  # noqa: E402
from engine.eight_minute_empire import game as eme  # noqa: E402
from engine.eight_minute_empire.board import default_board as eme_board  # noqa: E402
from engine.eight_minute_empire.model import NEUTRAL, Setup, Variant  # noqa: E402
from engine.eight_minute_empire.randomplay import random_move as eme_random_move  # noqa: E402
from engine.imperial2030.game import apply  # noqa: E402
from engine.imperial2030.randomplay import random_move  # noqa: E402
from pbem.games.eight_minute_empire.kind import EightMinuteEmpire  # noqa: E402
from pbem.games.imperial2030.kind import Imperial2030  # noqa: E402
from pbem.render import png, routes  # noqa: E402
from pbem.render.picture import render_png  # noqa: E402
from pbem.render.scene import Scene  # noqa: E402

EME = EightMinuteEmpire()
IMPERIAL = Imperial2030()


def imperial_after(seed: int, moves: int) -> Scene:
    rng = random.Random(seed)
    state = standard_game()
    for _ in range(moves):
        state, _ = apply(state, *random_move(state, rng))
    return IMPERIAL.picture(state, game="w")


def imperial_position() -> Scene:
    state = standard_game()
    state = position(state, "russia", armies={"moscow": 2, "kazakhstan": 3}, fleets={"northpacific": 1},
                     flags=["kazakhstan"])
    state = position(state, "china", armies={"kazakhstan": 1}, hostile={"kazakhstan": 1}, fleets={"chinasea": 2})
    return IMPERIAL.picture(position(state, "usa", fleets={"caribbeansea": 1}), game="w")


def eme_after(players: int, seed: int, moves: int, variants: frozenset[Variant] = frozenset()) -> Scene:
    board = eme_board()
    seats = tuple(Seat(f"p{n}", f"p{n}@x.org") for n in range(players))
    state, _ = eme.new_game(board, Setup(seats, seed, (), variants))
    rng = random.Random(seed)
    for _ in range(moves):
        if state.finished:
            break
        state, _ = eme.apply(board, state, *eme_random_move(board, state, rng))
    return EME.picture(state, game="g")


def eme_neutral() -> Scene:
    scene = eme_after(2, 4, 6, frozenset({Variant.NEUTRAL}))
    assert any(token.text.startswith("N") for node in scene.nodes for token in node.tokens), NEUTRAL
    return scene


SCENES: dict[str, Callable[[], Scene]] = {
    "imperial setup": lambda: IMPERIAL.picture(standard_game(), game="w"),
    "imperial position": imperial_position,
    "imperial seed 1, 150 moves": lambda: imperial_after(1, 150),
    "imperial seed 2, 600 moves": lambda: imperial_after(2, 600),
    "imperial seed 3, 350 moves": lambda: imperial_after(3, 350),
    "eme setup, 3 players": lambda: eme_after(3, 1, 0),
    "eme seed 2, 4 players, 20 moves": lambda: eme_after(4, 2, 20),
    "eme seed 3, 5 players, to the end": lambda: eme_after(5, 3, 10_000),
    "eme neutral armies": eme_neutral,
}

# Decoded RGB pixels, as drawn without any remembered answer (Pillow's default font; the palette chosen by
# FASTOCTREE from every other pixel of every other row, the picture mapped onto it).
DIGESTS: dict[str, str] = {
    'imperial setup': 'c6501dbe21f1f7cc3f058b97a5928a12824fa3d435070f71dd5d9210d8622f3e',
    'imperial position': '0ea7969aee4fe802384dfa98e1b8dd36f8229fc000685ac9d5130d4e1789f227',
    'imperial seed 1, 150 moves': '1d507ac31e8ef133685d40b7c525a17bfb7601dd630288d8452694d3d376efab',
    'imperial seed 2, 600 moves': '16850431cdb6f144ce33534f313ede118e13be173a0da5d280fe8e80ff9b8d12',
    'imperial seed 3, 350 moves': 'c3bc202d11bde578b2826bb9e9cff73ec62df3cd89ae2944b5c382e2379b5fda',
    'eme setup, 3 players': 'ac502d4bb5f59bf5e9e37c141b262025d100ad754604b177722238df17b3905d',
    'eme seed 2, 4 players, 20 moves': '3a59c390811603794963b645ef0e608180456790546d57cbdadc721ec3d4fbb3',
    'eme seed 3, 5 players, to the end': '063beb62a102d8329b34f11c6c41b63218cbf5ef419e1c3244e9b32fa9f87db9',
    'eme neutral armies': 'd647a764c7338fac5d40eed9f4f5a90eeeac0ed554048692286d3444ca8ac581',
}


@cache
def scene(name: str) -> Scene:
    return SCENES[name]()


def pixels(data: bytes) -> str:
    image = Image.open(io.BytesIO(data))
    return hashlib.sha256(repr(image.size).encode() + image.convert("RGB").tobytes()).hexdigest()


@pytest.mark.parametrize("name", list(SCENES))
def test_the_picture_has_its_pinned_pixels(name: str) -> None:
    assert pixels(render_png(scene(name))) == DIGESTS[name]


def test_the_same_pixels_in_any_order_and_twice() -> None:
    """Caches filled by other boards, or by the same board, change nothing."""
    names = list(SCENES)
    for name in reversed(names):
        assert pixels(render_png(scene(name))) == DIGESTS[name], name
    for name in names:
        assert pixels(render_png(scene(name))) == DIGESTS[name], name


def test_several_threads_draw_the_same_pixels() -> None:
    names = list(SCENES)
    wrong: list[str] = []

    def draw_all(order: list[str]) -> None:
        wrong.extend(name for name in order if pixels(render_png(scene(name))) != DIGESTS[name])

    threads = [threading.Thread(target=draw_all, args=(names[k:] + names[:k],)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []


def test_the_caches_are_bounded() -> None:
    """A host draws boards of thousands of games for months: every remembered answer has a bound."""
    for remembered in (routes._dashes, png._shape):
        assert remembered.cache_info().maxsize is not None


if __name__ == "__main__":
    for key in SCENES:
        print(f"    {key!r}: {pixels(render_png(scene(key)))!r},")
