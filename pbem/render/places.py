"""Drawing places (boxes, labels, tokens) and other overlays of a board picture, each once per look.

Why: text through FreeType made places a quarter of a picture's cost, and
from one move to the next, and from one game to another, most places look
the same. A place is drawn once into a small "sprite" and pasted with a
mask wherever the same place (same look, same position within a 2-pixel
grid) is drawn again. The pixels stay exactly those of drawing in place:

- the sprite is drawn at the same coordinates less an even number of pixels
  (Pillow rounds box corners half to even, so an odd shift could move them),
  and only where every coordinate involved is a multiple of ``QUANTUM`` (so
  no float sum rounds differently at either position);
- it is drawn twice, on black and on white: a pixel the same on both is the
  place's own (opaque; pasted), a pixel black on one and white on the other
  is untouched (left as it is); any other pixel would blend into what lies
  beneath (text over a line), and then the place is drawn in place instead.

Pieces of text drawn over plain paper (the title, the legend) are
remembered as the patch they make on paper, used only while the picture is
still plain paper there.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from PIL import Image, ImageChops, ImageDraw

from pbem.render.boundedcache import Remembered
from pbem.render.measure import RULER, TOKEN_GAP, TOKEN_HEIGHT, font, measure, row_width, token_width, write
from pbem.render.scene import INK, RGB, WATER, Node, NodeShape, Point, Scene, Token, TokenShape

PAPER: RGB = (252, 250, 244)
PAD = 16  # pixels around a sprite's box: room for text and tokens that stand out of it (even)
QUANTUM = 2.0 ** -24  # coordinates on this grid add and subtract without rounding, anywhere in a picture


@dataclass(frozen=True)
class Sprite:
    """A drawn thing: its pixels, which of them it owns (mask), where its top left goes from its anchor."""

    pixels: Image.Image
    mask: Image.Image | None  # None: paste every pixel
    offset: tuple[int, int]
    room: tuple[int, int] = (0, 0)  # how far left and up of its anchor it was drawn from (its canvas)

    @property
    def weight(self) -> int:
        width, height = self.pixels.size
        return width * height * (4 if self.mask is not None else 3) + 400


@dataclass(frozen=True)
class Look:
    """Everything a place's pixels depend on but its position."""

    label: str
    fill: RGB | None
    outline: RGB
    tokens: tuple[Token, ...]
    shape: NodeShape
    thick: bool
    node_size: tuple[int, int]
    label_size: float
    wide: bool  # a node that repeats another: its label fills the box before it wraps


IN_PLACE = Sprite(Image.new("RGB", (1, 1)), None, (0, 0))  # a place that cannot be a sprite: drawn in place
# Sprites of places by look and position within the 2-pixel grid. Bound: 12 MB (a place's sprite is 5-15 KB:
# some 1200 places, the boards of 20 games in turn).
SPRITES: Remembered[tuple[Look, float, float], Sprite] = Remembered("place sprites", 12 << 20, lambda _, s: s.weight)
# Looks seen once, not yet made sprites. Bound: 2 MB (a key is ~300 bytes with its tokens).
SEEN: Remembered[tuple[Look, float, float], bool] = Remembered("places seen", 2 << 20, lambda key, _: 100 + 60 * len(
    key[0].tokens))
# Patches of text on plain paper (title, legend) by what they show. Bound: 6 MB (a legend's is ~100 KB).
PATCHES: Remembered[tuple[object, ...], Sprite] = Remembered("text patches", 6 << 20, lambda _, sprite: sprite.weight)


def draw_place(image: Image.Image, pen: ImageDraw.ImageDraw, node: Node, at: Point, scene: Scene) -> None:
    """A place at ``at``, as ``draw_node`` would draw it there (see the module doc)."""
    if not (_on_grid(at.x) and _on_grid(at.y) and _on_grid(at.y - scene.node_size[1] / 2)):
        draw_node(pen, node, at, scene)
        return
    look = Look(node.label, node.fill, node.outline, node.tokens, node.shape, node.thick, scene.node_size,
                scene.label_size, node.repeats is not None)
    shift_x, shift_y = 2 * math.floor(at.x / 2), 2 * math.floor(at.y / 2)
    key = (look, at.x - shift_x, at.y - shift_y)
    sprite = SPRITES.get(key)
    if sprite is None and SEEN.get(key) is None:
        SEEN.put(key, True)  # a look seen once may not come again: a sprite costs three times a drawing
        sprite = IN_PLACE
    if sprite is None:
        sprite = SPRITES.put(key, _sprite(node, Point(key[1], key[2]), scene) or IN_PLACE)
    if sprite is IN_PLACE or shift_x < sprite.room[0] or shift_y < sprite.room[1]:  # Pillow truncates negatives
        draw_node(pen, node, at, scene)
        return
    image.paste(sprite.pixels, (shift_x + sprite.offset[0], shift_y + sprite.offset[1]), sprite.mask)


def _on_grid(value: float) -> bool:
    return abs(value) < 4096 and (value / QUANTUM).is_integer()


def _sprite(node: Node, at: Point, scene: Scene) -> Sprite | None:
    """The place drawn at ``at`` (within the 2-pixel grid) around a margin, or None if it cannot be one."""
    placed = measure(RULER, node, at, scene)
    left, top, right, bottom = placed.box
    wide = max([right - left] + [row_width(RULER, row) for row in placed.rows]
               + [RULER.textlength(line, font=font(scene.label_size)) for line in placed.labels])
    room_x = 2 * math.ceil((wide / 2 + PAD) / 2)
    room_y = 2 * math.ceil((at.y - top + PAD) / 2)
    if not all(_on_grid(v) for v in (left, right, top, bottom)):
        return None
    size = (2 * room_x + 2, room_y + math.ceil(bottom - at.y) + PAD)
    local = Point(at.x + room_x, at.y + room_y)
    drawn = []
    for background in ((0, 0, 0), (255, 255, 255)):
        canvas = Image.new("RGB", size, background)
        draw_node(ImageDraw.Draw(canvas), node, local, scene)
        drawn.append(canvas)
    return _masked(drawn[0], drawn[1], (room_x, room_y))


def _masked(on_black: Image.Image, on_white: Image.Image, room: tuple[int, int]) -> Sprite | None:
    """The sprite whose owned pixels are those alike on both backgrounds; None if any pixel blends."""
    owned = _lightest(ImageChops.difference(on_black, on_white)).point(lambda v: 255 if v == 0 else 0)
    touched = ImageChops.lighter(_lightest(on_black), ImageChops.invert(_darkest(on_white))).point(
        lambda v: 255 if v else 0)
    if ImageChops.subtract(touched, owned).getbbox() is not None:
        return None  # some pixel neither owned nor untouched: it would blend with what lies beneath
    extent = touched.getbbox()
    width, height = on_black.size
    if extent is None:
        return Sprite(Image.new("RGB", (1, 1)), Image.new("L", (1, 1), 0), (0, 0), room)
    if extent[0] == 0 or extent[1] == 0 or extent[2] == width or extent[3] == height:
        return None  # the drawing reaches the edge: it may be cut short
    return Sprite(on_black.crop(extent), owned.crop(extent), (extent[0] - room[0], extent[1] - room[1]), room)


def _lightest(image: Image.Image) -> Image.Image:
    red, green, blue = image.split()
    return ImageChops.lighter(ImageChops.lighter(red, green), blue)


def _darkest(image: Image.Image) -> Image.Image:
    red, green, blue = image.split()
    return ImageChops.darker(ImageChops.darker(red, green), blue)


def draw_patch(image: Image.Image, key: tuple[object, ...], band: tuple[int, int],
               paint: Callable[[ImageDraw.ImageDraw, int], None]) -> None:
    """``paint(pen, top)`` (drawing ``top`` pixels higher than in the picture) done as a remembered patch.

    ``band`` (top, bottom; top even) holds the rows that all ``paint`` draws
    lies in, across the whole width, and ``paint`` moves only whole numbers
    of pixels down. While those rows are plain paper (the title's, the
    legend's), drawing there is drawing on paper: the patch is what ``paint``
    draws on paper, kept to where it differs from paper, and pasted. Anywhere
    else, or if the drawing reaches an edge of the band within the picture
    (it might go on beyond), ``paint`` draws in place.
    """
    top, bottom = band
    if image.crop((0, top, image.width, bottom)).getextrema() != tuple((c, c) for c in PAPER):
        paint(ImageDraw.Draw(image), 0)
        return
    full = key + (image.size, band)
    patch = PATCHES.get(full)
    if patch is None:
        canvas = Image.new("RGB", (image.width, bottom - top), PAPER)
        paint(ImageDraw.Draw(canvas), top)
        extent = ImageChops.difference(canvas, Image.new("RGB", canvas.size, PAPER)).getbbox() or (0, 0, 1, 1)
        inner = (extent[1] == 0 and top > 0) or (extent[3] == canvas.height and bottom < image.height)
        patch = PATCHES.put(full, IN_PLACE if inner else Sprite(canvas.crop(extent), None, (extent[0], top + extent[1])))
    if patch is IN_PLACE:
        paint(ImageDraw.Draw(image), 0)
        return
    image.paste(patch.pixels, patch.offset)


def draw_node(pen: ImageDraw.ImageDraw, node: Node, at: Point, scene: Scene) -> None:
    """A place: its box, the label on top, the tokens in rows below."""
    placed = measure(pen, node, at, scene)
    radius = scene.node_size[1] // 2 if node.shape is NodeShape.OVAL else 5
    fill = node.fill if node.fill is not None else (WATER if node.shape is NodeShape.OVAL else PAPER)
    pen.rounded_rectangle(placed.box, radius=radius, fill=fill, outline=node.outline, width=3 if node.thick else 1)
    y = placed.box[1] + 4
    for line in placed.labels:
        write(pen, (at.x, y), line, fill=INK, font=font(scene.label_size), anchor="ma")
        y += placed.line_height
    y += 2
    for row in placed.rows:
        x = at.x - row_width(pen, row) / 2
        for token in row:
            draw_token(pen, token, x, y)
            x += token_width(pen, token) + TOKEN_GAP
        y += TOKEN_HEIGHT + TOKEN_GAP


def _text_colour(background: RGB) -> RGB:
    """Black on light colours, white on dark ones (yellow armies stay readable)."""
    r, g, b = background
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 150 else (255, 255, 255)


def draw_token(pen: ImageDraw.ImageDraw, token: Token, x: float, y: float) -> None:
    """A piece as a rounded badge, a building as a square (text in black or white to stand out), a flag.

    Every piece is edged in ``INK``: a shade of each owner's colour was one
    more colour per owner, and a picture of fewer colours is smaller (a
    palette of 16 is written with 4 bits a pixel, ``pbem.render.encode``).
    """
    width = token_width(pen, token)
    edge = INK
    if token.shape is TokenShape.FLAG:
        pen.line([(x + 2, y), (x + 2, y + TOKEN_HEIGHT)], fill=INK, width=2)
        pen.polygon([(x + 3, y), (x + 13, y + 4), (x + 3, y + 9)], fill=token.colour, outline=edge)
        if token.text:
            write(pen, (x + 15, y + TOKEN_HEIGHT / 2), token.text, fill=INK, font=font(11), anchor="lm")
        return
    box = (x, y, x + width, y + TOKEN_HEIGHT)
    if token.shape is TokenShape.BUILDING:
        pen.rectangle(box, fill=token.colour, outline=edge)
    else:
        pen.rounded_rectangle(box, radius=TOKEN_HEIGHT // 2, fill=token.colour, outline=edge)
    write(pen, (x + width / 2, y + TOKEN_HEIGHT / 2), token.text, fill=_text_colour(token.colour), font=font(12),
             anchor="mm")
