"""Each template is compiled once for every language, and a daemon compiles them all when it starts.

Every language's environment compiles the same template to the same code:
the words are looked up when a mail is written. ``pbem.render.env.SharedCode``
keeps that code for all of them; ``warm_up`` (``pbem run``, ``pbem lmtp``
start it) compiles every template before the first orders need one.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from jinja2 import Environment

from pbem.languages import Language
from pbem.render import env as render_env
from pbem.render.env import environment, render, warm_up

TEMPLATE = "core/board_unchanged.j2"


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Fresh environments and shared code; the names of the templates compiled from then on, one per compile."""
    names: list[str] = []
    original = Environment.compile

    def counting(self: Environment, source: Any, name: str | None = None, *args: Any, **kwargs: Any) -> Any:
        names.append(str(name))
        return original(self, source, name, *args, **kwargs)

    monkeypatch.setattr(Environment, "compile", counting)
    monkeypatch.setattr(render_env, "_SHARED_CODE", render_env.SharedCode())
    render_env._environment.cache_clear()
    yield names
    render_env._environment.cache_clear()  # the next tests get environments with the module's shared code


def test_a_template_compiled_for_one_language_is_not_compiled_again_for_another(compiled: list[str]) -> None:
    for language in Language:
        environment(language).get_template(TEMPLATE)
    assert compiled == [TEMPLATE]


def test_the_shared_code_still_speaks_each_environments_language(compiled: list[str]) -> None:
    english = environment(Language.EN).get_template(TEMPLATE).render(move=3)
    russian = environment(Language.RU).get_template(TEMPLATE).render(move=3)
    assert "The board has not changed" in english
    assert "The board has not changed" not in russian and "3" in russian


def test_warm_up_compiles_every_template_once_for_all_languages(compiled: list[str]) -> None:
    count = warm_up()
    assert count == len(compiled) == len(set(compiled)) > 50
    render("core/brief_mail.j2")
    assert len(compiled) == count  # nothing is compiled when a mail is written afterwards
