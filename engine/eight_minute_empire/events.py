"""What happened, in order: the moderator narrates these. ``BidGiven`` is its bidder's alone (R8-BID-1)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class BidGiven:
    player: str
    coins: int


@dataclass(frozen=True, slots=True)
class BidsRevealed:
    bids: tuple[tuple[str, int], ...]  # seating order
    first: str
    paid: int


@dataclass(frozen=True, slots=True)
class CardTaken:
    player: str
    card: int
    place: int
    cost: int


@dataclass(frozen=True, slots=True)
class ArmiesPlaced:
    player: str
    region: int
    count: int


@dataclass(frozen=True, slots=True)
class ArmyMoved:
    player: str
    path: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CityBuilt:
    player: str
    region: int


@dataclass(frozen=True, slots=True)
class ArmyDestroyed:
    by: str
    owner: str
    region: int


@dataclass(frozen=True, slots=True)
class TurnEnded:
    player: str
    unused: int  # steps of the card's action left unused
    next: str | None  # whose turn it is now (None: the game is over)
    laid: int | None  # R8-TURN-3: the deck's card laid in the row's last place after the action (None: the deck is empty)


@dataclass(frozen=True, slots=True)
class SeriesGameEnded:
    """R8-VAR-1: one game of the series is over; the next starts afresh."""

    number: int
    points: tuple[tuple[str, int], ...]  # this game's, best first
    carried: tuple[tuple[str, int], ...]  # the series so far, seating order


@dataclass(frozen=True, slots=True)
class GameEnded:
    winners: tuple[str, ...]


Event = (BidGiven | BidsRevealed | CardTaken | ArmiesPlaced | ArmyMoved | CityBuilt | ArmyDestroyed | TurnEnded
         | SeriesGameEnded | GameEnded)
