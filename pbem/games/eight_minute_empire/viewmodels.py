"""The typed values Eight-Minute Empire's templates lay out: a card, the row, the players, the map, a status.

Templates (``templates/eight_minute_empire/``) hold every word a player
reads; these values hold only facts - numbers, names, colours, the phase -
so that a wording change, or a translation, touches no Python. Each
``*_view`` builder reads the state once; ``render_part`` and ``say`` lay a
view out with the shared Jinja environment (``pbem.render.env``) for the
mails that put several parts together.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine.eight_minute_empire.board import ActionKind, Board, Card
from engine.eight_minute_empire.events import ArmiesPlaced, BidGiven, CardTaken, Event, TurnEnded
from engine.eight_minute_empire.model import NEUTRAL, NEUTRAL_ARMIES, CardInPlay, Phase, Score, State, Variant
from engine.eight_minute_empire.scoring import symbols_of
from pbem.render.art import FilledPanel
from pbem.render.env import environment

PACKAGE = "eight_minute_empire"


def render_part(name: str, **context: Any) -> str:
    """``templates/eight_minute_empire/<name>.j2`` laid out, without its final newline (the caller joins parts)."""
    return environment().get_template(f"{PACKAGE}/{name}.j2").render(**context).removesuffix("\n")


def say(template: str, macro: str, *args: Any) -> str:
    """One macro of a template called with ``args``: a sentence or a phrase within a line."""
    return str(getattr(environment().get_template(f"{PACKAGE}/{template}.j2").module, macro)(*args))


@dataclass(frozen=True, slots=True)
class Use:
    """One action of a card, or what is left of it: its kind and how many (a city has no number)."""

    kind: ActionKind
    amount: int


@dataclass(frozen=True, slots=True)
class CardView:
    """A card as players read it: '#13 carrot: move over land and water 3'."""

    id: int
    good: str
    double: bool
    join: str  # "", "/" (one of the actions) or "+" (both)
    actions: tuple[Use, ...]


def card_view(card: Card) -> CardView:
    return CardView(card.id, card.good, card.symbols == 2, card.join,
                    tuple(Use(a.kind, a.amount) for a in card.actions))


def left_of(board: Board, in_play: CardInPlay) -> tuple[Use, ...]:
    """What is left of the card in play (the actions not chosen against, with steps left)."""
    card = board.cards[in_play.card]
    return tuple(Use(a.kind, n) for index, (a, n) in enumerate(zip(card.actions, in_play.left, strict=True))
                 if n > 0 and in_play.chosen in (None, index))


@dataclass(frozen=True, slots=True)
class RowCard:
    cost: int
    card: CardView


@dataclass(frozen=True, slots=True)
class RowView:
    """The row of face-up cards with each place's cost, and the deck's size."""

    cards: tuple[RowCard, ...]
    deck: int


def row_view(board: Board, state: State) -> RowView:
    return RowView(tuple(RowCard(board.row_costs[i], card_view(board.cards[c])) for i, c in enumerate(state.row)),
                   len(state.deck))


@dataclass(frozen=True, slots=True)
class StatusView:
    """Where the game stands, for one reader (``you``: the reader is on turn)."""

    phase: Phase
    current: str | None
    you: bool
    neutral_placed: int
    neutral_armies: int
    series_game: int | None  # the game's number in a long game's series


def status_view(state: State, viewer: str | None) -> StatusView:
    return StatusView(state.phase, state.current, state.current is not None and state.current == viewer,
                      state.neutral_armies(), NEUTRAL_ARMIES,
                      state.game_number if Variant.LONG in state.setup.variants else None)


@dataclass(frozen=True, slots=True)
class PlayerView:
    """One player's public holdings (R8-PIECE-3) and their points if the game ended now."""

    name: str
    colour: str
    you: bool
    on_turn: bool
    coins: int
    cards: int
    armies: int
    cities: int
    goods: tuple[tuple[str, int], ...]  # good, symbols held; by good
    score: Score


def goods_held(board: Board, cards: tuple[int, ...]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(symbols_of(board, cards).items()))


@dataclass(frozen=True, slots=True)
class MapView:
    """The map's panels filled with each region's pieces (layout from ``maps/``), then who controls what."""

    panels: tuple[FilledPanel, ...]
    regions: tuple[tuple[int, str], ...]  # region, controlling player; by region
    continents: tuple[tuple[str, str], ...]  # continent, controlling player; by name


@dataclass(frozen=True, slots=True)
class Told:
    """One event as one reader is told of it (``_narration.j2`` has a sentence for each kind of event)."""

    event: Event
    kind: str  # the event's class name
    viewer: str | None
    neutral: bool  # the neutral player's armies (two-player variant)
    card: CardView | None  # the card taken


def told(board: Board, events: Iterable[Event], viewer: str | None) -> tuple[Told, ...]:
    """The events ``viewer`` may read: a sealed bid only to its bidder (R8-BID-1), the turn's end only when
    someone plays next."""
    return tuple(Told(e, type(e).__name__, viewer, isinstance(e, ArmiesPlaced) and e.player == NEUTRAL,
                      card_view(board.cards[e.card]) if isinstance(e, CardTaken) else None)
                 for e in events
                 if not (isinstance(e, BidGiven) and e.player != viewer)
                 and not (isinstance(e, TurnEnded) and e.next is None))

