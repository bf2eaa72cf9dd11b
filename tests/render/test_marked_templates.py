"""Every template's own English is marked for translation (issue 30), read from the templates themselves: the
mails' tests (tests/games/*/test_translation.py) find what the positions they render reach; this one reads every
template of templates/, the core's included, and finds what no position reaches.

What a template may write outside a gettext call is the order language: orders, their syntax (RONDEL <space>)
and examples (IMPORT army Moscow, PLACE 2 armies in 12), each starting with a keyword in capitals; ids and
file names; format strings. A sentence in a string that is no msgid (a value handed to a placeholder: "12, r12
or region 12") or in the template's text is English a translation never reaches."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from pbem.render.env import environment

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
GETTEXT = {"_": 1, "gettext": 1, "ngettext": 2, "pgettext": 2, "npgettext": 3}  # leading strings: context, msgids
SENTENCE = re.compile(r"[A-Za-z][a-z]+\s+[a-z]{2,}")  # two words, as a sentence has
ORDER = re.compile(r"[A-Z]{2,}\b|(?:army|fleet) [A-Z]")  # a keyword in capitals, or an IMPORT's next unit
# Written as they stand, by design: the words a game master types after `pbem game set` (core/setting_change.j2).
# The art's own words, replaced by their translation (eight_minute_empire/_map.j2; imperial2030/_rondel.j2).
KNOWN = {("core/setting_change.j2", "none"), ("eight_minute_empire/_map.j2", "Sea lines:"),
         ("imperial2030/_rondel.j2", "    THE RONDEL     "), ("imperial2030/_rondel.j2", "  turns clockwise  "),
         # the engine's and the setup's words, each matched to its translation (imperial2030/_view_words.j2)
         ("imperial2030/_view_words.j2", "no nation has a government"),
         ("imperial2030/_view_words.j2", "no investor card"), ("imperial2030/_view_words.j2", "tax increase bonus"),
         # an order's form after its keyword: PLACE 2 armies in 12 (eight_minute_empire/_refusals.j2)
         ("eight_minute_empire/_refusals.j2", "2 armies in 12")}


def order_language(text: str) -> bool:
    """Each part of ``text`` (split at commas, semicolons and '|') starts with a keyword in capitals, or is a
    number or a region's form (12, r12)."""
    parts = [part.strip() for part in re.split(r"[,;|]", re.sub(r"<[^<>]*>|\[[^\[\]]*\]", " ", text))]
    return text.startswith("pbem ") or all(  # or a command of the game master's
        not part or ORDER.match(part) or re.fullmatch(r"r?\d+( x\d+)?|\.\.\.", part) for part in parts)


def markup_removed(name: str, text: str) -> str:
    """``text`` of template ``name`` without its HTML markup: the tags of a page's template (``*.html.j2``),
    whole or cut by a value (``<a href="`` before one, ``">`` after it, ``" alt="`` between two), are no English."""
    if not name.endswith(".html.j2"):
        return text
    return re.sub(r"<[^<>]*>?|^[^<>]*>|&[a-z]+;|\"\s+[a-z-]+=\"", " ", text)


def unmarked(name: str) -> list[str]:
    """The English of template ``name`` that no gettext call marks."""
    found = []
    stack: list[list[int]] = []  # for each open bracket: [positional strings left to be msgids, or -1]
    last = previous = ""
    for line, kind, value in environment().lex((TEMPLATES / name).read_text(encoding="utf-8"), name):
        if kind == "data":
            for text in (markup_removed(name, line) for line in value.splitlines()):
                if re.search(r"[a-z]{2,}", text) and not order_language(text.strip()) \
                        and (name, text.strip()) not in KNOWN:
                    found.append(f"{name}:{line}: text {text.strip()!r}")
        elif kind == "operator" and value == "(":
            stack.append([GETTEXT.get(last, -1)])
        elif kind == "operator" and value == ")" and stack:
            stack.pop()
        elif kind == "operator" and value == "," and stack:
            pass
        elif kind == "operator" and value == "=" and stack and stack[-1][0] > 0:
            stack[-1][0] = 0  # keyword arguments: values, never msgids
        elif kind == "string":
            text = value[1:-1]
            if previous == "string":
                pass  # "a " "b": one string, the same msgid or value as the one before
            elif stack and stack[-1][0] > 0:
                stack[-1][0] -= 1  # a msgid (or a context)
            elif SENTENCE.search(text) and not order_language(text) and (name, text) not in KNOWN:
                found.append(f"{name}:{line}: string {text!r}")
        if kind != "whitespace":
            last = value if kind == "name" else ""
            previous = kind
    return found


def templates() -> list[str]:
    return sorted(str(path.relative_to(TEMPLATES)) for path in TEMPLATES.rglob("*.j2"))


@pytest.mark.parametrize("name", templates())
def test_issue30_a_templates_own_english_is_marked_for_translation(name: str) -> None:
    assert unmarked(name) == []


def test_issue30_the_check_finds_text_and_values_a_translation_never_reaches(tmp_path: Path) -> None:
    assert order_language("PLACE 2 armies in 12, PLACE 12 12, PLACE 12 and 5")
    assert order_language("ARMY <from> TO <to> [HOSTILE|FRIENDLY] [VIA <sea>, ...]")
    assert not order_language("12, r12 or region 12")
    assert not order_language("The game waits for your answer.")
    assert markup_removed("site/x.html.j2", '<p class="turn">').strip() == ""
    assert markup_removed("site/x.html.j2", '" alt="x">Move on</a>').strip() == "Move on"
    assert markup_removed("core/x.j2", "<p>") == "<p>"
