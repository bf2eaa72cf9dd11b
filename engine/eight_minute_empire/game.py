"""Setup, the sealed bid, turns and card actions: ``new_game``, ``apply`` and ``pending``.

``apply`` never changes the state it is given: it returns a new state and the
events, or raises ``IllegalAction`` with the reason and what is legal now.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from engine.core.errors import Cause, GameFinished, IllegalAction, NotYourDecision
from engine.core.rng import seeded
from engine.eight_minute_empire.actions import Action, Bid, City, Destroy, Done, Move, Place, PlaceNeutral, Take
from engine.eight_minute_empire.board import ActionKind, Board
from engine.eight_minute_empire.events import (
    ArmiesPlaced,
    ArmyDestroyed,
    ArmyMoved,
    BidGiven,
    BidsRevealed,
    CardTaken,
    CityBuilt,
    Event,
    GameEnded,
    SeriesGameEnded,
    TurnEnded,
)
from engine.eight_minute_empire.model import (
    NEUTRAL,
    NEUTRAL_ARMIES,
    SERIES_GAMES,
    CardInPlay,
    Phase,
    Score,
    Setup,
    State,
    Variant,
)
from engine.eight_minute_empire.refusals import Refused
from engine.eight_minute_empire.scoring import TIE_BREAKS, final_scores


class DecisionKind(StrEnum):
    NEUTRAL = "neutral"
    BID = "bid"
    TAKE = "take"
    ACTION = "action"


@dataclass(frozen=True, slots=True)
class Decision:
    """Who must decide what, and the passive answer a deadline takes (R8-BID-3, R8-TURN-4)."""

    player: str
    kind: DecisionKind
    default: Action
    answered: bool = False  # a sealed bid already given (it may still be changed)


# --- setup ---------------------------------------------------------------------------------------


def new_game(board: Board, setup: Setup) -> tuple[State, list[Event]]:
    """R8-SETUP-1..4, R8-PIECE-3: deck, row of six, coins, three armies each in the start region, ages."""
    names = setup.names
    if not 2 <= len(names) <= 5:
        raise IllegalAction(f"Eight-Minute Empire needs 2 to 5 players, not {len(names)}.",
                            code=Refused.PLAYER_COUNT, values={"count": len(names)})
    if setup.ages and sorted(setup.ages) != sorted(names):
        raise IllegalAction("The age order must list every player once.", code=Refused.AGE_ORDER)
    neutral = Variant.NEUTRAL in setup.variants
    if neutral and len(names) != 2:
        raise IllegalAction("Neutral armies are a two-player variant.", code=Refused.NEUTRAL_TWO_PLAYERS)
    ages = setup.ages or tuple(seeded(setup.seed, "ages").sample(names, len(names)))
    return _fresh(board, setup, ages, 1, {}, 0), []


def _fresh(board: Board, setup: Setup, ages: tuple[str, ...], number: int, carried: dict[str, int],
           version: int) -> State:
    """A game of the series set up afresh (R8-VAR-1): a new shuffle, coins, three armies each; ``carried`` points."""
    names = setup.names
    neutral = Variant.NEUTRAL in setup.variants
    deck = list(board.deck(len(names)))
    seeded(setup.seed, "deck" if number == 1 else f"deck {number}").shuffle(deck)
    width = len(board.row_costs)
    return State(
        setup=setup, ages=ages, deck=tuple(deck[width:]), row=tuple(deck[:width]),
        coins={p: board.coins[len(names)] for p in names}, hands={p: () for p in names},
        armies={board.start: {p: board.start_armies for p in names}}, cities={},
        phase=Phase.NEUTRAL if neutral else Phase.BID, current=names[0] if neutral else None,
        version=version, game_number=number, carried=carried,
    )


def _series_result(scores: tuple[Score, ...], carried: dict[str, int]) -> tuple[tuple[Score, ...], tuple[str, ...]]:
    """R8-VAR-1: most points over the series; ties broken like R8-SCORE-5 on the last game (**Decision**)."""
    def rank(score: Score) -> tuple[int, ...]:
        return (carried[score.player], *(getattr(score, tie) for tie in TIE_BREAKS))

    ordered = tuple(sorted(scores, key=rank, reverse=True))
    return ordered, tuple(s.player for s in ordered if rank(s) == rank(ordered[0]))


# --- the engine's entry points -------------------------------------------------------------------------


def pending(state: State) -> tuple[Decision, ...]:
    if state.phase is Phase.OVER:
        return ()
    if state.phase is Phase.BID:
        return tuple(Decision(p, DecisionKind.BID, Bid(0), answered=p in state.bids) for p in state.seating)
    assert state.current is not None
    if state.phase is Phase.NEUTRAL:
        return (Decision(state.current, DecisionKind.NEUTRAL, PlaceNeutral(_default_neutral(state))),)
    if state.phase is Phase.TAKE:
        return (Decision(state.current, DecisionKind.TAKE, Take(1)),)
    return (Decision(state.current, DecisionKind.ACTION, Done()),)


def apply(board: Board, state: State, player: str, action: Action) -> tuple[State, list[Event]]:
    if state.phase is Phase.OVER:
        raise GameFinished("The game is over.", code=Refused.GAME_OVER)
    if player not in state.seating:
        raise NotYourDecision(f"{player!r} is not a player of this game.", code=Refused.NOT_A_PLAYER,
                              values={"player": player})
    events: list[Event] = []
    if state.phase is Phase.BID:
        new = _bid(board, state, player, action, events)
    elif player != state.current:
        raise NotYourDecision(f"It is {state.current}'s turn, not {player}'s.", code=Refused.NOT_YOUR_TURN,
                              values={"current": state.current, "player": player})
    elif state.phase is Phase.NEUTRAL:
        new = _neutral(board, state, player, action, events)
    elif state.phase is Phase.TAKE:
        new = _take(board, state, player, action, events)
    else:
        new = _use(board, state, player, action, events)
    return replace(new, version=state.version + 1), events


# --- neutral armies (two-player variant) -------------------------------------------------------------------


def _default_neutral(state: State) -> int:
    """R8-VAR-2, **Decision** (deadline): the lowest-numbered region that holds no neutral army yet."""
    return next((r for r in range(1, 26) if not state.armies.get(r, {}).get(NEUTRAL)), 1)


def _neutral(board: Board, state: State, player: str, action: Action, events: list[Event]) -> State:
    """R8-VAR-2: one neutral army in any region, the players in turn, until ten stand; then the bid."""
    if not isinstance(action, PlaceNeutral):
        raise IllegalAction("First the two players place neutral armies, one at a time.", ["NEUTRAL 5"],
                            code=Refused.NEUTRAL_FIRST)
    if action.region not in board.regions:
        raise IllegalAction(f"{action.region} is no region: regions are 1 to 25.", ["NEUTRAL 5"],
                            code=Refused.NO_REGION, values={"region": action.region})
    state = replace(state, armies=_with(state.armies, action.region, NEUTRAL, 1))
    events.append(ArmiesPlaced(NEUTRAL, action.region, 1))
    if state.neutral_armies() >= NEUTRAL_ARMIES:
        return replace(state, phase=Phase.BID, current=None, bid_opened=state.version + 1)
    return replace(state, current=state.next_player(player))


# --- the bid ---------------------------------------------------------------------------------------------


def _bid(board: Board, state: State, player: str, action: Action, events: list[Event]) -> State:
    """R8-BID-1..2: record a sealed bid (changeable); when the last is in, reveal all and start."""
    coins = state.coins[player]
    if not isinstance(action, Bid):
        raise IllegalAction("Every player bids first, at the same time.", [f"BID 0 to {coins}"],
                            code=Refused.BID_FIRST)
    if not 0 <= action.coins <= coins:
        raise IllegalAction(f"You can bid 0 to {coins} coins, not {action.coins}.", [f"BID 0 to {coins}"],
                            code=Refused.BID_RANGE, values={"coins": coins, "bid": action.coins})
    bids = {**state.bids, player: action.coins}
    events.append(BidGiven(player, action.coins))
    if len(bids) < len(state.seating):
        return replace(state, bids=bids)
    best = max(bids.values())
    first = next(p for p in state.ages if bids[p] == best)  # the youngest among the highest (R8-BID-2)
    events.append(BidsRevealed(tuple((p, bids[p]) for p in state.seating), first, best))
    return replace(state, bids={}, coins={**state.coins, first: state.coins[first] - best},
                   phase=Phase.TAKE, current=first, first=first, revealed=bids)


# --- a turn ----------------------------------------------------------------------------------------------


def _take(board: Board, state: State, player: str, action: Action, events: list[Event]) -> State:
    """R8-TURN-1/2: take a card the player can pay for; the row closes the gap, refilled only after the action.

    The deck's next card is laid once the card's action is done (R8-TURN-3,
    ``_end_turn``): while the taker decides, nobody sees a card that is not
    yet in the row.
    """
    affordable = [i + 1 for i in range(len(state.row)) if board.row_costs[i] <= state.coins[player]]
    legal = [f"TAKE {i}" for i in affordable]
    if not isinstance(action, Take):
        raise IllegalAction("First take a card from the row.", legal, code=Refused.TAKE_FIRST)
    place = action.place
    if not 1 <= place <= len(state.row):
        raise IllegalAction(f"The row has places 1 to {len(state.row)}, not {place}.", legal,
                            code=Refused.ROW_PLACES, values={"places": len(state.row), "place": place})
    cost = board.row_costs[place - 1]
    if cost > state.coins[player]:
        raise IllegalAction(f"The card at place {place} costs {cost}; you have {state.coins[player]}.", legal,
                            code=Refused.CARD_COSTS, values={"place": place, "cost": cost, "coins": state.coins[player]})
    card = state.row[place - 1]
    events.append(CardTaken(player, card, place, cost))
    left = tuple(a.amount for a in board.cards[card].actions)
    return replace(state, row=state.row[:place - 1] + state.row[place:],
                   coins={**state.coins, player: state.coins[player] - cost},
                   hands={**state.hands, player: state.hands[player] + (card,)}, phase=Phase.ACTION,
                   in_play=CardInPlay(card, left))


def _use(board: Board, state: State, player: str, action: Action, events: list[Event]) -> State:
    """R8-ACT-6/7: one order of the card's action, checked against the position as it stands."""
    in_play = state.in_play
    assert in_play is not None
    if isinstance(action, Done):
        return _end_turn(board, state, player, events)
    index = _action_index(board, in_play, action)
    card = board.cards[in_play.card]
    used, state = _carry_out(board, state, player, action, card.actions[index].kind, in_play.left[index], events)
    left = tuple(n - used if i == index else n for i, n in enumerate(in_play.left))
    chosen = index if card.join == "/" else None
    state = replace(state, in_play=CardInPlay(in_play.card, left, chosen))
    usable = (left[chosen],) if chosen is not None else left
    return state if any(usable) else _end_turn(board, state, player, events)


def _action_index(board: Board, in_play: CardInPlay, action: Action) -> int:
    card = board.cards[in_play.card]
    wanted = {Place: (ActionKind.PLACE,), Move: (ActionKind.MOVE, ActionKind.WATER), City: (ActionKind.CITY,),
              Destroy: (ActionKind.DESTROY,)}.get(type(action), ())
    left = [f"{a.kind.value} {n}" for a, n in zip(card.actions, in_play.left, strict=True) if n]
    legal = [*left, "DONE"]
    for index, card_action in enumerate(card.actions):
        if card_action.kind not in wanted:
            continue
        if in_play.chosen is not None and in_play.chosen != index:
            chosen = card.actions[in_play.chosen].kind.value
            raise IllegalAction(f"This card gives one of its actions, and you chose {chosen}.", legal,
                                code=Refused.CHOSE_OTHER, values={"chosen": chosen})
        if in_play.left[index] <= 0:
            raise IllegalAction(f"The card's {card_action.kind.value} is used up.", legal, code=Refused.USED_UP,
                                values={"kind": card_action.kind.value})
        return index
    raise IllegalAction(f"This card does not {_verb(action)}.", legal, code=Refused.CARD_CANNOT,
                        values={"action": type(action).__name__.lower()})


def _verb(action: Action) -> str:
    return {Place: "place armies", Move: "move armies", City: "build a city", Destroy: "destroy armies"}.get(
        type(action), "do that")


def _carry_out(board: Board, state: State, player: str, action: Action, kind: ActionKind, left: int,
               events: list[Event]) -> tuple[int, State]:
    """Apply one order of a card action with ``left`` steps; (steps used, new state)."""
    if isinstance(action, Place):
        return _place(board, state, player, action, left, events)
    if isinstance(action, Move):
        return _move(board, state, player, action, left, kind is ActionKind.WATER, events)
    if isinstance(action, City):
        return _city(board, state, player, action, events)
    assert isinstance(action, Destroy)
    return _destroy(state, player, action, left, events)


def _with(pieces: dict[int, dict[str, int]], region: int, player: str, delta: int) -> dict[int, dict[str, int]]:
    here = dict(pieces.get(region, {}))
    here[player] = here.get(player, 0) + delta
    if not here[player]:
        del here[player]
    out = dict(pieces)
    if here:
        out[region] = here
    else:
        out.pop(region, None)
    return out


def _place(board: Board, state: State, player: str, action: Place, left: int,
           events: list[Event]) -> tuple[int, State]:
    """R8-ACT-1, R8-PIECE-1: into the start region or a region with an own city, from supply."""
    allowed = sorted({board.start} | {r for r, here in state.cities.items() if here.get(player)})
    legal = [f"PLACE {r}" for r in allowed]
    used = 0
    for region, count in action.items:
        if region not in allowed:
            raise IllegalAction(f"Armies are placed in the start region ({board.start}) or in a region where you "
                                f"have a city, not in {region}.", legal,
                                code=Refused.PLACE_WHERE, values={"start": board.start, "region": region})
        if count < 1 or used + count > left:
            raise IllegalAction(f"The card places {left} armies; {left - used} are left.", legal,
                                code=Refused.PLACE_COUNT, values={"armies": left, "left": left - used})
        if state.armies_of(player) + count > board.armies:
            raise IllegalAction(f"You have {board.armies - state.armies_of(player)} armies left in supply.", legal,
                                code=Refused.SUPPLY, values={"armies": board.armies - state.armies_of(player)})
        state = replace(state, armies=_with(state.armies, region, player, count))
        events.append(ArmiesPlaced(player, region, count))
        used += count
    return used, state


def _move(board: Board, state: State, player: str, action: Move, left: int, water: bool,
          events: list[Event]) -> tuple[int, State]:
    """R8-ACT-2/3: each path one army, one step per border (or sea line on a water card).

    A refusal's hints are worked out from ``start``, the position the order was
    tried against: the whole order is refused, so the paths before the bad one
    moved nothing (R8-ACT-7 checks each path as it stands, but that is not the
    position the player is told about).
    """
    start = state
    used = 0
    for number, path in enumerate(action.paths):
        where = "-".join(str(r) for r in path)
        if len(path) < 2:
            raise IllegalAction(f"A move names at least two regions, e.g. 12-13, not {where}.",
                                code=Refused.MOVE_TWO_REGIONS, values={"where": where})
        if state.armies.get(path[0], {}).get(player, 0) < 1:
            raise IllegalAction(_no_army_to_move(start, player, path[0]))
        for step, (here, there) in enumerate(zip(path, path[1:], strict=False)):
            if there not in board.neighbours(here, water=water):
                how = "by land or across a sea line" if water else "by land"
                tried = [(*action.paths[:number], (*path[:step + 1], n))
                         for n in sorted(board.neighbours(here, water=water)) if n not in path[:step + 1]]
                raise IllegalAction(f"{there} is not next to {here} {how} ({where}).", code=Refused.NOT_NEXT_TO,
                                    values={"there": there, "here": here, "water": water, "where": where}, legal=
                                    [_move_text(paths) for paths in tried
                                     if _moves(board, start, player, paths, left, water)])
        steps = len(path) - 1
        if used + steps > left:
            raise IllegalAction(f"The card moves {left} steps; {left - used} are left, {where} takes {steps}.",
                                code=Refused.MOVE_STEPS,
                                values={"steps": left, "left": left - used, "where": where, "takes": steps})
        armies = _with(_with(state.armies, path[0], player, -1), path[-1], player, 1)
        state = replace(state, armies=armies)
        events.append(ArmyMoved(player, tuple(path)))
        used += steps
    return used, state


def _no_army_to_move(start: State, player: str, region: int) -> Cause:
    """Why no army of ``player`` leaves ``region``: none stood there, or the order's earlier paths took them."""
    there = start.armies.get(region, {}).get(player, 0)
    if there:
        return Cause(f"You have no army left in {region}: the paths before move "
                     f"{'the one' if there == 1 else f'all {there}'} there.",
                     Refused.ARMIES_MOVED_AWAY, {"region": region, "armies": there})
    mine = ", ".join(str(r) for r in sorted(r for r, here in start.armies.items() if here.get(player)))
    return Cause(f"You have no army in {region}" + (f"; yours stand in {mine}." if mine else "."),
                 Refused.NO_ARMY_TO_MOVE, {"region": region, "mine": mine})


def _moves(board: Board, start: State, player: str, paths: tuple[tuple[int, ...], ...], left: int,
           water: bool) -> bool:
    """Whether MOVE ``paths`` is legal as a whole in ``start`` (a refusal offers only such orders)."""
    try:
        _move(board, start, player, Move(paths), left, water, [])
    except IllegalAction:
        return False
    return True


def _move_text(paths: tuple[tuple[int, ...], ...]) -> str:
    return "MOVE " + ", ".join("-".join(str(r) for r in path) for path in paths)


def _city(board: Board, state: State, player: str, action: City, events: list[Event]) -> tuple[int, State]:
    """R8-ACT-4: in a region with an own army, from a supply of three."""
    mine = sorted(r for r, here in state.armies.items() if here.get(player))
    if action.region not in mine:
        raise IllegalAction(f"A city needs an own army in its region; you have none in {action.region}.",
                            code=Refused.CITY_NEEDS_ARMY, values={"region": action.region}, legal=
                            [f"CITY {r}" for r in mine])
    if state.cities_of(player) >= board.cities:
        raise IllegalAction(f"All your {board.cities} cities are built.", code=Refused.CITIES_BUILT,
                            values={"cities": board.cities})
    events.append(CityBuilt(player, action.region))
    return 1, replace(state, cities=_with(state.cities, action.region, player, 1))


def _destroy(state: State, player: str, action: Destroy, left: int, events: list[Event]) -> tuple[int, State]:
    """R8-ACT-5: armies of any player (own too, Decision), one per item; cities stay."""
    used = 0
    for owner, region in action.items:
        if used + 1 > left:
            raise IllegalAction(f"The card destroys {left} armies.", code=Refused.DESTROY_COUNT, values={"armies": left})
        if state.armies.get(region, {}).get(owner, 0) < 1:
            there = sorted(state.armies.get(region, {}))
            raise IllegalAction(f"{owner} has no army in {region}.", code=Refused.NO_ARMY_OF,
                                values={"owner": owner, "region": region}, legal=
                                [f"DESTROY {p} {region}" for p in there])
        state = replace(state, armies=_with(state.armies, region, owner, -1))
        events.append(ArmyDestroyed(player, owner, region))
        used += 1
    return used, state


def _end_turn(board: Board, state: State, player: str, events: list[Event]) -> State:
    """R8-TURN-3, R8-END-1: the deck's next card fills the row; the next player's turn, or the end once every
    hand is full (or the row is empty)."""
    in_play = state.in_play
    unused = 0
    if in_play is not None:
        unused = in_play.left[in_play.chosen] if in_play.chosen is not None else sum(in_play.left)
    laid = state.deck[0] if state.deck and len(state.row) < len(board.row_costs) else None  # never a 7th place
    if laid is not None:
        state = replace(state, row=state.row + (laid,), deck=state.deck[1:])
    state = replace(state, in_play=None)
    full = board.cards_at_end[len(state.seating)]
    if all(len(state.hands[p]) >= full for p in state.seating) or not state.row:
        scores, winners = final_scores(state, board)
        events.append(TurnEnded(player, unused, None, laid))
        if Variant.LONG in state.setup.variants:
            carried = {p: state.carried.get(p, 0) + next(s.total for s in scores if s.player == p)
                       for p in state.seating}
            if state.game_number < SERIES_GAMES:
                events.append(SeriesGameEnded(state.game_number, tuple((s.player, s.total) for s in scores),
                                              tuple((p, carried[p]) for p in state.seating)))
                fresh = _fresh(board, state.setup, state.ages, state.game_number + 1, carried, state.version)
                return replace(fresh, bid_opened=state.version + 1)
            scores, winners = _series_result(scores, carried)
            state = replace(state, carried=carried)
        events.append(GameEnded(winners))
        return replace(state, phase=Phase.OVER, current=None, scores=scores, winners=winners)
    following = state.next_player(player)
    events.append(TurnEnded(player, unused, following, laid))
    return replace(state, phase=Phase.TAKE, current=following)
