"""Eight-Minute Empire's prompts: the bid, the neutral armies, a turn, and a card's action step by step.

Every prompt ends in "Your options:" with lines ready to copy, one line one
whole reply. For a turn these are a card and a sensible use of it together
(``TAKE 3; MOVE 12-13, 12-9``), found by the engine's greedy helper
(``engine.eight_minute_empire.suggest``); the player may change the use as
they like. The bot reads the same lines, so what people are offered is what
the bots play. The one line that is no reply is a bid's range, ending in ':'
before the example bids (a bid is any whole number up to all one's coins).
"""
from __future__ import annotations

from engine.eight_minute_empire.actions import Action
from engine.eight_minute_empire.board import ActionKind, Board
from engine.eight_minute_empire.choices import StepChoice, step_choices
from engine.eight_minute_empire.model import NEUTRAL, NEUTRAL_ARMIES, Phase, State
from engine.eight_minute_empire.suggest import good_use, use_of_take
from pbem.games.eight_minute_empire.orders import colour_of
from pbem.games.eight_minute_empire.words import action_text, banner, card_words, order_text, row_lines
from pbem.render.text import finish, plural, wrap

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
    the bidder's coins (R8-BID-1), so its range comes first, ending in ':', and the bids listed are examples."""
    found = options(board, state, player)
    if state.phase is Phase.BID:
        return [f"BID 0 to {state.coins[player]} (any whole number of coins), for example:", *found]
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


def step_lines(board: Board, state: State, player: str) -> list[str]:
    """What the card in play can still do, one action per paragraph, with every legal target now."""
    lines = []
    for choice in step_choices(board, state, player):
        lines += _step_paragraph(state, choice, player)
    return lines or ["  Nothing of the card can be used now: send DONE."]


def _step_paragraph(state: State, choice: StepChoice, player: str) -> list[str]:
    if choice.kind is ActionKind.PLACE:
        where = ", ".join(f"{r}" for r in choice.regions)
        return [wrap(f"PLACE up to {plural(min(choice.left, choice.supply), 'army', 'armies')} "
                     f"({choice.supply} left in your supply) in: {where}.", 4, 2)]
    if choice.kind is ActionKind.CITY:
        where = ", ".join(str(r) for r in choice.regions) or "nowhere (you have no army on the map)"
        return [wrap(f"CITY: one city ({choice.supply} left) where you have an army: {where}.", 4, 2)]
    if choice.kind is ActionKind.DESTROY:
        armies = ", ".join(f"{_whose(state, owner, player)} in {r}" for owner, r in choice.targets) or "none"
        return [wrap(f"DESTROY up to {plural(choice.left, 'army', 'armies')}, of any player: {armies}.", 4, 2)]
    how = "over land and across sea lines" if choice.kind is ActionKind.WATER else "over land"
    lines = [wrap(f"MOVE up to {plural(choice.left, 'step')} {how}, shared among your armies. Where an "
                  "army can get:", 4, 2)]
    for reach in choice.reach:
        rings = [", ".join(str(r) for r, n in reach.regions if n == steps) for steps in range(1, choice.left + 1)]
        goals = "; ".join(f"{plural(steps, 'step')}: {ring}" for steps, ring in enumerate(rings, start=1) if ring)
        lines.append(wrap(f"from {reach.start} ({plural(reach.armies, 'army', 'armies')}): {goals}", 8, 6))
    return lines


def _whose(state: State, owner: str, player: str) -> str:
    if owner == NEUTRAL:
        return "neutral"
    return "yours" if owner == player else f"{owner} ({colour_of(state, owner)})"


def _ask(board: Board, state: State, player: str) -> list[str] | None:
    """The paragraph that says what is asked, or None when nothing is asked of ``player``."""
    if state.phase is Phase.OVER:
        return None
    if state.phase is Phase.BID:
        if player in state.bids:
            return None
        return [wrap(f"Bid coins for the first turn: BID and a number from 0 to {state.coins[player]} (all your "
                     "coins). The highest bid pays it and takes the first turn; among equal highest bids the "
                     f"youngest wins ({', '.join(state.ages)}, youngest first). Nobody sees your bid, or "
                     "whether you have bid, before every bid is in; until then you may change it.")]
    if player != state.current:
        return None
    if state.phase is Phase.NEUTRAL:
        return [wrap(f"Place a neutral army in any region, 1 to 25 (two-player variant; {state.neutral_armies()} of "
                     f"{NEUTRAL_ARMIES} placed): NEUTRAL and the region.")]
    if state.phase is Phase.TAKE:
        return [wrap(f"Take a card from the row and pay its place's cost (you have "
                     f"{plural(state.coins[player], 'coin')}); then use its action in the same reply, or in a "
                     "later one before the deadline. Each line below is a whole reply: a card and one way to use "
                     "it; change the use as you like (HELP PLACE, HELP MOVE ...).")]
    assert state.in_play is not None
    card = board.cards[state.in_play.card]
    one = " (one of its actions)" if card.join == "/" and state.in_play.chosen is None else ""
    fresh = state.in_play.left == tuple(a.amount for a in card.actions)
    left = "" if fresh else f"; left of it: {action_text(board, state.in_play)}"
    return [wrap(f"Use your card {card_words(card)}{one}{left}. "
                 "Write the steps in the order they should happen, then DONE (the end of your reply ends it "
                 "too)."), "", "WHAT YOU CAN DO NOW", *step_lines(board, state, player)]


def prompt(board: Board, state: State, player: str, game: str, deadline: str | None) -> str | None:
    ask = _ask(board, state, player)
    if ask is None:
        return None
    parts = [banner(game, f"{player}, your move"), "", *ask]
    if deadline:
        parts += ["", f"Please answer by {deadline}."]
    if state.phase is Phase.TAKE:
        parts += ["", *row_lines(board, state)]
    parts += ["", "Your options:", *(f"    {line}" for line in option_lines(board, state, player))]
    return finish("\n".join(parts) + "\n")
