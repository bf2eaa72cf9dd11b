"""The Imperial 2030 world board as a picture (``Imperial2030.picture``): provinces, seas, units, factories,
flags, the rondel and the nations' treasuries.

Why: a picture shows at a glance what the ASCII board spells out region by
region. Everything in it comes from the map data (regions, adjacency, rail,
canals, nation colours) and the state; where each region stands comes from
its slots in ``maps/imperial2030-board.txt``, the three panels side by side
(the Americas, Europe and Africa, Asia).

The world wraps round: the North and South Pacific lie west of the Americas
and east of Asia, and the art has a slot for each at both ends. A sea drawn
twice read as two seas (with its fleets counted twice), so each is one place,
with its pieces, at the edge most of its neighbours are near (the left one),
and the other edge has a mark that says where it is; links from that side
end at the mark.

Beside the map, where the art leaves room (below the Americas and below the
Indian Ocean), the rondel with every nation's marker, laid out as the mails'
ASCII rondel, and a table of the nations: who governs each, its treasury and
its power points. The canvas keeps its size.
"""
from __future__ import annotations

import math
import weakref
from collections import Counter
from dataclasses import replace

from engine.imperial2030.board import Board, CityKind, Edge
from engine.imperial2030.model import GameState
from pbem.games.imperial2030.board import REGIONS_TABLE, board_art, nation_codes
from pbem.games.imperial2030.orders.lexicon import shown
from pbem.games.imperial2030.sayings import say
from pbem.render.scene import (
    INK,
    LAND,
    Align,
    Cell,
    Layout,
    Link,
    LinkStyle,
    Node,
    NodeShape,
    Panel,
    Point,
    Scene,
    Token,
    TokenShape,
    art_layout,
    colour,
    fit,
    pale,
)

SIZE = (1200, 900)
NODE = (76, 32)
PANELS = ((0, 1, 2),)  # one row: west to east, as on a world map
JOIN = 30  # a sea at the facing edges of two panels is one place (not the Pacific, at both ends)
FACTORY_TEXT = {CityKind.ARMAMENTS: "A", CityKind.SHIPYARD: "S"}  # as the text board's [A] and [S]
WORDS = "_picture_words"  # templates/imperial2030/_picture_words.j2: the picture's words, in the mail's language
SEA_OUTLINE = (70, 120, 180)
MARK_OUTLINE = (160, 190, 220)  # the mark where a sea of the other edge is: fainter than a sea
# Where the panels go: below the Americas (nothing is drawn there; the South Atlantic, grown with pieces,
# reaches x 363 and y 631 at most), and below the Indian Ocean (routed lines only, which go round it).
RONDEL_BOX = (12, 632, 360, 828)
NATIONS_BOX = (612, 690, 952, 828)
RONDEL_RING = ((0, 0), (1, 0), (2, 0), (2, 1), (2, 2), (1, 2), (0, 2), (0, 1))  # clockwise from top left
SPACE_SIZE, SPACE_GAP = (112, 61), 3
ROW_HEIGHT = 19


def picture(state: GameState, *, game: str) -> Scene:
    """The board of ``state`` as a scene for ``pbem.render.picture.render_png``."""
    board = state.board
    layout, places, links = _placed(board)
    nodes = tuple(_node(state, region, places[region][0]) for region in board.regions)
    marks = tuple(_mark(board, region, index, at, places[region][0]) for region in board.regions
                  for index, at in enumerate(places[region][1:], start=1))
    title = say(WORDS, "title", game=game, round=state.round, finished=state.finished)
    key = (say(WORDS, "key_pieces"), say(WORDS, "key_lines"))
    captions = tuple(replace(c, text=say(WORDS, "panel_title", title=c.text)) for c in layout.captions)
    return Scene(title, SIZE, nodes + marks, links,
                 captions, (), key, NODE, panels=(_rondel(state), _nations(state)))


Placed = tuple[Layout, dict[str, tuple[Point, ...]], tuple[Link, ...]]
_PLACED: weakref.WeakKeyDictionary[Board, Placed] = weakref.WeakKeyDictionary()


def _placed(board: Board) -> Placed:
    """The layout, every region's places and the links between them: what depends on the map alone.

    Why remembered: they are the same for every move of every game on one
    board (the shipped map is one object, also in the picture helper, which
    rebuilds it from the file), yet working them out took a quarter of
    drawing a changed board (~3 ms of ~11). Kept by the board object, weakly,
    so that a board made for a test is forgotten with it; the values are
    never changed, only read.
    """
    found = _PLACED.get(board)
    if found is None:
        layout = fit(art_layout(board_art(), REGIONS_TABLE, PANELS, join=JOIN), SIZE, NODE)
        places = _places(board, layout)
        found = _PLACED[board] = (layout, places, _links(board, places))
    return found


def _places(board: Board, layout: Layout) -> dict[str, tuple[Point, ...]]:
    """Region -> its place, then the places of its marks: a region the art has at several places (the
    Pacific at both edges) stands where most of its neighbours are nearest."""
    neighbours: dict[str, list[str]] = {}
    for edge in board.edges:
        neighbours.setdefault(edge.a, []).append(edge.b)
        neighbours.setdefault(edge.b, []).append(edge.a)
    found = {}
    for region in board.regions:
        at = layout.places[region]
        votes = Counter(min(range(len(at)), key=lambda i: min(_apart(at[i], q) for q in layout.places[other]))
                        for other in neighbours.get(region, ()))
        main = max(range(len(at)), key=lambda i: (votes[i], -i))
        found[region] = (at[main],) + at[:main] + at[main + 1:]
    return found


def _apart(p: Point, q: Point) -> float:
    return math.hypot(p.x - q.x, p.y - q.y)


def _mark_id(region: str, index: int) -> str:
    return f"{region}/{index}"


def _mark(board: Board, region: str, index: int, at: Point, main: Point) -> Node:
    """Where a region is drawn again at the other edge: no pieces, and a label that sends the reader to it."""
    side = "left" if main.x < at.x else "right"
    return Node(_mark_id(region, index), say(WORDS, "see_edge", name=shown(board, region), side=side), (at,), None,
                MARK_OUTLINE,
                shape=NodeShape.OVAL, repeats=region)


def _node(state: GameState, region: str, at: Point) -> Node:
    """A region: a home province in its nation's pale colour, a flagged one in its controller's, a sea blue."""
    board = state.board
    info = board.regions[region]
    tokens = _tokens(state, region)
    if info.is_sea:
        return Node(region, shown(board, region), (at,), None, SEA_OUTLINE, tokens, NodeShape.OVAL)
    owner = info.nation or next((n for n in board.nation_ids if region in state.nations[n].flags), None)
    if owner is None:
        return Node(region, shown(board, region), (at,), LAND, INK, tokens)
    shade = colour(board.nation_by_id[owner].colour)
    return Node(region, shown(board, region), (at,), pale(shade), shade, tokens, thick=info.nation is not None)


def _tokens(state: GameState, region: str) -> tuple[Token, ...]:
    """Flag, factory, then each nation's units (the home nation's first), as the text board orders them."""
    board = state.board
    info = board.regions[region]
    tokens = [Token("", _shade(board, n), TokenShape.FLAG) for n in board.nation_ids
              if region in state.nations[n].flags]
    if info.nation and info.city and region in state.nations[info.nation].factories:
        tokens.append(Token(FACTORY_TEXT[info.city], _shade(board, info.nation), TokenShape.BUILDING))
    order = sorted(board.nation_ids, key=lambda n: n != info.nation)
    for nation in order:
        tokens += [Token(text, _shade(board, nation)) for text in _units(state, nation, region)]
    return tuple(tokens)


def _units(state: GameState, nation: str, region: str) -> list[str]:
    """``A2`` armies (friendly or at home), ``H1`` hostile armies, ``F1`` fleets; none when absent."""
    ns = state.nations[nation]
    armies = ns.armies.get(region, 0)
    hostile = min(ns.hostile.get(region, 0), armies)
    counts = (("A", armies - hostile), ("H", hostile), ("F", ns.fleets.get(region, 0)))
    return [f"{letter}{count}" for letter, count in counts if count]


def _shade(board: Board, nation: str) -> tuple[int, int, int]:
    return colour(board.nation_by_id[nation].colour)


def _links(board: Board, places: dict[str, tuple[Point, ...]]) -> tuple[Link, ...]:
    """Every adjacency of the map data, each in the style of its kind (rail from the rail table), from the
    nearest places of its ends (a region's own, or its mark at the other edge)."""
    rail = {frozenset(pair) for links in board.tables.rail_links.values() for pair in links}
    links = []
    for edge in board.edges:
        ends = min(((i, j) for i in range(len(places[edge.a])) for j in range(len(places[edge.b]))),
                   key=lambda ij: _apart(places[edge.a][ij[0]], places[edge.b][ij[1]]))
        a, b = (_mark_id(region, k) if k else region for region, k in zip((edge.a, edge.b), ends, strict=True))
        links.append(Link(a, b, _style(edge, frozenset((edge.a, edge.b)) in rail)))
    return tuple(links)


def _style(edge: Edge, rail: bool) -> LinkStyle:
    if edge.canal:
        return LinkStyle.CANAL
    if edge.kind == "sea":
        return LinkStyle.SEA
    if edge.kind == "coast":
        return LinkStyle.COAST
    if rail:
        return LinkStyle.RAIL
    return LinkStyle.STRAIT if edge.strait else LinkStyle.LAND


def _rondel(state: GameState) -> Panel:
    """The rondel as the mails draw it, clockwise from Factory round the ring of a 3 x 3 grid, each space with
    the markers of the nations on it; in the middle, the nations not on it yet. Its words fit their boxes in
    every language (``Cell.fit``: "Налогообложение" a step smaller), never cut."""
    board = state.board
    codes = nation_codes(board)
    width, height = SPACE_SIZE
    cells = []
    for (column, row), space in zip(RONDEL_RING, board.tables.rondel, strict=True):
        left, top = 3 + column * (width + SPACE_GAP), 3 + row * (height + SPACE_GAP)
        markers = tuple(Token(codes[n], _shade(board, n)) for n in board.nation_ids
                        if state.nations[n].rondel == space.id)
        cells.append(Cell((left, top, left + width, top + height), (shown(board, space.id),), markers, Align.CENTRE,
                          outline=INK, fill=LAND, fit=True))
    off = tuple(Token(codes[n], _shade(board, n)) for n in board.nation_ids if state.nations[n].rondel is None)
    left, top = 3 + width + SPACE_GAP, 3 + height + SPACE_GAP
    middle = (say(WORDS, "not_on_rondel"),) if off else (say(WORDS, "rondel_name"), say(WORDS, "turns_clockwise"))
    cells.append(Cell((left, top, left + width, top + height), middle, off, Align.CENTRE, fit=True))
    return Panel("", RONDEL_BOX, tuple(cells))


def _nations(state: GameState) -> Panel:
    """A table of the nations: marker, name, who governs it, its treasury, its power points; the row of the
    nation to play shaded in its colour."""
    board = state.board
    codes = nation_codes(board)
    to_play = state.turn.nation if state.turn is not None and not state.finished else None
    columns = ((4, 34), (34, 104), (104, 214), (214, 274), (274, 336))  # marker, name, government, numbers
    aligns = (Align.LEFT, Align.LEFT, Align.LEFT, Align.RIGHT, Align.RIGHT)
    heads = ((4, 104, say(WORDS, "head_nation")), (*columns[2], say(WORDS, "head_governed")),
             (*columns[3], say(WORDS, "head_treasury")), (*columns[4], say(WORDS, "head_power")))
    cells = [Cell((left, 3, right, 3 + ROW_HEIGHT), (head,), align=Align.RIGHT if left >= 214 else Align.LEFT)
             for left, right, head in heads]
    for index, nation in enumerate(board.nation_ids):
        ns = state.nations[nation]
        top = 3 + (index + 1) * ROW_HEIGHT
        shade = pale(_shade(board, nation)) if nation == to_play else None
        (left, right), rest = columns[0], columns[1:]
        cells.append(Cell((left, top, right, top + ROW_HEIGHT), tokens=(Token(codes[nation], _shade(board, nation)),),
                          fill=shade))
        texts = (shown(board, nation), ns.government or say(WORDS, "nobody"), str(ns.treasury),
                 say(WORDS, "power_points", points=ns.power))
        cells += [Cell((left, top, right, top + ROW_HEIGHT), (text,), align=aligns[k], fill=shade)
                  for k, ((left, right), text) in enumerate(zip(rest, texts, strict=True), start=1)]
    return Panel("", NATIONS_BOX, tuple(cells))
