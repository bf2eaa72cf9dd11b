"""The Imperial 2030 world board as a picture (``Imperial2030.picture``): provinces, seas, units, factories, flags.

Why: a picture shows at a glance what the ASCII board spells out region by
region. Everything in it comes from the map data (regions, adjacency, rail,
canals, nation colours) and the state; where each region stands comes from
its slots in ``maps/imperial2030-board.txt``, the three panels side by side
(the Americas, Europe and Africa, Asia), so a sea on two panels, like the
North Pacific at both edges, is drawn twice.
"""
from __future__ import annotations

from engine.imperial2030.board import Board, CityKind, Edge
from engine.imperial2030.model import GameState
from pbem.games.imperial2030.board import REGIONS_TABLE, board_art
from pbem.render.scene import (
    INK,
    LAND,
    Layout,
    LegendEntry,
    Link,
    LinkStyle,
    Node,
    NodeShape,
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
KEY = ("Pieces in the nation's colour: A2 two armies, H1 a hostile army, F1 a fleet; squares: factories "
       "(A armaments, S shipyard); a flag: the nation controlling a neutral region.",
       "Lines: solid land, thick rail, dashed across water (straits, thick: canals), dotted coast.")


def picture(state: GameState, *, game: str) -> Scene:
    """The board of ``state`` as a scene for ``pbem.render.picture.render_png``."""
    board = state.board
    layout = fit(art_layout(board_art(), REGIONS_TABLE, PANELS, join=JOIN), SIZE, NODE)
    nodes = tuple(_node(state, region, layout) for region in board.regions)
    round_words = "game over" if state.finished else f"round {state.round}"
    return Scene(f"{game}: Imperial 2030, {round_words}", SIZE, nodes, _links(board), layout.captions,
                 _legend(state), KEY, NODE)


def _node(state: GameState, region: str, layout: Layout) -> Node:
    """A region: a home province in its nation's pale colour, a flagged one in its controller's, a sea blue."""
    board = state.board
    info = board.regions[region]
    tokens = _tokens(state, region)
    if info.is_sea:
        return Node(region, info.name, layout.places[region], None, (70, 120, 180), tokens, NodeShape.OVAL)
    owner = info.nation or next((n for n in board.nation_ids if region in state.nations[n].flags), None)
    if owner is None:
        return Node(region, info.name, layout.places[region], LAND, INK, tokens)
    shade = colour(board.nation_by_id[owner].colour)
    return Node(region, info.name, layout.places[region], pale(shade), shade, tokens, thick=info.nation is not None)


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


def _links(board: Board) -> tuple[Link, ...]:
    """Every adjacency of the map data, each in the style of its kind (rail from the rail table)."""
    rail = {frozenset(pair) for links in board.tables.rail_links.values() for pair in links}
    return tuple(Link(e.a, e.b, _style(e, frozenset((e.a, e.b)) in rail)) for e in board.edges)


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


def _legend(state: GameState) -> tuple[LegendEntry, ...]:
    """Each nation's colour with who governs it (and its power points)."""
    board = state.board
    entries = []
    for nation in board.nation_ids:
        ns = state.nations[nation]
        who = ns.government or "no government"
        entries.append(LegendEntry(_shade(board, nation), f"{board.name(nation)}: {who}, {ns.power} PP"))
    return tuple(entries)
