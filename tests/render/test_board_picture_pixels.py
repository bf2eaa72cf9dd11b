"""The board picture's pixels are pinned: drawing may get faster, never different.

A picture goes out with every order applied by mail; to be cheaper, the
renderer remembers what does not change from one move to the next (the size
of a place, the route and dashes of a line). These tests hold the decoded
pixels of a few varied boards (setup, crowded boards after random play, both
games) to the SHA-256 digests the renderer gives with every cache empty, and
check that warm caches, cold ones, any order of drawing and
several threads give those pixels. The digests depend on the scenes too: a change to a game's rules
or random player that changes the states below changes them (then regenerate
them with ``python tests/render/test_board_picture_pixels.py`` from a renderer known
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

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the project (tests.helpers), when run as a script

from engine.core.seats import Seat
from engine.eight_minute_empire import game as eme
from engine.eight_minute_empire.board import default_board as eme_board
from engine.eight_minute_empire.model import NEUTRAL, Setup, Variant
from engine.eight_minute_empire.randomplay import random_move as eme_random_move
from engine.imperial2030.game import apply
from engine.imperial2030.randomplay import random_move
from pbem.games.eight_minute_empire.kind import EightMinuteEmpire
from pbem.games.imperial2030.kind import Imperial2030
from pbem.render import png, routes
from pbem.render.picture import render_png
from pbem.render.scene import Scene
from tests.helpers import position, standard_game

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

# Decoded RGB pixels, as drawn without any remembered answer (Pillow's default font, text drawn solid, pieces
# edged in ink; the palette exactly the picture's colours).
DIGESTS: dict[str, str] = {
    'imperial setup': 'a5de46c3d2d689deb3aa7408af1a375a18755b5d08da221048a2178f2af2c75d',
    'imperial position': '608fbded81f3ff070f335e37c3231c6a803496c48b2192bc0dd49824bf6bc3f1',
    'imperial seed 1, 150 moves': '984fdb6e52b311a65f9fef8d725929c63f613f927eb7fe54599cb7a94b6fbd72',
    'imperial seed 2, 600 moves': 'adb6e880ae0d5e4bc0d6425ce7360d90ccbb298235cfe20ad53da0b4bb9c8238',
    'imperial seed 3, 350 moves': '5aa0f71afc72d20369ddca928cb864103b60d92cf7ac22fd81730e5b760e3db8',
    'eme setup, 3 players': '6b33070b56177a900f9ccbcf8a8202f18a2d83acf97a30d53f002e6fa7d251f1',
    'eme seed 2, 4 players, 20 moves': '7f772654772f5265ddf4b90ce181d77c7108caf4c3f5f56f4539bd281da093c9',
    'eme seed 3, 5 players, to the end': 'e8086b6f60ae39fe7bb0f13e273f8aecffaa504a9efe952ddea478cb9e00b160',
    'eme neutral armies': 'adec41de8597b31518e2361751d63ec9e44a760a30c11a9ee84565d8c17fb7cf',
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
