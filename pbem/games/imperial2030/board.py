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
from pbem.games.imperial2030.orders.lexicon import current
from pbem.render.art import Art, ArtError, FilledPanel, check_art, fill_panel, load_art
from pbem.render.identitycache import same_objects
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

    def notes(self) -> tuple[str, ...]:
        return tuple(note for panel in self.panels for note in _notes(panel))


def _notes(panel: FilledPanel) -> list[str]:
    names = board_art().ids(REGIONS_TABLE)
    return [f"{code} ({names.get(code, code)}): {content}" for code, content in panel.notes]


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


def local_labels(board: Board, panels: tuple[tuple[str, ...], ...]) -> tuple[tuple[tuple[str, ...], ...], bool]:
    """The board's panels with each region's label in the language being written, where it fits; and whether
    some label stayed in English.

    The art writes each region's name in capitals at the top of its cell
    (``| MOSCOW        |``), a sea's name in open water, some over two
    lines (``NORTH`` / ``ATLANTIC``). A name is replaced where the art has it
    on one line and the translation fits the blanks after it (one kept): a
    land region's label starts its cell (``| ``), a sea's is its whole name;
    only the first such place in a panel is the label (``| JAPAN`` is the
    land region, the ``JAPAN`` of ``SEA OF`` / ``JAPAN`` below it is not).
    Every other name keeps the art's English, which the legend says.
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
        label = re.compile(rf"(?<![A-Z]){re.escape(english)}(?![A-Z])")
        replaced = False
        for lines in result:
            for index, line in enumerate(lines):
                found = next((m for m in label.finditer(line)
                              if region.is_sea or line[:m.start()].endswith("| ")), None)
                if found is None:
                    continue
                blanks = len(line[found.end():]) - len(line[found.end():].lstrip(" "))
                room = len(english) + blanks - 1 if found.end() + blanks < len(line) else MAX_WIDTH - found.start()
                if len(local) <= room:
                    span = len(english) + blanks
                    lines[index] = line[:found.start()] + local.ljust(span) + line[found.end() + blanks:]
                    lines[index] = lines[index].rstrip() if found.end() + blanks >= len(line) else lines[index]
                    replaced = True
                break  # the first place in a panel is the label
        kept = kept or not replaced
    return tuple(tuple(lines) for lines in result), kept
