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
from functools import lru_cache

from engine.imperial2030.actions import (
    Action,
    ArmyMove,
    Attack,
    BuildFactory,
    BuyBond,
    ChooseSpace,
    DestroyFactory,
    Done,
    Fight,
    FleetMove,
    ForceStop,
    Import,
    Pass,
    Passage,
    Produce,
    UpgradeBond,
)
from engine.imperial2030.board import Board, SpaceAction
from engine.imperial2030.economy import (
    factory_sites,
    import_choices,
    producing_factories,
)
from engine.imperial2030.flow import rondel_choices
from engine.imperial2030.investing import investment_options
from engine.imperial2030.listing import ManeuverFacts
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
    UnitKind,
)
from engine.imperial2030.movement import asked_controller, fleet_destinations
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


def maneuver_options(state: GameState) -> tuple[Option, ...]:
    """Every single order the government may give now in its maneuver (R-MOVE-1..5, R-BATTLE-2, R-HOSTILE-3).

    In this order: fleet moves, army moves (by origin, destination, stance),
    attacks in place, factory destructions, DONE. What many units look up
    (blocked provinces, rail, convoy seas, last free factories) is computed
    once per listing by ``ManeuverFacts``; an army's orders are kept between
    listings (``_army_orders``) rather than built anew at every step.
    """
    facts = ManeuverFacts(state)
    nation, step, board, ns = facts.nation, facts.step, state.board, facts.own
    options: list[Option] = []
    if not step.armies_moving:
        for origin in sorted(ns.fleets):
            if facts.movable(UnitKind.FLEET, origin) > 0:
                options.extend(Option(FleetMove(origin, d)) for d in fleet_destinations(state, nation, step, origin))
    last_free: frozenset[str] | None = None
    for origin in sorted(ns.armies):
        if facts.movable(UnitKind.ARMY, origin) > 0:
            if last_free is None:
                last_free = facts.last_free_factories()
            options.extend(_army_orders(board, nation, origin, facts.reach(origin), last_free))
    foreign = facts.foreign_units()
    for region in sorted(foreign.intersection(ns.armies) | foreign.intersection(ns.fleets)):
        if not facts.attacks_in_place(region):
            continue
        sea = board.regions[region].is_sea
        for other, os in facts.others:
            if not sea and os.armies.get(region, 0):
                options.append(Option(Attack(region, other, UnitKind.ARMY)))
            if os.fleets.get(region, 0):
                options.append(Option(Attack(region, other, UnitKind.FLEET)))
    options.extend(Option(DestroyFactory(p)) for p in sorted(ns.armies) if facts.destroyable(p))
    options.append(_DONE)
    return tuple(options)


_DONE = Option(Done())


@lru_cache(maxsize=8192)
def _army_orders(board: Board, nation: str, origin: str, reach: tuple[str, ...],
                 last_free: frozenset[str]) -> tuple[Option, ...]:
    """The orders of an army at ``origin`` that may go to ``reach`` (less ``origin``), each with every
    stance ``stances`` allows there (R-HOSTILE-1/2).

    Cached: an army that has not moved is offered the same orders step after
    step (and turn after turn), and building them anew was most of a listing's
    time. ``last_free`` (``ManeuverFacts.last_free_factories``) is all a
    stance depends on besides the board.
    """
    orders = []
    for dest in reach:
        if dest == origin:
            continue
        region = board.regions[dest]
        owner = region.nation
        if not region.is_home or owner is None or owner == nation:
            orders.append(Option(ArmyMove(origin, dest)))
        else:
            if dest not in last_free:
                orders.append(Option(ArmyMove(origin, dest, Stance.HOSTILE)))
            orders.append(Option(ArmyMove(origin, dest, Stance.FRIENDLY)))
    return tuple(orders)


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

