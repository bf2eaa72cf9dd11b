"""The world board and the rondel, drawn: which tokens each region and space shows.

Tokens are short so that a region fits in a small slot of the art:

    RUa2f1   Russia: 2 armies (friendly or at home) and 1 fleet
    CNh1     China: 1 hostile army (standing in a foreign home province)
    ^EU      Europe's flag
    [A] [S]  a factory in this home province: armaments / shipyard

The art lives in ``maps/imperial2030-board.txt`` and ``templates/imperial2030/rondel.txt``
(see ``pbem.render.art`` for the format).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from engine.imperial2030.board import Board, CityKind
from engine.imperial2030.model import GameState
from pbem.games.imperial2030.orders.lexicon import current, shown
from pbem.render.art import Art, ArtError, FilledPanel, check_art, fill_panel, load_art
from pbem.render.identitycache import same_objects
from pbem.render.shorten import shortened
from pbem.render.text import MAX_WIDTH

BOARD_ART = ("maps", "imperial2030-board.txt")
RONDEL_ART = ("templates", "imperial2030/rondel.txt")
NATIONS_TABLE = "nations"
REGIONS_TABLE = "regions"
SPACES_TABLE = "spaces"
FLAG_MARK = "^"
FACTORY_MARK = {CityKind.ARMAMENTS: "[A]", CityKind.SHIPYARD: "[S]"}


@cache
def board_art() -> Art:
    return load_art(*BOARD_ART)


@cache
def rondel_art() -> Art:
    return load_art(*RONDEL_ART)


def check_board_art(board: Board, art: Art | None = None) -> list[str]:
    """Everything that keeps the board art from drawing this board (empty when it is fine)."""
    art = art or board_art()
    found = check_art(art, REGIONS_TABLE, board.regions)
    codes = art.tables.get(NATIONS_TABLE, {})  # nations need codes, not slots
    found += [f"{art.source}: nation {n} has no code in '== {NATIONS_TABLE} =='"
              for n in board.nation_ids if n not in codes.values()]
    found += [f"{art.source}: nation code {c} must be 2 letters" for c in codes if len(c) != 2]
    return found


def check_rondel_art(board: Board, art: Art | None = None) -> list[str]:
    return check_art(art or rondel_art(), SPACES_TABLE, board.rondel_ids)


def nation_codes(board: Board) -> dict[str, str]:
    """Nation id -> the two-letter code the board and the rondel show (``RU``)."""
    known = board_art().codes_of(NATIONS_TABLE)
    return {n: known.get(n, n[:2].upper()) for n in board.nation_ids}


# --- the world board -------------------------------------------------------------------------


def region_tokens(state: GameState, region: str, codes: dict[str, str] | None = None) -> list[str]:
    """What a region shows: flag, factory, then each nation's units (the owner's first)."""
    board = state.board
    codes = codes or nation_codes(board)
    info = board.regions[region]
    tokens: list[str] = []
    for nation in board.nation_ids:
        if region in state.nations[nation].flags:
            tokens.append(FLAG_MARK + codes[nation])
    if info.nation and info.city and region in state.nations[info.nation].factories:
        tokens.append(FACTORY_MARK[info.city])
    order = list(board.nation_ids)
    if info.nation in order:
        order.remove(info.nation)
        order.insert(0, info.nation)
    for nation in order:
        token = units_token(state, nation, region)
        if token:
            tokens.append(codes[nation] + token)
    return tokens


def units_token(state: GameState, nation: str, region: str) -> str:
    """``a2h1f1``: armies not hostile, hostile armies, fleets; empty when none."""
    ns = state.nations[nation]
    armies = ns.armies.get(region, 0)
    hostile = min(ns.hostile.get(region, 0), armies) if armies else ns.hostile.get(region, 0)
    friendly = armies - hostile if armies >= hostile else 0
    fleets = ns.fleets.get(region, 0)
    return (f"a{friendly}" if friendly else "") + (f"h{hostile}" if hostile else "") + (f"f{fleets}" if fleets else "")


@dataclass(frozen=True)
class DrawnBoard:
    """The filled panels of the board, ready for a template."""

    panels: tuple[FilledPanel, ...]
    nation_codes: tuple[tuple[str, str], ...]  # (code, nation name) in turn order

    def notes(self, board: Board | None = None) -> tuple[str, ...]:
        """``UKR (ukraine): ^RU RUa2 ...``: each region whose pieces overflowed its slots, in full; named by its
        id in English (as ever) and without ``board``, by its name in another language (``UKR (Украина)``,
        issue 30)."""
        return tuple(note for panel in self.panels for note in _notes(board, panel))


def _notes(board: Board | None, panel: FilledPanel) -> list[str]:
    ids = board_art().ids(REGIONS_TABLE)

    def named(code: str) -> str:
        ident = ids.get(code, code)
        return shown(board, ident) if board and current() is not None and ident in board.regions else ident

    return [f"{code} ({named(code)}): {content}" for code, content in panel.notes]


@same_objects
def draw_board(state: GameState) -> DrawnBoard:
    """The board of ``state``, drawn once for the same state object (a report to every seat shows the same
    board: why draw it for each)."""
    board = state.board
    art = board_art()
    problems = check_board_art(board, art)
    if problems:
        raise ArtError("; ".join(problems))
    codes = nation_codes(board)
    region_code = art.codes_of(REGIONS_TABLE)
    contents = {region_code[r]: region_tokens(state, r, codes) for r in board.regions}
    panels = tuple(fill_panel(p, contents) for p in art.panels)
    return DrawnBoard(panels, tuple((codes[n], board.name(n)) for n in board.nation_ids))


# --- the rondel ----------------------------------------------------------------------------


@dataclass(frozen=True)
class DrawnRondel:
    lines: tuple[str, ...]
    off: tuple[str, ...]  # codes of nations not yet on the rondel


def draw_rondel(state: GameState) -> DrawnRondel:
    board = state.board
    art = rondel_art()
    problems = check_rondel_art(board, art)
    if problems:
        raise ArtError("; ".join(problems))
    codes = nation_codes(board)
    space_code = art.codes_of(SPACES_TABLE)
    contents: dict[str, list[str]] = {space_code[s]: [] for s in board.rondel_ids}
    off = []
    for nation in board.nation_ids:
        space = state.nations[nation].rondel
        if space is None:
            off.append(codes[nation])
        else:
            contents[space_code[space]].append(codes[nation])
    panel = fill_panel(art.panels[0], contents)
    return DrawnRondel(panel.lines, tuple(off))


# --- the names of the world board in the seat's language (issue 30) ----------------------------------------

WATER = "~"  # the art's open sea: a sea's name or a caption may be written over its waves
PANAMA, ARROW = "Panama canal", " ->"  # the art's caption pointing at the cell to its right, where the canal runs
SUEZ = "Suez"  # written "(Suez)" in the cell the canal crosses


def local_labels(board: Board, panels: tuple[tuple[str, ...], ...]) -> tuple[tuple[tuple[str, ...], ...], bool]:
    """The board's panels with each region's label and the art's captions in the language being written; and
    whether some label stayed in English.

    The art writes each region's name in capitals at the top of its cell
    (``| MOSCOW        |``), a sea's name in open water, some over two lines
    (``NORTH`` / ``ATLANTIC``), and two captions: ``Panama canal ->`` and
    ``(Suez)``. A name is replaced where the translation fits the blanks
    after the English (one kept before what follows; a sea's name and a
    caption may also cover waves): a land region's label starts its cell
    (``| ``), a sea's is its whole name, or its words on two lines at one
    column, and then the translation is split over the two lines; only the
    first such place in a panel is the label (``| JAPAN`` is the land region,
    the ``JAPAN`` of ``SEA OF`` / ``JAPAN`` below it is not). A translation
    too long for its place is shortened as maps do (``pbem.render.shorten``:
    ``ВОСТ. АФРИКА``), else the catalogue's short form for the board is tried
    (``СЕВ. ТИХИЙ ОК.``: "Северная часть Тихого океана" shortened is still too
    long); one that cannot be keeps the art's English, which the legend says.
    English is never touched: this runs only for another language.
    """
    lex = current()
    if lex is None:
        return panels, False
    result = [list(lines) for lines in panels]
    kept = False
    for region in sorted(board.regions.values(), key=lambda r: -len(r.name)):
        english = region.name.upper()
        local = lex.names.get(region.name, region.name).upper()
        if local == english:
            continue
        placed = [_place(lines, english, local, region.is_sea) for lines in result]
        short = lex.captions.get(region.name, local).upper()  # the board's own short form, where it has one
        if short != local:
            placed = [_place(lines, english, short, region.is_sea) if done is False else done
                      for lines, done in zip(result, placed, strict=True)]
        kept = kept or False in placed or all(done is None for done in placed)
    for lines in result:
        done = [_pointing(lines, PANAMA + ARROW, lex.captions.get(PANAMA, PANAMA)),
                _one_line(lines, f"({SUEZ})", f"({lex.canals.get(SUEZ, SUEZ)})", sea=False, start="")]
        kept = kept or False in done
    return tuple(tuple(lines) for lines in result), kept


def _bounded(text: str) -> re.Pattern[str]:
    """``text`` as a whole word (or words) of the art."""
    return re.compile(rf"(?<![A-Za-z]){re.escape(text)}(?![A-Za-z])")


def _room(line: str, start: int, end: int, sea: bool) -> int:
    """The columns a label at ``start`` may take, where the art's word ends at ``end``: over the blanks after
    it (and a sea's waves), one kept before what follows; to the widest line at the end of the line."""
    water = " " + WATER if sea else " "
    free = end
    while free < len(line) and line[free] in water:
        free += 1
    return MAX_WIDTH - start if free >= len(line) else free - 1 - start


def _put(line: str, start: int, end: int, text: str) -> str:
    """``line`` with ``text`` in place of its ``start``-``end`` (blanks after a shorter one; a longer one
    covers the blanks or waves after it, and a wave touching its end becomes a blank)."""
    after = start + len(text)
    new = line[:start] + text + " " * (end - after) + line[max(end, after):]
    if after < len(new) and new[after] == WATER:
        new = new[:after] + " " + new[after + 1:]
    return new.rstrip()


def _fitted(text: str, room: int) -> str | None:
    return shortened(text, lambda candidate: len(candidate) <= room)


def _one_line(lines: list[str], english: str, local: str, sea: bool, start: str = "| ") -> bool | None:
    """Write ``local`` in place of the first ``english`` in ``lines`` (a land region's: the one that starts a
    cell); True when written, False when it does not fit there, None when the panel has no such place."""
    for index, line in enumerate(lines):
        found = next((m for m in _bounded(english).finditer(line) if sea or line[:m.start()].endswith(start)), None)
        if found is None:
            continue
        text = _fitted(local, _room(line, found.start(), found.end(), sea))
        if text is None:
            return False
        lines[index] = _put(line, found.start(), found.end(), text)
        return True
    return None


def _place(lines: list[str], english: str, local: str, sea: bool) -> bool | None:
    """A region's name on one line, else (a sea's) over the two lines the art writes it on."""
    done = _one_line(lines, english, local, sea)
    return _two_lines(lines, english, local) if done is None and sea else done


def _two_lines(lines: list[str], english: str, local: str) -> bool | None:
    """A sea's name written over two lines at one column (``GULF OF`` / ``GUINEA``): ``local`` split over
    them where it fits best (the fewest letters cut); as ``_one_line`` says what became of it."""
    words = english.split(" ")
    for index in range(len(lines) - 1):
        line, below = lines[index], lines[index + 1]
        for split in range(1, len(words)):
            top, bottom = " ".join(words[:split]), " ".join(words[split:])
            for found in _bounded(top).finditer(line):
                column = found.start()
                if not any(m.start() == column for m in _bounded(bottom).finditer(below)):
                    continue
                rooms = (_room(line, column, found.end(), True), _room(below, column, column + len(bottom), True))
                parts = _split(local, rooms)
                if parts is None:
                    return False
                lines[index] = _put(line, column, found.end(), parts[0])
                lines[index + 1] = _put(below, column, column + len(bottom), parts[1])
                return True
    return None


def _split(local: str, rooms: tuple[int, int]) -> tuple[str, str] | None:
    """``local`` over two lines of these widths: the split that cuts the fewest letters (of those, the one with
    more on the first line: ``GOLFO DE`` / ``GUINEA``), None if none fits."""
    words = local.split(" ")
    splits = [(" ".join(words[:at]), " ".join(words[at:])) for at in range(1, len(words))] or [(local, "")]
    best: tuple[str, str] | None = None
    for top, bottom in splits:
        fitted = (_fitted(top, rooms[0]), _fitted(bottom, rooms[1]) if bottom else "")
        if fitted[0] is None or fitted[1] is None:
            continue
        if best is None or (len(fitted[0] + fitted[1]), len(fitted[0])) > (len(best[0] + best[1]), len(best[0])):
            best = (fitted[0], fitted[1])
    return best


def _pointing(lines: list[str], english: str, local: str) -> bool | None:
    """A caption that ends at the cell it points at (``Panama canal ->|``): ``local`` with the arrow, ending
    where the English ends, growing to the left over blanks and waves (one blank kept before it)."""
    for index, line in enumerate(lines):
        start = line.find(english)
        if start < 0:
            continue
        end = start + len(english)
        begin = start
        while begin > 0 and line[begin - 1] in " " + WATER:
            begin -= 1
        name = _fitted(local, end - begin - 1 - len(ARROW))
        if name is None:
            return False
        text = name + ARROW
        at = end - len(text)
        new = line[:min(at, start)] + " " * (at - start) + text + line[end:]
        if at > 0 and new[at - 1] == WATER:
            new = new[:at - 1] + " " + new[at:]
        lines[index] = new
        return True
    return None
