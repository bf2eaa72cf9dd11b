"""The scene of a board picture: places, links and pieces, and where they stand; no pixels.

Why a scene: a game knows what its board shows (which regions, who stands
where, whose colour is whose) and nothing of pixels; drawing is written once,
for every game, and tests can check the scene's structure rather than
pixels. Where things stand comes from the game's own ASCII board art (the
slots of ``pbem.render.art``), so a picture needs no coordinates of its own
and no publisher artwork.

The model: a ``Node`` is a place (region, province, sea) with a label, a fill,
an outline and its ``Token`` s (armies, fleets, cities, factories, flags, each
a short text in an owner's colour); a ``Link`` joins two nodes in a
``LinkStyle`` (land, sea ...); a ``Panel`` is a box of ``Cell`` s beside the
map, in room the map leaves free (Imperial's rondel and treasuries,
Eight-Minute Empire's card row); a ``Scene`` adds a title, captions, a legend
of colours and a few lines of key. ``pbem.render.picture.render_png`` draws it
with Pillow (``pbem.render.png``): boxes grown with their pieces are nudged
apart, and a line that would run under a third place is bowed around it
(``pbem.render.routes``). The drawing builds on this module, never the other
way round, so that a game can build its scene without loading Pillow.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from pbem.render.art import Art

RGB = tuple[int, int, int]

NAMED_COLOURS: Mapping[str, RGB] = {
    "red": (200, 40, 40), "blue": (40, 90, 200), "green": (40, 150, 60), "yellow": (235, 200, 30),
    "purple": (130, 60, 170), "black": (35, 35, 35), "white": (255, 255, 255), "grey": (140, 140, 140),
    "orange": (235, 130, 30), "brown": (130, 85, 40),
}
INK: RGB = (40, 40, 40)
QUIET: RGB = (88, 88, 88)  # captions and the key: quieter than labels (one grey, so one colour of the palette)
LAND: RGB = (246, 240, 222)
WATER: RGB = (214, 232, 246)


def colour(name: str) -> RGB:
    """The RGB of a colour named in map data ("purple"); ``ValueError`` naming the known ones otherwise."""
    try:
        return NAMED_COLOURS[name.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown colour {name!r}; known: {', '.join(NAMED_COLOURS)}") from None


def pale(rgb: RGB, amount: float = 0.72) -> RGB:
    """A colour mixed with white: a region's shading that its pieces still stand out on."""
    r, g, b = (round(c + (255 - c) * amount) for c in rgb)
    return (r, g, b)


@dataclass(frozen=True)
class Point:
    x: float
    y: float


class LinkStyle(Enum):
    """What a link is on the board; each is drawn its own way (solid, dashed, dotted)."""

    LAND = "land"  # solid
    SEA = "sea"  # dashed, blue: sea to sea, or across water
    COAST = "coast"  # dotted, faint: land to its sea
    STRAIT = "strait"  # dashed, dark: land to land across water
    CANAL = "canal"  # dashed, thick: a canal between seas
    RAIL = "rail"  # solid, thick: land to land by a nation's railway


class TokenShape(Enum):
    PIECE = "piece"  # a movable piece: armies, fleets (a rounded badge)
    BUILDING = "building"  # a fixed one: a city, a factory (a square)
    FLAG = "flag"  # a flag marking who controls the place


class NodeShape(Enum):
    BOX = "box"  # land
    OVAL = "oval"  # sea


@dataclass(frozen=True)
class Token:
    text: str
    colour: RGB
    shape: TokenShape = TokenShape.PIECE


@dataclass(frozen=True)
class Node:
    """A place. ``at`` holds one point, or more for a place drawn on several panels (a sea at both edges).

    A node that ``repeats`` another is no place of its own: it points to
    that node where a map that wraps round shows it again at the far edge
    (the Pacific, west of the Americas and east of Asia). It carries no
    pieces and its label says where the node is, so that nobody counts two
    seas, or two fleets; links from its side of the map end at it.
    """

    id: str
    label: str
    at: tuple[Point, ...]
    fill: RGB | None = LAND
    outline: RGB = INK
    tokens: tuple[Token, ...] = ()
    shape: NodeShape = NodeShape.BOX
    thick: bool = False  # a strong outline: the place is someone's
    repeats: str | None = None  # the id of the node this one points to


@dataclass(frozen=True)
class Link:
    a: str
    b: str
    style: LinkStyle = LinkStyle.LAND


@dataclass(frozen=True)
class Caption:
    text: str
    at: Point  # top left


@dataclass(frozen=True)
class LegendEntry:
    colour: RGB
    name: str


class Align(Enum):
    LEFT = "left"
    RIGHT = "right"
    CENTRE = "centre"


Box = tuple[int, int, int, int]  # left, top, right, bottom, in whole pixels


@dataclass(frozen=True)
class Cell:
    """One box of a panel: lines of text from its top, then its pieces in rows below them (a rondel space
    and the nations' markers on it; a card of the row; a cell of a table)."""

    box: Box  # within the panel
    lines: tuple[str, ...] = ()
    tokens: tuple[Token, ...] = ()
    align: Align = Align.LEFT
    outline: RGB | None = None  # a frame round the cell (a space, a card); None: a table's plain cell
    fill: RGB | None = None
    thick: bool = False  # a strong frame: the cell is the one that matters now (the nation to play)
    wrap: bool = False  # lines too wide for the cell wrap at their spaces (a card's action); else they are cut
    fit: bool = False  # a line too wide is made to fit, not cut (a rondel space's name): pbem.render.panels


@dataclass(frozen=True)
class Panel:
    """A box beside the map: a title and cells, drawn over whatever lies beneath and kept clear of links.

    It goes where the map leaves room (the layout of a game's art puts no
    place there), so that the picture gains what a player needs without
    growing: the canvas stays the same size.
    """

    title: str
    box: Box  # within the picture
    cells: tuple[Cell, ...]
    text_size: float = 12


@dataclass(frozen=True)
class Scene:
    """Everything one board picture shows; positions and sizes in pixels."""

    title: str
    size: tuple[int, int]  # width, height in pixels
    nodes: tuple[Node, ...]
    links: tuple[Link, ...] = ()
    captions: tuple[Caption, ...] = ()
    legend: tuple[LegendEntry, ...] = ()
    notes: tuple[str, ...] = ()  # a line or two of key below the legend
    # A node's box is as wide as its label and tokens need, up to the first number (a longer label wraps,
    # more tokens take more rows), and at least the second number tall (and wide).
    node_size: tuple[int, int] = (80, 40)
    label_size: float = 10.5  # the nodes' labels, in pixels: small for many long names, larger for a few numbers
    panels: tuple[Panel, ...] = ()

    def node(self, ident: str) -> Node:
        for node in self.nodes:
            if node.id == ident:
                return node
        raise KeyError(ident)

    def check(self) -> list[str]:
        """What is wrong with the scene (a link to an unknown node, a node with no place); empty when fine."""
        ids = [n.id for n in self.nodes]
        problems = [f"node {i} appears twice" for i in sorted({i for i in ids if ids.count(i) > 1})]
        problems += [f"node {n.id} has no place" for n in self.nodes if not n.at]
        problems += [f"link {k.a}-{k.b} names an unknown node" for k in self.links
                     if k.a not in ids or k.b not in ids]
        problems += [f"node {n.id} repeats {n.repeats}, which is no node of its own" for n in self.nodes
                     if n.repeats is not None and n.repeats not in {m.id for m in self.nodes if m.repeats is None}]
        problems += [f"node {n.id} repeats {n.repeats} but carries pieces" for n in self.nodes
                     if n.repeats is not None and n.tokens]
        width, height = self.size
        for panel in self.panels:
            left, top, right, bottom = panel.box
            if not (0 <= left < right <= width and 0 <= top < bottom <= height):
                problems.append(f"panel {panel.title!r} does not fit in the picture")
            problems += [f"a cell of panel {panel.title!r} does not fit in it" for cell in panel.cells
                         if not (0 <= cell.box[0] < cell.box[2] <= right - left
                                 and 0 <= cell.box[1] < cell.box[3] <= bottom - top)]
        return problems


# --- where things stand: the art's slots, scaled to pixels ---------------------------------------------------

TITLE_BAND = 40  # pixels above the map for the title
CAPTION_BAND = 18  # pixels above a panel's places for its caption
LEGEND_BAND = 70  # pixels below it for the legend and the key
MARGIN = 12


@dataclass(frozen=True)
class Layout:
    """Where each id of an art table stands (every panel it is drawn on), and the panels' titles."""

    places: Mapping[str, tuple[Point, ...]]
    captions: tuple[Caption, ...]


def art_layout(art: Art, table: str, rows: Sequence[Sequence[int]], gap: int = 3, join: float = 0) -> Layout:
    """The art's slot positions in art cells (column, line), its panels set out in ``rows`` of panel indexes.

    Panels of one row stand side by side, ``gap`` columns apart; each row
    stands below the tallest panel of the row above. A thing drawn on two
    panels gets both places, unless they are less than ``join`` cells apart
    (a sea at the facing edges of two neighbouring panels): then it gets one,
    midway.
    """
    ids = art.ids(table)
    places: dict[str, list[Point]] = {}
    captions: list[Caption] = []
    top = 0.0
    for row in rows:
        left = 0.0
        for index in row:
            panel = art.panels[index]
            captions.append(Caption(panel.title, Point(left, top)))
            for code, (column, line) in panel.slot_centres().items():
                if code in ids:
                    places.setdefault(ids[code], []).append(Point(left + column, top + line))
            left += panel.width + gap
        top += max(len(art.panels[i].lines) for i in row) + gap
    return Layout({ident: _joined(at, join) for ident, at in places.items()}, tuple(captions))


def _joined(points: list[Point], join: float) -> tuple[Point, ...]:
    """Points, each run of ones less than ``join`` apart (in order) made one point midway."""
    kept: list[Point] = []
    for p in points:
        if kept and math.hypot(p.x - kept[-1].x, p.y - kept[-1].y) < join:
            last = kept.pop()
            p = Point((p.x + last.x) / 2, (p.y + last.y) / 2)
        kept.append(p)
    return tuple(kept)


def fit(layout: Layout, size: tuple[int, int], node_size: tuple[int, int]) -> Layout:
    """The layout scaled into a picture of ``size`` pixels, between the title band and the legend band.

    Each axis is scaled on its own, so that the map fills the picture: the
    art's cells are taller than wide, and no picture should copy that.
    """
    points = [p for at in layout.places.values() for p in at]
    low_x, high_x = min(p.x for p in points), max(p.x for p in points)
    low_y, high_y = min(p.y for p in points), max(p.y for p in points)
    width, height = size
    half_w, half_h = node_size[0] / 2, node_size[1] / 2
    left, right = MARGIN + half_w, width - MARGIN - half_w
    top, bottom = TITLE_BAND + CAPTION_BAND + half_h, height - LEGEND_BAND - half_h - 10
    scale_x = (right - left) / ((high_x - low_x) or 1)
    scale_y = (bottom - top) / ((high_y - low_y) or 1)

    def scaled(p: Point) -> Point:
        return Point(round(left + (p.x - low_x) * scale_x), round(top + (p.y - low_y) * scale_y))

    captions = tuple(Caption(c.text, Point(max(MARGIN, scaled(c.at).x - half_w),
                                           max(TITLE_BAND, scaled(c.at).y - half_h - CAPTION_BAND)))
                     for c in layout.captions)
    return Layout({i: tuple(scaled(p) for p in at) for i, at in layout.places.items()}, captions)


def nearest(a: Sequence[Point], b: Sequence[Point]) -> tuple[Point, Point]:
    """The closest pair of places of two nodes: where a link between them is drawn."""
    return min(((p, q) for p in a for q in b), key=lambda pq: (pq[0].x - pq[1].x) ** 2 + (pq[0].y - pq[1].y) ** 2)


TOKEN_TEXT = 11  # the smallest type a piece's text is drawn in (pbem.render.places: a flag's or a count's)


def smallest_text(scene: Scene) -> float:
    """The smallest type, in the picture's pixels, of any text the picture shows: the places' labels, the
    pieces' words, the panels' cells. A mail shows the picture at its own size (pbem.mail.picture), so this is
    the size a reader sees on any screen; the phone test holds it to 9 CSS pixels."""
    return min([scene.label_size, TOKEN_TEXT, *(panel.text_size for panel in scene.panels)])
