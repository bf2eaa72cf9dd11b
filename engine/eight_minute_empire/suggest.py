"""A sensible use of a card, found greedily: examples a prompt can offer ready to copy, and a bot's play.

Greedy, one step at a time: among every single legal step (one army placed,
one army moved to a region in reach, a city, one army destroyed), take the one
that most improves the player's standing, and stop when none does. Standing is
the lead in points from regions and continents over the best other player,
then pieces spread over more regions, then more own pieces on the map. Cheap enough to run for every card of
the row when a prompt is written; it is a helper for examples, not a rule.
"""
from __future__ import annotations

from collections.abc import Iterator

from engine.core.errors import IllegalAction
from engine.eight_minute_empire.actions import Action, City, Destroy, Move, Place, Take
from engine.eight_minute_empire.board import ActionKind, Board
from engine.eight_minute_empire.choices import StepChoice, path_to, step_choices
from engine.eight_minute_empire.game import apply
from engine.eight_minute_empire.model import Phase, State
from engine.eight_minute_empire.scoring import continent_owners, region_owners

MAX_STEPS = 8  # no card gives more steps than this; a guard against a loop


def standing(board: Board, state: State, player: str) -> tuple[int, int, int, int]:
    """(points lead over the best other player, own points, regions with own pieces, own pieces on the map)."""
    owners = region_owners(state, board)
    points = dict.fromkeys(state.seating, 0)
    for owner in owners.values():
        points[owner] += 1
    for owner in continent_owners(board, owners).values():
        points[owner] += 1
    best_other = max((n for p, n in points.items() if p != player), default=0)
    spread = sum(1 for r in board.regions if state.pieces_in(r).get(player))
    return points[player] - best_other, points[player], spread, state.armies_of(player) + state.cities_of(player)


def good_use(board: Board, state: State, player: str) -> tuple[Action, ...]:
    """Steps for the card in play, in order; merged per kind where consecutive (``PLACE 12 x2``)."""
    steps: list[Action] = []
    value = standing(board, state, player)
    for _ in range(MAX_STEPS):
        if state.phase is not Phase.ACTION or state.current != player:
            break
        best = max(_tries(board, state, player), key=lambda tried: tried[0], default=None)
        if best is None or best[0] <= value:
            break
        value, action, state = best
        steps.append(action)
    return merged(steps)


def use_of_take(board: Board, state: State, player: str, place: int) -> tuple[Action, ...]:
    """A sensible use of the card at ``place``, as if taken now (empty if it cannot be taken)."""
    try:
        taken, _ = apply(board, state, player, Take(place))
    except IllegalAction:
        return ()
    return good_use(board, taken, player)


def _tries(board: Board, state: State, player: str) -> Iterator[tuple[tuple[int, int, int, int], Action, State]]:
    for choice in step_choices(board, state, player):
        for action in _single_steps(board, choice, player):
            try:
                after, _ = apply(board, state, player, action)
            except IllegalAction:
                continue
            yield standing(board, after, player), action, after


def _single_steps(board: Board, choice: StepChoice, player: str) -> Iterator[Action]:
    if not choice.possible:
        return
    if choice.kind is ActionKind.PLACE:
        yield from (Place(((r, 1),)) for r in choice.regions)
    elif choice.kind is ActionKind.CITY:
        yield from (City(r) for r in choice.regions)
    elif choice.kind is ActionKind.DESTROY:
        yield from (Destroy((target,)) for target in choice.targets if target[0] != player)
    else:
        water = choice.kind is ActionKind.WATER
        for reach in choice.reach:
            for goal, _ in reach.regions:
                yield Move((path_to(board, reach.start, goal, water=water),))


def merged(steps: list[Action]) -> tuple[Action, ...]:
    """Consecutive steps of one kind as one order: PLACE 12, PLACE 12 -> PLACE 12 x2; MOVE a, MOVE b -> MOVE a, b."""
    out: list[Action] = []
    for step in steps:
        last = out[-1] if out else None
        if isinstance(step, Place) and isinstance(last, Place):
            counts = dict(last.items)
            for region, n in step.items:
                counts[region] = counts.get(region, 0) + n
            out[-1] = Place(tuple(counts.items()))
        elif isinstance(step, Move) and isinstance(last, Move):
            out[-1] = Move(last.paths + step.paths)
        elif isinstance(step, Destroy) and isinstance(last, Destroy):
            out[-1] = Destroy(last.items + step.items)
        else:
            out.append(step)
    return tuple(out)
