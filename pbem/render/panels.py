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
"""
from __future__ import annotations

from dataclasses import replace

from PIL import Image, ImageDraw

from pbem.render.boundedcache import Remembered
from pbem.render.measure import (
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

FRAME = (175, 165, 145)  # the panel's frame: quieter than a place's outline
TITLE_ROWS = 18  # pixels at the top of a panel for its title
PAD = 5  # pixels inside a cell before its text

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
    for text in _lines(pen, cell, inner, size):
        x = {Align.LEFT: left + PAD, Align.RIGHT: right - PAD, Align.CENTRE: (left + right) / 2}[cell.align]
        anchor = {Align.LEFT: "la", Align.RIGHT: "ra", Align.CENTRE: "ma"}[cell.align]
        write(pen, (x, y), text, fill=INK, font=font(size), anchor=anchor)
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


def _lines(pen: ImageDraw.ImageDraw, cell: Cell, width: float, size: float) -> list[str]:
    """The cell's lines as drawn: wrapped at their spaces (``wrap``) or cut, each at most ``width`` wide."""
    if cell.wrap:
        lines = [part for line in cell.lines for part in _label_lines(pen, line, int(width), size)]
    else:
        lines = [spaced(line, size) for line in cell.lines]
    return [_fitted(pen, line, width, size) for line in lines]


def _fitted(pen: ImageDraw.ImageDraw, text: str, width: float, size: float) -> str:
    """``text`` cut to ``width`` pixels, ending in "~" when cut (a long player's name in a narrow column)."""
    if pen.textlength(text, font=font(size)) <= width:
        return text
    while text and pen.textlength(text + "~", font=font(size)) > width:
        text = text[:-1]
    return text.rstrip() + "~"
