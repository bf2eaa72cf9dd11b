"""The rondel's words fit their boxes in the picture, in every language (issue 30).

A rondel space's name is all its box says: cut ("Налогообложени~") it is
lost. Each label is measured as the picture draws it (``pbem.render.panels``,
with the font ``pbem.render.measure`` picks for the language): every line
within its box, none cut, the lines leaving room in its height for a row of markers.
"""
from __future__ import annotations

import os

import pytest

from engine.core.seats import Seat
from pbem.games import kind_of
from pbem.games.imperial2030.picture import picture
from pbem.games.kind import SetupChoices
from pbem.languages import Language, speaking
from pbem.render.measure import RULER, TOKEN_GAP, TOKEN_HEIGHT, font, writes
from pbem.render.panels import PAD, cell_lines
from pbem.render.scene import Cell, Panel, Token

KIND = kind_of("imperial2030")
SEATS = (Seat("ann"), Seat("bob"), Seat("cy"))


def rondel(language: Language, on_rondel: bool) -> tuple[Panel, float]:
    """The rondel panel of a new game (nobody on it yet, or a marker on each space), and its text size."""
    state, _ = KIND.new_game(KIND.make_setup(SetupChoices(SEATS, seed=3)))
    if on_rondel:
        spaces = [space.id for space in state.board.tables.rondel]
        for index, nation in enumerate(state.board.nation_ids):
            state.nations[nation].rondel = spaces[index % len(spaces)]
    with speaking(language):
        scene = picture(state, game="g")
    panel = scene.panels[0]
    return panel, panel.text_size


def fits(cell: Cell, size: float) -> list[str]:
    """What of the cell's words does not fit its box (empty when all do)."""
    left, top, right, bottom = cell.box
    lines = cell_lines(cell, size)
    problems = [f"{text!r} is {RULER.textlength(text, font=font(at)):.0f} px, wider than {right - left - 2 * PAD}"
                for text, at in lines if RULER.textlength(text, font=font(at)) > right - left - 2 * PAD]
    problems += [f"{text!r} is cut" for text, _ in lines if text.endswith("~")]
    rows = 1 if cell.tokens else 0  # the lines leave room for a row of markers at least
    height = 3 + len(lines) * round(size * 1.25) + 2 + rows * (TOKEN_HEIGHT + TOKEN_GAP)
    if height > bottom - top:
        problems.append(f"{[text for text, _ in lines]} and the markers need {height} px, the box has {bottom - top}")
    return problems


@pytest.mark.parametrize("on_rondel", [False, True])
@pytest.mark.parametrize("language", list(Language))
def test_issue30_every_rondel_label_fits_its_box_in_every_language(language: Language, on_rondel: bool) -> None:
    if not writes(language) and os.environ.get("CI") != "true":
        pytest.skip(f"no system font with {language.value} letters here (Debian: fonts-dejavu-core)")
    panel, size = rondel(language, on_rondel)
    with speaking(language):
        problems = [problem for cell in panel.cells for problem in fits(cell, size)]
    assert problems == []


def test_a_long_label_is_written_a_step_smaller_not_cut() -> None:
    cell = Cell((0, 0, 112, 61), ("Налогообложение",), (Token("RU", (0, 0, 0)),), fit=True)
    with speaking(Language.RU):
        ((text, size),) = cell_lines(cell, 12)
    assert text == "Налогообложение" and size < 12


def test_a_label_that_fits_keeps_its_size() -> None:
    cell = Cell((0, 0, 112, 61), ("Taxation",), fit=True)
    assert cell_lines(cell, 12) == [("Taxation", 12)]


def test_a_label_too_long_for_a_smaller_step_goes_over_two_lines_where_the_box_has_room() -> None:
    cell = Cell((0, 0, 112, 61), ("turns clockwise round the rondel",), fit=True)
    lines = cell_lines(cell, 12)
    assert len(lines) == 2 and " ".join(text.split()[0] for text, _ in lines).startswith("turns")
