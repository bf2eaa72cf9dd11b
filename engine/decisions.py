"""Who must decide what, now (R-DECIDE-1/2).

A pending decision names the deciding player, the nation it is for, its kind,
every legal option (with what it costs) and the passive default used when its
deadline expires (None where the game master must step in instead).
Combinatorial choices (which factories produce, which units to import) list
their single parts; ``limit`` says how many may be combined.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.actions import Action, BuildFactory, BuyBond, ChooseSpace, ForceStop, Import, Pass, Produce, UpgradeBond
from engine.board import SpaceAction
from engine.economy import factory_sites, import_choices, producing_factories
from engine.flow import rondel_choices
from engine.investing import investment_options
from engine.model import (
    ActionStep,
    FinishedStep,
    ForceStopStep,
    GameState,
    InvestStep,
    RondelStep,
    SetupBondsStep,
)
from engine.setup import setup_bond_options


class DecisionKind(StrEnum):
    SETUP_BOND = "setup_bond"
    RONDEL = "rondel"
    FORCE_STOP = "force_stop"
    FACTORY = "factory"
    PRODUCTION = "production"
    IMPORT = "import"
    INVESTMENT = "investment"


@dataclass(frozen=True, slots=True)
class Option:
    action: Action
    cost: int = 0  # money the choice takes from the decider's cash or the nation's treasury
    steps: int | None = None  # rondel options: spaces moved


@dataclass(frozen=True, slots=True)
class Decision:
    player: str
    nation: str | None
    kind: DecisionKind
    options: tuple[Option, ...]
    default: Action | None
    limit: int = 1  # how many single options may be combined in one answer
    out_of_turn: bool = False


def pending(state: GameState) -> tuple[Decision, ...]:
    """Every decision the game waits for now (at most one while the maneuver is absent)."""
    step = state.step
    if isinstance(step, FinishedStep):
        return ()
    if isinstance(step, SetupBondsStep):
        player = step.queue[0]
        options = tuple(Option(a, a.value) for a in setup_bond_options(state, player, step.nation))
        return (Decision(player, step.nation, DecisionKind.SETUP_BOND, options + (Option(Pass()),), Pass()),)
    if isinstance(step, InvestStep):
        slot = step.queue[0]
        options = tuple(Option(a, _price(a)) for a in investment_options(state, slot.player, slot.nation))
        return (Decision(slot.player, slot.nation, DecisionKind.INVESTMENT, options + (Option(Pass()),), Pass(),
                         out_of_turn=True),)
    assert state.turn is not None
    nation = state.turn.nation
    gov = state.nations[nation].government
    assert gov is not None
    if isinstance(step, RondelStep):
        options = tuple(Option(ChooseSpace(c.space), c.cost, c.steps) for c in rondel_choices(state, nation))
        return (Decision(gov, nation, DecisionKind.RONDEL, options, None),)
    if isinstance(step, ForceStopStep):
        return (Decision(step.queue[0], nation, DecisionKind.FORCE_STOP,
                         (Option(ForceStop(True)), Option(ForceStop(False))), ForceStop(False), out_of_turn=True),)
    assert isinstance(step, ActionStep)
    return (_action_decision(state, gov, nation, step.action),)


def _action_decision(state: GameState, gov: str, nation: str, action: SpaceAction) -> Decision:
    tables = state.board.tables
    if action is SpaceAction.FACTORY:
        options = tuple(Option(BuildFactory(c), tables.factory_cost) for c in factory_sites(state, nation))
        return Decision(gov, nation, DecisionKind.FACTORY, options + (Option(Pass()),), None)
    if action is SpaceAction.PRODUCTION:
        singles = tuple(Option(Produce((f,))) for f in producing_factories(state, nation))
        return Decision(gov, nation, DecisionKind.PRODUCTION, (Option(Produce(None)),) + singles, Produce(None),
                        limit=len(singles))
    choices = import_choices(state, nation)
    options = tuple(Option(Import((u,)), tables.import_cost_per_unit) for u in choices)
    return Decision(gov, nation, DecisionKind.IMPORT, options + (Option(Import(())),), None,
                    limit=tables.import_max_units)


def _price(action: BuyBond | UpgradeBond) -> int:
    return action.value if isinstance(action, BuyBond) else action.new - action.old


def decisions_for(state: GameState, player: str) -> tuple[Decision, ...]:
    return tuple(d for d in pending(state) if d.player == player)

