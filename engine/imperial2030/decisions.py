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

from engine.imperial2030.actions import (
    Action,
    BuildFactory,
    BuyBond,
    ChooseSpace,
    Done,
    Fight,
    ForceStop,
    Import,
    Pass,
    Passage,
    Produce,
    UpgradeBond,
)
from engine.imperial2030.board import SpaceAction
from engine.imperial2030.economy import (
    factory_sites,
    import_choices,
    producing_factories,
)
from engine.imperial2030.flow import rondel_choices
from engine.imperial2030.investing import investment_options
from engine.imperial2030.listing import maneuver_options
from engine.imperial2030.maneuver import fight_choices, protected_factory
from engine.imperial2030.model import (
    ActionStep,
    FinishedStep,
    ForceStopStep,
    GameState,
    InvestStep,
    ManeuverStep,
    RondelStep,
    SetupBondsStep,
    Stance,
)
from engine.imperial2030.movement import asked_controller
from engine.imperial2030.option import Option
from engine.imperial2030.setup import setup_bond_options


class DecisionKind(StrEnum):
    SETUP_BOND = "setup_bond"
    RONDEL = "rondel"
    FORCE_STOP = "force_stop"
    FACTORY = "factory"
    PRODUCTION = "production"
    IMPORT = "import"
    INVESTMENT = "investment"
    MANEUVER = "maneuver"
    CANAL = "canal"
    BATTLE = "battle"


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
    if isinstance(step, ManeuverStep):
        return (_maneuver_decision(state, gov, nation, step),)
    assert isinstance(step, ActionStep)
    return (_action_decision(state, gov, nation, step.action),)


def _maneuver_decision(state: GameState, gov: str, nation: str, step: ManeuverStep) -> Decision:
    entry = step.entry
    if entry is None:
        return Decision(gov, nation, DecisionKind.MANEUVER, maneuver_options(state), Done())
    if entry.canals:
        controller = asked_controller(state, entry.canals[0])
        asked = state.governor(controller)
        return Decision(asked, controller, DecisionKind.CANAL,
                        (Option(Passage(True)), Option(Passage(False))), Passage(True), out_of_turn=True)
    defender = entry.askers[0]
    asked = state.governor(defender)
    return Decision(asked, defender, DecisionKind.BATTLE,
                    tuple(Option(a) for a in fight_choices(state, defender, entry)), Fight(False), out_of_turn=True)


def stances(state: GameState, nation: str, dest: str) -> tuple[Stance | None, ...]:
    """The stances an army may take entering ``dest`` (R-HOSTILE-1/2)."""
    region = state.board.regions[dest]
    if not region.is_home or region.nation is None or region.nation == nation:
        return (None,)
    if protected_factory(state, region.nation, dest):
        return (Stance.FRIENDLY,)
    return (Stance.HOSTILE, Stance.FRIENDLY)


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

