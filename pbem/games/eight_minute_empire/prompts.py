"""Eight-Minute Empire's prompts: the bid, the neutral armies, a turn, and a card's action step by step.

The words are in ``templates/eight_minute_empire/prompt.j2``; this module
finds the options and hands the template an ``AskView`` of what is asked.
Every prompt opens with the question, the deadline and "Your options:" with
lines ready to copy, one line one whole reply (issue 29: a player sees on the
first screen what is wanted); what the options refer to follows them (the
row of cards, a card's steps in detail). For a turn these are a card and a
sensible use of it together (``TAKE 3; MOVE 12-13, 12-9``), found by the
engine's greedy helper (``engine.eight_minute_empire.suggest``); the player
may change the use as they like. The bot reads the same lines, so what
people are offered is what the bots play. The one line that is no reply is
a bid's range, ending in ':' before the example bids (a bid is any whole
number up to all one's coins).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from engine.eight_minute_empire.actions import Action
from engine.eight_minute_empire.board import ActionKind, Board
from engine.eight_minute_empire.choices import StepChoice, step_choices
from engine.eight_minute_empire.model import NEUTRAL, NEUTRAL_ARMIES, Phase, State
from engine.eight_minute_empire.suggest import good_use, use_of_take
from pbem.games.eight_minute_empire import names
from pbem.games.eight_minute_empire.cardtext import order_text, row_text
from pbem.games.eight_minute_empire.orders import colour_of
from pbem.games.eight_minute_empire.viewmodels import CardView, Use, card_view, left_of, say
from pbem.render.env import render

NEUTRAL_SPOTS = (1, 5, 9, 13, 17, 21, 25)  # examples spread over the map; any region is legal (R8-VAR-2)
MAX_MOVES_LISTED = 12
MAX_DESTROYS_LISTED = 8


def options(board: Board, state: State, player: str) -> list[str]:
    """Orders the player could send now, each a whole reply: what the state JSON lists (the bid: examples)."""
    if state.phase is Phase.NEUTRAL:
        return [f"NEUTRAL {r}" for r in NEUTRAL_SPOTS]
    if state.phase is Phase.BID:
        coins = state.coins[player]
        return [f"BID {n}" for n in sorted({0, 1, 2, 3, coins // 2, coins}) if n <= coins]
    if state.phase is Phase.TAKE:
        return [_take_line(board, state, player, place) for place in _affordable(board, state, player)]
    suggestion = good_use(board, state, player)
    lines = [_joined(suggestion)] if suggestion else []
    for choice in step_choices(board, state, player):
        lines += [line for line in _single_lines(choice, player) if line not in lines]
    return [*lines, "DONE"]


def option_lines(board: Board, state: State, player: str) -> list[str]:
    """``options`` as a reader sees them (prompts, OPTIONS, refusals): a bid may be any whole number up to all
    the bidder's coins (R8-BID-1), so its range comes first, ending in ':', and the bids listed are examples.
    They are written in the reader's language (``names.localized``) and read back by the parser as written."""
    found = [names.localized(line) for line in options(board, state, player)]
    if state.phase is Phase.BID:
        return [say("_words", "bid_range", state.coins[player]), *found]
    return found


def _affordable(board: Board, state: State, player: str) -> list[int]:
    """R8-TURN-1: the places whose cost the player can pay."""
    return [i + 1 for i in range(len(state.row)) if board.row_costs[i] <= state.coins[player]]


def _take_line(board: Board, state: State, player: str, place: int) -> str:
    use = use_of_take(board, state, player, place)
    return "; ".join([f"TAKE {place}", *(order_text(a) for a in use)])


def _joined(actions: tuple[Action, ...]) -> str:
    return "; ".join(order_text(a) for a in actions)


def _single_lines(choice: StepChoice, player: str) -> list[str]:
    """Simple one-step orders of one action: each a legal reply by itself."""
    if not choice.possible:
        return []
    if choice.kind is ActionKind.PLACE:
        return [f"PLACE {r}" for r in choice.regions]
    if choice.kind is ActionKind.CITY:
        return [f"CITY {r}" for r in choice.regions]
    if choice.kind is ActionKind.DESTROY:
        others = [t for t in choice.targets if t[0] != player]
        return [f"DESTROY {owner} {r}" for owner, r in others][:MAX_DESTROYS_LISTED]
    moves = [f"MOVE {reach.start}-{goal}" for reach in choice.reach for goal, steps in reach.regions if steps == 1]
    return moves[:MAX_MOVES_LISTED]


@dataclass(frozen=True, slots=True)
class TargetView:
    """An army DESTROY may remove: whose (the reader's own, neutral, or another's with their colour) and where."""

    owner: str
    colour: str
    yours: bool
    neutral: bool
    region: int


@dataclass(frozen=True, slots=True)
class ReachView:
    """Where the armies in ``start`` can get: the regions at each number of steps (rings with no region left out)."""

    start: int
    armies: int
    rings: tuple[tuple[int, tuple[int, ...]], ...]


@dataclass(frozen=True, slots=True)
class StepView:
    """One action of the card in play and its legal targets now."""

    kind: ActionKind
    most: int  # armies to place or destroy, steps to move
    supply: int
    regions: tuple[int, ...]
    targets: tuple[TargetView, ...]
    reach: tuple[ReachView, ...]


@dataclass(frozen=True, slots=True)
class AskView:
    """What the prompt asks: the bid, a neutral army, a card from the row, or the steps of the card in play."""

    phase: Phase
    coins: int
    ages: tuple[str, ...]
    neutral_placed: int
    neutral_armies: int
    card: CardView | None = None
    one_of: bool = False  # a card of two actions, one to be chosen
    left: tuple[Use, ...] | None = None  # what is left of the card, None while none of it is used
    steps: tuple[StepView, ...] = ()


@dataclass(frozen=True, slots=True)
class PromptView:
    game: str
    player: str
    ask: AskView
    deadline: str | None
    options: tuple[str, ...]  # whole replies, ready to copy (the bid's range first)


def _step_view(state: State, choice: StepChoice, player: str) -> StepView:
    most = min(choice.left, choice.supply) if choice.kind is ActionKind.PLACE else choice.left
    targets = tuple(TargetView(owner, "" if owner == NEUTRAL else colour_of(state, owner), owner == player,
                               owner == NEUTRAL, r) for owner, r in choice.targets)
    reach = tuple(ReachView(r.start, r.armies, tuple(
        (steps, ring) for steps in range(1, choice.left + 1)
        if (ring := tuple(region for region, n in r.regions if n == steps)))) for r in choice.reach)
    return StepView(choice.kind, most, choice.supply, choice.regions, targets, reach)


def _ask(board: Board, state: State, player: str) -> AskView | None:
    """What is asked of ``player``, or None when nothing is."""
    if state.phase is Phase.OVER or (state.phase is Phase.BID and player in state.bids):
        return None
    if state.phase is not Phase.BID and player != state.current:
        return None
    ask = AskView(state.phase, state.coins[player], state.ages, state.neutral_armies(), NEUTRAL_ARMIES)
    if state.phase is not Phase.ACTION:
        return ask
    assert state.in_play is not None
    card = board.cards[state.in_play.card]
    fresh = state.in_play.left == tuple(a.amount for a in card.actions)
    return replace(ask, card=card_view(card), one_of=card.join == "/" and state.in_play.chosen is None,
                   left=None if fresh else left_of(board, state.in_play),
                   steps=tuple(_step_view(state, c, player) for c in step_choices(board, state, player)))


def prompt(board: Board, state: State, player: str, game: str, deadline: str | None) -> str | None:
    ask = _ask(board, state, player)
    if ask is None:
        return None
    view = PromptView(game, player, ask, deadline, tuple(option_lines(board, state, player)))
    return render("eight_minute_empire/prompt.j2", prompt=view,
                  row_text=row_text(board, state) if state.phase is Phase.TAKE else "")
