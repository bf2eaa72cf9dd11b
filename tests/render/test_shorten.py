"""A name shortened to fit a board's space, as maps shorten names (``pbem.render.shorten``)."""
from __future__ import annotations

from collections.abc import Callable

from pbem.render.shorten import shortened


def columns(width: int) -> Callable[[str], bool]:
    return lambda text: len(text) <= width


def test_a_name_that_fits_is_itself() -> None:
    assert shortened("АФРИКА", columns(6)) == "АФРИКА"


def test_a_word_is_cut_after_a_consonant_and_marked_with_a_full_stop() -> None:
    assert shortened("ВОСТОЧНАЯ АФРИКА", columns(13)) == "ВОСТ. АФРИКА"  # not ВОСТО.


def test_the_first_words_are_cut_before_the_last() -> None:
    assert shortened("Afryka Wschodnia", columns(15)) == "Afr. Wschodnia"


def test_the_first_of_two_words_may_come_down_to_its_initial() -> None:
    assert shortened("НОВАЯ ЗЕЛАНДИЯ", columns(11)) == "Н. ЗЕЛАНДИЯ"


def test_a_single_word_keeps_at_least_three_letters() -> None:
    assert shortened("ЯПОНСКОЕ", columns(7)) == "ЯПОНСК."
    assert shortened("ЯПОНСКОЕ", columns(3)) is None


def test_a_name_of_many_words_is_not_made_a_riddle_of_initials() -> None:
    assert shortened("СЕВЕРНАЯ ЧАСТЬ ТИХОГО ОКЕАНА", columns(15)) is None


def test_the_measure_is_the_callers() -> None:
    assert shortened("Mediterraneo", lambda text: text.count("e") <= 1) == "Medit."
