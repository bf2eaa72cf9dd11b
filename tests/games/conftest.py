"""Fixtures of the games' tests: ``marking``, the bracketing catalogue (tests/games/marking.py) installed in
the mail environment for one test."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from pbem.render.env import environment
from tests.games.marking import bracket


@pytest.fixture
def marking() -> Iterator[None]:
    """The mail environment with a catalogue that brackets every text it translates, for the test's length only."""
    env = environment()
    saved = dict(env.globals)
    env.cache.clear()  # type: ignore[union-attr]  # templates (and their imported macros) made afresh
    env.install_gettext_callables(  # type: ignore[attr-defined]  # added by the i18n extension
        bracket, lambda one, many, n: bracket(one if n == 1 else many), newstyle=True,
        pgettext=lambda context, text: bracket(text),
        npgettext=lambda context, one, many, n: bracket(one if n == 1 else many))
    try:
        yield
    finally:
        env.globals.clear()
        env.globals.update(saved)
        env.cache.clear()  # type: ignore[union-attr]
