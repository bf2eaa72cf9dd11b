"""A random legal player: for property tests and the benchmark (random full games per second)."""
from __future__ import annotations

import random

from engine.eight_minute_empire.actions import Action, Bid, City, Destroy, Done, Move, Place, PlaceNeutral, Take
from engine.eight_minute_empire.board import ActionKind, Board
from engine.eight_minute_empire.model import Phase, State


def random_move(board: Board, state: State, rng: random.Random) -> tuple[str, Action]:
    """(player, action): one legal step, chosen at random among simple ones."""
    if state.phase is Phase.BID:
        bidder = rng.choice([p for p in state.seating if p not in state.bids])
        return bidder, Bid(rng.randint(0, min(3, state.coins[bidder])))
    player = state.current
    assert player is not None
    if state.phase is Phase.NEUTRAL:
        return player, PlaceNeutral(rng.choice(board.regions))
    if state.phase is Phase.TAKE:
        places = [i + 1 for i in range(len(state.row)) if board.row_costs[i] <= state.coins[player]]
        return player, Take(rng.choice(places))
    return player, _card_step(board, state, player, rng)


def _card_step(board: Board, state: State, player: str, rng: random.Random) -> Action:
    in_play = state.in_play
    assert in_play is not None
    card = board.cards[in_play.card]
    options: list[Action] = [Done()]
    for index, (card_action, left) in enumerate(zip(card.actions, in_play.left, strict=True)):
        if left <= 0 or (in_play.chosen is not None and in_play.chosen != index):
            continue
        mine = [r for r, here in state.armies.items() if here.get(player)]
        if card_action.kind is ActionKind.PLACE and state.armies_of(player) < board.armies:
            spots = [board.start, *(r for r, here in state.cities.items() if here.get(player))]
            options += [Place(((rng.choice(spots), 1),))] * 3
        elif card_action.kind in (ActionKind.MOVE, ActionKind.WATER) and mine:
            start = rng.choice(mine)
            near = sorted(board.neighbours(start, water=card_action.kind is ActionKind.WATER))
            if near:
                options += [Move(((start, rng.choice(near)),))] * 3
        elif card_action.kind is ActionKind.CITY and mine and state.cities_of(player) < board.cities:
            options.append(City(rng.choice(mine)))
        elif card_action.kind is ActionKind.DESTROY:
            targets = [(p, r) for r, here in state.armies.items() for p in here if p != player]  # neutral too
            if targets:
                options.append(Destroy((rng.choice(targets),)))
    return rng.choice(options)
