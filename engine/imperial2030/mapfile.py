"""Reading a map file into a validated ``Board`` (the shipped Imperial 2030 map by default).

The map file is the single source of every number the rules use. Loading
validates it (``board_validation``) and refuses a wrong one with a precise
message naming the entry at fault, because a wrong map would silently corrupt
months of play. Kept apart from ``board``, the shape it builds, so that the
checks can build on that shape too without either module needing the other.
"""
from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Any

from engine.imperial2030.board import Board, Canal, CityKind, Edge, NationInfo, Region, RegionKind
from engine.imperial2030.board_validation import parse_tables, validate_board
from engine.imperial2030.errors import BoardError

DEFAULT_MAP = Path(__file__).resolve().parent.parent.parent / "maps" / "imperial2030.json"


def load_board(path: str | Path | None = None) -> Board:
    """Read and validate a map file (default: the shipped Imperial 2030 map)."""
    source = Path(path) if path else DEFAULT_MAP
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BoardError(f"{source}: map file not found") from None
    except json.JSONDecodeError as exc:
        raise BoardError(f"{source}: not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    try:
        board = board_from_data(data)
    except BoardError as exc:
        raise BoardError(f"{source}: {exc}") from None
    return board


_DEFAULT: Board | None = None


def default_board() -> Board:
    """The shipped map, loaded and validated once per process."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = load_board()
        _DEFAULT.pickle_as_call(default_board)
    return _DEFAULT


def board_from_data(data: dict[str, Any]) -> Board:
    """Build a Board from parsed map data, validating every reference."""
    where = "map"  # the entry being read, so that a missing key names it
    try:
        raw_nations, raw_regions, raw_edges, raw_tables = (
            data[key] for key in ("nations", "regions", "adjacency", "tables")
        )
        nations_read = []
        for i, n in enumerate(raw_nations):
            where = f"nation {n['id']!r}" if "id" in n else f"nations[{i}]"
            nations_read.append(
                NationInfo(n["id"], n["name"], n.get("colour", ""), int(n["turn_order"]), _aliases(n, where))
            )
        nations = tuple(nations_read)
        regions: dict[str, Region] = {}
        for i, r in enumerate(raw_regions):
            where = f"region {r['id']!r}" if "id" in r else f"regions[{i}]"
            if r["id"] in regions:
                raise BoardError(f"regions: region id {r['id']!r} appears twice")
            regions[r["id"]] = Region(
                id=r["id"],
                name=r["name"],
                kind=_enum(RegionKind, r["kind"], f"region {r['id']!r} kind"),
                nation=r.get("nation"),
                city=_enum(CityKind, r["city"], f"region {r['id']!r} city") if r.get("city") else None,
                port=r.get("port"),
                starting_factory=bool(r.get("starting_factory", False)),
                aliases=_aliases(r, where),
            )
        edges_read = []
        for i, e in enumerate(raw_edges):
            where = f"adjacency[{i}] ({e.get('a')!r}-{e.get('b')!r})"
            edges_read.append(Edge(e["a"], e["b"], e["kind"], e.get("canal"), bool(e.get("strait", False))))
        edges = tuple(edges_read)
        canals = {}
        for cid, c in data.get("canals", {}).items():
            where = f"canal {cid!r}"
            canals[cid] = Canal(cid, (c["seas"][0], c["seas"][1]), c["controlled_by_region"])
        where = "tables"
        tables = parse_tables(raw_tables)
    except KeyError as exc:
        raise BoardError(f"{where}: missing key {exc.args[0]!r}") from None
    board = Board(nations, regions, edges, canals, tables)
    validate_board(board)
    return board


def _aliases(entry: dict[str, Any], where: str) -> tuple[str, ...]:
    aliases = entry.get("aliases", [])
    if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
        raise BoardError(f"{where}: aliases must be a list of strings, found {aliases!r}")
    return tuple(aliases)


def _enum(kind: type[StrEnum], value: str, where: str) -> Any:
    try:
        return kind(value)
    except ValueError:
        allowed = ", ".join(str(m.value) for m in kind)
        raise BoardError(f"{where}: {value!r} is not one of {allowed}") from None
