"""Parsing of the map's tables and the checks a map must pass before play.

Kept apart from ``board`` so the shape of the data and the rules it must obey
can be read on their own; every failure names the entry at fault.
"""
from __future__ import annotations

from typing import Any

from engine.imperial2030.board import (
    Board,
    BondTier,
    CityKind,
    RegionKind,
    RondelSpace,
    SpaceAction,
    Tables,
    TaxColumn,
    UnitLimit,
)
from engine.imperial2030.errors import BoardError


def parse_tables(t: dict[str, Any]) -> Tables:
    rondel = []
    for space_id in t["rondel_clockwise"]:
        action_name = space_id.split("_")[0]
        try:
            action = SpaceAction(action_name)
        except ValueError:
            raise BoardError(f"tables.rondel_clockwise: unknown space {space_id!r}") from None
        rondel.append(RondelSpace(space_id, action, action_name.capitalize()))
    power_track = [0] * (max(int(k) for k in t["power_track"]) + 1)
    for points, multiplier in t["power_track"].items():
        power_track[int(points)] = int(multiplier)
    groups = {}
    for count, value in t["flag_card_groups"].items():
        if isinstance(value, list):
            groups[int(count)] = tuple(tuple(group) for group in value)
    return Tables(
        bonds=tuple(BondTier(int(b["cost"]), int(b["interest"])) for b in t["bonds"]),
        tax_columns=tuple(
            TaxColumn(int(c["from_tax"]), int(c["to_tax"]), c["label"], int(c["bonus"]), int(c["power_points"]))
            for c in t["tax_chart_columns"]
        ),
        tax_per_factory=int(t["tax_revenue"]["per_unoccupied_factory"]),
        tax_per_flag=int(t["tax_revenue"]["per_flag"]),
        tax_maximum=int(t["tax_revenue"]["maximum"]),
        power_track=tuple(power_track),
        rondel=tuple(rondel),
        free_spaces=int(t["rondel_rules"]["free_spaces"]),
        max_spaces=int(t["rondel_rules"]["max_spaces"]),
        unit_limits={n: UnitLimit(int(v["armies"]), int(v["fleets"])) for n, v in t["unit_limits"].items()},
        flags_per_nation=int(t["flags_per_nation"]),
        factory_cost=int(t["factories"]["build_cost"]),
        import_max_units=int(t["import"]["max_units"]),
        import_cost_per_unit=int(t["import"]["cost_per_unit"]),
        investor_card_payment=int(t["investor_card_payment"]),
        starting_cash_standard={int(k): int(v) for k, v in t["starting_cash"]["standard"].items()},
        starting_cash_expert={int(k): int(v) for k, v in t["starting_cash"]["expert_variant"].items()},
        cash_left_after_deal=int(t["starting_cash"]["standard_cash_left_after_initial_bonds"]),
        flag_card_groups=groups,
        flag_card_bonds={
            n: tuple((b["nation"], int(b["cost"])) for b in bonds) for n, bonds in t["flag_card_initial_bonds"].items()
        },
        rail_links={n: tuple((a, b) for a, b in links) for n, links in t["rail_links"].items()},
    )


def validate_board(board: Board) -> None:
    """Raise BoardError naming the first fault found."""
    _check_nations(board)
    _check_regions(board)
    _check_names(board)
    _check_edges(board)
    _check_canals(board)
    _check_tables(board)


def _fail(message: str) -> None:
    raise BoardError(message)


def _check_nations(board: Board) -> None:
    ids = [n.id for n in board.nations]
    if len(set(ids)) != len(ids):
        _fail(f"nations: duplicate nation id in {ids}")
    orders = sorted(n.turn_order for n in board.nations)
    if orders != list(range(1, len(ids) + 1)):
        _fail(f"nations: turn_order must be 1..{len(ids)}, found {orders}")


def _check_regions(board: Board) -> None:
    for region in board.regions.values():
        where = f"region {region.id!r}"
        if region.kind is RegionKind.HOME:
            if region.nation not in board.nation_by_id:
                _fail(f"{where}: home province of unknown nation {region.nation!r}")
            if region.city is None:
                _fail(f"{where}: home province without a city type")
            if region.city is CityKind.SHIPYARD:
                if region.port not in board.regions or not board.regions[region.port].is_sea:
                    _fail(f"{where}: shipyard city needs a port on a known sea, found {region.port!r}")
            elif region.port is not None:
                _fail(f"{where}: armaments city cannot have a port ({region.port!r})")
        elif region.nation or region.city or region.port or region.starting_factory:
            _fail(f"{where}: a {region.kind.value} region cannot have a nation, city, port or factory")
    for nation in board.nation_ids:
        homes = [board.regions[h] for h in board.homes[nation]]
        if len(homes) != 4:
            _fail(f"nation {nation!r}: needs 4 home provinces, found {len(homes)}")
        for city in CityKind:
            starting = [h for h in homes if h.city is city and h.starting_factory]
            if len(starting) != 1:
                _fail(f"nation {nation!r}: needs exactly 1 starting {city.value} factory, found {len(starting)}")
    for city in CityKind:
        count = sum(1 for r in board.regions.values() if r.city is city)
        if count != 12:
            _fail(f"regions: R-PIECE-1 needs 12 {city.value} cities, found {count}")


_IGNORED_IN_NAMES = frozenset(" -.'\u2019")


def normalise_name(text: str) -> str:
    """A typed name as compared with ids, names and aliases: lowercase, no whitespace, hyphens, dots, apostrophes."""
    return "".join(ch for ch in text.lower() if ch not in _IGNORED_IN_NAMES and not ch.isspace())


def _check_names(board: Board) -> None:
    """Ids, names and aliases of regions and nations must stay unambiguous once normalised."""
    entries = [(f"nation {n.id!r}", n.id, n.name, n.aliases) for n in board.nations]
    entries += [(f"region {r.id!r}", r.id, r.name, r.aliases) for r in board.regions.values()]
    owner: dict[str, tuple[str, str]] = {}  # normalised text -> (entry, how it is spelled there)
    for where, entry_id, name, _ in entries:
        for label, text in (("id", entry_id), ("name", name)):
            key = normalise_name(text)
            if key in owner and owner[key][0] != where:
                _fail(f"{where}: {label} {text!r} is the same name as {owner[key][0]} {owner[key][1]}")
            owner.setdefault(key, (where, f"{label} {text!r}"))
    for where, _, _, aliases in entries:
        for alias in aliases:
            key = normalise_name(alias)
            if not key:
                _fail(f"{where}: alias {alias!r} is empty once spaces and punctuation are removed")
            if key in owner and owner[key][0] != where:
                _fail(f"{where}: alias {alias!r} is the same name as {owner[key][0]} {owner[key][1]}")
            owner.setdefault(key, (where, f"alias {alias!r}"))


def _check_edges(board: Board) -> None:
    seen: set[frozenset[str]] = set()
    for edge in board.edges:
        where = f"adjacency {edge.a!r}-{edge.b!r}"
        for end in (edge.a, edge.b):
            if end not in board.regions:
                _fail(f"{where}: unknown region {end!r}")
        if edge.a == edge.b:
            _fail(f"{where}: a region cannot border itself")
        key = frozenset((edge.a, edge.b))
        if key in seen:
            _fail(f"{where}: listed twice (each border once, in either direction)")
        seen.add(key)
        if edge.canal is not None and edge.canal not in board.canals:
            _fail(f"{where}: unknown canal {edge.canal!r}")
    for region in board.regions.values():
        if not board.neighbours[region.id]:
            _fail(f"region {region.id!r}: borders nothing")
        if region.port and region.port not in board.neighbours[region.id]:
            _fail(f"region {region.id!r}: its port sea {region.port!r} does not border it")


def _check_canals(board: Board) -> None:
    for canal in board.canals.values():
        a, b = canal.seas
        if b not in board.neighbours.get(a, ()):
            _fail(f"canal {canal.id!r}: seas {a!r} and {b!r} do not border each other")
        if canal.controlled_by_region not in board.regions:
            _fail(f"canal {canal.id!r}: unknown controlling region {canal.controlled_by_region!r}")


def _check_tables(board: Board) -> None:
    t = board.tables
    values = [b.value for b in t.bonds]
    if values != sorted(values) or len(set(values)) != len(values):
        _fail(f"tables.bonds: values must rise strictly, found {values}")
    if len(t.rondel) != 8 or len({s.id for s in t.rondel}) != 8:
        _fail("tables.rondel_clockwise: needs 8 distinct spaces")
    if sum(1 for s in t.rondel if s.action is SpaceAction.INVESTOR) != 1:
        _fail("tables.rondel_clockwise: needs exactly one investor space")
    previous = -1
    for column in t.tax_columns:
        if column.from_tax <= previous or column.to_tax < column.from_tax:
            _fail(f"tables.tax_chart_columns: column {column.label!r} out of order")
        previous = column.to_tax
    for nation in board.nation_ids:
        if nation not in t.unit_limits:
            _fail(f"tables.unit_limits: no limits for {nation!r}")
        if nation not in t.flag_card_bonds:
            _fail(f"tables.flag_card_initial_bonds: no bonds for {nation!r}")
        for bond_nation, value in t.flag_card_bonds[nation]:
            if bond_nation not in board.nation_by_id or value not in values:
                _fail(f"tables.flag_card_initial_bonds.{nation}: unknown bond {bond_nation!r} {value}")
        for a, b in t.rail_links.get(nation, ()):
            homes = board.homes[nation]
            if a not in homes or b not in homes:
                _fail(f"tables.rail_links.{nation}: {a!r}-{b!r} is not between its home provinces")
            if b not in board.neighbours[a]:
                _fail(f"tables.rail_links.{nation}: {a!r} and {b!r} do not border each other")
    for count, groups in t.flag_card_groups.items():
        dealt = sorted(n for group in groups for n in group)
        if dealt != sorted(board.nation_ids) or len(groups) != count:
            _fail(f"tables.flag_card_groups.{count}: must split all nations into {count} groups")
