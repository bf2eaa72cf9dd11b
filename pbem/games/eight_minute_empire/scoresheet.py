"""The end-of-game score sheet: each player's arithmetic, so nobody has to trust a bare total (R8-SCORE-1..5).

Regions are listed by number, continents with the count of their regions the
owner holds against the next best, goods per good with the chart's points and
the good each wild card was counted as, and the tie-breaks where they decided.
"""
from __future__ import annotations

from collections import Counter

from engine.eight_minute_empire.board import Board
from engine.eight_minute_empire.model import Score, State
from engine.eight_minute_empire.scoring import (
    TIE_BREAKS,
    continent_owners,
    good_points,
    region_owners,
    symbols_of,
)
from pbem.render.text import join_words, plural, wrap

TIE_WORDS = {"coins": "coins", "armies": "armies on the map", "regions": "regions controlled"}


def score_sheet(board: Board, state: State) -> list[str]:
    """FINAL SCORES: one block per player, best first, then how ties were broken."""
    owners = region_owners(state, board)
    continents = continent_owners(board, owners)
    lines = ["FINAL SCORES (regions + continents + goods)"]
    for rank, score in enumerate(state.scores, start=1):
        series = f"; the series: {state.carried[score.player]}" if state.carried else ""
        lines += ["", f"  {rank}. {score.player}: {score.regions} + {score.continents} + {score.goods} = "
                      f"{plural(score.total, 'point')}{series}"]
        lines += _regions(owners, score.player)
        lines += _continents(board, owners, continents, score.player)
        lines += _goods(board, state.hands[score.player], score)
        lines.append(f"       coins {score.coins}, armies on the map {score.armies}")
    lines += _ties(state)
    return lines


def _regions(owners: dict[int, str], player: str) -> list[str]:
    held = [str(r) for r in sorted(owners) if owners[r] == player]
    return [wrap(f"regions {len(held)}: " + (", ".join(held) or "none"), 9, 7)]


def _continents(board: Board, owners: dict[int, str], continents: dict[str, str], player: str) -> list[str]:
    parts = []
    for name in sorted(n for n, owner in continents.items() if owner == player):
        counts = Counter(owners[r] for r in board.continents[name] if r in owners)
        others = [n for p, n in counts.items() if p != player]
        against = f", the next best {max(others)}" if others else ""
        parts.append(f"{name} ({counts[player]} of its {len(board.continents[name])} regions{against})")
    return [wrap(f"continents {len(parts)}: " + ("; ".join(parts) or "none"), 9, 7)]


def _goods(board: Board, cards: tuple[int, ...], score: Score) -> list[str]:
    symbols = symbols_of(board, cards)
    wild = Counter(score.wilds)
    parts = []
    for good in board.goods:
        own, extra = symbols[good], wild[good]
        if own or extra:
            count = f"{own} + {extra} wild" if extra else f"{own}"
            parts.append(f"{good} {count} -> {good_points(board, good, own + extra)}")
    text = f"goods {score.goods}: " + ("; ".join(parts) or "no cards")
    if score.wilds:
        text += f" (wild cards counted as {join_words(score.wilds)}, their best use)"
    return [wrap(text, 9, 7)]


def _ties(state: State) -> list[str]:
    """R8-SCORE-5: for each group of equal totals, which tie-break separated them, or that they share."""
    lines = []
    by_total: dict[int, list[Score]] = {}
    for score in state.scores:
        by_total.setdefault(score.total if not state.carried else state.carried[score.player], []).append(score)
    for total, group in by_total.items():
        if len(group) > 1:
            lines.append(wrap(_tie_sentence(total, group), 4, 2))
    return ["", "TIES", *lines] if lines else []


def _tie_sentence(total: int, group: list[Score]) -> str:
    """R8-SCORE-5 for one group of equal totals (best first): the tie-break that decided each place.

    The first tie-break that tells *anyone* in the group apart need not be the
    one that decided between two neighbours (coins may split the third from the
    first two, whom armies then split), so each pair of neighbours is told apart
    on its own.
    """
    names = join_words([s.player for s in group])
    each = f"{names} have {plural(total, 'point')} each"
    pairs = [_decided(ahead, behind) for ahead, behind in zip(group, group[1:], strict=False)]
    if not any(pairs):
        return f"{each} and are equal in coins, armies and regions: they share."
    if len(group) == 2:
        return f"{each}; {pairs[0]}."
    told = [f"Between {a.player} and {b.player}, {pair}" if pair else
            f"{a.player} and {b.player} are equal in coins, armies and regions too: they share"
            for a, b, pair in zip(group, group[1:], pairs, strict=False)]
    return f"{each}. " + ". ".join(told) + "."


def _decided(ahead: Score, behind: Score) -> str | None:
    """'armies on the map decide (coins equal): ann 5, bob 4'; None when the two are equal in every tie-break."""
    for index, attribute in enumerate(TIE_BREAKS):
        first, second = getattr(ahead, attribute), getattr(behind, attribute)
        if first != second:
            equal = [TIE_WORDS[earlier] for earlier in TIE_BREAKS[:index]]
            note = f" ({join_words(equal)} equal)" if equal else ""
            return f"{TIE_WORDS[attribute]} decide{note}: {ahead.player} {first}, {behind.player} {second}"
    return None
