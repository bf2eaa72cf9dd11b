"""The ASCII world board in the seat's language (issue 30): its captions and two-line names too.

Besides the regions' labels, the art writes ``Panama canal ->`` (pointing at
Colombia), ``(Suez)`` in North Africa, and four seas over two lines
(``NORTH`` / ``ATLANTIC``, ``GULF OF`` / ``GUINEA``, ``SEA OF`` / ``JAPAN``).
In another language they read in its words, shortened as maps shorten names
where the art has no room, and the drawing keeps its shape: every border
where the English has it, every line at most 78 characters.
"""
from __future__ import annotations

import pytest

from engine.imperial2030.model import GameState
from pbem.games.imperial2030.mails import render_board
from pbem.games.imperial2030.orders.lexicon import lexicon
from pbem.languages import SOURCE, Language, speaking
from tests.imperialpositions import busy

OTHERS = [language for language in Language if language is not SOURCE]
FRAME = "|+="  # a cell's walls and corners, and the Bosporus; a hyphen may be a name's


def panel_lines(language: Language) -> list[str]:
    """The art's lines of the three panels of a crowded board (no banner, titles, notes or legend)."""
    with speaking(language):
        text = render_board(_crowded(), game="g")
    lines: list[str] = []
    inside = False
    for line in text.splitlines():
        if line.startswith("-- "):
            inside = True
        elif not line.strip():
            inside = False
        elif inside:
            lines.append(line)
    return lines


@pytest.mark.parametrize("language", OTHERS)
def test_issue30_the_panama_caption_reads_in_the_language_and_still_points_at_colombia(language: Language) -> None:
    lex = lexicon(language)
    assert lex is not None
    english = next(line for line in panel_lines(SOURCE) if "Panama canal ->|" in line)
    local = next(line for line in panel_lines(language) if " ->|" in line)
    assert "Panama canal" not in local and lex.captions["Panama canal"] in local
    assert local.index(" ->|") == english.index(" ->|")


@pytest.mark.parametrize("language", OTHERS)
def test_issue30_the_suez_caption_names_the_canal_in_the_language(language: Language) -> None:
    lex = lexicon(language)
    assert lex is not None
    assert any(f"({lex.canals['Suez']})" in line for line in panel_lines(language))


@pytest.mark.parametrize("language", OTHERS)
@pytest.mark.parametrize("words", [("NORTH", "ATLANTIC"), ("SOUTH", "ATLANTIC"), ("GULF OF", "GUINEA"),
                                   ("SEA OF", "JAPAN")])
def test_issue30_a_sea_named_over_two_lines_reads_in_the_language(language: Language,
                                                                  words: tuple[str, str]) -> None:
    lines = panel_lines(language)
    for top, bottom in zip(lines, lines[1:], strict=False):
        column = top.find(words[0])
        assert column < 0 or bottom.find(words[1]) != column, (top, bottom)


@pytest.mark.parametrize("language", OTHERS)
def test_issue30_the_board_keeps_the_arts_shape_in_every_language(language: Language) -> None:
    english, local = panel_lines(SOURCE), panel_lines(language)
    assert len(local) == len(english)
    for before, after in zip(english, local, strict=True):
        assert len(after) <= 78
        assert [i for i, c in enumerate(before) if c in FRAME] == [i for i, c in enumerate(after) if c in FRAME], \
            (before, after)


def test_issue30_a_long_name_is_shortened_as_maps_do_rather_than_left_in_english() -> None:
    lines = panel_lines(Language.RU)
    assert any("| ВОСТ. АФРИКА  |" in line for line in lines)
    assert any("| Н. ЗЕЛАНДИЯ |" in line for line in lines)
    assert not any("EAST AFRICA" in line or "NEW ZEALAND" in line or "NEAR EAST" in line for line in lines)


def test_issue30_a_sea_too_long_even_shortened_takes_the_boards_own_short_form() -> None:
    lines = panel_lines(Language.RU)  # "Северная часть Тихого океана": four words, no cut fits 15 columns
    assert any(line.startswith(" СЕВ. ТИХИЙ ОК.  |") for line in lines)
    assert not any("PACIFIC" in line for line in lines)


def test_issue30_the_note_on_a_crowded_region_names_it_in_the_language() -> None:
    with speaking(Language.RU):
        text = render_board(_crowded(), game="g")
    assert "UKR (Украина):" in text and "(ukraine)" not in text


def test_the_note_on_a_crowded_region_names_its_id_in_english() -> None:
    assert "UKR (ukraine):" in render_board(_crowded(), game="g")


def _crowded() -> GameState:
    """A busy board whose Ukraine has more pieces than its slots: a note below the panels names it."""
    state = busy()
    state.nations["china"].armies["ukraine"] = 3
    state.nations["india"].armies["ukraine"] = 1
    return state
