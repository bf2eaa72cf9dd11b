"""Drawing the panels of a board picture (``pbem.render.scene.Panel``): boxes of text and pieces beside the map.

A panel is drawn on a sheet of its own, paper first, and pasted whole over
whatever lies beneath (links are routed around it, so nothing should). The
sheet depends on nothing but the panel, so it is remembered by the panel:
the rondel or the card row of one move is most often that of the move
before, and pasting it then costs nothing. A panel that did change (a
treasury, a marker moved) mostly changed in a cell or two: each cell is
drawn on a patch of its own, remembered by what it shows wherever it
stands, and the others are pasted. Cells do not overlap, and a patch is the
cell's whole box, so pasting one is drawing it there. Drawn once or pasted
again, the pixels are the same (patches and sheets are the only way a panel
is drawn).

A cell's line too wide for it is cut (``~``: a long player's name in a
narrow column), unless the cell asks that its lines fit (``Cell.fit``: a
rondel space, whose name is the whole of what it says): then the line is
written a step smaller, down to ``SMALLEST`` pixels; else over two lines at
a space, where the cell has room below; else shortened as maps shorten names
(``pbem.render.shorten``) at the smallest size; a cut is the last resort. A
line that fits is drawn as ever, so a picture whose words fit (English's)
keeps its pixels.
"""
from __future__ import annotations

from dataclasses import replace

from PIL import Image, ImageDraw

from pbem.render.boundedcache import Remembered
from pbem.render.measure import (
    RULER,
    TOKEN_GAP,
    TOKEN_HEIGHT,
    _label_lines,
    _rows,
    font,
    row_width,
    spaced,
    token_width,
    write,
)
from pbem.render.places import PAPER, draw_token
from pbem.render.scene import INK, Align, Cell, Panel
from pbem.render.shorten import shortened

FRAME = (175, 165, 145)  # the panel's frame: quieter than a place's outline
TITLE_ROWS = 18  # pixels at the top of a panel for its title
PAD = 5  # pixels inside a cell before its text
SMALLEST, STEP = 10.0, 0.5  # a fitted line's text shrinks by STEP pixels, down to SMALLEST (still legible)

# Panels by what they show. Bound: 4 MB (a panel's sheet is 100-250 KB: some 20, the panels of a few boards).
SHEETS: Remembered[Panel, Image.Image] = Remembered(
    "panels", 4 << 20, lambda panel, sheet: sheet.width * sheet.height * 3 + 200 * len(panel.cells))
# Cells by what they show, at the top left of a box of their size. Bound: 2 MB (a cell's patch is 1-25 KB:
# some 200, the cells of several boards' panels).
PATCHES: Remembered[tuple[Cell, float], Image.Image] = Remembered(
    "panel cells", 2 << 20, lambda _, patch: patch.width * patch.height * 3 + 300)


def draw_panels(image: Image.Image, panels: tuple[Panel, ...]) -> None:
    """Each panel pasted at its box (drawn first if it was not remembered)."""
    for panel in panels:
        sheet = SHEETS.get(panel)
        if sheet is None:
            sheet = SHEETS.put(panel, _sheet(panel))
        image.paste(sheet, panel.box[:2])


def _sheet(panel: Panel) -> Image.Image:
    left, top, right, bottom = panel.box
    sheet = Image.new("RGB", (right - left, bottom - top), PAPER)
    pen = ImageDraw.Draw(sheet)
    pen.rounded_rectangle((0, 0, sheet.width - 1, sheet.height - 1), radius=6, outline=FRAME)
    if panel.title:
        write(pen, (PAD + 2, 4), spaced(panel.title, 13), fill=INK, font=font(13))
    for cell in panel.cells:
        left, top, right, bottom = cell.box
        key = (replace(cell, box=(0, 0, right - left, bottom - top)), panel.text_size)
        patch = PATCHES.get(key)
        if patch is None:
            patch = PATCHES.put(key, _patch(*key))
        sheet.paste(patch, (left, top))
    return sheet


def _patch(cell: Cell, size: float) -> Image.Image:
    """A cell (its box at the top left) drawn on paper, as large as its box."""
    patch = Image.new("RGB", cell.box[2:], PAPER)
    _cell(ImageDraw.Draw(patch), cell, size)
    return patch


def _cell(pen: ImageDraw.ImageDraw, cell: Cell, size: float) -> None:
    """A cell: its frame, its lines of text (each at most as wide as the cell), its pieces in rows below."""
    left, top, right, bottom = cell.box
    if cell.outline is not None or cell.fill is not None:
        pen.rounded_rectangle((left, top, right - 1, bottom - 1), radius=4 if cell.outline else 0, fill=cell.fill,
                              outline=cell.outline, width=3 if cell.thick else 1)  # a shaded row: no notches
    inner = right - left - 2 * PAD
    line_height = round(size * 1.25)
    y = top + (3 if cell.lines else 1)
    for text, text_size in cell_lines(cell, size):
        x = {Align.LEFT: left + PAD, Align.RIGHT: right - PAD, Align.CENTRE: (left + right) / 2}[cell.align]
        anchor = {Align.LEFT: "la", Align.RIGHT: "ra", Align.CENTRE: "ma"}[cell.align]
        write(pen, (x, y), text, fill=INK, font=font(text_size), anchor=anchor)
        y += line_height
    y += 2 if cell.lines else 0
    for row in _rows(pen, cell.tokens, inner):
        width = row_width(pen, row)
        x = {Align.LEFT: left + PAD, Align.RIGHT: right - PAD - width,
             Align.CENTRE: (left + right - width) / 2}[cell.align]
        for token in row:
            draw_token(pen, token, x, y)
            x += token_width(pen, token) + TOKEN_GAP
        y += TOKEN_HEIGHT + TOKEN_GAP


def cell_lines(cell: Cell, size: float) -> list[tuple[str, float]]:
    """The cell's lines as drawn, each with the size of its text: wrapped at their spaces (``wrap``), made to fit
    (``fit``, the module docstring) or cut, each at most as wide as the cell inside."""
    pen = RULER
    left, top, right, bottom = cell.box
    width = right - left - 2 * PAD
    if cell.wrap:
        lines = [part for line in cell.lines for part in _label_lines(pen, line, int(width), size)]
    elif cell.fit:
        below = sum(TOKEN_HEIGHT + TOKEN_GAP for _ in _rows(pen, cell.tokens, width)) + 2 + 3
        room = max(len(cell.lines), int((bottom - top - below) // round(size * 1.25)))
        return _fit_lines(cell.lines, width, size, room)
    else:
        lines = [spaced(line, size) for line in cell.lines]
    return [(_fitted(pen, line, width, size), size) for line in lines]


def _fit_lines(lines: tuple[str, ...], width: float, size: float, room: int) -> list[tuple[str, float]]:
    """``lines`` made to fit ``width`` (the module docstring), in at most ``room`` lines."""
    done: list[tuple[str, float]] = []
    for index, line in enumerate(lines):
        spare = room - len(lines) - (len(done) - index)  # lines this one may take beyond its own
        done += _fit_line(line, width, size, spare > 0)
    return done


def _fit_line(line: str, width: float, size: float, two: bool) -> list[tuple[str, float]]:
    """One line made to fit ``width``: a step smaller, else over ``two`` lines, else shortened, else cut."""
    def fits(text: str, at: float) -> bool:
        return _width(spaced(text, at), at) <= width

    steps = [size - STEP * k for k in range(int((size - SMALLEST) / STEP) + 1)] or [size]
    at = next((at for at in steps if fits(line, at)), None)
    if at is not None:
        return [(spaced(line, at), at)]
    words = line.split()
    halves = sorted(range(1, len(words)), key=lambda k: abs(len(" ".join(words[:k])) * 2 - len(line)))
    for at in steps if two else ():
        for split in halves:  # the most even split first
            top, rest = " ".join(words[:split]), " ".join(words[split:])
            if fits(top, at) and fits(rest, at):
                return [(spaced(top, at), at), (spaced(rest, at), at)]
    short = shortened(line, lambda text: fits(text, SMALLEST))
    if short is not None:
        return [(spaced(short, SMALLEST), SMALLEST)]
    return [(_fitted(RULER, spaced(line, SMALLEST), width, SMALLEST), SMALLEST)]


def _width(text: str, size: float) -> float:
    return RULER.textlength(text, font=font(size))


def _fitted(pen: ImageDraw.ImageDraw, text: str, width: float, size: float) -> str:
    """``text`` cut to ``width`` pixels, ending in "~" when cut (a long player's name in a narrow column)."""
    if pen.textlength(text, font=font(size)) <= width:
        return text
    while text and pen.textlength(text + "~", font=font(size)) > width:
        text = text[:-1]
    return text.rstrip() + "~"
