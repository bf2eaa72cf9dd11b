"""The Jinja2 environment: templates from the top-level ``templates`` package, text filters.

Templates only format: they get view models (a game's ``views``, e.g. ``pbem.games.imperial2030.viewmodels``) and lay
them out with the filters below. ``render`` passes the result through
``text.finish`` (ASCII, at most 78 columns) unless ``strict`` asks to be told
about any line the templates got wrong instead.

One environment per language (:func:`environment`): the same templates with
the gettext functions of that language's catalogue (``pbem/locale``, Babel's
compiled ``.mo``; CLDR plural rules in each catalogue's header). ``render``
takes the language being written (``pbem.languages.spoken``), which the
composer sets for each seat's mail.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from babel.support import Translations
from jinja2 import Environment, PackageLoader, StrictUndefined

from pbem.languages import SOURCE, Language, spoken
from pbem.render.text import (
    MAX_WIDTH,
    bullet,
    clip,
    finish,
    pair,
    plain,
    problems,
    wrap,
)

TEMPLATE_PACKAGE = "templates"
LOCALE_DIR = Path(__file__).resolve().parents[1] / "locale"  # pbem/locale/<code>/LC_MESSAGES/pbem.mo
DOMAIN = "pbem"


class RenderError(ValueError):
    """A template produced text that is not fit for mail (strict rendering only)."""


def _ljust(value: Any, width: int) -> str:
    return str(value).ljust(width)


def _rjust(value: Any, width: int) -> str:
    return str(value).rjust(width)


def _rule(char: str = "=", width: int = MAX_WIDTH) -> str:
    return char * width


def _heading(text: str, char: str = "-") -> str:
    text = plain(text)
    return f"{text}\n{char * min(len(text), MAX_WIDTH)}"


class CatalogueMissing(RuntimeError):
    """A language's compiled catalogue is not in the package (an install without ``pbem/locale``)."""


def translations(language: Language) -> Translations:
    """``language``'s compiled catalogue; never a silent English stand-in (see :class:`CatalogueMissing`)."""
    path = LOCALE_DIR / language.value / "LC_MESSAGES" / f"{DOMAIN}.mo"
    if not path.is_file():
        raise CatalogueMissing(f"no catalogue for {language.value}: {path} is missing")
    with path.open("rb") as compiled:
        return Translations(compiled, domain=DOMAIN)


def environment(language: Language | None = None) -> Environment:
    """The environment of ``language``, by default the language being written (``pbem.languages.spoken``)."""
    return _environment(spoken() if language is None else language)


@lru_cache(maxsize=len(Language))
def _environment(language: Language) -> Environment:
    env = Environment(
        loader=PackageLoader(TEMPLATE_PACKAGE, "."),
        autoescape=False,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,  # templates ship with the code: no file checked for changes at each mail's render
        # {% trans %} / _() mark what a translation catalogue extracts (pybabel extract); until a seat's
        # language is chosen the null translations give the English text unchanged
        extensions=["jinja2.ext.i18n"],
    )
    if language is SOURCE:
        env.install_null_translations(newstyle=True)  # type: ignore[attr-defined]  # added by the i18n extension
    else:
        env.install_gettext_translations(  # type: ignore[attr-defined]  # added by the i18n extension
            translations(language), newstyle=True)
    env.filters.update(
        wrap=wrap,
        bullet=bullet,
        ljust=_ljust,
        rjust=_rjust,
        clip=clip,
        heading=_heading,
        ascii=plain,
        pair=pair,
    )
    env.globals.update(rule=_rule, width=MAX_WIDTH)
    return env


def render(template: str, *, strict: bool = False, **context: Any) -> str:
    """Render ``template`` with ``context``; the text is fit for mail (see the module doc)."""
    raw = environment().get_template(template).render(**context)
    if strict:
        found = problems(raw.rstrip("\n") + "\n")
        if found:
            raise RenderError(f"{template}: " + "; ".join(found[:5]))
    return finish(raw)


def render_phrase(template: str, **context: Any) -> str:
    """A text that is no mail body (a subject, a picture's alternative text): one line, as long as it needs,
    not wrapped to the mail's width; the template's own line breaks and outer blanks are left out."""
    return " ".join(line.strip() for line in environment().get_template(template).render(**context).splitlines()
                    if line.strip())
