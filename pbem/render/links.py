"""The links of a board picture: routed around other places, each line's pixels remembered.

Why: links were the largest part of a picture's cost: routing every link
each time (a route was remembered by every box of the board, so any box that
changed routed them all again), and some two thousand short strokes of
dashes. Now:

- a link's route is remembered by its ends and by the boxes that its answer
  depended on: those meeting the areas that the straight line and each
  curve tried, up to the one chosen, were checked against. Any other box
  cannot change it, so a box that grows reroutes only the links near it;
- a routed line's pixels are remembered as a mask (Pillow draws lines
  without blending: a pixel is the line's colour or untouched), drawn once in
  the picture's own coordinates; the masks are laid on the paper in the
  order the lines were drawn, tile by tile, and a tile is remembered by the
  masks on it (most tiles are the same from one move to the next).
"""
from __future__ import annotations

import itertools
import math
import threading
from collections import Counter
from dataclasses import dataclass, replace

from PIL import Image, ImageDraw

from pbem.render.boundedcache import Remembered
from pbem.render.measure import RULER, measure
from pbem.render.routes import Box, Routing, blocker, clears, dashes, routed
from pbem.render.scene import LEGEND_BAND, MARGIN, RGB, TITLE_BAND, Link, LinkStyle, Point, Scene, nearest

# How each kind of link is drawn: colour, width, dash and gap in pixels (no dash: solid).
STROKES: dict[LinkStyle, tuple[RGB, int, int, int]] = {
    LinkStyle.LAND: ((110, 95, 75), 2, 0, 0),
    LinkStyle.SEA: ((60, 120, 200), 2, 9, 6),
    LinkStyle.COAST: ((150, 190, 225), 1, 2, 4),
    LinkStyle.STRAIT: ((90, 70, 50), 2, 6, 4),
    LinkStyle.CANAL: ((20, 70, 160), 4, 10, 5),
    LinkStyle.RAIL: ((70, 60, 50), 3, 0, 0),
}
TILE = 128  # pixels of a side of the tiles the drawn lines are remembered in
VARIANTS = 4  # answers kept per link (a place whose box changes back and forth)
Stroke = tuple[RGB, int, int, int]


@dataclass(frozen=True)
class Mask:
    """Where a line's pixels are: ``pixels`` (255: the line) with its top left at ``at``; ``serial`` names
    these pixels (never reused), so that a tile can be known by the lines on it."""

    pixels: Image.Image
    at: tuple[int, int]
    ink: RGB
    serial: int


@dataclass(frozen=True)
class Answer:
    """A link's route and drawn line, and what they hold while: ``routing.blocked`` (each line tried before
    it stays blocked while the obstacle that blocked it stands) and ``clear`` (the boxes known to leave the
    line taken clear; any other box that meets ``routing.cleared`` must be checked)."""

    routing: Routing
    clear: frozenset[Box]
    mask: Mask


LinkKey = tuple[float, float, float, float, Box, tuple[int, int], Stroke]  # ends' x, y (plain floats: quick to compare)
# Routes and drawn lines by ends, map area, picture size and stroke. Bound: 12 MB (a line's mask is
# 0.5-40 KB, and each of up to VARIANTS answers knows up to CLEAR_MOST boxes: some 2000 links).
ROUTES: Remembered[LinkKey, tuple[Answer, ...]] = Remembered("routes", 12 << 20, lambda _, answers: sum(
    1000 + 120 * len(a.routing.line) + 80 * (sum(len(boxes) for _, boxes in a.routing.blocked) + len(a.clear))
    + a.mask.pixels.width * a.mask.pixels.height for a in answers))
BLOCKERS_MOST = 16  # boxes remembered as blocking one line tried (boards of several games differ there)
CLEAR_MOST = 300  # boxes an answer remembers as clear, at most (then it starts again from one picture's)
# Tiles of drawn lines by picture size, place and the lines on them. Bound: 16 MB (a tile is 48 KB: 340 tiles;
# most tiles are alike in every game).
TileKey = tuple[tuple[int, int], int, int, tuple[int, ...]]  # picture size, column, row, the masks' serials
TILES: Remembered[TileKey, Image.Image] = Remembered("line tiles", 16 << 20, lambda _, tile: TILE * TILE * 3)
# The tiles of a board's lines by its places and boxes, links and size (all a route depends on). Bound: 8 MB
# (an Imperial board's key, its links and its tiles' keys are ~50 KB: some 160 boards).
BoardKey = tuple[tuple[tuple[str, tuple[Box, ...], tuple[float, ...]], ...], tuple[Link, ...], tuple[int, int]]
LAID: Remembered[BoardKey, tuple[TileKey, ...]] = Remembered("laid lines", 8 << 20, lambda board, keys: 200 * (
    len(keys) + sum(len(boxes) for _, boxes, _ in board[0])) + 150 * len(board[1]))
PANELS = "\x00panels"  # the panels' entry among the places an answer depends on (no node's id)
_SCRATCH = threading.local()
_SERIALS = itertools.count()


@dataclass(frozen=True)
class Obstacles:
    """A picture's boxes: every one, and each node's."""

    every: frozenset[Box]
    of: dict[str, frozenset[Box]]
    shared: frozenset[Box]  # boxes that two places have (then a link's own boxes may be another's too)
    placed: tuple[tuple[str, tuple[Box, ...], tuple[float, ...]], ...]  # each node's boxes and places, in order

    @classmethod
    def of_scene(cls, scene: Scene) -> Obstacles:
        """Every place's boxes, and the panels' (a link runs round a panel as round a place: they are
        boxes of no node, under a name no node has)."""
        placed = {node.id: [measure(RULER, node, at, scene).box for at in node.at] for node in scene.nodes}
        panels = tuple((float(left), float(top), float(right), float(bottom))
                       for left, top, right, bottom in (panel.box for panel in scene.panels))
        of = {ident: frozenset(boxes) for ident, boxes in placed.items()} | {PANELS: frozenset(panels)}
        counts = Counter([box for boxes in placed.values() for box in boxes] + list(panels))
        return cls(frozenset(counts), of, frozenset(box for box, count in counts.items() if count > 1),
                   tuple((node.id, tuple(placed[node.id]), tuple(v for at in node.at for v in (at.x, at.y)))
                         for node in scene.nodes) + ((PANELS, panels, ()),))

    def against(self, ends: tuple[str, str]) -> Others:
        """The boxes a link between ``ends`` must clear: those of every other place."""
        own = self.of[ends[0]] | self.of[ends[1]]
        if own & self.shared:  # a box of an end is another place's too: it stays an obstacle
            every = frozenset(box for ident, boxes in self.of.items() if ident not in ends for box in boxes)
            return Others(every, frozenset())
        return Others(self.every, own)


@dataclass(frozen=True)
class Others:
    """The boxes a link must clear: ``every`` but ``own`` (its ends'); kept as the two, since most checks
    need only a few of them."""

    every: frozenset[Box]
    own: frozenset[Box]

    def stands(self, blockers: frozenset[Box]) -> bool:
        """Whether one of ``blockers`` is still an obstacle (then the line they blocked stays blocked)."""
        return any(box in self.every and box not in self.own for box in blockers)

    def beyond(self, known: frozenset[Box]) -> frozenset[Box]:
        """The obstacles not in ``known``."""
        return self.every.difference(known, self.own)

    def near(self, area: Box) -> list[Box]:
        """The obstacles that meet ``area``."""
        return [box for box in self.every if box not in self.own and _meets(box, area)]

    def all(self) -> frozenset[Box]:
        return self.every - self.own


def draw_links(image: Image.Image, scene: Scene) -> None:
    """Every link, between the nearest places of its ends, bowed around the boxes of other places.

    The tiles a board's lines make are remembered by the board's boxes too:
    many moves change a piece but no box (an army more where one stood), and
    then neither the places nor the lines move.
    """
    obstacles = Obstacles.of_scene(scene)
    board: BoardKey = (obstacles.placed, scene.links, scene.size)
    laid = LAID.get(board)
    tiles = [TILES.get(tile_key) for tile_key in laid] if laid is not None else []
    if laid is not None and all(tile is not None for tile in tiles):
        for tile_key, tile in zip(laid, tiles, strict=True):
            if tile is not None:
                image.paste(tile, (tile_key[1] * TILE, tile_key[2] * TILE))
        return
    places = {node.id: node.at for node in scene.nodes}
    width, height = scene.size
    within = (MARGIN, TITLE_BAND, width - MARGIN, height - LEGEND_BAND)
    masks = []
    for link in scene.links:
        a, b = nearest(places[link.a], places[link.b])
        key = (a.x, a.y, b.x, b.y, within, scene.size, STROKES[link.style])
        masks.append(_answer(key, obstacles, (link.a, link.b)).mask)
    LAID.put(board, _paste_tiles(image, [mask for mask in masks if mask.pixels.width]))


def _answer(key: LinkKey, obstacles: Obstacles, ends: tuple[str, str]) -> Answer:
    """The link's remembered answer if it still holds among these boxes, else a new one (see the module doc)."""
    others = obstacles.against(ends)
    answers = ROUTES.get(key) or ()
    for index, remembered in enumerate(answers):
        answer = remembered
        if not all(others.stands(boxes) for _, boxes in answer.routing.blocked):
            answer = _reblocked(key, answer, others)
        routing = answer.routing
        if not all(others.stands(boxes) for _, boxes in routing.blocked):
            continue
        unknown = others.beyond(answer.clear)
        if routing.cleared is not None and not all(
                clears(routing.line, box) for box in unknown if _meets(box, routing.cleared)):
            continue
        if unknown:
            answer = replace(answer, clear=answer.clear | unknown if len(answer.clear) < CLEAR_MOST else others.all())
        if answer is not remembered:
            ROUTES.put(key, (answer,) + answers[:index] + answers[index + 1:])
        return answer
    ax, ay, bx, by, within, size, stroke = key
    routing = routed(Point(ax, ay), Point(bx, by), within, others.near)
    answer = Answer(routing, others.all(), _drawn(routing.line, size, stroke))
    ROUTES.put(key, (answer,) + answers[:VARIANTS - 1])
    return answer


def _reblocked(key: LinkKey, answer: Answer, others: Others) -> Answer:
    """The answer with a standing obstacle for each line tried whose obstacle has gone, where one is found
    (a line still blocked by another box needs no new route)."""
    a, b = Point(key[0], key[1]), Point(key[2], key[3])
    blocked = list(answer.routing.blocked)
    for attempt, (bow, boxes) in enumerate(blocked):
        if not others.stands(boxes):
            found = blocker(a, b, bow, others.near)
            if found is None:
                return answer
            blocked[attempt] = (bow, boxes | {found} if len(boxes) < BLOCKERS_MOST else frozenset((found,)))
    return replace(answer, routing=replace(answer.routing, blocked=tuple(blocked)))


def _meets(box: Box, area: Box) -> bool:
    """Whether ``box`` meets ``area`` (low x, low y, high x, high y; edges included), as routing tests it."""
    low_x, low_y, high_x, high_y = area
    return box[0] <= high_x and box[2] >= low_x and box[1] <= high_y and box[3] >= low_y


def _paste_tiles(image: Image.Image, masks: list[Mask]) -> tuple[TileKey, ...]:
    """The lines, in order, tile by tile: a tile drawn before with the same lines on it is pasted whole.
    Gives the tiles' keys."""
    on: dict[tuple[int, int], list[Mask]] = {}
    for mask in masks:
        left, top = mask.at
        right, bottom = left + mask.pixels.width - 1, top + mask.pixels.height - 1
        for x in range(left // TILE, right // TILE + 1):
            for y in range(top // TILE, bottom // TILE + 1):
                on.setdefault((x, y), []).append(mask)
    keys: list[TileKey] = []
    for (x, y), lines in on.items():
        key = (image.size, x, y, tuple(mask.serial for mask in lines))
        tile = TILES.get(key)
        if tile is None:
            tile = TILES.put(key, _tile(image, x * TILE, y * TILE, lines))
        image.paste(tile, (x * TILE, y * TILE))
        keys.append(key)
    return tuple(keys)


def _tile(image: Image.Image, left: int, top: int, lines: list[Mask]) -> Image.Image:
    """A tile of the picture (as it stands: paper) with ``lines`` drawn on it, in order."""
    tile = image.crop((left, top, left + TILE, top + TILE))
    for mask in lines:
        tile.paste(mask.ink, (mask.at[0] - left, mask.at[1] - top), mask.pixels)
    return tile


def _drawn(line: tuple[Point, ...], size: tuple[int, int], stroke: Stroke) -> Mask:
    """The line drawn on a blank sheet of the picture's size, at the picture's own coordinates (nothing is
    shifted, so nothing can round differently)."""
    sheets: dict[tuple[int, int], Image.Image] = _SCRATCH.__dict__.setdefault("sheets", {})
    sheet = sheets.get(size)
    if sheet is None:
        sheet = sheets[size] = Image.new("L", size, 0)
    pen = ImageDraw.Draw(sheet)
    ink, width, dash, gap = stroke
    for piece in dashes(line, dash, gap) if dash else [list(line)]:
        pen.line([(p.x, p.y) for p in piece], fill=255, width=width, joint="curve")
    reach = width + 8  # a line's pixels lie within half its width and a pixel of its points: room to spare
    region = (max(0, math.floor(min(p.x for p in line)) - reach), max(0, math.floor(min(p.y for p in line)) - reach),
              min(size[0], math.ceil(max(p.x for p in line)) + reach),
              min(size[1], math.ceil(max(p.y for p in line)) + reach))
    drawn = sheet.crop(region) if region[0] < region[2] and region[1] < region[3] else Image.new("L", (0, 0))
    extent = drawn.getbbox()
    if extent is None:
        return Mask(Image.new("L", (0, 0)), (0, 0), ink, next(_SERIALS))
    sheet.paste(0, region)
    return Mask(drawn.crop(extent), (region[0] + extent[0], region[1] + extent[1]), ink, next(_SERIALS))
