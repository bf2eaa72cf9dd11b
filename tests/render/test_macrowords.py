"""A macro's words kept (``pbem.render.macrowords``): the same words as the macro says, per language and
catalogue, plain values only, and a bounded memory."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pbem.languages import Language, speaking
from pbem.render import macrowords
from pbem.render.env import environment
from pbem.render.macrowords import _frozen, _Unkept, macro_words

WORDS = "imperial2030/_view_words.j2"
SAID: list[tuple[str, dict[str, Any]]] = [("role", {"role": "investor_card"}), ("round", {"round": 3}),
        ("further_space", {"costs": [("RU", 2), ("CN", 3)]}), ("off_rondel", {"off": []})]


@pytest.fixture(autouse=True)
def forgotten() -> Iterator[None]:
    macrowords.forget()
    yield
    macrowords.forget()


def said_anew(macro: str, values: dict[str, Any]) -> str:
    return str(getattr(environment().get_template(WORDS).module, macro)(**values))


@pytest.mark.parametrize("language", list(Language), ids=lambda language: language.value)
def test_the_words_kept_are_the_words_the_macro_says(language: Language) -> None:
    with speaking(language):
        for macro, values in SAID:
            first = macro_words(WORDS, macro, values)
            assert first == said_anew(macro, values)
            assert macro_words(WORDS, macro, values) is first  # kept, not said again


def test_each_language_keeps_its_own_words() -> None:
    english = macro_words(WORDS, "role", {"role": "swiss_bank"})
    with speaking(Language.RU):
        russian = macro_words(WORDS, "role", {"role": "swiss_bank"})
    assert english == "Swiss bank" and russian != english
    assert macro_words(WORDS, "role", {"role": "swiss_bank"}) == english


def test_a_catalogue_installed_with_its_templates_made_afresh_is_heard() -> None:
    """As the games' marking catalogue is installed (tests/games/conftest.py): the template cache cleared."""
    plain = macro_words(WORDS, "role", {"role": "swiss_bank"})
    env = environment()
    saved = dict(env.globals)
    env.cache.clear()  # type: ignore[union-attr]
    env.install_gettext_callables(lambda text: f"<{text}>", lambda one, many, n: many,  # type: ignore[attr-defined]
                                  newstyle=True)
    try:
        assert macro_words(WORDS, "role", {"role": "swiss_bank"}) == "<Swiss bank>"
    finally:
        env.globals.clear()
        env.globals.update(saved)
        env.cache.clear()  # type: ignore[union-attr]
    assert macro_words(WORDS, "role", {"role": "swiss_bank"}) == plain


def test_values_that_read_differently_are_kept_apart() -> None:
    assert _frozen([1, "a"]) != _frozen((1, "a"))  # "[1, 'a']" and "(1, 'a')"
    assert _frozen(True) != _frozen(1) and _frozen(False) != _frozen(0)  # "True" and "1"
    assert _frozen((None, [True], "x")) == _frozen((None, [True], "x"))


@pytest.mark.parametrize("value", [lambda: "x", 1.5, Language.RU, {"a": 1}, ("a", object())])
def test_a_value_that_is_not_plain_data_is_never_kept(value: object) -> None:
    with pytest.raises(_Unkept):
        _frozen(value)
    said = macro_words(WORDS, "round", {"round": value})
    assert said == said_anew("round", {"round": value})
    assert not macrowords._kept


def test_the_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(macrowords, "KEPT", 5)
    for number in range(12):
        macro_words(WORDS, "round", {"round": number})
    assert len(macrowords._kept) == 5
    kept: list[Any] = list(macrowords._kept)
    assert [key[2][1] for key in kept] == list(range(7, 12))  # the least recently used went first
