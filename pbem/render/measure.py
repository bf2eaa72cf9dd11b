"""How big a place is drawn in a board picture: its box, label lines and token rows (no drawing).

Kept apart from ``pbem.render.png`` so that both the drawing of places
(``pbem.render.places``) and the nudging of places apart (``png.settle``)
measure them the one same way.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from pbem.languages import Language, spoken
from pbem.render.routes import Box
from pbem.render.scene import RGB, Node, Point, Scene, Token, TokenShape

Font = ImageFont.ImageFont | ImageFont.FreeTypeFont
TOKEN_GAP = 3
TOKEN_HEIGHT = 18
WORD_GAP = 3  # pixels between two words, at least


def font(size: float) -> Font:
    """The font of the language being drawn (``pbem.languages.spoken``) at ``size`` pixels (see :func:`_font`)."""
    return _font(size, spoken())


@cache
def _font(size: float, language: Language) -> Font:
    """Pillow's own default font, which writes English, Spanish and Italian: no font file to ship or find (it
    scales since Pillow 10.1, whose wheels all bring FreeType); for a language whose letters it lacks (Cyrillic,
    Polish ł, ą, ę), a system font that has them (:func:`font_file`)."""
    path = font_file(language)
    return ImageFont.truetype(str(path), size=size) if path is not None else ImageFont.load_default(size=size)


@cache
def font_file(language: Language) -> Path | None:
    """A font on this machine that writes ``language``'s letters, when Pillow's own does not; None when Pillow's
    own writes them, or when no such font is installed (:func:`writes` is then False)."""
    if _default_writes(LETTERS[language]):
        return None
    for path in SYSTEM_FONTS:
        if path.is_file():
            return path
    return None


@cache
def writes(language: Language) -> bool:
    """Whether a picture can be drawn in ``language`` here (else it is drawn in English: see
    ``pbem.moderator.notify.boards``). A host adds a font for Russian and Polish with the Debian package
    ``fonts-dejavu-core`` (docs/hosting.md). Remembered: asked for every mail that carries a board."""
    return font_file(language) is not None or _default_writes(LETTERS[language])


def _default_writes(letters: str) -> bool:
    """Whether Pillow's default font has a glyph of its own for each of ``letters`` (not the missing-glyph box)."""
    default = ImageFont.load_default(size=12)

    def glyph(text: str) -> bytes:
        mask = default.getmask(text)
        return bytes(mask) + bytes(str(mask.size), "ascii")

    missing = glyph("\uffff")
    return all(glyph(letter) != missing for letter in letters)


# The letters of each language beyond ASCII that a picture may have to write (names, the key's words).
LETTERS: dict[Language, str] = {
    Language.EN: "",
    Language.RU: "абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ",
    Language.PL: "ąćęłńóśźżĄĆĘŁŃÓŚŹŻ",
    Language.ES: "áéíóúñüÁÉÍÓÚÑ",
    Language.IT: "àèéìòùÀÈÉÌÒÙ",
}
SYSTEM_FONTS = tuple(Path(p) for p in (  # sans-serif fonts with Latin, Polish and Cyrillic letters, where hosts have them
    "/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed.ttf",  # narrow, near the default font's width
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
))


RULER = ImageDraw.Draw(Image.new("RGB", (1, 1)))  # measures text; draws nothing
SOLID = 96  # of 255: how much of a pixel a glyph must cover to be inked (below half: thin strokes stay whole)
INKED = bytes(255 if level >= SOLID else 0 for level in range(256))  # a glyph's coverage -> inked or not


def write(pen: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, fill: RGB, font: Font,
          anchor: str | None = None) -> None:
    """``text`` as ``pen.text`` would draw it, but solid: each pixel is ``fill`` or left as it was.

    Why: antialiased text blends its colour into what lies beneath, so a
    picture holds hundreds of in-between colours that a palette can only
    approximate and that defeat PNG's compression. Here the glyphs' coverage
    is drawn on a mask of its own, at the same fraction of a pixel, and a
    pixel is inked where it is covered at least ``SOLID``: the picture keeps
    only the colours it draws with, a few dozen, and the text stays readable.
    The mask moves by whole pixels only, so text drawn a whole number of
    pixels away is the same pixels moved (the sprites of ``places`` rely on it).
    """
    x, y = xy
    found = _solid(text, font, anchor, x % 1, y % 1)
    if found is not None:
        mask, left, top = found
        pen.bitmap((math.floor(x) + left, math.floor(y) + top), mask, fill=fill)


@lru_cache(maxsize=4096)
def _solid(text: str, font: Font, anchor: str | None, x: float, y: float) -> tuple[Image.Image, int, int] | None:
    """The inked pixels of ``text`` drawn at (``x``, ``y``), a fraction of a pixel, and where the mask's top
    left is from that pixel; None for text that inks nothing. Remembered (bounded: 4096 masks of a few hundred
    bytes, ~3 MB): a board's labels and pieces say much the same from one move to the next."""
    left, top, right, bottom = RULER.textbbox((x, y), text, font=font, anchor=anchor)
    shift_x, shift_y = math.floor(left) - 2, math.floor(top) - 2
    size = (math.ceil(right) - math.floor(left) + 4, math.ceil(bottom) - math.floor(top) + 4)
    if size[0] <= 4 or size[1] <= 4:
        return None
    mask = Image.new("L", size, 0)
    ImageDraw.Draw(mask).text((x - shift_x, y - shift_y), text, fill=255, font=font, anchor=anchor)
    return mask.point(list(INKED)), shift_x, shift_y


def token_width(pen: ImageDraw.ImageDraw, token: Token) -> int:
    if token.shape is TokenShape.FLAG:
        return 14 + (int(pen.textlength(token.text, font=font(11))) + 2 if token.text else 0)
    return max(18, int(pen.textlength(token.text, font=font(12))) + 8)


def row_width(pen: ImageDraw.ImageDraw, row: Sequence[Token]) -> int:
    return sum(token_width(pen, t) for t in row) + TOKEN_GAP * (len(row) - 1)


def _rows(pen: ImageDraw.ImageDraw, tokens: tuple[Token, ...], width: int) -> list[list[Token]]:
    """Tokens in rows that fit a node's width (a token wider than the node gets a row of its own)."""
    rows: list[list[Token]] = [[]]
    used = 0
    for token in tokens:
        need = token_width(pen, token) + (TOKEN_GAP if rows[-1] else 0)
        if rows[-1] and used + need > width:
            rows.append([])
            used, need = 0, token_width(pen, token)
        rows[-1].append(token)
        used += need
    return [row for row in rows if row]


@lru_cache(maxsize=32)  # a picture has a few sizes of text
def word_space(size: float) -> str:
    """The spaces that part two words at ``size`` pixels: as many as make ``WORD_GAP`` pixels.

    Why not one: the default font's space is 2 pixels wide at the labels'
    10.5 pixels, narrower than the gap between two letters of a word, so
    "Rio de" read "Riode" and "Gulf of Guinea" "Gulfof Guinea".
    """
    one = RULER.textlength(" ", font=font(size))
    return " " * max(1, math.ceil(WORD_GAP / one)) if one > 0 else " "


def spaced(text: str, size: float) -> str:
    """``text`` with its words parted by :func:`word_space`, as every text of a picture is drawn."""
    return word_space(size).join(text.split())


def _label_lines(pen: ImageDraw.ImageDraw, label: str, width: int, size: float) -> list[str]:
    """The label in lines no wider than ``width`` where it has spaces to break at ("Rio de / Janeiro"), its
    words parted by :func:`word_space`."""
    gap = word_space(size)
    lines: list[str] = []
    for word in label.split():
        if lines and pen.textlength(f"{lines[-1]}{gap}{word}", font=font(size)) <= width:
            lines[-1] = f"{lines[-1]}{gap}{word}"
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
    width, height, labels, rows, line_height = _shape(node.label, node.tokens, scene.node_size, scene.label_size,
                                                      node.repeats is not None)
    top = at.y - scene.node_size[1] / 2
    return Placed((at.x - width / 2, top, at.x + width / 2, top + height), labels, rows, line_height)



@lru_cache(maxsize=8192)
def _shape(label: str, tokens: tuple[Token, ...], node_size: tuple[int, int], size: float, wide: bool = False
           ) -> tuple[float, int, tuple[str, ...], tuple[tuple[Token, ...], ...], int]:
    """(width, height, label lines, token rows, line height) of a place; remembered (bounded: 8192 shapes of a
    few hundred bytes, ~3 MB), since most places look the same from one move to the next. A ``wide`` label
    (a node that repeats another says where that one is) fills the box's width before it wraps."""
    widest, lowest = node_size
    pen = RULER
    labels = _label_lines(pen, label, widest if wide else widest * 2 // 3, size)  # narrow: two words, two lines
    rows = _rows(pen, tokens, widest - 6)
    inner = max([pen.textlength(line, font=font(size)) for line in labels] + [row_width(pen, row) for row in rows])
    width = min(widest, max(lowest, inner + 5))
    line_height = round(size * 1.25)
    height = max(lowest, len(labels) * line_height + 9 + len(rows) * (TOKEN_HEIGHT + TOKEN_GAP))
    return width, height, tuple(labels), tuple(tuple(row) for row in rows), line_height


def size_of(node: Node, scene: Scene) -> tuple[float, int]:
    """(width, height) of a node's box, wherever it stands."""
    width, height, _, _, _ = _shape(node.label, node.tokens, scene.node_size, scene.label_size,
                                    node.repeats is not None)
    return width, height
