"""The end of the game: regions, continents, goods with the best use of wild cards, tie-breaks (R8-SCORE-*)."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from engine.eight_minute_empire.board import WILD, Board
from engine.eight_minute_empire.model import NEUTRAL, Score, State

TIE_BREAKS = ("coins", "armies", "regions")  # R8-SCORE-5: after the points, in this order (Score fields)


def controller(pieces: dict[str, int]) -> str | None:
    """R8-SCORE-1/2: the one player with strictly the most; None on a tie or when empty."""
    if not pieces:
        return None
    best = max(pieces.values())
    leaders = [p for p, n in pieces.items() if n == best]
    return leaders[0] if len(leaders) == 1 and best > 0 else None


def region_owners(state: State, board: Board) -> dict[int, str]:
    """R8-SCORE-1, R8-VAR-2: neutral armies count against control but never control anything themselves."""
    return {r: owner for r in board.regions
            if (owner := controller(state.pieces_in(r))) is not None and owner != NEUTRAL}


def continent_owners(board: Board, regions: dict[int, str]) -> dict[str, str]:
    owners = {}
    for name, members in board.continents.items():
        owner = controller(dict(Counter(regions[r] for r in members if r in regions)))
        if owner is not None:
            owners[name] = owner
    return owners


def good_points(board: Board, good: str, symbols: int) -> int:
    """R8-SCORE-3: the points of ``symbols`` of ``good`` by its chart (e.g. wood 2-3: 1, 4: 2, 5: 3, 6+: 5)."""
    points = 0
    for needed, worth in zip(board.goods[good], board.goods_points, strict=True):
        if symbols >= needed:
            points = worth
    return points


def _spreads(wilds: int, goods: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    """Every way to give ``wilds`` wild cards a good each (order does not matter)."""
    if wilds == 0:
        yield ()
        return
    for index, good in enumerate(goods):
        for rest in _spreads(wilds - 1, goods[index:]):
            yield (good, *rest)


def symbols_of(board: Board, cards: tuple[int, ...]) -> Counter[str]:
    """R8-SCORE-3: the symbols a hand shows, per good (a double card counts two; wild cards under WILD)."""
    symbols = Counter[str]()
    for card_id in cards:
        card = board.cards[card_id]
        symbols[card.good] += card.symbols
    return symbols


def goods_score(board: Board, cards: tuple[int, ...]) -> tuple[int, tuple[str, ...]]:
    """R8-SCORE-3/4: the goods points of a hand with its wild cards used as well as they can be.

    **Decision** (R8-SCORE-4): a wild card may count as any good of the game,
    one its holder has no card of too. The Russian rulebook lets the player add
    it to "any of the stacks", which could be read as the stacks the player
    already has; the rules reference says "a good its holder chooses", with no
    such limit, and it stands. So a lone wild card scores 1 as a crystal (whose
    chart starts at one symbol).
    """
    symbols = symbols_of(board, cards)
    wilds = symbols.pop(WILD, 0)
    goods = tuple(board.goods)  # every good, not only those the hand shows (the Decision above)
    best: tuple[int, tuple[str, ...]] = (-1, ())
    for spread in _spreads(wilds, goods):
        counts = symbols + Counter(spread)
        points = sum(good_points(board, g, counts[g]) for g in goods)
        if points > best[0]:
            best = (points, spread)
    return best


def final_scores(state: State, board: Board) -> tuple[tuple[Score, ...], tuple[str, ...]]:
    """Every player's score, best first by R8-SCORE-5's tie-breaks, and the winners (equal in all, they share)."""
    regions = region_owners(state, board)
    continents = continent_owners(board, regions)
    scores = []
    for player in state.seating:
        goods, wilds = goods_score(board, state.hands[player])
        scores.append(Score(player, sum(1 for o in regions.values() if o == player),
                            sum(1 for o in continents.values() if o == player), goods, wilds,
                            state.coins[player], state.armies_of(player)))

    def rank(score: Score) -> tuple[int, ...]:
        return (score.total, *(getattr(score, tie) for tie in TIE_BREAKS))

    ordered = tuple(sorted(scores, key=rank, reverse=True))
    winners = tuple(s.player for s in ordered if rank(s) == rank(ordered[0]))
    return ordered, winners
