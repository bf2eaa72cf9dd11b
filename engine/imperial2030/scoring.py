"""Final scores and the tie-break (R-END-2..4)."""
from __future__ import annotations

from engine.imperial2030.model import GameState


def player_score(state: GameState, player: str) -> int:
    """R-END-3: interest times the nation's multiplier for every bond, plus cash."""
    tables = state.board.tables
    p = state.players[player]
    return p.cash + sum(tables.interest(b.value) * state.multiplier(b.nation) for b in p.bonds)


def final_scores(state: GameState) -> tuple[tuple[str, int], ...]:
    """Players ranked, winner first.

    R-END-4: ties go to the most bond value in the most powerful nation, then
    the next. Decision: nations tied on power are taken in turn order, and
    players still tied keep their seating order.
    """
    nations = sorted(state.board.nation_ids, key=lambda n: -state.nations[n].power)
    scores = {p: player_score(state, p) for p in state.seating}

    def key(player: str) -> tuple[int, ...]:
        holdings = tuple(-state.players[player].bond_total(n) for n in nations)
        return (-scores[player], *holdings, state.seating.index(player))

    return tuple((p, scores[p]) for p in sorted(state.seating, key=key))
