"""ASCII art with slots: the world board and the rondel, filled with pieces.

An art file holds sections. ``== <name> ==`` sections map short codes to ids
(``ALA alaska``); ``== panel: TITLE ==`` sections hold drawn art in which a
slot ``{ALA.....}`` (from ``{`` to ``}``, at least ``{ALA}``; codes are 2 or 3
capital letters or digits) marks where the
thing with that code shows its content. The whole slot is replaced by exactly
as many characters, so the drawing keeps its shape whatever is shown.

Content is a list of short tokens (``RUa2f1``, ``^EU``). They flow through the
slots of their code in a panel in reading order, separated by one space. What
does not fit ends the last slot with ``+`` and is told in full in a note below
the panel, so nothing is ever silently dropped.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources

from pbem.render.text import MAX_WIDTH

SLOT = re.compile(r"\{([A-Z][A-Z0-9]{1,2})\.*\}")
SECTION = re.compile(r"^== (.+?) ==\s*$")
PANEL_PREFIX = "panel:"
OVERFLOW = "+"


class ArtError(ValueError):
    """An art file that cannot be used: unknown code, missing slot, line too wide, not ASCII."""


@dataclass(frozen=True)
class Slot:
    line: int  # index into the panel's lines
    start: int  # column of the opening brace
    width: int  # from '{' to '}' inclusive
    code: str


@dataclass(frozen=True)
class Panel:
    title: str
    lines: tuple[str, ...]
    slots: tuple[Slot, ...]

    def codes(self) -> set[str]:
        return {s.code for s in self.slots}

    @property
    def width(self) -> int:
        """Columns of the widest line."""
        return max((len(line) for line in self.lines), default=0)

    def slot_centres(self) -> dict[str, tuple[float, float]]:
        """Code -> (column, line) of the middle of its slots here: where a picture of the board puts it.

        A thing with several slots in the panel (a long province drawn over
        three lines) is placed once, amid all of them, so that the picture
        needs no coordinates beyond the art's own.
        """
        spans: dict[str, list[Slot]] = {}
        for slot in self.slots:
            spans.setdefault(slot.code, []).append(slot)
        return {code: ((min(s.start for s in slots) + max(s.start + s.width for s in slots)) / 2,
                       (min(s.line for s in slots) + max(s.line for s in slots)) / 2)
                for code, slots in spans.items()}


@dataclass(frozen=True)
class Art:
    """A parsed art file: its code tables (section name -> code -> id) and its panels."""

    source: str
    tables: Mapping[str, Mapping[str, str]]
    panels: tuple[Panel, ...]

    def ids(self, table: str) -> dict[str, str]:
        """Code -> id of one table; an empty dict when the file has no such table."""
        return dict(self.tables.get(table, {}))

    def codes_of(self, table: str) -> dict[str, str]:
        """Id -> code of one table."""
        return {ident: code for code, ident in self.tables.get(table, {}).items()}


@dataclass(frozen=True)
class FilledPanel:
    title: str
    lines: tuple[str, ...]
    notes: tuple[tuple[str, str], ...] = field(default=())  # (code, full content) of slots that overflowed


def parse_art(text: str, source: str = "<art>") -> Art:
    """Read an art file; raises ``ArtError`` for a malformed one (see the module doc)."""
    tables: dict[str, dict[str, str]] = {}
    panels: list[Panel] = []
    current_table: dict[str, str] | None = None
    panel_title: str | None = None
    panel_lines: list[str] = []

    def close_panel() -> None:
        nonlocal panel_title, panel_lines
        if panel_title is not None:
            while panel_lines and not panel_lines[-1].strip():
                panel_lines.pop()
            panels.append(_panel(panel_title, panel_lines, source))
        panel_title, panel_lines = None, []

    seen_section = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        match = SECTION.match(line)
        if match:
            close_panel()
            seen_section = True
            name = match.group(1).strip()
            if name.startswith(PANEL_PREFIX):
                panel_title = name[len(PANEL_PREFIX):].strip()
                current_table = None
            else:
                if name in tables:
                    raise ArtError(f"{source}:{number}: section {name!r} appears twice")
                current_table = tables[name] = {}
            continue
        if not seen_section:
            if line and not line.startswith("#"):
                raise ArtError(f"{source}:{number}: text before the first section must be '#' comments")
            continue
        if panel_title is not None:
            panel_lines.append(line)
            continue
        if not line or line.startswith("#"):
            continue
        assert current_table is not None
        parts = line.split()
        if len(parts) != 2:
            raise ArtError(f"{source}:{number}: expected 'CODE id', found {line!r}")
        code, ident = parts
        if not SLOT.fullmatch("{" + code + "}"):
            raise ArtError(f"{source}:{number}: code {code!r} must be 2 or 3 capital letters or digits")
        if code in current_table:
            raise ArtError(f"{source}:{number}: code {code} is given twice")
        if ident in current_table.values():
            raise ArtError(f"{source}:{number}: {ident} has two codes")
        current_table[code] = ident
    close_panel()
    if not panels:
        raise ArtError(f"{source}: no '== panel: TITLE ==' section")
    return Art(source, tables, tuple(panels))


def _panel(title: str, lines: list[str], source: str) -> Panel:
    slots = []
    for index, line in enumerate(lines):
        for match in SLOT.finditer(line):
            slots.append(Slot(index, match.start(), match.end() - match.start(), match.group(1)))
        stray = SLOT.sub("", line)
        if "{" in stray or "}" in stray:
            raise ArtError(f"{source}: panel {title!r}, line {index + 1}: a brace that is not a slot: {line!r}")
    return Panel(title, tuple(lines), tuple(slots))


def load_art(package: str, resource: str) -> Art:
    """Read and parse an art file shipped as package data (``maps``, ``templates``)."""
    try:
        text = resources.files(package).joinpath(resource).read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError) as exc:
        raise ArtError(f"{package}/{resource}: cannot read the art file ({exc})") from None
    return parse_art(text, f"{package}/{resource}")


def check_art(art: Art, table: str, ids: Iterable[str], width: int = MAX_WIDTH) -> list[str]:
    """Everything wrong with ``art`` for these ids: codes, slots, width, ASCII. Empty when usable."""
    problems: list[str] = []
    codes = art.tables.get(table)
    if codes is None:
        return [f"{art.source}: no '== {table} ==' section"]
    wanted = list(ids)
    known = set(codes.values())
    problems += [f"{art.source}: {ident} has no code in '== {table} =='" for ident in wanted if ident not in known]
    problems += [f"{art.source}: code {code} names {ident}, which is not known here"
                 for code, ident in codes.items() if ident not in wanted]
    drawn = set().union(*(p.codes() for p in art.panels))
    problems += [f"{art.source}: {codes[code]} ({code}) has no slot in any panel"
                 for code in codes if code not in drawn]
    for panel in art.panels:
        problems += [f"{art.source}: panel {panel.title!r} has a slot for unknown code {code}"
                     for code in sorted(panel.codes() - set(codes))]
        for index, line in enumerate(panel.lines, start=1):
            if len(line) > width:
                problems.append(f"{art.source}: panel {panel.title!r}, line {index} is {len(line)} columns "
                                f"(at most {width})")
            if not line.isascii():
                problems.append(f"{art.source}: panel {panel.title!r}, line {index} is not pure ASCII")
    return problems


def fill_panel(panel: Panel, contents: Mapping[str, Sequence[str]]) -> FilledPanel:
    """The panel with every slot replaced by its code's tokens (``contents``: code -> tokens)."""
    by_code: dict[str, list[Slot]] = {}
    for slot in panel.slots:
        by_code.setdefault(slot.code, []).append(slot)
    texts: dict[Slot, str] = {}
    notes: list[tuple[str, str]] = []
    for code, slots in by_code.items():
        tokens = list(contents.get(code, ()))
        pieces, overflow = _flow(tokens, [s.width for s in slots])
        if overflow:
            notes.append((code, " ".join(tokens)))
        texts.update(zip(slots, pieces, strict=False))  # pieces may run short: the rest stay blank
    lines = list(panel.lines)
    # right to left, so that earlier columns stay valid
    for slot in sorted(panel.slots, key=lambda s: (s.line, -s.start)):
        line = lines[slot.line]
        lines[slot.line] = line[:slot.start] + texts[slot].ljust(slot.width) + line[slot.start + slot.width:]
    return FilledPanel(panel.title, tuple(line.rstrip() for line in lines), tuple(notes))


def _flow(tokens: list[str], widths: list[int]) -> tuple[list[str], bool]:
    """Tokens into slots of these widths, in order; True when some did not fit."""
    pieces: list[str] = []
    rest = list(tokens)
    for width in widths:
        text = ""
        while rest:
            candidate = rest[0] if not text else f"{text} {rest[0]}"
            if len(candidate) > width:
                break
            text = candidate
            rest.pop(0)
        pieces.append(text)
    if not rest:
        return pieces, False
    last = pieces[-1].split()
    width = widths[-1]
    while last and len(" ".join(last)) + 1 + len(OVERFLOW) > width:
        last.pop()  # whole tokens only: a cut token would tell a wrong count
    pieces[-1] = " ".join(last + [OVERFLOW])
    return pieces, True
