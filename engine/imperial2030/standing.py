"""Standing answers: questions answered before they are asked (R-DECIDE-3).

A standing order narrows by nation (the other nation in the question) and, for
canals, by canal; the most specific matching order answers, and among equally
specific ones the latest.
"""
from __future__ import annotations

from engine.imperial2030.errors import IllegalAction
from engine.imperial2030.events import Event, StandingChanged
from engine.imperial2030.model import GameState, StandingKind, StandingOrder
from engine.imperial2030.refusals import Refused

FAMILIES = (
    (StandingKind.FIGHT, StandingKind.NO_FIGHT),
    (StandingKind.ALLOW, StandingKind.DENY),
    (StandingKind.FORCE, StandingKind.NO_FORCE),
)


def _family(kind: StandingKind) -> tuple[StandingKind, StandingKind]:
    return next(f for f in FAMILIES if kind in f)


def standing_answer(
    state: GameState, player: str, yes: StandingKind, nation: str | None, canal: str | None = None
) -> bool | None:
    """True/False when a standing order of the player answers the question, else None."""
    family = _family(yes)
    best: StandingOrder | None = None
    best_score = -1
    for order in state.standing.get(player, ()):
        if order.kind not in family:
            continue
        if order.nation is not None and order.nation != nation:
            continue
        if order.canal is not None and order.canal != canal:
            continue
        score = (order.nation is not None) + (order.canal is not None)
        if score >= best_score:
            best, best_score = order, score
    return None if best is None else best.kind is yes


def set_standing(state: GameState, player: str, order: StandingOrder, events: list[Event]) -> None:
    board = state.board
    if order.nation is not None and order.nation not in board.nation_by_id:
        raise IllegalAction(f"{order.nation!r} is not a nation.", [board.name(n) for n in board.nation_ids],
                            code=Refused.NOT_A_NATION, values={"text": order.nation})
    if order.canal is not None and order.canal not in board.canals:
        raise IllegalAction(f"{order.canal!r} is not a canal.", sorted(board.canals), code=Refused.NOT_A_CANAL,
                            values={"text": order.canal})
    family = _family(order.kind)
    kept = tuple(
        o for o in state.standing.get(player, ())
        if not (o.kind in family and o.nation == order.nation and o.canal == order.canal)
    )
    state.standing[player] = kept + (order,)
    events.append(StandingChanged(player, order))


def clear_standing(state: GameState, player: str, events: list[Event]) -> None:
    state.standing.pop(player, None)
    events.append(StandingChanged(player, None))
