"""The board picture in the seat's language (issue 30): its words translated, its letters in a font that has them.

Pillow's own font writes English only; a picture in another language is drawn
with a system font that has its letters (``pbem.render.measure.font_file``),
else in English. The picture's memories (places, panels, whole pictures) keep
each language's drawings apart: an English picture is the same bytes whatever
was drawn before it in Polish.
"""
from __future__ import annotations

import os

import pytest

from engine.core.seats import Seat
from pbem.games import kind_of
from pbem.games.kind import SetupChoices
from pbem.languages import Language, speaking
from pbem.moderator.notify.pictures import board_picture
from pbem.render.measure import LETTERS, font, writes

KIND = kind_of("imperial2030")


def start() -> object:
    state, _ = KIND.new_game(KIND.make_setup(SetupChoices((Seat("ann"), Seat("bob"), Seat("cy")), seed=3)))
    return state


def needs_a_font(language: Language) -> None:
    if not writes(language) and os.environ.get("CI") != "true":
        pytest.skip(f"no system font with {language.value} letters here (Debian: fonts-dejavu-core)")


def test_issue30_an_english_picture_is_the_same_bytes_after_a_polish_one_was_drawn() -> None:
    state = start()
    first = board_picture(KIND, "g", state)
    with speaking(Language.PL):
        polish = board_picture(KIND, "g", state)
    again = board_picture(KIND, "g", state)
    assert first is not None and polish is not None and again is not None
    assert again[0] == first[0] and polish[0] != first[0]


@pytest.mark.parametrize("language", [Language.RU, Language.PL, Language.ES, Language.IT])
def test_issue30_a_picture_in_another_language_is_drawn_with_a_font_that_has_its_letters(language: Language) -> None:
    needs_a_font(language)
    with speaking(language):
        chosen = font(12)
        missing = bytes(chosen.getmask("\uffff"))
        assert all(bytes(chosen.getmask(letter)) != missing for letter in LETTERS[language])
        drawn = board_picture(KIND, "g", start())
    assert drawn is not None and drawn[1] != board_picture(KIND, "g", start())[1]  # the alt text translated
