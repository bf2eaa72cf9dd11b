"""Where units can go (R-MOVE-1..6): fleet steps, rail, land steps and convoys.

Pure functions of the state and the maneuver in progress. Army routes are
found by the engine: a player names only where the army starts and ends, and
the route that keeps the most fleets free for later armies is chosen.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from itertools import pairwise

from engine.imperial2030.board import Board
from engine.imperial2030.economy import blocked_provinces
from engine.imperial2030.model import GameState, ManeuverStep, UnitKind


class RouteKind(StrEnum):
    RAIL = "rail"
    LAND = "land"
    CONVOY = "convoy"


@dataclass(frozen=True, slots=True)
class Route:
    """How an army reaches ``dest``: the seas whose fleets carry it and the canals it crosses."""

    dest: str
    kind: RouteKind
    landing: str  # where the single move ends (rail may follow)
    seas: tuple[str, ...] = ()
    canals: tuple[str, ...] = ()
    cost: tuple[int, int, int] = (0, 0, 0)  # fleets used, seas left without a free fleet, canal questions


# --- canals (R-MOVE-2) --------------------------------------------------------------


def canal_controller(state: GameState, canal: str) -> str | None:
    """The nation whose flag stands on the canal's controlling region, if any."""
    region = state.board.canals[canal].controlled_by_region
    return next((n for n, ns in state.nations.items() if region in ns.flags), None)


def asked_controller(state: GameState, canal: str) -> str:
    """The nation asked for passage through ``canal`` (only asked when ``canal_needs_permission`` holds)."""
    controller = canal_controller(state, canal)
    if controller is None:
        raise ValueError(f"nobody controls the {canal} canal, yet passage is asked")
    return controller


def canal_needs_permission(state: GameState, nation: str, canal: str) -> bool:
    """Another nation's flag controls the canal, and a different government rules it.

    Decision (data README): no question when the same player governs both nations.
    """
    controller = canal_controller(state, canal)
    if controller is None or controller == nation:
        return False
    gov = state.nations[controller].government
    return gov is not None and gov != state.nations[nation].government


# --- fleets (R-MOVE-1) ----------------------------------------------------------------


def movable(state: GameState, nation: str, step: ManeuverStep, kind: UnitKind, region: str) -> int:
    """Units of ``kind`` in ``region`` that have not moved this maneuver."""
    return state.nations[nation].units(kind).get(region, 0) - step.moved_count(kind, region)


def fleet_destinations(state: GameState, nation: str, step: ManeuverStep, origin: str) -> tuple[str, ...]:
    """A fleet in port goes onto its port's sea; at sea, one step to a neighbouring sea."""
    board = state.board
    region = board.regions[origin]
    if not region.is_sea:
        return (region.port,) if region.port else ()
    return tuple(s for s in board.seas_of[origin] if board.canal_on(origin, s) not in step.denied)


# --- armies (R-MOVE-3..5) -------------------------------------------------------------


def rail_reach(state: GameState, nation: str, start: str, blocked: frozenset[str] | None = None) -> tuple[str, ...]:
    """Own home provinces reachable by rail from ``start``, ``start`` included, in id order.

    Decision: rail is cut in a province holding a hostile foreign army (R-MOVE-5,
    R-HOSTILE-1): it can be neither entered, crossed nor left by rail.
    """
    if blocked is None:
        blocked = blocked_provinces(state)
    return rail_component(state.board, nation, start, blocked)


@lru_cache(maxsize=8192)
def rail_component(board: Board, nation: str, start: str, blocked: frozenset[str]) -> tuple[str, ...]:
    """``rail_reach`` cached: the answer depends only on the board, the nation, the start and the blocked provinces."""
    links = board.rail.get(nation, {})
    if start not in links or start in blocked:
        return (start,)
    seen = {start}
    todo = [start]
    while todo:
        here = todo.pop()
        for nxt in links[here]:
            if nxt not in seen and nxt not in blocked:
                seen.add(nxt)
                todo.append(nxt)
    return tuple(sorted(seen))


def free_fleets(state: GameState, nation: str, step: ManeuverStep, sea: str) -> int:
    """Own fleets in ``sea`` that have not carried an army this maneuver (R-MOVE-4)."""
    return state.nations[nation].fleets.get(sea, 0) - step.carried_count(sea)


def army_routes(
    state: GameState, nation: str, step: ManeuverStep, origin: str, convoys: bool = True
) -> dict[str, Route]:
    """The best route to every region the army at ``origin`` can reach now.

    Rail alone beats a land step, which beats any convoy; among convoys the
    one using fewest fleets, then emptying fewest seas, then asking fewest
    canal questions wins (ties: the first in map order).
    """
    board = state.board
    blocked = blocked_provinces(state)
    rails: dict[str, tuple[str, ...]] = {}

    def reach(region: str) -> tuple[str, ...]:
        if region not in rails:
            rails[region] = rail_reach(state, nation, region, blocked)
        return rails[region]

    before = reach(origin)
    routes: dict[str, Route] = {d: Route(d, RouteKind.RAIL, d) for d in before if d != origin}
    for start in before:
        for land in board.lands_of[start]:
            if board.edge_between[frozenset((start, land))].kind != "land":
                continue
            for dest in reach(land):
                if dest != origin and dest not in routes:
                    routes[dest] = Route(dest, RouteKind.LAND, land)
    if not convoys:
        return routes
    by_sea: dict[str, Route] = {}
    for sea, (cost, seas, canals) in sorted(convoy_paths(state, nation, step, before).items(), key=lambda i: i[1]):
        for land in board.lands_of[sea]:
            for dest in reach(land):
                if dest != origin and dest not in routes and dest not in by_sea:
                    by_sea[dest] = Route(dest, RouteKind.CONVOY, land, seas, canals, cost)
    routes.update(by_sea)
    return routes


def reachable(state: GameState, nation: str, step: ManeuverStep, origin: str, convoys: bool = True) -> list[str]:
    """Where the army at ``origin`` can go, as ``army_routes`` finds it, without building the routes."""
    board = state.board
    blocked = blocked_provinces(state)
    before = rail_reach(state, nation, origin, blocked)
    found = set(before)
    for start in before:
        for land in board.lands_of[start]:
            if land not in found and board.edge_between[frozenset((start, land))].kind == "land":
                found.update(rail_reach(state, nation, land, blocked))
    if convoys:
        for sea in convoy_paths(state, nation, step, before):
            for land in board.lands_of[sea]:
                if land not in found:
                    found.update(rail_reach(state, nation, land, blocked))
    found.discard(origin)
    return sorted(found)


def route_to(state: GameState, nation: str, step: ManeuverStep, origin: str, dest: str) -> Route | None:
    """The route ``army_routes`` would choose to ``dest``, found without listing every destination."""
    board = state.board
    blocked = blocked_provinces(state)
    before = rail_reach(state, nation, origin, blocked)
    if dest == origin:
        return None
    if dest in before:
        return Route(dest, RouteKind.RAIL, dest)
    # the single move must end where rail can bring the army to dest: dest itself or an own rail-linked province
    endings = sorted(h for h in board.rail.get(nation, {}) if dest in rail_reach(state, nation, h, blocked))
    endings = endings if dest in endings else [dest]
    for start in before:
        for land in board.lands_of[start]:
            if land in endings and board.edge_between[frozenset((start, land))].kind == "land":
                return Route(dest, RouteKind.LAND, land)
    best: Route | None = None
    for sea, (cost, seas, canals) in sorted(convoy_paths(state, nation, step, before).items(), key=lambda i: i[1]):
        landing = next((land for land in board.lands_of[sea] if land in endings), None)
        if landing is not None:
            best = Route(dest, RouteKind.CONVOY, landing, seas, canals, cost)
            break
    return best


def convoy_paths(
    state: GameState, nation: str, step: ManeuverStep, embark: tuple[str, ...]
) -> dict[str, tuple[tuple[int, int, int], tuple[str, ...], tuple[str, ...]]]:
    """For every sea an army can be carried to: (cost, seas used, canals crossed) of the best chain.

    Dijkstra over seas holding a free own fleet; the cost prefers fewer fleets,
    then fewer seas left without a free fleet, then fewer canal questions.
    """
    board = state.board
    free = {sea: n - step.carried_count(sea) for sea, n in state.nations[nation].fleets.items()
            if board.regions[sea].is_sea and n - step.carried_count(sea) > 0}
    if not free:
        return {}
    queue: list[tuple[int, int, int, tuple[str, ...], tuple[str, ...]]] = []
    for land in embark:
        for sea in board.seas_of[land]:
            if sea in free:
                heapq.heappush(queue, (1, int(free[sea] == 1), 0, (sea,), ()))
    best: dict[str, tuple[tuple[int, int, int], tuple[str, ...], tuple[str, ...]]] = {}
    while queue:
        length, emptied, asks, seas, canals = heapq.heappop(queue)
        here = seas[-1]
        if here in best:
            continue
        best[here] = ((length, emptied, asks), seas, canals)
        for nxt in board.seas_of[here]:
            if nxt in best or nxt not in free or nxt in seas:
                continue
            canal = board.canal_on(here, nxt)
            if canal in step.denied:
                continue
            ask = 1 if canal and canal_needs_permission(state, nation, canal) else 0
            crossed = canals + ((canal,) if canal else ())
            heapq.heappush(queue, (length + 1, emptied + int(free[nxt] == 1), asks + ask, seas + (nxt,), crossed))
    return best


def forced_route(
    state: GameState, nation: str, step: ManeuverStep, origin: str, dest: str, via: tuple[str, ...]
) -> Route | None:
    """The convoy through exactly the seas ``via``, if it is possible now."""
    board = state.board
    if not via or len(set(via)) != len(via):
        return None
    embark = rail_reach(state, nation, origin)
    if not any(via[0] in board.seas_of[land] for land in embark):
        return None
    canals: list[str] = []
    for here, nxt in pairwise(via):
        if nxt not in board.seas_of.get(here, ()):
            return None
        canal = board.canal_on(here, nxt)
        if canal in step.denied:
            return None
        if canal:
            canals.append(canal)
    if any(s not in board.regions or free_fleets(state, nation, step, s) <= 0 for s in via):
        return None
    for land in board.lands_of[via[-1]]:
        if dest in rail_reach(state, nation, land):
            return Route(dest, RouteKind.CONVOY, land, via, tuple(canals))
    return None
