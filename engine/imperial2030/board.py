"""The board as typed data: regions, adjacency, canals and every rules table.

The map file is the single source of every number the rules use; the engine
never hard-codes a region, a bond value or a tax column. Reading the file and
refusing a wrong one with a precise message is ``mapfile``'s work (with the
checks of ``board_validation``): this module is the shape both of them build,
and what every other module of the engine reads.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from typing import Any


class RegionKind(StrEnum):
    SEA = "sea"
    LAND = "land"
    HOME = "home"


class CityKind(StrEnum):
    ARMAMENTS = "armaments"
    SHIPYARD = "shipyard"


class SpaceAction(StrEnum):
    """What a rondel space does; two spaces share Production and Maneuver."""

    FACTORY = "factory"
    PRODUCTION = "production"
    MANEUVER = "maneuver"
    INVESTOR = "investor"
    IMPORT = "import"
    TAXATION = "taxation"


@dataclass(frozen=True, slots=True)
class NationInfo:
    id: str
    name: str
    colour: str
    turn_order: int
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Region:
    id: str
    name: str
    kind: RegionKind
    nation: str | None
    city: CityKind | None
    port: str | None
    starting_factory: bool
    aliases: tuple[str, ...] = ()

    @property
    def is_sea(self) -> bool:
        return self.kind is RegionKind.SEA

    @property
    def is_home(self) -> bool:
        return self.kind is RegionKind.HOME


@dataclass(frozen=True, slots=True)
class Edge:
    a: str
    b: str
    kind: str
    canal: str | None
    strait: bool


@dataclass(frozen=True, slots=True)
class Canal:
    id: str
    seas: tuple[str, str]
    controlled_by_region: str


@dataclass(frozen=True, slots=True)
class BondTier:
    value: int
    interest: int


@dataclass(frozen=True, slots=True)
class TaxColumn:
    from_tax: int
    to_tax: int
    label: str
    bonus: int
    power_points: int


@dataclass(frozen=True, slots=True)
class UnitLimit:
    armies: int
    fleets: int


@dataclass(frozen=True, slots=True)
class RondelSpace:
    id: str
    action: SpaceAction
    name: str


@dataclass(frozen=True)
class Tables:
    bonds: tuple[BondTier, ...]
    tax_columns: tuple[TaxColumn, ...]
    tax_per_factory: int
    tax_per_flag: int
    tax_maximum: int
    power_track: tuple[int, ...]  # index = power points, value = multiplier
    rondel: tuple[RondelSpace, ...]  # clockwise
    free_spaces: int
    max_spaces: int
    unit_limits: dict[str, UnitLimit]
    flags_per_nation: int
    factory_cost: int
    import_max_units: int
    import_cost_per_unit: int
    investor_card_payment: int
    starting_cash_standard: dict[int, int]
    starting_cash_expert: dict[int, int]
    cash_left_after_deal: int
    flag_card_groups: dict[int, tuple[tuple[str, ...], ...]]
    flag_card_bonds: dict[str, tuple[tuple[str, int], ...]]
    rail_links: dict[str, tuple[tuple[str, str], ...]]

    @property
    def power_max(self) -> int:
        return len(self.power_track) - 1

    def interest(self, value: int) -> int:
        for tier in self.bonds:
            if tier.value == value:
                return tier.interest
        raise KeyError(value)

    def tax_column_index(self, income: int) -> int:
        """R-TAX-4: income between columns uses the lower column."""
        index = 0
        for i, column in enumerate(self.tax_columns):
            if income >= column.from_tax:
                index = i
        return index

    def multiplier(self, power: int) -> int:
        track = self.power_track
        return track[power] if 0 <= power < len(track) else track[-1 if power > 0 else 0]


class Board:
    """The validated board: regions, adjacency, canals and every rules table."""

    def __init__(
        self,
        nations: tuple[NationInfo, ...],
        regions: dict[str, Region],
        edges: tuple[Edge, ...],
        canals: dict[str, Canal],
        tables: Tables,
    ) -> None:
        self.nations = nations
        self.regions = regions
        self.edges = edges
        self.canals = canals
        self.tables = tables
        neighbours: dict[str, set[str]] = {rid: set() for rid in regions}
        for edge in edges:
            # setdefault: an edge naming an unknown region must reach validation, not crash here
            neighbours.setdefault(edge.a, set()).add(edge.b)
            neighbours.setdefault(edge.b, set()).add(edge.a)
        self.neighbours: dict[str, frozenset[str]] = {k: frozenset(v) for k, v in neighbours.items()}
        self.edge_between: dict[frozenset[str], Edge] = {frozenset((e.a, e.b)): e for e in edges}
        self.nation_ids: tuple[str, ...] = tuple(n.id for n in sorted(nations, key=lambda n: n.turn_order))
        self.nation_by_id = {n.id: n for n in nations}
        self.rondel_ids: tuple[str, ...] = tuple(space.id for space in tables.rondel)
        self.rondel_by_id = {space.id: space for space in tables.rondel}
        self._rondel_index = {space_id: i for i, space_id in enumerate(self.rondel_ids)}
        investor = [space.id for space in tables.rondel if space.action is SpaceAction.INVESTOR]
        self.investor_space = investor[0] if investor else ""
        self._rebuilt_by: Callable[[], Board] | None = None

    def pickle_as_call(self, rebuild: Callable[[], Board]) -> None:
        """Pickle this board as a call of ``rebuild`` (a module-level function that returns it), not whole.

        ``mapfile.default_board`` marks the shipped map so: a state pickled
        for the picture helper process was 26 KB, 25 of them this board, which
        the helper reads from the same file (pickling and unpickling it cost
        more than drawing an unchanged board). Passed in rather than named
        here because reading the map file builds on this module.
        """
        self._rebuilt_by = rebuild

    def __reduce_ex__(self, protocol: Any) -> Any:
        """A board marked by ``pickle_as_call`` is pickled as that call, any other board whole."""
        if self._rebuilt_by is not None:
            return self._rebuilt_by, ()
        return super().__reduce_ex__(protocol)

    @cached_property
    def homes(self) -> dict[str, tuple[str, ...]]:
        """Home provinces of each nation, in map order."""
        result: dict[str, list[str]] = {n: [] for n in self.nation_ids}
        for region in self.regions.values():
            if region.is_home and region.nation:
                result[region.nation].append(region.id)
        return {k: tuple(v) for k, v in result.items()}

    @cached_property
    def rail(self) -> dict[str, dict[str, frozenset[str]]]:
        """Per nation, the rail neighbours of each of its home provinces."""
        result: dict[str, dict[str, set[str]]] = {n: {h: set() for h in self.homes[n]} for n in self.nation_ids}
        for nation, links in self.tables.rail_links.items():
            for a, b in links:
                result[nation][a].add(b)
                result[nation][b].add(a)
        return {n: {k: frozenset(v) for k, v in m.items()} for n, m in result.items()}

    @cached_property
    def seas_of(self) -> dict[str, tuple[str, ...]]:
        """Seas bordering each region (for a sea: its neighbouring seas), in map order."""
        return {
            rid: tuple(n for n in sorted(self.neighbours[rid]) if self.regions[n].is_sea)
            for rid in self.regions
        }

    @cached_property
    def lands_of(self) -> dict[str, tuple[str, ...]]:
        """Land regions (neutral or home) bordering each region, in map order."""
        return {
            rid: tuple(n for n in sorted(self.neighbours[rid]) if not self.regions[n].is_sea)
            for rid in self.regions
        }

    @cached_property
    def land_steps(self) -> dict[str, tuple[str, ...]]:
        """Land regions one land step away (an edge of kind "land", straits included), in map order.

        Kept here because every army's every move looks it up (R-MOVE-3).
        """
        return {
            rid: tuple(n for n in self.lands_of[rid] if self.edge_between[frozenset((rid, n))].kind == "land")
            for rid in self.regions
        }

    def canal_on(self, a: str, b: str) -> str | None:
        edge = self.edge_between.get(frozenset((a, b)))
        return edge.canal if edge else None

    def name(self, region_or_nation: str) -> str:
        if region_or_nation in self.regions:
            return self.regions[region_or_nation].name
        if region_or_nation in self.nation_by_id:
            return self.nation_by_id[region_or_nation].name
        if region_or_nation in self.rondel_by_id:
            return self.rondel_by_id[region_or_nation].name
        return region_or_nation

    def rondel_distance(self, start: str, end: str) -> int:
        """Clockwise steps from one space to another (0 when equal)."""
        return (self._rondel_index[end] - self._rondel_index[start]) % len(self.rondel_ids)

    def rondel_passes(self, start: str, end: str, space: str) -> bool:
        """True when moving clockwise from start to end passes over ``space`` without stopping."""
        steps = self.rondel_distance(start, end)
        between = self.rondel_distance(start, space)
        return 0 < between < steps
