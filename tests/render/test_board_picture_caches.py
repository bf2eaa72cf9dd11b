"""The board picture's memories: each bounded, and each giving what drawing from nothing gives.

``tests/render/test_board_picture_pixels.py`` pins whole pictures; these check the
parts one by one on many more places and links than nine boards hold: a
place pasted as a sprite against the place drawn in place (over lines, at
fractional and odd positions), a remembered route against routing among
every box again, after the memories were filled by other boards, and the
PNG written here against Pillow's own palette image.
"""
from __future__ import annotations

import io
import random
from functools import cache

import pytest
from PIL import Image, ImageChops, ImageDraw

from engine.imperial2030.game import apply
from engine.imperial2030.randomplay import random_move
from pbem.games.imperial2030.kind import Imperial2030
from pbem.render import encode, links, measure, panels, places, png, routes
from pbem.render.boundedcache import Remembered
from pbem.render.scene import LEGEND_BAND, MARGIN, TITLE_BAND, Point, Scene, nearest
from tests.helpers import standard_game

IMPERIAL = Imperial2030()


@cache
def boards() -> tuple[Scene, ...]:
    """Imperial boards along two random games, settled as they are drawn."""
    found = []
    for seed in (5, 6):
        rng, state = random.Random(seed), standard_game()
        for move in range(240):
            state, _ = apply(state, *random_move(state, rng))
            if move % 40 == 0:
                found.append(png.settle(IMPERIAL.picture(state, game="w")))
    return tuple(found)


def test_every_memory_is_bounded_and_all_stay_well_under_150_mb() -> None:
    memories = [png.PICTURES, png.SETTLED, places.SPRITES, places.SEEN, places.PATCHES, links.ROUTES, links.TILES,
                links.LAID, encode.BANDS, panels.SHEETS, panels.PATCHES]
    assert all(isinstance(memory, Remembered) for memory in memories)
    assert sum(memory.budget for memory in memories) <= 108 << 20
    for remembered in (routes._dashes, png._shape, measure.word_space, measure._solid):
        assert remembered.cache_info().maxsize is not None


def test_a_full_memory_forgets_the_least_recently_used() -> None:
    memory: Remembered[int, bytes] = Remembered("test", 10_000, lambda _, value: len(value))
    for key in range(100):
        memory.put(key, bytes(500))
        memory.get(0)  # kept in use
        assert memory.used <= memory.budget
    assert memory.get(0) is not None and memory.get(1) is None and memory.get(99) is not None


@pytest.mark.slow
def test_a_place_pasted_as_a_sprite_is_the_place_drawn_in_place() -> None:
    """Over lines (text that would blend must not be a sprite), at odd, half and settled positions."""
    rng = random.Random(1)
    for scene in boards()[:4]:
        for node in scene.nodes:
            for at in node.at + (Point(node.at[0].x + 1, node.at[0].y + 3), Point(node.at[0].x + 0.5,
                                 node.at[0].y + rng.random() * 7), Point(13.25, 9.75),
                                 Point(scene.size[0] - 5.5, scene.size[1] - 3)):
                expected, actual, before = _background(scene), _background(scene), _background(scene)
                places.draw_node(ImageDraw.Draw(expected), node, at, scene)
                places.draw_place(before, ImageDraw.Draw(before), node, at, scene)  # the first time: in place
                places.draw_place(actual, ImageDraw.Draw(actual), node, at, scene)
                assert ImageChops.difference(expected, actual).getbbox() is None, (node.id, at)


def _background(scene: Scene) -> Image.Image:
    """Paper crossed by lines every few pixels, so that anything blending shows."""
    image = Image.new("RGB", scene.size, places.PAPER)
    pen = ImageDraw.Draw(image)
    for x in range(0, scene.size[0], 7):
        pen.line([(x, 0), (x + 300, scene.size[1])], fill=(60, 120, 200), width=2)
    return image


def test_a_remembered_route_is_the_route_found_among_every_box() -> None:
    for scene in boards() + tuple(reversed(boards())):
        obstacles = links.Obstacles.of_scene(scene)
        boxes = png.boxes(scene)
        at = {node.id: node.at for node in scene.nodes}
        width, height = scene.size
        within = (MARGIN, TITLE_BAND, width - MARGIN, height - LEGEND_BAND)
        for link in scene.links:
            a, b = nearest(at[link.a], at[link.b])
            others = tuple(box for ident, found in boxes.items() if ident not in (link.a, link.b) for box in found)
            key = (a.x, a.y, b.x, b.y, within, scene.size, links.STROKES[link.style])
            remembered = links._answer(key, obstacles, (link.a, link.b)).routing.line
            assert remembered == tuple(routes.route(a, b, others, within)), (link.a, link.b)


def test_the_png_written_here_has_exactly_the_pixels_drawn() -> None:
    """A palette of exactly the picture's colours (8 bits, or 4 for 16 colours or fewer), bands reused or not."""
    for scene in boards()[:3]:
        image = Image.new("RGB", scene.size, places.PAPER)
        links.draw_links(image, scene)
        for few in (False, True):
            drawn = image.quantize(12).convert("RGB") if few else image
            for _ in range(2):  # deflated, then its bands remembered
                written = Image.open(io.BytesIO(encode.encode(drawn)))
                assert written.mode == "P" and len(written.getpalette() or []) == 3 * len(drawn.getcolors() or [])
                assert ImageChops.difference(written.convert("RGB"), drawn).getbbox() is None


def test_a_picture_of_many_colours_is_written_on_pillows_palette() -> None:
    ramp = Image.linear_gradient("L")
    image = Image.merge("RGB", (ramp, ramp.rotate(90), ramp.rotate(45)))  # some thousands of colours
    assert image.getcolors(256) is None
    written = Image.open(io.BytesIO(encode.encode(image))).convert("RGB")
    assert ImageChops.difference(written, encode.quantized(image).convert("RGB")).getbbox() is None
