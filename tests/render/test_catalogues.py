"""The translation catalogues (issue 30): current with the templates, complete, and shipped compiled.

Every sentence a player reads is in a template, marked for translation
(``_()``, ``ngettext``); ``pbem/locale/pbem.pot`` is what Babel extracts from
them, each language's ``.po`` its translation, the ``.mo`` beside it the
compiled catalogue the moderator loads. A template changed without running
the three commands of docs/translating.md fails here, naming them.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from pbem.languages import SOURCE, Language, speaking
from pbem.render.env import LOCALE_DIR, environment

ROOT = Path(__file__).resolve().parents[2]
TRANSLATED = [language for language in Language if language is not SOURCE]
COMMANDS = "see docs/translating.md: pybabel extract, update, compile"


def catalogue(language: Language) -> Catalog:
    with (LOCALE_DIR / language.value / "LC_MESSAGES" / "pbem.po").open("rb") as po:
        return read_po(po, locale=language.value)


def ids(messages: Catalog) -> set[object]:
    return {message.id for message in messages if message.id}


def test_issue30_the_template_catalogue_holds_every_marked_sentence_of_the_templates() -> None:
    with (ROOT / "babel.cfg").open(encoding="utf-8") as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    extracted = {message[2] if isinstance(message[2], str) else message[2][0]
                 for message in extract_from_dir(str(ROOT), method_map, options_map)}
    with (LOCALE_DIR / "pbem.pot").open("rb") as pot:
        template = read_po(pot)
    in_pot = {message.id if isinstance(message.id, str) else message.id[0] for message in template if message.id}
    assert extracted == in_pot, f"pbem.pot is not current ({COMMANDS}): new {sorted(extracted - in_pot)[:5]}, " \
                                f"gone {sorted(in_pot - extracted)[:5]}"


@pytest.mark.parametrize("language", TRANSLATED)
def test_issue30_every_catalogue_translates_every_sentence_with_its_placeholders(language: Language) -> None:
    with (LOCALE_DIR / "pbem.pot").open("rb") as pot:
        template = read_po(pot)
    messages = catalogue(language)
    assert ids(messages) == ids(template), COMMANDS
    problems = []
    for message in messages:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        sources = message.id if isinstance(message.id, tuple) else (message.id,)
        if message.fuzzy or not all(strings):
            problems.append(f"untranslated: {sources[0]!r}")
        problems += [f"{sources[0]!r}: {error}" for error in message.check(messages)]
        for text in strings:
            for end in (str.lstrip, str.rstrip):
                if (len(sources[0]) - len(end(sources[0]))) != (len(text) - len(end(text))):
                    problems.append(f"{sources[0]!r}: its leading or trailing blanks differ in {text!r}")
    assert problems == []


@pytest.mark.parametrize("language", TRANSLATED)
def test_issue30_the_compiled_catalogue_shipped_is_the_translation(language: Language) -> None:
    folder = LOCALE_DIR / language.value / "LC_MESSAGES"
    with (folder / "pbem.mo").open("rb") as mo:
        compiled = read_mo(mo)
    source = catalogue(language)
    def pairs(messages: Catalog) -> set[tuple[object, object]]:
        return {(tuple(m.id) if isinstance(m.id, list | tuple) else m.id,
                 tuple(m.string) if isinstance(m.string, list | tuple) else m.string) for m in messages if m.id}

    assert pairs(compiled) == pairs(source), COMMANDS


@pytest.mark.parametrize(("language", "counts"), [
    (Language.RU, {1: "1 армия", 2: "2 армии", 5: "5 армий", 21: "21 армия", 12: "12 армий"}),
    (Language.PL, {1: "1 armia", 2: "2 armie", 5: "5 armii", 21: "21 armii", 22: "22 armie"}),
])
def test_issue30_counts_follow_each_languages_plural_rule(language: Language, counts: dict[int, str]) -> None:
    """CLDR's three forms of Russian and Polish (../i18n README): one, few, many; Eight-Minute Empire's army."""
    with speaking(language):
        words = environment().from_string('{% import "eight_minute_empire/_words.j2" as w %}{{ w.armies(n) }}')
        assert {n: words.render(n=n).strip() for n in counts} == counts


def test_issue30_english_needs_no_catalogue_and_stays_as_written() -> None:
    assert environment(SOURCE).from_string('{{ _("Your options:") }}').render() == "Your options:"
