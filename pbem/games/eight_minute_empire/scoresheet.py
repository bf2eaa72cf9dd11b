"""The end-of-game score sheet: each player's arithmetic, so nobody has to trust a bare total (R8-SCORE-1..5).

Regions are listed by number, continents with the count of their regions the
owner holds against the next best, goods per good with the chart's points and
the good each wild card was counted as, and the tie-breaks where they decided.
This module works those facts out into a ``SheetView``; the words are in
``templates/eight_minute_empire/_scoresheet.j2``.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from engine.eight_minute_empire.board import Board
from engine.eight_minute_empire.model import Score, State
from engine.eight_minute_empire.scoring import (
    TIE_BREAKS,
    continent_owners,
    good_points,
    region_owners,
    symbols_of,
)
from pbem.games.eight_minute_empire.viewmodels import render_part


@dataclass(frozen=True, slots=True)
class ContinentView:
    """A continent a player controls: how many of its regions they hold, and the next best player's count."""

    name: str
    held: int
    size: int
    next_best: int | None


@dataclass(frozen=True, slots=True)
class GoodView:
    """One good a player scored: symbols of their own, wild cards counted as it, and the chart's points."""

    good: str
    own: int
    wild: int
    points: int


@dataclass(frozen=True, slots=True)
class PlayerSheet:
    score: Score
    series: int | None  # the series' points so far (long game)
    regions: tuple[int, ...]
    continents: tuple[ContinentView, ...]
    goods: tuple[GoodView, ...]


@dataclass(frozen=True, slots=True)
class Decided:
    """The tie-break that told two neighbours in a tie apart (R8-SCORE-5), and the earlier ones that were equal."""

    attribute: str  # a name of TIE_BREAKS
    equal: tuple[str, ...]
    ahead: str
    first: int
    behind: str
    second: int


@dataclass(frozen=True, slots=True)
class TieView:
    """One group of equal totals, best first, with what decided between each pair of neighbours (None: shared)."""

    players: tuple[str, ...]
    total: int
    pairs: tuple[Decided | None, ...]


@dataclass(frozen=True, slots=True)
class SheetView:
    players: tuple[PlayerSheet, ...]
    ties: tuple[TieView, ...]


def sheet_view(board: Board, state: State) -> SheetView:
    owners = region_owners(state, board)
    continents = continent_owners(board, owners)
    players = tuple(PlayerSheet(score, state.carried[score.player] if state.carried else None,
                                tuple(r for r in sorted(owners) if owners[r] == score.player),
                                _continents(board, owners, continents, score.player),
                                _goods(board, state.hands[score.player], score)) for score in state.scores)
    return SheetView(players, _ties(state))


def score_sheet(board: Board, state: State) -> list[str]:
    """FINAL SCORES: one block per player, best first, then how ties were broken."""
    return render_part("_scoresheet", sheet=sheet_view(board, state)).split("\n")


def _continents(board: Board, owners: dict[int, str], continents: dict[str, str],
                player: str) -> tuple[ContinentView, ...]:
    found = []
    for name in sorted(n for n, owner in continents.items() if owner == player):
        counts = Counter(owners[r] for r in board.continents[name] if r in owners)
        others = [n for p, n in counts.items() if p != player]
        found.append(ContinentView(name, counts[player], len(board.continents[name]), max(others) if others else None))
    return tuple(found)


def _goods(board: Board, cards: tuple[int, ...], score: Score) -> tuple[GoodView, ...]:
    symbols = symbols_of(board, cards)
    wild = Counter(score.wilds)
    return tuple(GoodView(good, symbols[good], wild[good], good_points(board, good, symbols[good] + wild[good]))
                 for good in board.goods if symbols[good] or wild[good])


def _ties(state: State) -> tuple[TieView, ...]:
    """R8-SCORE-5: for each group of equal totals, which tie-break separated them, or that they share.

    The first tie-break that tells *anyone* in the group apart need not be the
    one that decided between two neighbours (coins may split the third from the
    first two, whom armies then split), so each pair of neighbours is told apart
    on its own.
    """
    by_total: dict[int, list[Score]] = {}
    for score in state.scores:
        by_total.setdefault(score.total if not state.carried else state.carried[score.player], []).append(score)
    return tuple(TieView(tuple(s.player for s in group), total,
                         tuple(_decided(a, b) for a, b in zip(group, group[1:], strict=False)))
                 for total, group in by_total.items() if len(group) > 1)


def _decided(ahead: Score, behind: Score) -> Decided | None:
    """The first tie-break in which the two differ; None when they are equal in every one."""
    for index, attribute in enumerate(TIE_BREAKS):
        first, second = getattr(ahead, attribute), getattr(behind, attribute)
        if first != second:
            return Decided(attribute, TIE_BREAKS[:index], ahead.player, first, behind.player, second)
    return None
