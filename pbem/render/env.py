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

Every language's environment compiles the same templates to the same code
(the words are looked up when the text is written, not when it is compiled):
the code is compiled once and shared (:class:`SharedCode`), and a daemon
compiles every template when it starts (:func:`warm_up`), not while the
first orders wait for it.
"""
from __future__ import annotations

import threading
from collections.abc import Iterable, MutableMapping
from functools import lru_cache
from gettext import NullTranslations
from pathlib import Path
from typing import Any

from babel.support import Translations
from jinja2 import BytecodeCache, Environment, PackageLoader, StrictUndefined, pass_environment
from jinja2.bccache import Bucket
from jinja2.runtime import new_context

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


def _replace_each(text: Any, pairs: Iterable[tuple[str, str]]) -> str:
    """``text`` with each ``(old, new)`` of ``pairs`` replaced in turn, as a chain of ``replace`` filters does.

    Why: the rondel's art (``imperial2030/_rondel.j2``) relabels each of its lines with the six spaces' names
    and its caption in the mail's language; eight ``replace`` filters and a namespace for every line cost
    the template some 250 microseconds a rondel, this one call a line a tenth of it.
    """
    said = str(text)
    for old, new in pairs:
        said = said.replace(old, new)
    return said


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


class SharedCode(BytecodeCache):
    """The compiled code of every template, kept in memory for every language's environment.

    Why: compiling a template takes milliseconds (all of them, about 0.7 s
    of a core), and each language's environment compiled its own copy of
    the same code the first time a seat of that language got a mail. Jinja
    checks each bucket against the template's source, as it does on disk.
    """

    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        code = self._code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._code[bucket.key] = bucket.bytecode_to_string()  # one item set: safe between threads


_SHARED_CODE = SharedCode()


def warm_up() -> int:
    """Compile every template for every language now (see the module docstring); how many templates.

    Why: a daemon's first orders otherwise each wait while the templates of
    their mail compile, some 100 ms of a core for a move's report, more for
    each template met later. ``pbem run`` and ``pbem lmtp`` call it in a
    thread of its own at start (:func:`warm_up_soon`).
    """
    names = environment(SOURCE).list_templates(filter_func=lambda name: name.endswith(".j2"))
    for language in Language:
        env = environment(language)
        for name in names:
            env.get_template(name)
    return len(names)


def warm_up_soon() -> threading.Thread:
    """:func:`warm_up` in a thread of its own (a daemon thread: it never holds up a stop), started."""
    thread = threading.Thread(target=warm_up, name="pbem-templates-warm", daemon=True)
    thread.start()
    return thread


def environment(language: Language | None = None) -> Environment:
    """The environment of ``language``, by default the language being written (``pbem.languages.spoken``)."""
    return _environment(spoken() if language is None else language)


class MailEnvironment(Environment):
    """Jinja's environment, whose templates read its globals themselves, not through a ``ChainMap``.

    Why: Jinja gives each template its globals as a ``ChainMap`` over the environment's, in case a template
    is given globals of its own (``get_template(name, globals=...)``), which no mail's template is. A
    ``ChainMap`` is read in Python, key by key: each render copies it into the render's variables and each
    ``{% import %}`` compares its keys with the importer's, some 10 microseconds each, a dozen times a move.
    The environment's own dictionary gives the same names and values, and a global installed later (a
    test's catalogue) is still seen. A template given globals of its own still gets Jinja's ``ChainMap``.
    """

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        return self.globals if not d else super().make_globals(d)


@lru_cache(maxsize=len(Language))
def _environment(language: Language) -> Environment:
    env = MailEnvironment(
        loader=PackageLoader(TEMPLATE_PACKAGE, "."),
        autoescape=False,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,  # templates ship with the code: no file checked for changes at each mail's render
        bytecode_cache=_SHARED_CODE,  # compiled once for every language (SharedCode)
        # {% trans %} / _() mark what a translation catalogue extracts (pybabel extract); until a seat's
        # language is chosen the null translations give the English text unchanged
        extensions=["jinja2.ext.i18n"],
    )
    _install_words(env, NullTranslations() if language is SOURCE else translations(language))  # as Jinja's would
    env.filters.update(
        wrap=wrap,
        bullet=bullet,
        ljust=_ljust,
        rjust=_rjust,
        clip=clip,
        heading=_heading,
        ascii=plain,
        pair=pair,
        replace_each=_replace_each,
    )
    env.globals.update(rule=_rule, width=MAX_WIDTH)
    return env


def _install_words(env: Environment, catalogue: NullTranslations) -> None:
    """The gettext functions of ``catalogue`` in ``env``: Jinja's newstyle gettext, called directly.

    Jinja's own (``install_gettext_translations(newstyle=True)``) pass the
    template's context down three calls deep (``_`` to ``gettext`` to the
    catalogue, each through ``Context.call``) to learn whether to autoescape,
    which these environments never do; a move's mails say some 150 words
    that way. These do what Jinja's do without autoescaping: the translation,
    then ``%`` with the named values (always, as Jinja does: ``%%`` is one
    ``%``), ``num`` and ``context`` given as Jinja gives them. ``_`` still
    looks ``gettext`` up when it is called, as Jinja's alias does.
    """
    # the catalogue's functions Jinja would pick (``InternationalizationExtension._install``)
    lookup = getattr(catalogue, "ugettext", None) or catalogue.gettext
    plural = getattr(catalogue, "ungettext", None) or catalogue.ngettext
    in_context, plural_in_context = catalogue.pgettext, catalogue.npgettext
    env.install_gettext_callables(  # type: ignore[attr-defined]  # added by the i18n extension: newstyle set
        lookup, plural, newstyle=True, pgettext=in_context, npgettext=plural_in_context)

    def gettext(__string: str, **variables: Any) -> str:
        return lookup(__string) % variables

    def ngettext(__singular: str, __plural: str, __num: int, **variables: Any) -> str:
        variables.setdefault("num", __num)
        return plural(__singular, __plural, __num) % variables

    def pgettext(__string_ctx: str, __string: str, **variables: Any) -> str:
        variables.setdefault("context", __string_ctx)
        return in_context(__string_ctx, __string) % variables

    def npgettext(__string_ctx: str, __singular: str, __plural: str, __num: int, **variables: Any) -> str:
        variables.setdefault("context", __string_ctx)
        variables.setdefault("num", __num)
        return plural_in_context(__string_ctx, __singular, __plural,
                                 __num) % variables

    @pass_environment
    def alias(environment: Environment, *args: Any, **kwargs: Any) -> Any:
        """``_``: the ``gettext`` the template's environment holds when it is called, as Jinja's alias finds it
        in the template's context, which reads the environment's globals (another may have been installed
        since, a test's marking catalogue, or ``_`` copied to another environment: it is called as Jinja calls
        it, in a context of its own); ours is called directly.

        Why given the environment (``pass_environment``), not the template's context as Jinja's is: Jinja
        gives a function that takes the context, called in a loop that sets a variable, a context of its own
        made for the call (``Context.derived``, some 3 microseconds), and a move's mails say some 20 words so
        (a report's players).
        """
        found: Any = environment.globals["gettext"]  # whichever gettext is installed now
        if found is gettext:
            return gettext(*args, **kwargs)
        return new_context(environment, None, {}, globals=environment.globals).call(found, *args, **kwargs)

    env.globals.update(_=alias, gettext=gettext, ngettext=ngettext, pgettext=pgettext, npgettext=npgettext)


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
