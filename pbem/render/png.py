"""Drawing a ``pbem.render.picture.Scene`` with Pillow (``picture.render_png`` is the way in).

Kept apart from the scene model so that only a picture being drawn loads
Pillow, and kept small: plain shapes, Pillow's own default font, a palette
PNG (a board picture is a few dozen colours, and must fit in a mail).
"""
from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache, lru_cache

from PIL import Image, ImageDraw, ImageFont

from pbem.render.picture import (
    INK,
    LEGEND_BAND,
    MARGIN,
    RGB,
    TITLE_BAND,
    WATER,
    LinkStyle,
    Node,
    NodeShape,
    Point,
    Scene,
    Token,
    TokenShape,
    nearest,
)
from pbem.render.routes import Box, dashes, route

Font = ImageFont.ImageFont | ImageFont.FreeTypeFont
PAPER: RGB = (252, 250, 244)
PALETTE_COLOURS = 64
COMPRESS_LEVEL = 3
TOKEN_GAP = 3
TOKEN_HEIGHT = 18
NODE_GAP = 2  # pixels kept between two boxes
SETTLE_ROUNDS = 8
# How each kind of link is drawn: colour, width, dash and gap in pixels (no dash: solid).
STROKES: dict[LinkStyle, tuple[RGB, int, int, int]] = {
    LinkStyle.LAND: ((110, 95, 75), 2, 0, 0),
    LinkStyle.SEA: ((60, 120, 200), 2, 9, 6),
    LinkStyle.COAST: ((150, 190, 225), 1, 2, 4),
    LinkStyle.STRAIT: ((90, 70, 50), 2, 6, 4),
    LinkStyle.CANAL: ((20, 70, 160), 4, 10, 5),
    LinkStyle.RAIL: ((70, 60, 50), 3, 0, 0),
}


@cache
def font(size: float) -> Font:
    """Pillow's own default font at ``size`` pixels: no font file to ship or find (it scales since Pillow 10.1,
    whose wheels all bring FreeType)."""
    return ImageFont.load_default(size=size)


def draw(scene: Scene) -> bytes:
    """The scene as PNG bytes: links first, so that places and their pieces stand over them."""
    image = Image.new("RGB", scene.size, PAPER)
    pen = ImageDraw.Draw(image)
    scene = settle(scene, pen)
    _links(pen, scene)
    for caption in scene.captions:
        pen.text((caption.at.x, caption.at.y), caption.text, fill=(95, 95, 95), font=font(14))
    for node in scene.nodes:
        for at in node.at:
            _node(pen, node, at, scene)
    pen.text((MARGIN, 10), scene.title, fill=INK, font=font(20))
    _legend(pen, scene)
    return _png(image)


def _png(image: Image.Image) -> bytes:
    """A palette PNG: the picture's few flat colours.

    Why this way (one is drawn per move): the palette is chosen (fast octree)
    from every other pixel of every other row, a quarter of the picture,
    which holds every colour the picture has in any amount, and then the
    whole picture is mapped onto it: a third of the time of choosing from
    all of it. zlib's level 3 costs a third of level 6's time for about a
    quarter more bytes.
    """
    width, height = image.size
    sample = image.resize((max(1, width // 2), max(1, height // 2)), Image.Resampling.NEAREST)
    palette = sample.quantize(colors=PALETTE_COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    small = image.quantize(palette=palette, dither=Image.Dither.NONE)
    out = io.BytesIO()
    small.save(out, format="PNG", compress_level=COMPRESS_LEVEL)
    return out.getvalue()


def _links(pen: ImageDraw.ImageDraw, scene: Scene) -> None:
    """Every link, between the nearest places of its ends, bowed around the boxes of other places."""
    places = {node.id: node.at for node in scene.nodes}
    drawn = boxes(scene, pen)
    width, height = scene.size
    within = (MARGIN, TITLE_BAND, width - MARGIN, height - LEGEND_BAND)
    for link in scene.links:
        a, b = nearest(places[link.a], places[link.b])
        others = [box for ident, found in drawn.items() if ident not in (link.a, link.b) for box in found]
        _line(pen, route(a, b, others, within), STROKES[link.style])


def _line(pen: ImageDraw.ImageDraw, points: Sequence[Point], stroke: tuple[RGB, int, int, int]) -> None:
    """A solid line through ``points``, or one in dashes of ``dash`` pixels ``gap`` apart."""
    ink, width, dash, gap = stroke
    for piece in dashes(points, dash, gap) if dash else [list(points)]:
        pen.line([(p.x, p.y) for p in piece], fill=ink, width=width, joint="curve")


def _text_colour(background: RGB) -> RGB:
    """Black on light colours, white on dark ones (yellow armies stay readable)."""
    r, g, b = background
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 150 else (255, 255, 255)


def _token_width(pen: ImageDraw.ImageDraw, token: Token) -> int:
    if token.shape is TokenShape.FLAG:
        return 14 + (int(pen.textlength(token.text, font=font(11))) + 2 if token.text else 0)
    return max(18, int(pen.textlength(token.text, font=font(12))) + 8)


def _rows(pen: ImageDraw.ImageDraw, tokens: tuple[Token, ...], width: int) -> list[list[Token]]:
    """Tokens in rows that fit a node's width (a token wider than the node gets a row of its own)."""
    rows: list[list[Token]] = [[]]
    used = 0
    for token in tokens:
        need = _token_width(pen, token) + (TOKEN_GAP if rows[-1] else 0)
        if rows[-1] and used + need > width:
            rows.append([])
            used, need = 0, _token_width(pen, token)
        rows[-1].append(token)
        used += need
    return [row for row in rows if row]


def _label_lines(pen: ImageDraw.ImageDraw, label: str, width: int, size: float) -> list[str]:
    """The label in lines no wider than ``width`` where it has spaces to break at ("Rio de / Janeiro")."""
    lines: list[str] = []
    for word in label.split():
        if lines and pen.textlength(f"{lines[-1]} {word}", font=font(size)) <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines or [""]


@dataclass(frozen=True)
class Placed:
    """A node measured at one of its places: its box, its label's lines, its tokens' rows."""

    box: Box
    labels: tuple[str, ...]
    rows: tuple[tuple[Token, ...], ...]
    line_height: int


def measure(pen: ImageDraw.ImageDraw, node: Node, at: Point, scene: Scene) -> Placed:
    """A node's box at ``at``: as wide as its label and tokens need (up to the scene's widest), grown down."""
    width, height, labels, rows, line_height = _shape(node.label, node.tokens, scene.node_size, scene.label_size)
    top = at.y - scene.node_size[1] / 2
    return Placed((at.x - width / 2, top, at.x + width / 2, top + height), labels, rows, line_height)


_RULER = ImageDraw.Draw(Image.new("RGB", (1, 1)))  # measures text; draws nothing


@lru_cache(maxsize=8192)
def _shape(label: str, tokens: tuple[Token, ...], node_size: tuple[int, int], size: float
           ) -> tuple[float, int, tuple[str, ...], tuple[tuple[Token, ...], ...], int]:
    """(width, height, label lines, token rows, line height) of a place; remembered (bounded), since a place
    is measured at every settling round and most places look the same from one move to the next."""
    widest, lowest = node_size
    pen = _RULER
    labels = _label_lines(pen, label, widest * 2 // 3, size)  # narrow boxes: two words take two lines
    rows = _rows(pen, tokens, widest - 6)
    inner = max([pen.textlength(line, font=font(size)) for line in labels] + [_row_width(pen, row) for row in rows])
    width = min(widest, max(lowest, inner + 5))
    line_height = round(size * 1.25)
    height = max(lowest, len(labels) * line_height + 9 + len(rows) * (TOKEN_HEIGHT + TOKEN_GAP))
    return width, height, tuple(labels), tuple(tuple(row) for row in rows), line_height


def boxes(scene: Scene, pen: ImageDraw.ImageDraw | None = None) -> dict[str, list[Box]]:
    """Node id -> its boxes (one per place) where ``scene`` puts them: for routing links, checking overlaps."""
    pen = pen or ImageDraw.Draw(Image.new("RGB", (1, 1)))
    return {node.id: [measure(pen, node, at, scene).box for at in node.at] for node in scene.nodes}


def settle(scene: Scene, pen: ImageDraw.ImageDraw | None = None) -> Scene:
    """The scene with places nudged apart where their boxes would overlap; ``draw`` draws this one.

    Why: a box grows with its pieces (a province with five kinds of units),
    and the art's grid leaves some places close. Two overlapping boxes are
    pushed apart along the axis they overlap least, half each, a few rounds
    at most: places move a few pixels, never far from where the art has them.
    """
    pen = pen or ImageDraw.Draw(Image.new("RGB", (1, 1)))
    places = {node.id: list(node.at) for node in scene.nodes}
    for _ in range(SETTLE_ROUNDS):
        measured = [(node, index, measure(pen, node, places[node.id][index], scene).box)
                    for node in scene.nodes for index in range(len(node.at))]
        moved = False
        for i, (first, at_first, a) in enumerate(measured):
            for second, at_second, b in measured[i + 1:]:
                dx, dy = min(a[2], b[2]) - max(a[0], b[0]), min(a[3], b[3]) - max(a[1], b[1])
                if dx <= -NODE_GAP or dy <= -NODE_GAP:
                    continue
                sign = 1 if (b[0] + b[2], b[1] + b[3]) >= (a[0] + a[2], a[1] + a[3]) else -1
                push = Point((dx + NODE_GAP) / 2 * sign, 0) if dx < dy else Point(0, (dy + NODE_GAP) / 2 * sign)
                _nudge(places[first.id], at_first, -push.x, -push.y)
                _nudge(places[second.id], at_second, push.x, push.y)
                moved = True
        if not moved:
            break
    return replace(scene, nodes=tuple(replace(node, at=tuple(places[node.id])) for node in scene.nodes))


def _nudge(points: list[Point], index: int, dx: float, dy: float) -> None:
    points[index] = Point(points[index].x + dx, points[index].y + dy)


def _node(pen: ImageDraw.ImageDraw, node: Node, at: Point, scene: Scene) -> None:
    """A place: its box, the label on top, the tokens in rows below."""
    placed = measure(pen, node, at, scene)
    radius = scene.node_size[1] // 2 if node.shape is NodeShape.OVAL else 5
    fill = node.fill if node.fill is not None else (WATER if node.shape is NodeShape.OVAL else PAPER)
    pen.rounded_rectangle(placed.box, radius=radius, fill=fill, outline=node.outline, width=3 if node.thick else 1)
    y = placed.box[1] + 4
    for line in placed.labels:
        pen.text((at.x, y), line, fill=INK, font=font(scene.label_size), anchor="ma")
        y += placed.line_height
    y += 2
    for row in placed.rows:
        x = at.x - _row_width(pen, row) / 2
        for token in row:
            _token(pen, token, x, y)
            x += _token_width(pen, token) + TOKEN_GAP
        y += TOKEN_HEIGHT + TOKEN_GAP


def _row_width(pen: ImageDraw.ImageDraw, row: Sequence[Token]) -> int:
    return sum(_token_width(pen, t) for t in row) + TOKEN_GAP * (len(row) - 1)


def _token(pen: ImageDraw.ImageDraw, token: Token, x: float, y: float) -> None:
    """A piece as a rounded badge, a building as a square (text in black or white to stand out), a flag."""
    width = _token_width(pen, token)
    edge = tuple(max(0, c - 70) for c in token.colour)
    if token.shape is TokenShape.FLAG:
        pen.line([(x + 2, y), (x + 2, y + TOKEN_HEIGHT)], fill=INK, width=2)
        pen.polygon([(x + 3, y), (x + 13, y + 4), (x + 3, y + 9)], fill=token.colour, outline=edge)
        if token.text:
            pen.text((x + 15, y + TOKEN_HEIGHT / 2), token.text, fill=INK, font=font(11), anchor="lm")
        return
    box = (x, y, x + width, y + TOKEN_HEIGHT)
    if token.shape is TokenShape.BUILDING:
        pen.rectangle(box, fill=token.colour, outline=edge)
    else:
        pen.rounded_rectangle(box, radius=TOKEN_HEIGHT // 2, fill=token.colour, outline=edge)
    pen.text((x + width / 2, y + TOKEN_HEIGHT / 2), token.text, fill=_text_colour(token.colour), font=font(12),
             anchor="mm")


def _legend(pen: ImageDraw.ImageDraw, scene: Scene) -> None:
    """Swatch and name per player or nation in a row along the bottom, the key lines below."""
    width, height = scene.size
    x, y = float(MARGIN), float(height - LEGEND_BAND + 6)
    for entry in scene.legend:
        span = 22 + pen.textlength(entry.name, font=font(13)) + 18
        if x + span > width - MARGIN and x > MARGIN:
            x, y = float(MARGIN), y + 20
        pen.rectangle((x, y, x + 15, y + 15), fill=entry.colour, outline=INK)
        pen.text((x + 21, y + 8), entry.name, fill=INK, font=font(13), anchor="lm")
        x += span
    y += 24
    for note in scene.notes:
        pen.text((MARGIN, y), note, fill=(80, 80, 80), font=font(12))
        y += 15
