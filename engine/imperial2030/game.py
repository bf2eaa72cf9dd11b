"""The engine's entry points: apply an action, replay a log.

``apply`` never changes the state it is given: it answers the open decision on
a clone, runs every automatic step that follows, and returns the new state
with the events in the order they happened.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import NoReturn

from engine.core.log import LogEntry
from engine.imperial2030.actions import (
    Action,
    BuildFactory,
    ChooseSpace,
    ClearStanding,
    Donate,
    ForceStop,
    Import,
    Pass,
    Produce,
    SetStanding,
)
from engine.imperial2030.board import Board, SpaceAction
from engine.imperial2030.decisions import Decision, pending
from engine.imperial2030.describe import describe
from engine.imperial2030.economy import build_factory, import_units, produce
from engine.imperial2030.errors import Cause, GameFinished, IllegalAction, NotYourDecision
from engine.imperial2030.events import Event, NothingDone, Reason, cash, treasury
from engine.imperial2030.flow import (
    after_action,
    answer_force_stop,
    choose_space,
    move_cost,
    next_investor,
)
from engine.imperial2030.investing import invest
from engine.imperial2030.ledger import transfer
from engine.imperial2030.maneuver import answer_question, maneuver_order
from engine.imperial2030.model import (
    ActionStep,
    FinishedStep,
    ForceStopStep,
    GameSetup,
    GameState,
    InvestStep,
    ManeuverStep,
    RondelStep,
    SetupBondsStep,
)
from engine.imperial2030.refusals import Refused
from engine.imperial2030.setup import answer_setup_bond, new_game
from engine.imperial2030.standing import clear_standing, set_standing


def waiting_for(state: GameState) -> tuple[str, ...]:
    """Players the game waits for now, cheaply (no options computed)."""
    step = state.step
    if isinstance(step, FinishedStep):
        return ()
    if isinstance(step, SetupBondsStep | ForceStopStep):
        return (step.queue[0],)
    if isinstance(step, InvestStep):
        return (step.queue[0].player,)
    if isinstance(step, ManeuverStep) and step.entry is not None:
        return (pending(state)[0].player,)
    assert state.turn is not None
    return (state.governor(state.turn.nation),)


def apply(state: GameState, player: str, action: Action) -> tuple[GameState, list[Event]]:
    """Answer ``player``'s open decision with ``action`` (or donate at any time)."""
    if isinstance(state.step, FinishedStep):
        raise GameFinished(f"The game is over ({state.step.reason}).", code=Refused.GAME_OVER,
                           values={"why": state.step.reason})
    if player not in state.players:
        raise NotYourDecision(f"{player!r} is not a player of this game.", code=Refused.NOT_A_PLAYER,
                              values={"player": player})
    new = state.fork()
    events: list[Event] = []
    if isinstance(action, Donate):
        donate(new, player, action, events)
    elif isinstance(action, SetStanding):
        set_standing(new, player, action.order, events)
    elif isinstance(action, ClearStanding):
        clear_standing(new, player, events)
    elif player in waiting_for(state):
        _answer(new, player, action, events)
    else:
        raise NotYourDecision(_not_yours(state, player))
    new.version += 1
    return new, events


def _not_yours(state: GameState, player: str) -> Cause:
    waits = "; ".join(
        f"{d.player} ({d.kind.value.replace('_', ' ')}" + (f" for {state.board.name(d.nation)})" if d.nation else ")")
        for d in pending(state)
    )
    return Cause(f"{player} has nothing to decide now: the game waits for {waits}.", Refused.NOT_YOURS,
                 {"player": player, "waits": [(d.player, d.kind.value, d.nation) for d in pending(state)]})


def _answer(state: GameState, player: str, action: Action, events: list[Event]) -> None:
    step = state.step
    if isinstance(step, SetupBondsStep):
        answer_setup_bond(state, player, action, events)
    elif isinstance(step, RondelStep):
        if not isinstance(action, ChooseSpace):
            _wrong_kind(state, "a rondel space", "rondel")
        choose_space(state, action.space, events)
    elif isinstance(step, ForceStopStep):
        if not isinstance(action, ForceStop | Pass):
            _wrong_kind(state, "FORCE or NO FORCE", "force")
        answer_force_stop(state, player, isinstance(action, ForceStop) and action.force, events)
    elif isinstance(step, InvestStep):
        invest(state, player, step.queue[0].nation, action, events)
        next_investor(state, events)
    elif isinstance(step, ManeuverStep):
        if step.entry is not None:
            answer_question(state, player, action, events)
        elif maneuver_order(state, action, events):
            after_action(state, events)
    else:
        assert isinstance(step, ActionStep)
        _carry_out(state, step.action, action, events)


def _carry_out(state: GameState, space: SpaceAction, action: Action, events: list[Event]) -> None:
    assert state.turn is not None
    nation = state.turn.nation
    if space is SpaceAction.FACTORY and isinstance(action, BuildFactory):
        build_factory(state, nation, action, events)
    elif space is SpaceAction.FACTORY and isinstance(action, Pass):
        events.append(NothingDone(nation, space.value, "the government built no factory"))
    elif space is SpaceAction.PRODUCTION and isinstance(action, Produce):
        produce(state, nation, action, events)
    elif space is SpaceAction.PRODUCTION and isinstance(action, Pass):
        produce(state, nation, Produce(()), events)
    elif space is SpaceAction.IMPORT and isinstance(action, Import | Pass):
        import_units(state, nation, action if isinstance(action, Import) else Import(()), events)
    else:
        _wrong_kind(state, f"the details of {space.value.capitalize()}", "details", space.value)
    after_action(state, events)


def _wrong_kind(state: GameState, expected: str, asked: str, space: str = "") -> NoReturn:
    """``expected``: what the decision wants, in the sentence's words; ``asked`` the same as a code (rondel,
    force, details) and ``space`` the action space it details, for the moderator's words."""
    decision: Decision = pending(state)[0]
    raise IllegalAction(
        f"That does not answer the open decision: {expected}.",
        [describe(state.board, o.action) for o in decision.options],
        code=Refused.WRONG_KIND, values={"asked": asked, "space": space},
    )


def donate(state: GameState, player: str, action: Donate, events: list[Event]) -> None:
    """R-PIECE-5: only to a treasury the player governs, only from own cash.

    Decision: while Swiss banks are asked about a move the donor must pay for,
    the cost of that move stays reserved, so the move can still be paid.
    """
    board = state.board
    governed = state.governed_by(player)
    money = state.players[player].cash - _reserved(state, player)
    legal = [f"donate up to {money} to {board.name(n)}" for n in governed] if money > 0 else []
    if action.nation not in governed:
        reason = (Cause(f"You may donate only to a nation you govern, not {board.name(action.nation)}.",
                        Refused.DONATE_NOT_GOVERNED, {"nation": action.nation})
                  if governed else Cause("You govern no nation, so you cannot donate.", Refused.GOVERN_NONE))
        raise IllegalAction(reason, legal or ["nothing: a donation needs a nation you govern and cash"])
    if not 1 <= action.amount <= money:
        raise IllegalAction(f"You can donate 1 to {money}, not {action.amount}.", code=Refused.DONATE_RANGE,
                            values={"money": money, "amount": action.amount}, legal=
                            legal or ["nothing: you have no cash to give"])
    transfer(state, events, cash(player), treasury(action.nation), action.amount, Reason.DONATION)


def _reserved(state: GameState, player: str) -> int:
    step = state.step
    if not isinstance(step, ForceStopStep) or state.turn is None:
        return 0
    if state.nations[state.turn.nation].government != player:
        return 0
    return move_cost(state, state.turn.nation, step.target)[1]


def replay(board: Board, setup: GameSetup, log: Sequence[LogEntry[Action]]) -> GameState:
    """The state a log leads to; raises if any entry does not apply at its version."""
    state, _ = new_game(board, setup)
    for entry in log:
        if entry.version != state.version:
            raise IllegalAction(f"log entry made against version {entry.version}, state is at {state.version}",
                                code=Refused.LOG_VERSION, values={"entry": entry.version, "state": state.version})
        state, _ = apply(state, entry.player, entry.action)
    return state
