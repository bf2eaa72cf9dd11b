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

# Decoded RGB pixels, as drawn without any remembered answer (Pillow's default font, text drawn solid; the
# palette exactly the picture's colours).
DIGESTS: dict[str, str] = {
    'imperial setup': '2432231108decc183b95a06e8d149dbca6320db570944c83db16f487d2c647aa',
    'imperial position': '114708f9aa9064197571fb2c080ed11cbaa1fb79a5ffe2772a68df81be12b8df',
    'imperial seed 1, 150 moves': '392e4fc9e822f68844a963cf5a546d88bc9be3d49776756d980fffac4ba37b3b',
    'imperial seed 2, 600 moves': '988c6ea25cbbb902534ed67423eeb53bb9588adbb92d8fd94dc85d7b269de2c9',
    'imperial seed 3, 350 moves': '69a713c632bf4b922004a32c654deeec8385ccc180b1c70a2e64365499f01432',
    'eme setup, 3 players': '129900ee14e402f704dd2d6c13ce9767c2cbe6552730782c99912bcbcd956e20',
    'eme seed 2, 4 players, 20 moves': 'ff82b7799bc708f64bf1fdbc57a6eeae7f6b8e89b166ba07be0352f98b9911a6',
    'eme seed 3, 5 players, to the end': '19b521b71dcb0148af3e7144ac4b141d5ac3f03eb7125d9af04d8193ebdf040f',
    'eme neutral armies': 'cb6a635ef61c24c3786e5357dbecac8b14351aa1444f3a01d2f977d61ee5169a',
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
