"""The templates' gettext functions say exactly what Jinja's own newstyle ones say, in every language.

``pbem.render.env`` calls the catalogue directly instead of through Jinja's
three ``Context.call`` layers; the words, the ``%`` formatting (``%%`` is
one ``%``, even without values), ``num`` and ``context`` must not change.
"""
from __future__ import annotations

from gettext import NullTranslations as GNUNull

import pytest
from jinja2 import Environment

from pbem.languages import SOURCE, Language
from pbem.render import env as render_env
from pbem.render.env import environment, translations

SAYINGS = [
    '{{ _("BOARD") }}',
    '{{ _("100%% sure") }}',
    '{{ _("%(new)s takes over seat %(seat)s from %(old)s.", new="Ann", seat="red", old="Bob") }}',
    '{{ ngettext("... and %(num)s more line", "... and %(num)s more lines", 1) }}',
    '{{ ngettext("... and %(num)s more line", "... and %(num)s more lines", 5) }}',
    '{{ pgettext("card action", "water") }}',
    '{{ npgettext("card action", "water", "waters", 2) }}',
    '{% trans count=3 %}{{ count }} move{% pluralize %}{{ count }} moves{% endtrans %}',
    '{% trans who="Ann" %}{{ who }} wins{% endtrans %}',
]


def jinjas_own(language: Language) -> Environment:
    """An environment like ours, with the gettext functions Jinja installs itself."""
    env = Environment(extensions=["jinja2.ext.i18n"], trim_blocks=True, lstrip_blocks=True)
    if language is SOURCE:
        env.install_null_translations(newstyle=True)  # type: ignore[attr-defined]  # added by the i18n extension
    else:
        env.install_gettext_translations(translations(language), newstyle=True)  # type: ignore[attr-defined]  # as above
    return env


@pytest.mark.parametrize("language", list(Language), ids=lambda language: language.value)
def test_every_saying_reads_as_with_jinjas_own_gettext(language: Language) -> None:
    ours, theirs = environment(language), jinjas_own(language)
    for saying in SAYINGS:
        assert ours.from_string(saying).render() == theirs.from_string(saying).render(), saying


def test_a_translated_catalogue_is_really_asked() -> None:
    said = environment(Language.RU).from_string('{{ pgettext("card action", "water") }}').render()
    assert said == "Великий поход"


def test_the_source_language_says_the_words_as_written() -> None:
    said = environment(SOURCE).from_string('{{ _("%(n)s%% of %(what)s", n=5, what="it") }}').render()
    assert said == "5% of it"


def test_underscore_says_what_a_gettext_installed_later_says() -> None:
    """``_`` looks ``gettext`` up when called, as Jinja's alias does (the marking catalogue of
    tests/games/conftest.py is installed so, and must reach every ``_()``)."""
    env = Environment(extensions=["jinja2.ext.i18n"])
    render_env._install_words(env, GNUNull())
    env.install_gettext_callables(lambda text: f"<{text}>", lambda one, many, n: many,  # type: ignore[attr-defined]  # added by the i18n extension
                                  newstyle=True)
    assert env.from_string('{{ _("BOARD %(n)s", n=2) }}').render() == "<BOARD 2>"
