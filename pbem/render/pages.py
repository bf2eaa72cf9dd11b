"""Web pages from templates: the mail's templates and catalogues, but HTML-escaped.

The mail environment (``pbem.render.env``) writes plain text and escapes
nothing: a mail's text is no markup. A page is markup, and a player's name,
a game's name, a narrated sentence are text that must never become markup:
so pages get an environment of their own with autoescape on for every
template, whatever its name (a name like ``<script>`` or a game called
``a"b`` is shown as written). What the game's kind returns (narration,
the board's text) is plain text too and is escaped like any value.

One environment per language, with the same compiled catalogues as the mail
(``pbem.render.env.translations``), so a page reads in the game's language
(``pbem.languages.speaking``) like its observers' mail.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from pbem.languages import SOURCE, Language, spoken
from pbem.render.env import TEMPLATE_PACKAGE, translations


def page_environment(language: Language | None = None) -> Environment:
    """The page environment of ``language``, by default the language being written."""
    return _page_environment(spoken() if language is None else language)


@lru_cache(maxsize=len(Language))
def _page_environment(language: Language) -> Environment:
    env = Environment(
        loader=PackageLoader(TEMPLATE_PACKAGE, "."),
        autoescape=True,  # every value is text, never markup (see the module docstring)
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
        extensions=["jinja2.ext.i18n"],
    )
    if language is SOURCE:
        env.install_null_translations(newstyle=True)  # type: ignore[attr-defined]  # added by the i18n extension
    else:
        env.install_gettext_translations(  # type: ignore[attr-defined]  # added by the i18n extension
            translations(language), newstyle=True)
    return env


def render_page(template: str, **context: Any) -> str:
    """``template`` as a page in the language being written."""
    return page_environment().get_template(template).render(**context)


def static_text(name: str) -> str:
    """A file of the templates package as it stands (the pages' style sheet): no template, no words."""
    env = page_environment(SOURCE)
    assert env.loader is not None
    source, _, _ = env.loader.get_source(env, name)
    return source
