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

# Decoded RGB pixels, as drawn without any remembered answer (Pillow's default font; the palette chosen by
# FASTOCTREE from every other pixel of every other row, the picture mapped onto it).
DIGESTS: dict[str, str] = {
    'imperial setup': 'eea20160c657d727805abc3b3990203214f123ab9ba4d35c0c51d00ffade0dcb',
    'imperial position': '4c21aaf6562874d5a1c8ad81643c2288cd4affca4abd6c81cded5db2ccf5c8d2',
    'imperial seed 1, 150 moves': '02f32f9c970c1c88f3846ea73248152bda0280281649fb346216192bf3bbf11d',
    'imperial seed 2, 600 moves': 'd57374af27d2dc6ab825e78a3ad70cf1ac797ff9034fb89f49292ec6a8be9513',
    'imperial seed 3, 350 moves': '582c30b1e08e4de46d5c5954f4eb1100908bb44e56c43654dd3fa32f995a4d28',
    'eme setup, 3 players': 'c9cb70136da9f3dc3ee73dac24b13d3de0d7c375e0afd721f7787bd5cc9f4606',
    'eme seed 2, 4 players, 20 moves': '9cd898d4ac1936eda845009d31de9cec33f8e261dad59913c84aaa6e84a39543',
    'eme seed 3, 5 players, to the end': '7a08c170a29bccbe625e0c22547e28281156ef8e3fc13e0eb8d0a3b27e470e1f',
    'eme neutral armies': '1fe36fa08f043b2840a446d78375dbba73e94935cdd4d03f9d764c19be71251f',
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
