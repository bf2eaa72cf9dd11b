"""The state of a game: public pieces, coins and cards, the open bid, the hidden deck order.

States are immutable values: ``apply`` returns a new one (``dataclasses.replace``
with fresh mappings), so replay and comparison are cheap and safe.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from engine.core.seats import Seat

NEUTRAL = "neutral"  # the owner of the two-player variant's neutral armies (R8-VAR-2)
NEUTRAL_ARMIES = 10


class Variant(StrEnum):
    NEUTRAL = "neutral"  # R8-VAR-2: two players place ten neutral armies before the bid
    LONG = "long"  # R8-VAR-1: a series of three games, points summed

SERIES_GAMES = 3


class Phase(StrEnum):
    NEUTRAL = "neutral"  # R8-VAR-2: the two players place neutral armies in turn
    BID = "bid"  # R8-BID-1: every player bids at once, sealed
    TAKE = "take"  # R8-TURN-1: the player on turn takes a card
    ACTION = "action"  # R8-TURN-2 / R8-ACT-*: the card's action, step by step
    OVER = "over"  # R8-END-1


@dataclass(frozen=True)
class Setup:
    """Everything a replay needs: the players in seating order, the seed, the age order if given.

    ``ages`` lists the players youngest first (R8-SETUP-4); empty means it is
    drawn from the seed at setup.
    """

    players: tuple[Seat, ...]
    seed: int = 0
    ages: tuple[str, ...] = ()
    variants: frozenset[Variant] = frozenset()

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(seat.name for seat in self.players)


@dataclass(frozen=True)
class CardInPlay:
    """The card whose action the player on turn is using: what is left of each of its actions."""

    card: int
    left: tuple[int, ...]  # per action of the card, steps (armies, cities…) still to use
    chosen: int | None = None  # on a "/" card: the action the first order chose (R8-ACT-6)


@dataclass(frozen=True)
class Score:
    """One player's final score and how it was made (R8-SCORE-*), for the game-end mail."""

    player: str
    regions: int
    continents: int
    goods: int
    wilds: tuple[str, ...]  # the good each wild card counted as (R8-SCORE-4)
    coins: int
    armies: int

    @property
    def total(self) -> int:
        return self.regions + self.continents + self.goods


@dataclass(frozen=True)
class State:
    setup: Setup
    ages: tuple[str, ...]  # youngest first
    deck: tuple[int, ...]  # hidden: the next card first
    row: tuple[int, ...]
    coins: dict[str, int]
    hands: dict[str, tuple[int, ...]]
    armies: dict[int, dict[str, int]]  # region -> player -> armies there
    cities: dict[int, dict[str, int]]
    phase: Phase = Phase.BID
    bids: dict[str, int] = field(default_factory=dict)  # the open bid: sealed until all are in
    current: str | None = None
    in_play: CardInPlay | None = None
    version: int = 0
    scores: tuple[Score, ...] = ()  # best first, once the game is over (the last game's, in a series)
    winners: tuple[str, ...] = ()
    first: str | None = None  # who won the bid and took the first turn
    revealed: dict[str, int] = field(default_factory=dict)  # every bid, once all were in (R8-BID-1)
    game_number: int = 1  # R8-VAR-1: which game of the series
    carried: dict[str, int] = field(default_factory=dict)  # points of the series' earlier games
    bid_opened: int = 0  # the version at which the current (or last) bid round opened (R8-BID-1)

    @property
    def seating(self) -> tuple[str, ...]:
        return self.setup.names

    @property
    def finished(self) -> bool:
        return self.phase is Phase.OVER

    def neutral_armies(self) -> int:
        return sum(here.get(NEUTRAL, 0) for here in self.armies.values())

    def armies_of(self, player: str) -> int:
        return sum(here.get(player, 0) for here in self.armies.values())

    def cities_of(self, player: str) -> int:
        return sum(here.get(player, 0) for here in self.cities.values())

    def pieces_in(self, region: int) -> dict[str, int]:
        """Armies plus cities per player in ``region`` (R8-SCORE-1)."""
        pieces = dict(self.armies.get(region, {}))
        for player, count in self.cities.get(region, {}).items():
            pieces[player] = pieces.get(player, 0) + count
        return {p: n for p, n in pieces.items() if n}

    def next_player(self, player: str) -> str:
        seats = self.seating
        return seats[(seats.index(player) + 1) % len(seats)]
