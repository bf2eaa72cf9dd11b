"""What the player on turn can still do with the card in play, step by step (R8-ACT-1..7).

A card's action has too many complete uses to list (four steps of movement
from ten regions), so the engine offers its choices per step instead: where
armies may be placed, where each army can reach and in how many steps, where a
city may stand, which armies may be destroyed. A prompt shows these; every
combination of them in writing order is legal as long as each step is checked
against the position as it then stands (R8-ACT-7).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from engine.eight_minute_empire.board import ActionKind, Board
from engine.eight_minute_empire.model import State


@dataclass(frozen=True, slots=True)
class Reach:
    """From ``start`` (where ``armies`` of the player stand): each region within the steps left, and its distance."""

    start: int
    armies: int
    regions: tuple[tuple[int, int], ...]  # (region, steps), nearest first


@dataclass(frozen=True, slots=True)
class StepChoice:
    """One action of the card in play with what is left of it, and its legal targets in the current position."""

    index: int  # the action's place on the card
    kind: ActionKind
    left: int  # armies to place, steps to move, armies to destroy; 1 for a city
    regions: tuple[int, ...] = ()  # PLACE and CITY: where
    reach: tuple[Reach, ...] = ()  # MOVE and WATER: from where to where
    targets: tuple[tuple[str, int], ...] = ()  # DESTROY: (owner, region) of every army on the map
    supply: int = 0  # PLACE: armies left in supply; CITY: cities left

    @property
    def possible(self) -> bool:
        """Whether any step of this action can be taken now."""
        if self.kind is ActionKind.PLACE:
            return bool(self.regions) and self.supply > 0
        if self.kind is ActionKind.CITY:
            return bool(self.regions) and self.supply > 0
        if self.kind is ActionKind.DESTROY:
            return bool(self.targets)
        return any(r.regions for r in self.reach)


def distances(board: Board, start: int, steps: int, *, water: bool) -> dict[int, int]:
    """Every region within ``steps`` of ``start`` (by land, or also across sea lines), with its distance."""
    found = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if found[here] == steps:
            continue
        for there in sorted(board.neighbours(here, water=water)):
            if there not in found:
                found[there] = found[here] + 1
                queue.append(there)
    del found[start]
    return found


def path_to(board: Board, start: int, goal: int, *, water: bool) -> tuple[int, ...]:
    """A shortest path from ``start`` to ``goal`` (both included); the lowest-numbered regions on a tie."""
    before: dict[int, int] = {start: start}
    queue = deque([start])
    while queue and goal not in before:
        here = queue.popleft()
        for there in sorted(board.neighbours(here, water=water)):
            if there not in before:
                before[there] = here
                queue.append(there)
    if goal not in before:
        return ()
    path = [goal]
    while path[-1] != start:
        path.append(before[path[-1]])
    return tuple(reversed(path))


def own_regions(state: State, player: str) -> list[int]:
    return sorted(r for r, here in state.armies.items() if here.get(player))


def place_regions(board: Board, state: State, player: str) -> tuple[int, ...]:
    """R8-ACT-1: the start region and every region with one of the player's cities."""
    return tuple(sorted({board.start} | {r for r, here in state.cities.items() if here.get(player)}))


def step_choices(board: Board, state: State, player: str) -> tuple[StepChoice, ...]:
    """The card in play's actions still open to ``player`` (none when it is not their card's action)."""
    in_play = state.in_play
    if in_play is None or state.current != player:
        return ()
    card = board.cards[in_play.card]
    choices = []
    for index, (action, left) in enumerate(zip(card.actions, in_play.left, strict=True)):
        if left > 0 and in_play.chosen in (None, index):
            choices.append(_choice(board, state, player, index, action.kind, left))
    return tuple(choices)


def _choice(board: Board, state: State, player: str, index: int, kind: ActionKind, left: int) -> StepChoice:
    if kind is ActionKind.PLACE:
        return StepChoice(index, kind, left, place_regions(board, state, player),
                          supply=board.armies - state.armies_of(player))
    if kind is ActionKind.CITY:
        return StepChoice(index, kind, left, tuple(own_regions(state, player)),
                          supply=board.cities - state.cities_of(player))
    if kind is ActionKind.DESTROY:
        targets = tuple((owner, r) for r, here in sorted(state.armies.items()) for owner in sorted(here)
                        if here[owner] > 0)
        return StepChoice(index, kind, left, targets=targets)
    water = kind is ActionKind.WATER
    reach = tuple(Reach(r, state.armies[r][player],
                        tuple(sorted(distances(board, r, left, water=water).items(), key=lambda x: (x[1], x[0]))))
                  for r in own_regions(state, player))
    return StepChoice(index, kind, left, reach=reach)
