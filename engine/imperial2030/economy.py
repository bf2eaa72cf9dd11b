"""Factory, Production, Import, Taxation and interest (rules section 4).

Each action has two halves: the options it offers now (used for pending
decisions and refusals) and the code that carries out a validated choice.
"""
from __future__ import annotations

from engine.imperial2030.actions import BuildFactory, Import, ImportUnit, Produce
from engine.imperial2030.board import CityKind
from engine.imperial2030.describe import describe
from engine.imperial2030.errors import Cause, IllegalAction
from engine.imperial2030.events import (
    BANK,
    Event,
    FactoryBuilt,
    PowerGained,
    Reason,
    TaxCollected,
    UnitsPlaced,
    cash,
    treasury,
)
from engine.imperial2030.ledger import transfer
from engine.imperial2030.model import GameState, UnitKind, Variant
from engine.imperial2030.refusals import Refused

# --- occupation ---------------------------------------------------------------


def hostile_in(state: GameState, province: str) -> bool:
    """R-HOSTILE-1: a foreign army standing hostile blocks the province."""
    owner = state.board.regions[province].nation
    return any(n.hostile.get(province, 0) for nid, n in state.nations.items() if nid != owner)


def blocked_provinces(state: GameState) -> frozenset[str]:
    """Every home province where a foreign army stands hostile, computed once for many look-ups."""
    regions = state.board.regions
    return frozenset(
        province
        for nid, ns in state.nations.items()
        for province, count in ns.hostile.items()
        if count and regions[province].nation != nid
    )


def unit_for(state: GameState, province: str) -> UnitKind:
    """Armaments factories make armies, shipyards make fleets."""
    return UnitKind.ARMY if state.board.regions[province].city is CityKind.ARMAMENTS else UnitKind.FLEET


def supply_left(state: GameState, nation: str, kind: UnitKind) -> int:
    """R-PIECE-2: units still in the nation's supply."""
    limit = state.board.tables.unit_limits[nation]
    cap = limit.armies if kind is UnitKind.ARMY else limit.fleets
    return cap - state.nations[nation].unit_count(kind)


def place_units(state: GameState, nation: str, kind: UnitKind, region: str, count: int, imported: bool,
                events: list[Event]) -> None:
    units = state.nation_w(nation).units(kind)
    units[region] = units.get(region, 0) + count
    events.append(UnitsPlaced(nation, kind, region, count, imported))


# --- Factory (R-FACTORY-1) ---------------------------------------------------------


def factory_sites(state: GameState, nation: str) -> tuple[str, ...]:
    """Own home cities without factory or hostile army, if the treasury can pay."""
    if state.nations[nation].treasury < state.board.tables.factory_cost:
        return ()
    built = state.nations[nation].factories
    blocked = blocked_provinces(state)  # once, not ``hostile_in`` per city
    return tuple(c for c in state.board.homes[nation] if c not in built and c not in blocked)


def build_factory(state: GameState, nation: str, action: BuildFactory, events: list[Event]) -> None:
    sites = factory_sites(state, nation)
    if action.city not in sites:
        raise IllegalAction(
            _factory_refusal(state, nation, action.city),
            [describe(state.board, BuildFactory(c)) for c in sites] + ["pass"],
        )
    transfer(state, events, treasury(nation), BANK, state.board.tables.factory_cost, Reason.FACTORY)
    state.nation_w(nation).factories.append(action.city)
    events.append(FactoryBuilt(nation, action.city))


def _factory_refusal(state: GameState, nation: str, city: str) -> Cause:
    board = state.board
    if city not in board.regions:
        return Cause(f"{city!r} is not on the map.", Refused.NOT_ON_MAP, {"text": city})
    name = board.name(city)
    if board.regions[city].nation != nation:
        return Cause(f"{name} is not a home city of {board.name(nation)}.", Refused.NOT_HOME_CITY,
                     {"city": city, "nation": nation})
    if city in state.nations[nation].factories:
        return Cause(f"{name} already has a factory.", Refused.HAS_FACTORY, {"city": city})
    if hostile_in(state, city):
        return Cause(f"A hostile foreign army stands in {name}.", Refused.HOSTILE_ARMY, {"region": city})
    return Cause(f"The treasury of {board.name(nation)} holds less than {board.tables.factory_cost}.",
                 Refused.TREASURY_SHORT, {"nation": nation, "cost": board.tables.factory_cost})


# --- Production (R-PROD-1) ------------------------------------------------------


def producing_factories(state: GameState, nation: str) -> tuple[str, ...]:
    """Own factories free of hostile armies whose unit is still in supply."""
    blocked = blocked_provinces(state)  # once, not ``hostile_in`` per factory
    left = {kind: supply_left(state, nation, kind) for kind in UnitKind}
    return tuple(f for f in state.nations[nation].factories if f not in blocked and left[unit_for(state, f)] > 0)


def produce(state: GameState, nation: str, action: Produce, events: list[Event]) -> None:
    eligible = producing_factories(state, nation)
    chosen = eligible if action.provinces is None else action.provinces
    board = state.board
    legal = [describe(board, Produce(None))] + [describe(board, Produce((f,))) for f in eligible]
    if len(set(chosen)) != len(chosen):
        raise IllegalAction("Each factory produces at most one unit.", legal, code=Refused.ONE_UNIT_EACH)
    for province in chosen:
        if province not in eligible:
            raise IllegalAction(f"{board.name(province)} has no factory of {board.name(nation)} that can produce.", legal,
                                code=Refused.NO_FACTORY_PRODUCES, values={"province": province, "nation": nation})
    for province in chosen:
        kind = unit_for(state, province)
        if supply_left(state, nation, kind) <= 0:
            if action.provinces is None:
                continue  # "all" produces what the supply allows, in factory order
            raise IllegalAction(f"{board.name(nation)} has no {kind.value} left in its supply.", legal,
                                code=Refused.NO_SUPPLY, values={"nation": nation, "kind": kind.value})
        place_units(state, nation, kind, province, 1, False, events)


# --- Import (R-IMPORT-1) ---------------------------------------------------------


def import_sites(state: GameState, nation: str, kind: UnitKind,
                 blocked: frozenset[str] | None = None) -> tuple[str, ...]:
    """Home provinces free of hostile armies (ports only, for fleets); ``blocked`` when the caller has it."""
    homes = state.board.homes[nation]
    regions = state.board.regions
    if blocked is None:
        blocked = blocked_provinces(state)
    return tuple(
        h
        for h in homes
        if h not in blocked and (kind is UnitKind.ARMY or regions[h].city is CityKind.SHIPYARD)
    )


def import_choices(state: GameState, nation: str) -> tuple[ImportUnit, ...]:
    """Single units the nation could import now (R-IMPORT-1)."""
    if state.nations[nation].treasury < state.board.tables.import_cost_per_unit:
        return ()
    blocked = blocked_provinces(state)
    return tuple(
        ImportUnit(kind, site)
        for kind in UnitKind
        if supply_left(state, nation, kind) > 0
        for site in import_sites(state, nation, kind, blocked)
    )


def import_units(state: GameState, nation: str, action: Import, events: list[Event]) -> None:
    tables = state.board.tables
    board = state.board
    choices = import_choices(state, nation)
    legal = [f"import up to {tables.import_max_units} of: " + ", ".join(
        f"{u.kind.value} {board.name(u.region)}" for u in choices)] if choices else []
    legal.append("import nothing")
    if len(action.units) > tables.import_max_units:
        raise IllegalAction(f"At most {tables.import_max_units} units may be imported.", legal,
                            code=Refused.IMPORT_MAX, values={"count": tables.import_max_units})
    cost = len(action.units) * tables.import_cost_per_unit
    if cost > state.nations[nation].treasury:
        raise IllegalAction(
            f"{len(action.units)} units cost {cost}; the treasury of {board.name(nation)} holds "
            f"{state.nations[nation].treasury}.", legal, code=Refused.IMPORT_COSTS,
            values={"count": len(action.units), "cost": cost, "nation": nation,
                    "treasury": state.nations[nation].treasury})
    for kind in UnitKind:
        wanted = sum(1 for u in action.units if u.kind is kind)
        if wanted > supply_left(state, nation, kind):
            raise IllegalAction(
                f"{board.name(nation)} has only {supply_left(state, nation, kind)} {kind.value}(s) left in supply.",
                legal, code=Refused.IMPORT_SUPPLY,
                values={"nation": nation, "count": supply_left(state, nation, kind), "kind": kind.value})
    for unit in action.units:
        if unit.region not in import_sites(state, nation, unit.kind):
            raise IllegalAction(_import_refusal(state, nation, unit), legal)
    if action.units:
        transfer(state, events, treasury(nation), BANK, cost, Reason.IMPORT)
    for unit in action.units:
        place_units(state, nation, unit.kind, unit.region, 1, True, events)


def _import_refusal(state: GameState, nation: str, unit: ImportUnit) -> Cause:
    if unit.region not in state.board.regions:
        return Cause(f"{unit.region!r} is not on the map.", Refused.NOT_ON_MAP, {"text": unit.region})
    region = state.board.regions[unit.region]
    if region.nation != nation:
        return Cause(f"{region.name} is not a home province of {state.board.name(nation)}.",
                     Refused.NOT_HOME_PROVINCE, {"region": unit.region, "nation": nation})
    if hostile_in(state, unit.region):
        return Cause(f"A hostile foreign army stands in {region.name}.", Refused.HOSTILE_ARMY,
                     {"region": unit.region})
    return Cause(f"A fleet can only be imported into a port city; {region.name} has none.", Refused.NO_PORT,
                 {"region": unit.region})


# --- Taxation (R-TAX-1..5) ------------------------------------------------------


def collect_taxes(state: GameState, nation: str, events: list[Event]) -> None:
    tables = state.board.tables
    ns = state.nation_w(nation)
    free = sum(1 for f in ns.factories if not hostile_in(state, f))
    flags = len(ns.flags)
    income = min(tables.tax_maximum, free * tables.tax_per_factory + flags * tables.tax_per_flag)
    transfer(state, events, BANK, treasury(nation), income, Reason.TAX)
    owed = ns.unit_count(UnitKind.ARMY) + ns.unit_count(UnitKind.FLEET)
    paid = min(owed, ns.treasury)
    transfer(state, events, treasury(nation), BANK, paid, Reason.SOLDIERS_PAY)
    column = tables.tax_column_index(income)
    if state.setup.has(Variant.TAX_INCREASE_BONUS):
        bonus = max(0, column - ns.tax_column)
        ns.tax_column = column
    else:
        bonus = tables.tax_columns[column].bonus
    bonus = min(bonus, ns.treasury)
    if ns.government is not None:
        transfer(state, events, treasury(nation), cash(ns.government), bonus, Reason.BONUS)
    events.append(TaxCollected(nation, income, free, flags, owed, paid, bonus))
    gained = tables.tax_columns[column].power_points
    ns.power = min(tables.power_max, ns.power + gained)
    events.append(PowerGained(nation, gained, ns.power))


# --- Interest (R-INVEST-1) -------------------------------------------------------


def interest_owed(state: GameState, nation: str) -> tuple[int, int]:
    """(owed to the government, owed to everyone else)."""
    gov = state.nations[nation].government
    own = others = 0
    for holder, bond in state.bonds_held(nation):
        interest = state.board.tables.interest(bond.value)
        if holder == gov:
            own += interest
        else:
            others += interest
    return own, others


def can_stop_on_investor(state: GameState, nation: str, move_cost: int = 0) -> bool:
    """R-INVEST-1 decision: treasury plus the government's cash (after paying for the
    rondel move) must cover the interest owed to the other bond holders."""
    gov = state.nations[nation].government
    _, others = interest_owed(state, nation)
    money = state.players[gov].cash - move_cost if gov else 0
    return others <= state.nations[nation].treasury + money


def can_pay_interest_in_full(state: GameState, nation: str) -> bool:
    """R-RONDEL-5: a Swiss bank may force a stop only when the treasury covers all interest."""
    own, others = interest_owed(state, nation)
    return own + others <= state.nations[nation].treasury


def pay_interest(state: GameState, nation: str, events: list[Event]) -> None:
    """Others are paid first, from the treasury and then the government's cash; the government last."""
    ns = state.nation_w(nation)
    gov = ns.government
    tables = state.board.tables
    for player in state.seating:
        owed = sum(tables.interest(b.value) for b in state.players[player].bonds if b.nation == nation)
        if player == gov or owed == 0:
            continue
        from_treasury = min(owed, ns.treasury)
        transfer(state, events, treasury(nation), cash(player), from_treasury, Reason.INTEREST)
        if gov is not None:
            transfer(state, events, cash(gov), cash(player), owed - from_treasury, Reason.INTEREST_SHORTFALL)
    if gov is not None:
        own, _ = interest_owed(state, nation)
        transfer(state, events, treasury(nation), cash(gov), min(own, ns.treasury), Reason.INTEREST)
