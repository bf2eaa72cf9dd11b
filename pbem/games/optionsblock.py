"""Reading back the ready-to-copy options every game prints the same way (``templates/core/options.j2``).

A prompt (and a refusal's "what is legal now") lists its orders under one
heading, one per line, indented four spaces; details, when a game gives
them, follow a gap of two or more spaces; a group's title is indented two
spaces and ends in ':'; any other line of the block (a note on combining, a
line that introduces the ones after it) is a note. A program that plays by
mail (the demo's bots) reads them here, for every game, so that a game's
bot holds only its strategy. The heading is taken from the template itself,
in the language being read (``pbem.languages.spoken``: a bot reading a
Russian seat's mail reads under ``speaking(Language.RU)``), so the reader
follows the words the mail was written in.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from pbem.languages import Language, spoken
from pbem.render.env import environment

_GAP = re.compile(r"\S {2,}\S")
OPTION_INDENT, GROUP_INDENT = 4, 2


@dataclass(frozen=True)
class Option:
    """One line of the block: the order to copy, its details, the group it stands in."""

    order: str
    detail: str = ""
    group: str = ""

    @property
    def keyword(self) -> str:
        return self.order.split()[0].upper() if self.order.split() else ""


@dataclass(frozen=True)
class OptionsBlock:
    """The options under one heading, and where in the text's lines the block stands (the heading's index,
    and the index of the first line after it)."""

    options: tuple[Option, ...]
    notes: tuple[str, ...]
    start: int
    end: int

    @property
    def orders(self) -> tuple[str, ...]:
        return tuple(option.order for option in self.options)


def heading() -> str:
    """The block's heading, as the template writes it in the language being read (``Your options:``,
    Russian ``Ваши варианты:``)."""
    return _heading(spoken())


@lru_cache(maxsize=len(Language))
def _heading(language: Language) -> str:
    """Cached per language: a bot looks for the heading in every mail it reads."""
    template = environment(language).from_string('{% import "core/options.j2" as o %}{{ o.heading() }}')
    return template.render().strip()


def split_option(text: str) -> tuple[str, str]:
    """``"RONDEL import   Import, 4 spaces"`` -> (``"RONDEL import"``, ``"Import, 4 spaces"``)."""
    stripped = text.strip()
    gap = _GAP.search(stripped)
    if gap is None:
        return stripped, ""
    cut = gap.start() + 1
    return stripped[:cut].strip(), stripped[cut:].strip()


def blocks(text: str) -> tuple[OptionsBlock, ...]:
    """Every options block of a mail's text, first first."""
    lines = text.replace("\r\n", "\n").split("\n")
    title = heading()
    return tuple(_block_at(lines, index) for index, line in enumerate(lines) if line.rstrip() == title)


def options_in(text: str) -> tuple[str, ...]:
    """Every order of every block of ``text``, in the order printed."""
    return tuple(order for block in blocks(text) for order in block.orders)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _block_at(lines: list[str], start: int) -> OptionsBlock:
    options: list[Option] = []
    notes: list[str] = []
    group = ""
    index = start + 1
    while index < len(lines) and lines[index].strip():
        line = lines[index]
        indent = _indent(line)
        if indent == OPTION_INDENT and not line.rstrip().endswith(":"):
            order, detail = split_option(line)
            options.append(Option(order, detail, group))
        elif indent > OPTION_INDENT and options:  # the details of the option above, wrapped
            last = options[-1]
            options[-1] = Option(last.order, f"{last.detail} {line.strip()}".strip(), last.group)
        elif indent == GROUP_INDENT and line.rstrip().endswith(":") and index + 1 < len(lines) \
                and _indent(lines[index + 1]) == OPTION_INDENT:
            group = line.strip()[:-1]
        else:
            notes.append(line.strip())
        index += 1
    return OptionsBlock(tuple(options), tuple(notes), start, index)
