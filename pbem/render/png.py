"""Drawing a ``pbem.render.scene.Scene`` with Pillow (``picture.render_png`` is the way in).

Kept apart from the scene model so that only a picture being drawn loads
Pillow, and kept small: plain shapes, Pillow's own default font, a palette
PNG (a board picture is a few dozen colours, and must fit in a mail).

A picture is drawn for every order applied by mail, so what does not change
from one move to the next is remembered, each in a bounded memory of
``pbem.render.boundedcache`` (the bounds add up to 84 MB, as estimated, however
many games a host serves, plus ~13 MB of small ``lru_cache`` s): whole
pictures by scene (10 MB, here), where places settle (4 MB, here), routes,
drawn lines and their tiles (``pbem.render.links``, 36 MB), places and text
patches (``pbem.render.places``, 20 MB), panels and their cells
(``pbem.render.panels``, 6 MB), deflated bands (``pbem.render.encode``, 8 MB). Every one is keyed by all that its pixels
depend on, so the picture is the same, pixel for pixel, as drawn from
nothing (``tests/render/test_board_picture_pixels.py``).
"""
from __future__ import annotations

from dataclasses import replace

from PIL import Image, ImageDraw

from pbem.render.boundedcache import Remembered
from pbem.render.encode import encode
from pbem.render.links import draw_links
from pbem.render.measure import _shape, font, measure, size_of, write
from pbem.render.panels import draw_panels
from pbem.render.places import PAPER, draw_patch, draw_place
from pbem.render.routes import Box
from pbem.render.scene import INK, LEGEND_BAND, MARGIN, QUIET, Point, Scene

NODE_GAP = 2  # pixels kept between two boxes
SETTLE_ROUNDS = 8
__all__ = ["PAPER", "boxes", "draw", "measure", "settle", "_shape"]

# Whole pictures by scene: a move that changes nothing on the board (a bid, an investment) draws the same
# picture again. Bound: 10 MB (a board's PNG is 12-45 KB, its scene ~100 KB: some 50 pictures).
PICTURES: Remembered[Scene, bytes] = Remembered("pictures", 10 << 20, lambda scene, picture: len(picture) + 600 * (
    len(scene.nodes) + len(scene.links) + sum(len(node.tokens) for node in scene.nodes)))


def draw(scene: Scene) -> bytes:
    """The scene as PNG bytes: links first, so that places and their pieces stand over them."""
    done = PICTURES.get(scene)
    if done is None:
        done = PICTURES.put(scene, _drawn(scene))
    return done


def _drawn(scene: Scene) -> bytes:
    image = Image.new("RGB", scene.size, PAPER)
    pen = ImageDraw.Draw(image)
    scene = settle(scene)
    draw_links(image, scene)
    draw_panels(image, scene.panels)
    for caption in scene.captions:
        write(pen, (caption.at.x, caption.at.y), caption.text, fill=QUIET, font=font(14))
    for node in scene.nodes:
        for at in node.at:
            draw_place(image, pen, node, at, scene)
    draw_patch(image, ("title", scene.title), (0, TITLE_ROWS), lambda pen, top: _title(pen, scene, top))
    width, height = scene.size
    band = (max(0, height - LEGEND_BAND) // 2 * 2, height)
    draw_patch(image, ("legend", scene.legend, scene.notes), band, lambda pen, top: _legend(pen, scene, top))
    return encode(image)


TITLE_ROWS = 40  # the title's rows at the top (the title band)


def _title(pen: ImageDraw.ImageDraw, scene: Scene, top: int) -> None:
    write(pen, (MARGIN, 10 - top), scene.title, fill=INK, font=font(20))


def boxes(scene: Scene, pen: ImageDraw.ImageDraw | None = None) -> dict[str, list[Box]]:
    """Node id -> its boxes (one per place) where ``scene`` puts them: for routing links, checking overlaps."""
    pen = pen or ImageDraw.Draw(Image.new("RGB", (1, 1)))
    return {node.id: [measure(pen, node, at, scene).box for at in node.at] for node in scene.nodes}


SETTLED: Remembered[tuple[object, ...], tuple[tuple[Point, ...], ...]] = Remembered(
    "settled places", 4 << 20, lambda _, places: 240 * sum(len(at) for at in places), entries=512)
"""Where ``settle`` put the places, by where they stood and how big they were. Bound: 4 MB (an Imperial
board's answer and key are about 15 KB: 270 boards)."""


def settle(scene: Scene, pen: ImageDraw.ImageDraw | None = None) -> Scene:
    """The scene with places nudged apart where their boxes would overlap; ``draw`` draws this one.

    Why: a box grows with its pieces (a province with five kinds of units),
    and the art's grid leaves some places close. Two overlapping boxes are
    pushed apart along the axis they overlap least, half each, a few rounds
    at most: places move a few pixels, never far from where the art has them.
    The answer depends only on where places stand and how big they are, so it
    is remembered by those (most moves change neither).
    """
    sizes = [size_of(node, scene) for node in scene.nodes]
    key = (scene.node_size, tuple(zip((node.at for node in scene.nodes), sizes, strict=True)))
    places = SETTLED.get(key)
    if places is None:
        places = SETTLED.put(key, _settled(scene, sizes))
    return replace(scene, nodes=tuple(replace(node, at=at) for node, at in zip(scene.nodes, places, strict=True)))


def _settled(scene: Scene, sizes: list[tuple[float, int]]) -> tuple[tuple[Point, ...], ...]:
    """Every place after the nudging rounds, node by node.

    Only pairs whose left edges are near are compared (the boxes sorted by
    left edge), and the nudges of a round are then applied in the order the
    plain all-pairs loop would apply them: the float sums, so the positions,
    come out the same to the last bit.
    """
    owners = [(index, size) for index, node in enumerate(scene.nodes) for _ in node.at for size in [sizes[index]]]
    points = [at for node in scene.nodes for at in node.at]
    half = scene.node_size[1] / 2
    for _ in range(SETTLE_ROUNDS):
        measured = [_box(at, size, half) for at, (_, size) in zip(points, owners, strict=True)]
        pairs = _overlapping(measured)
        for i, j in pairs:
            a, b = measured[i], measured[j]
            dx, dy = min(a[2], b[2]) - max(a[0], b[0]), min(a[3], b[3]) - max(a[1], b[1])
            sign = 1 if (b[0] + b[2], b[1] + b[3]) >= (a[0] + a[2], a[1] + a[3]) else -1
            push = Point((dx + NODE_GAP) / 2 * sign, 0) if dx < dy else Point(0, (dy + NODE_GAP) / 2 * sign)
            points[i] = Point(points[i].x + -push.x, points[i].y + -push.y)
            points[j] = Point(points[j].x + push.x, points[j].y + push.y)
        if not pairs:
            break
    placed: list[list[Point]] = [[] for _ in scene.nodes]
    for (index, _), at in zip(owners, points, strict=True):
        placed[index].append(at)
    return tuple(tuple(at) for at in placed)


def _box(at: Point, size: tuple[float, int], half: float) -> Box:
    """As ``measure`` computes a box, operation for operation (the same floats)."""
    width, height = size
    top = at.y - half
    return (at.x - width / 2, top, at.x + width / 2, top + height)


def _overlapping(measured: list[Box]) -> list[tuple[int, int]]:
    """Pairs (i < j) of boxes closer than ``NODE_GAP``, in the order the all-pairs loop meets them."""
    order = sorted(range(len(measured)), key=lambda k: measured[k][0])
    pairs = []
    for rank, i in enumerate(order):
        a = measured[i]
        reach = a[2] + NODE_GAP + 1  # a box starting further right cannot come near (1 pixel to spare)
        for j in order[rank + 1:]:
            b = measured[j]
            if b[0] > reach:
                break
            dx, dy = min(a[2], b[2]) - max(a[0], b[0]), min(a[3], b[3]) - max(a[1], b[1])
            if dx > -NODE_GAP and dy > -NODE_GAP:
                pairs.append((min(i, j), max(i, j)))
    pairs.sort()
    return pairs


def _legend(pen: ImageDraw.ImageDraw, scene: Scene, top: int) -> None:
    """Swatch and name per player or nation in a row along the bottom, the key lines below (``top`` pixels
    higher: a patch)."""
    width, height = scene.size
    x, y = float(MARGIN), float(height - LEGEND_BAND + 6 - top)
    for entry in scene.legend:
        span = 22 + pen.textlength(entry.name, font=font(13)) + 18
        if x + span > width - MARGIN and x > MARGIN:
            x, y = float(MARGIN), y + 20
        pen.rectangle((x, y, x + 15, y + 15), fill=entry.colour, outline=INK)
        write(pen, (x + 21, y + 8), entry.name, fill=INK, font=font(13), anchor="lm")
        x += span
    y += 24
    for note in scene.notes:
        write(pen, (MARGIN, y), note, fill=QUIET, font=font(12))
        y += 15
