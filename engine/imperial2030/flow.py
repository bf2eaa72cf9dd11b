"""The sequence of a game: turns, the rondel, investor rounds, the end.

Every function here moves the state from one step to the next and runs the
automatic parts (interest, taxes, skipped nations) until someone must decide.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.imperial2030.board import SpaceAction
from engine.imperial2030.economy import (
    can_pay_interest_in_full,
    can_stop_on_investor,
    collect_taxes,
    factory_sites,
    import_choices,
    pay_interest,
    producing_factories,
)
from engine.imperial2030.errors import Cause, IllegalAction
from engine.imperial2030.events import (
    BANK,
    Event,
    ForceStopAnswered,
    GameEnded,
    InvestorCardPassed,
    NationSkipped,
    NothingDone,
    Reason,
    RondelMoved,
    TurnStarted,
    cash,
)
from engine.imperial2030.investing import can_invest, settle_governments
from engine.imperial2030.ledger import transfer
from engine.imperial2030.maneuver import place_flags
from engine.imperial2030.model import (
    ActionStep,
    FinishedStep,
    ForceStopStep,
    GameState,
    InvestMode,
    InvestSlot,
    InvestStep,
    ManeuverStep,
    RondelStep,
    StandingKind,
    TurnInfo,
    Variant,
)
from engine.imperial2030.refusals import Refused
from engine.imperial2030.scoring import final_scores
from engine.imperial2030.standing import standing_answer

# --- turns ----------------------------------------------------------------------


def begin_next_turn(state: GameState, events: list[Event], after: str | None) -> None:
    """R-TURN-1: the next nation in turn order with a government acts; others are skipped."""
    order = state.board.nation_ids
    start = 0 if after is None else order.index(after) + 1
    for offset in range(len(order)):
        index = start + offset
        if index == len(order):
            state.round += 1
        nation = order[index % len(order)]
        if state.nations[nation].government is not None:
            state.turn = TurnInfo(nation)
            state.step = RondelStep()
            events.append(TurnStarted(nation, state.round))
            return
        events.append(NationSkipped(nation))
    end_game(state, events, "no nation has a government")


def end_game(state: GameState, events: list[Event], reason: str) -> None:
    state.step = FinishedStep(reason)
    ranking = final_scores(state)
    state.scores = dict(ranking)
    events.append(GameEnded(reason, ranking))


# --- the rondel -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RondelChoice:
    space: str
    steps: int  # 0 for the first, free placement
    cost: int


def move_cost(state: GameState, nation: str, space: str) -> tuple[int, int]:
    """(steps, cost) of moving to ``space``; R-RONDEL-3."""
    start = state.nations[nation].rondel
    if start is None:
        return 0, 0
    steps = state.board.rondel_distance(start, space)
    return steps, _extra_cost(state, nation, steps)


def _extra_cost(state: GameState, nation: str, steps: int) -> int:
    extra = steps - state.board.tables.free_spaces
    return extra * (1 + state.multiplier(nation)) if extra > 0 else 0


def rondel_choices(state: GameState, nation: str) -> tuple[RondelChoice, ...]:
    """Every space the government may choose now, with its cost, nearest first."""
    board = state.board
    ns = state.nations[nation]
    money = state.players[ns.government].cash if ns.government else 0
    if ns.rondel is None:
        reachable = [(space, 0) for space in board.rondel_ids]
    else:
        start = board.rondel_ids.index(ns.rondel)
        count = len(board.rondel_ids)
        reachable = [(board.rondel_ids[(start + k) % count], k) for k in range(1, board.tables.max_spaces + 1)]
    choices = []
    for space, steps in reachable:
        cost = _extra_cost(state, nation, steps)
        if cost > money:
            continue
        if space == board.investor_space and not can_stop_on_investor(state, nation, cost):
            continue
        choices.append(RondelChoice(space, steps, cost))
    return tuple(choices)


def choose_space(state: GameState, space: str, events: list[Event]) -> None:
    nation = _current(state)
    if not _is_choice(state, nation, space):
        raise IllegalAction(_rondel_refusal(state, nation, space), [
            f"{state.board.name(c.space)} ({c.space}, {c.steps} spaces, cost {c.cost})"
            for c in rondel_choices(state, nation)])
    start = state.nations[nation].rondel
    if start is not None and state.board.rondel_passes(start, space, state.board.investor_space):
        askers = force_stop_askers(state, nation)
        if askers:
            ask_force_stop(state, ForceStopStep(space, askers), events)
            return
    resolve_move(state, nation, space, None, events)


def ask_force_stop(state: GameState, step: ForceStopStep, events: list[Event]) -> None:
    """Ask the next Swiss bank, unless a standing order answers for it (R-DECIDE-3)."""
    nation = _current(state)
    queue = step.queue
    while queue:
        answer = standing_answer(state, queue[0], StandingKind.FORCE, nation)
        if answer is None:
            state.step = ForceStopStep(step.target, queue)
            return
        events.append(ForceStopAnswered(queue[0], nation, answer))
        if answer:
            resolve_move(state, nation, state.board.investor_space, queue[0], events)
            return
        queue = queue[1:]
    resolve_move(state, nation, step.target, None, events)


def _is_choice(state: GameState, nation: str, space: str) -> bool:
    """The same test as ``rondel_choices`` for one space, without listing them all."""
    if space not in state.board.rondel_by_id:
        return False
    ns = state.nations[nation]
    steps, cost = move_cost(state, nation, space)
    if ns.rondel is not None and not 1 <= steps <= state.board.tables.max_spaces:
        return False
    if ns.government is None or cost > state.players[ns.government].cash:
        return False
    return space != state.board.investor_space or can_stop_on_investor(state, nation, cost)


def _rondel_refusal(state: GameState, nation: str, space: str) -> Cause:
    board = state.board
    if space not in board.rondel_by_id:
        return Cause(f"{space!r} is not a rondel space.", Refused.NOT_RONDEL_SPACE, {"text": space})
    steps, cost = move_cost(state, nation, space)
    if state.nations[nation].rondel == space:
        return Cause("The marker may not stay on its space.", Refused.MARKER_STAYS)
    if steps > board.tables.max_spaces:
        return Cause(f"{board.name(space)} is {steps} spaces away; the limit is {board.tables.max_spaces}.",
                     Refused.TOO_FAR, {"space": space, "steps": steps, "limit": board.tables.max_spaces})
    gov = state.nations[nation].government
    if gov and cost > state.players[gov].cash:
        return Cause(f"Moving {steps} spaces costs {cost}; you have {state.players[gov].cash}.",
                     Refused.MOVE_COSTS, {"steps": steps, "cost": cost, "cash": state.players[gov].cash})
    return Cause("The treasury and your cash cannot cover the interest owed to the other bond holders, "
                 "so the nation may not stop on Investor.", Refused.INVESTOR_INTEREST)


def force_stop_askers(state: GameState, nation: str) -> tuple[str, ...]:
    """R-RONDEL-5: Swiss-bank holders in seat order from the investor-card holder.

    Decision: without an investor card (R-NOCARD-1) the asking starts left of
    the nation's government.
    """
    if not can_pay_interest_in_full(state, nation):
        return ()
    first = state.investor_card or state.next_seat(state.governor(nation))
    return tuple(p for p in state.seats_from(first) if state.has_swiss_bank(p))


def answer_force_stop(state: GameState, player: str, force: bool, events: list[Event]) -> None:
    step = state.step
    assert isinstance(step, ForceStopStep)
    nation = _current(state)
    events.append(ForceStopAnswered(player, nation, force))
    if force:
        resolve_move(state, nation, state.board.investor_space, player, events)
    else:
        ask_force_stop(state, ForceStopStep(step.target, step.queue[1:]), events)


def resolve_move(state: GameState, nation: str, space: str, forced_by: str | None, events: list[Event]) -> None:
    """Pay, move the marker and start the space's action (R-RONDEL-3/4/5)."""
    ns = state.nation_w(nation)
    start = ns.rondel
    steps, cost = move_cost(state, nation, space)
    transfer(state, events, cash(state.governor(nation)), BANK, cost, Reason.RONDEL)
    ns.rondel = space
    events.append(RondelMoved(nation, start, space, steps, cost, forced_by))
    action = state.board.rondel_by_id[space].action
    passed = start is not None and state.board.rondel_passes(start, space, state.board.investor_space)
    state.turn = TurnInfo(nation, passed_investor=passed, stopped_on_investor=action is SpaceAction.INVESTOR)
    start_action(state, nation, action, events)


# --- the actions of the spaces ---------------------------------------------------------


def start_action(state: GameState, nation: str, action: SpaceAction, events: list[Event]) -> None:
    if action is SpaceAction.INVESTOR:
        pay_interest(state, nation, events)
        if state.setup.has(Variant.NO_INVESTOR_CARD):
            finish_turn(state, events)
        else:
            start_card_investing(state, events)
        return
    if action is SpaceAction.TAXATION:
        collect_taxes(state, nation, events)
        if state.nations[nation].power >= state.board.tables.power_max:
            end_game(state, events, f"{state.board.name(nation)} reached {state.board.tables.power_max} power points")
            return
        after_action(state, events)
        return
    if action is SpaceAction.MANEUVER:
        ns = state.nations[nation]
        if ns.armies or ns.fleets:
            state.step = ManeuverStep()
            return
        place_flags(state, events)  # no unit to move: only the flag step
        after_action(state, events)
        return
    has_choice = {
        SpaceAction.FACTORY: factory_sites,
        SpaceAction.PRODUCTION: producing_factories,
        SpaceAction.IMPORT: import_choices,
    }[action](state, nation)
    if has_choice:
        state.step = ActionStep(action)
        return
    events.append(NothingDone(nation, action.value, _why_nothing(state, nation, action)))
    after_action(state, events)


def _why_nothing(state: GameState, nation: str, action: SpaceAction) -> str:
    tables = state.board.tables
    if action is SpaceAction.FACTORY:
        if state.nations[nation].treasury < tables.factory_cost:
            return f"the treasury holds less than {tables.factory_cost}"
        return "no free city to build on"
    if action is SpaceAction.PRODUCTION:
        return "no factory can produce"
    return "nothing can be imported"


def after_action(state: GameState, events: list[Event]) -> None:
    """R-RONDEL-4: passing Investor triggers investor steps 2 and 3 after the action."""
    turn = state.turn
    if turn and turn.passed_investor and not state.setup.has(Variant.NO_INVESTOR_CARD):
        start_card_investing(state, events)
    else:
        finish_turn(state, events)


def finish_turn(state: GameState, events: list[Event]) -> None:
    nation = _current(state)
    if state.setup.has(Variant.NO_INVESTOR_CARD):
        start_investment_rounds(state, nation, events)
    else:
        begin_next_turn(state, events, nation)


# --- investing --------------------------------------------------------------------


def start_card_investing(state: GameState, events: list[Event]) -> None:
    """R-INVEST-3/4: the card holder takes 2 and invests, then each Swiss bank in seat order."""
    holder = state.investor_card
    assert holder is not None
    transfer(state, events, BANK, cash(holder), state.board.tables.investor_card_payment, Reason.INVESTOR_CARD)
    queue = (InvestSlot(holder, None),) + tuple(
        InvestSlot(p, None) for p in state.seats_from(holder)[1:] if state.has_swiss_bank(p)
    )
    state.step = InvestStep(InvestMode.CARD, queue, holder)
    skip_unable_investors(state, events)


def start_investment_rounds(state: GameState, nation: str, events: list[Event]) -> None:
    """R-NOCARD-1: after a turn, players invest in that nation; unbonded nations that follow are offered too."""
    order = state.board.nation_ids
    follow = []
    i = order.index(nation)
    for offset in range(1, len(order)):
        other = order[(i + offset) % len(order)]
        if state.bonds_held(other):
            break
        follow.append(other)
    open_round(state, nation, nation, tuple(follow), events)


def open_round(state: GameState, nation: str, acting: str, rounds_after: tuple[str, ...], events: list[Event]) -> None:
    """One no-card investment round in ``nation``, starting with ``acting``'s government."""
    first = state.nations[acting].government
    assert first is not None
    queue = tuple(InvestSlot(p, None if state.has_swiss_bank(p) else nation) for p in state.seats_from(first))
    state.step = InvestStep(InvestMode.ROUND, queue, first, rounds_after)
    skip_unable_investors(state, events)


def skip_unable_investors(state: GameState, events: list[Event]) -> None:
    """Players who can afford no investment are not asked; when nobody is left, the round ends."""
    step = state.step
    assert isinstance(step, InvestStep)
    queue = step.queue
    while queue and not can_invest(state, queue[0].player, queue[0].nation):
        queue = queue[1:]
    if queue:
        state.step = InvestStep(step.mode, queue, step.tie_start, step.rounds_after)
    else:
        conclude_investing(state, step, events)


def next_investor(state: GameState, events: list[Event]) -> None:
    step = state.step
    assert isinstance(step, InvestStep)
    state.step = InvestStep(step.mode, step.queue[1:], step.tie_start, step.rounds_after)
    skip_unable_investors(state, events)


def conclude_investing(state: GameState, step: InvestStep, events: list[Event]) -> None:
    settle_governments(state, step.tie_start, events)
    nation = _current(state)
    if step.mode is InvestMode.CARD:
        old = state.investor_card
        assert old is not None
        state.investor_card = state.next_seat(old)
        events.append(InvestorCardPassed(old, state.investor_card))
        begin_next_turn(state, events, nation)
    elif step.rounds_after:
        open_round(state, step.rounds_after[0], nation, step.rounds_after[1:], events)
    else:
        begin_next_turn(state, events, nation)


def _current(state: GameState) -> str:
    assert state.turn is not None
    return state.turn.nation
