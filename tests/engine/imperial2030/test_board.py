"""The shipped map and the board loader.

The map file (maps/imperial2030.json) is built from the shared board facts
(shared/data/imperial2030-board.json) plus aliases for order parsing. These
tests keep the two in step, pin the numbers the rules quote
(shared/rules/imperial2030.md) and check that a corrupted map is refused with a
message naming the entry at fault.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from engine.imperial2030.board import Board, CityKind, RegionKind, SpaceAction
from engine.imperial2030.board_validation import normalise_name
from engine.imperial2030.errors import BoardError
from engine.imperial2030.mapfile import DEFAULT_MAP, board_from_data, default_board, load_board

SHARED_BOARD = Path("/work/shared/data/imperial2030-board.json")
if not SHARED_BOARD.exists():  # the repo may sit next to shared/ rather than under /work
    SHARED_BOARD = Path(__file__).resolve().parents[4] / "shared" / "data" / "imperial2030-board.json"

REGION_FACTS = ("name", "kind", "nation", "city", "port", "starting_factory")


# --------------------------------------------------------------------------- helpers


def _map_data() -> dict:
    """A fresh parsed copy of the shipped map, safe to corrupt."""
    return json.loads(DEFAULT_MAP.read_text(encoding="utf-8"))


_MAP = _map_data()
BOARD = load_board()


def _refusal(data: dict) -> str:
    """The BoardError message for a corrupted map (fails the test if it loads)."""
    with pytest.raises(BoardError) as info:
        board_from_data(data)
    return str(info.value)


def _region(data: dict, region_id: str) -> dict:
    return next(r for r in data["regions"] if r["id"] == region_id)


def _shared() -> dict:
    if not SHARED_BOARD.exists():
        pytest.skip(f"shared board facts not found at {SHARED_BOARD}")
    return json.loads(SHARED_BOARD.read_text(encoding="utf-8"))


def _alias_lookup(board: Board) -> dict[str, str]:
    """Normalised id, name or alias -> region or nation id (what an order parser would build)."""
    lookup: dict[str, str] = {}
    for nation in board.nations:
        for text in (nation.id, nation.name, *nation.aliases):
            lookup[normalise_name(text)] = nation.id
    for region in board.regions.values():
        for text in (region.id, region.name, *region.aliases):
            lookup[normalise_name(text)] = region.id
    return lookup


# --------------------------------------------------------------------------- the shipped map


def test_shipped_map_loads():
    """The default map loads and validates; default_board() gives the same facts."""
    board = default_board()
    assert isinstance(board, Board)
    assert board.regions.keys() == BOARD.regions.keys()
    assert load_board(DEFAULT_MAP).regions.keys() == BOARD.regions.keys()


def test_region_counts():
    """62 regions: 11 seas, 27 neutral land regions, 24 home provinces."""
    kinds = [r.kind for r in BOARD.regions.values()]
    assert len(BOARD.regions) == 62
    assert kinds.count(RegionKind.SEA) == 11
    assert kinds.count(RegionKind.LAND) == 27
    assert kinds.count(RegionKind.HOME) == 24


def test_adjacency_count():
    """162 undirected adjacencies, each listed once."""
    assert len(BOARD.edges) == 162
    assert len({frozenset((e.a, e.b)) for e in BOARD.edges}) == 162
    assert sum(len(n) for n in BOARD.neighbours.values()) == 2 * 162


def test_adjacency_is_symmetric():
    """board.neighbours is symmetric and no region borders itself or nothing."""
    for region, neighbours in BOARD.neighbours.items():
        assert region in BOARD.regions
        assert neighbours, region
        assert region not in neighbours
        for other in neighbours:
            assert region in BOARD.neighbours[other], (region, other)


def test_regions_match_shared_board_facts():
    """Every region of the shared board is in the map with the same facts (kind, nation, city, port, factory)."""
    shared = _shared()
    shared_regions = {r["id"]: r for r in shared["regions"]}
    assert set(shared_regions) == set(BOARD.regions)
    for region_id, facts in shared_regions.items():
        region = BOARD.regions[region_id]
        assert region.name == facts["name"], region_id
        assert region.kind.value == facts["kind"], region_id
        assert region.nation == facts["nation"], region_id
        assert (region.city.value if region.city else None) == facts["city"], region_id
        assert region.port == facts["port"], region_id
        assert region.starting_factory == facts["starting_factory"], region_id
    # and the raw map entries carry nothing but these facts plus aliases
    for entry in _MAP["regions"]:
        assert {k: v for k, v in entry.items() if k != "aliases"} == shared_regions[entry["id"]]


def test_everything_but_aliases_matches_shared_board_facts():
    """Adjacency (kind, canal, strait), canals, nations and every table are copied unchanged."""
    shared = _shared()
    assert _MAP["adjacency"] == shared["adjacency"]
    assert _MAP["canals"] == shared["canals"]
    assert _MAP["tables"] == shared["tables"]
    assert [{k: v for k, v in n.items() if k != "aliases"} for n in _MAP["nations"]] == shared["nations"]
    shared_edges = {frozenset((e["a"], e["b"])): e for e in shared["adjacency"]}
    for edge in BOARD.edges:
        facts = shared_edges[frozenset((edge.a, edge.b))]
        assert (edge.kind, edge.canal, edge.strait) == (facts["kind"], facts["canal"], facts["strait"])


def test_nations_in_turn_order():
    """R-PIECE-1 / R-TURN-1: six nations in turn order Russia, China, India, Brazil, USA, Europe."""
    assert BOARD.nation_ids == ("russia", "china", "india", "brazil", "usa", "europe")


def test_cities():
    """R-PIECE-1: 4 home provinces per nation; 12 armaments and 12 shipyard cities in all."""
    cities = [r.city for r in BOARD.regions.values() if r.city is not None]
    assert cities.count(CityKind.ARMAMENTS) == 12
    assert cities.count(CityKind.SHIPYARD) == 12
    for nation in BOARD.nation_ids:
        homes = BOARD.homes[nation]
        assert len(homes) == 4, nation
        assert all(BOARD.regions[h].is_home and BOARD.regions[h].nation == nation for h in homes)
    assert all(r.city is None for r in BOARD.regions.values() if not r.is_home)


def test_starting_factories():
    """R-PIECE-1 / setup: each nation starts with one armaments and one shipyard factory."""
    for nation in BOARD.nation_ids:
        starting = sorted(BOARD.regions[h].city.value for h in BOARD.homes[nation] if BOARD.regions[h].starting_factory)
        assert starting == ["armaments", "shipyard"], nation


def test_shipyard_ports_border_their_sea():
    """R-MOVE-1: every shipyard has a port on a sea it borders; armaments cities have none."""
    for region in BOARD.regions.values():
        if region.city is CityKind.SHIPYARD:
            assert BOARD.regions[region.port].is_sea, region.id
            assert region.port in BOARD.neighbours[region.id], region.id
        else:
            assert region.port is None, region.id


def test_unit_limits():
    """R-PIECE-2: China 10 armies / 6 fleets, USA 6 / 10, every other nation 8 / 8; 15 flags each."""
    limits = {n: (u.armies, u.fleets) for n, u in BOARD.tables.unit_limits.items()}
    assert limits == {
        "russia": (8, 8),
        "china": (10, 6),
        "india": (8, 8),
        "brazil": (8, 8),
        "usa": (6, 10),
        "europe": (8, 8),
    }
    assert BOARD.tables.flags_per_nation == 15


def test_bond_table():
    """R-PIECE-3: 9 bonds, value -> interest 2->1, 4->2, 6->3, 9->4, 12->5, 16->6, 20->7, 25->8, 30->9."""
    expected = {2: 1, 4: 2, 6: 3, 9: 4, 12: 5, 16: 6, 20: 7, 25: 8, 30: 9}
    assert {b.value: b.interest for b in BOARD.tables.bonds} == expected
    assert [b.value for b in BOARD.tables.bonds] == sorted(expected)
    for value, interest in expected.items():
        assert BOARD.tables.interest(value) == interest
    with pytest.raises(KeyError):
        BOARD.tables.interest(3)


def test_rondel_order():
    """R-RONDEL-1: clockwise Investor, Import, Production, Maneuver, Taxation, Factory, Production, Maneuver."""
    ids = BOARD.rondel_ids
    assert len(ids) == 8 and len(set(ids)) == 8
    start = ids.index("investor")
    actions = [BOARD.rondel_by_id[ids[(start + i) % 8]].action for i in range(8)]
    assert actions == [
        SpaceAction.INVESTOR,
        SpaceAction.IMPORT,
        SpaceAction.PRODUCTION,
        SpaceAction.MANEUVER,
        SpaceAction.TAXATION,
        SpaceAction.FACTORY,
        SpaceAction.PRODUCTION,
        SpaceAction.MANEUVER,
    ]
    assert BOARD.name("production_1") == BOARD.name("production_2") == "Production"


def test_rondel_distance():
    """R-RONDEL-3: clockwise steps between spaces, wrapping past the last space."""
    assert BOARD.rondel_distance("factory", "factory") == 0
    assert BOARD.rondel_distance("factory", "production_1") == 1
    assert BOARD.rondel_distance("factory", "taxation") == 7
    assert BOARD.rondel_distance("taxation", "factory") == 1
    assert BOARD.rondel_distance("maneuver_2", "production_1") == 3
    assert BOARD.rondel_distance("investor", "taxation") == 4
    for a in BOARD.rondel_ids:
        for b in BOARD.rondel_ids:
            if a != b:
                assert BOARD.rondel_distance(a, b) + BOARD.rondel_distance(b, a) == 8


def test_rondel_passes():
    """R-RONDEL-4: passing over Investor counts; stopping on it or starting from it does not."""
    assert BOARD.rondel_passes("maneuver_1", "import", "investor")
    assert BOARD.rondel_passes("factory", "production_2", "investor")
    assert not BOARD.rondel_passes("maneuver_1", "investor", "investor")  # stops on it
    assert not BOARD.rondel_passes("investor", "import", "investor")  # leaves it
    assert not BOARD.rondel_passes("import", "taxation", "investor")  # never reaches it
    assert BOARD.rondel_passes("taxation", "production_1", "factory")  # wraps round
    assert not BOARD.rondel_passes("production_1", "maneuver_1", "factory")


def test_tax_column_lookup():
    """R-TAX-4: income between columns uses the lower column (9 -> 8, 7 -> 6, 23 -> 18)."""
    t = BOARD.tables

    def label(income: int) -> str:
        return t.tax_columns[t.tax_column_index(income)].label

    assert label(9) == "8"
    assert label(7) == "6"
    assert label(23) == "18"
    assert label(0) == "0-5"
    assert label(5) == "0-5"
    assert label(6) == "6"
    assert label(10) == "10"
    assert label(17) == "16"
    assert t.tax_maximum == 23
    assert (t.tax_per_factory, t.tax_per_flag) == (2, 1)  # R-TAX-1


def test_tax_chart_agrees_with_per_amount_table():
    """R-TAX-3 / R-TAX-4: bonus and power points by column agree with the per-amount chart for 0..23."""
    t = BOARD.tables
    by_amount = _MAP["tables"]["tax_chart_by_amount"]
    for amount in range(t.tax_maximum + 1):
        column = t.tax_columns[t.tax_column_index(amount)]
        facts = by_amount[str(amount)]
        assert (column.from_tax, column.bonus, column.power_points) == (
            facts["column"],
            facts["bonus"],
            facts["power_points"],
        ), amount


def test_power_multiplier():
    """R-END-2: multiplier = power points // 5 (4 -> 0, 5 -> 1, 17 -> 3, 25 -> 5); the track stops at 25."""
    t = BOARD.tables
    assert t.multiplier(4) == 0
    assert t.multiplier(5) == 1
    assert t.multiplier(17) == 3
    assert t.multiplier(25) == 5
    assert t.power_max == 25
    assert [t.multiplier(p) for p in range(26)] == [p // 5 for p in range(26)]
    assert t.multiplier(30) == 5
    assert t.multiplier(-1) == 0


def test_army_straits():
    """R-MOVE-6: Rome-Turkey and Paris-London are the only straits, ordinary land adjacencies."""
    straits = {frozenset((e.a, e.b)) for e in BOARD.edges if e.strait}
    assert straits == {frozenset(("rome", "turkey")), frozenset(("paris", "london"))}
    assert all(e.kind == "land" for e in BOARD.edges if e.strait)
    assert straits == {frozenset(pair) for pair in _MAP["tables"]["straits_crossable_by_armies"]}
    assert "turkey" in BOARD.neighbours["rome"]
    assert "london" in BOARD.neighbours["paris"]


def test_wraparound_seas():
    """The map wraps round: North Pacific-Sea of Japan, North Pacific-China Sea, South Pacific-China Sea,
    South Pacific-Tasman Sea are adjacent."""
    pairs = [
        ("northpacific", "seaofjapan"),
        ("northpacific", "chinasea"),
        ("southpacific", "chinasea"),
        ("southpacific", "tasmansea"),
    ]
    for a, b in pairs:
        assert b in BOARD.neighbours[a], (a, b)
        assert BOARD.regions[a].is_sea and BOARD.regions[b].is_sea
    assert sorted(map(tuple, _MAP["tables"]["wraparound_links"])) == sorted(pairs)


def test_canals():
    """R-MOVE-2: Panama joins Caribbean and North Pacific (Colombia); Suez joins Mediterranean and Indian Ocean
    (North Africa)."""
    panama, suez = BOARD.canals["panama"], BOARD.canals["suez"]
    assert set(panama.seas) == {"caribbeansea", "northpacific"}
    assert panama.controlled_by_region == "colombia"
    assert set(suez.seas) == {"mediterraneansea", "indianocean"}
    assert suez.controlled_by_region == "northafrica"
    canal_edges = {e.canal: frozenset((e.a, e.b)) for e in BOARD.edges if e.canal}
    assert canal_edges == {"panama": frozenset(panama.seas), "suez": frozenset(suez.seas)}


def test_indonesia_borders_three_seas():
    """Indonesia borders exactly three seas: China Sea, Indian Ocean, Tasman Sea."""
    seas = {r for r in BOARD.neighbours["indonesia"] if BOARD.regions[r].is_sea}
    assert seas == {"chinasea", "indianocean", "tasmansea"}


def test_rail_links_between_own_bordering_home_provinces():
    """R-MOVE-5: rail runs only along borders between a nation's own home provinces."""
    for nation, links in BOARD.tables.rail_links.items():
        homes = set(BOARD.homes[nation])
        for a, b in links:
            assert a in homes and b in homes, (nation, a, b)
            assert b in BOARD.neighbours[a], (nation, a, b)
    # every land border between two home provinces of one nation is a rail link
    for nation in BOARD.nation_ids:
        homes = BOARD.homes[nation]
        for a in homes:
            expected = {b for b in homes if b in BOARD.neighbours[a]}
            assert BOARD.rail[nation][a] == expected, (nation, a)
    assert BOARD.rail["europe"]["london"] == {"paris"}


def test_aliases_unique_after_normalising():
    """Every id, name and alias of a region or nation names one entry only once normalised."""
    owner: dict[str, str] = {}
    for entry_id, texts in [(n.id, (n.id, n.name, *n.aliases)) for n in BOARD.nations] + [
        (r.id, (r.id, r.name, *r.aliases)) for r in BOARD.regions.values()
    ]:
        for text in texts:
            key = normalise_name(text)
            assert key, (entry_id, text)
            assert owner.setdefault(key, entry_id) == entry_id, (text, entry_id, owner[key])


def test_aliases_are_not_redundant():
    """No alias merely repeats its own id, name or another alias of the same entry once normalised."""
    for entry in _MAP["nations"] + _MAP["regions"]:
        seen = {normalise_name(entry["id"]), normalise_name(entry["name"])}
        for alias in entry["aliases"]:
            key = normalise_name(alias)
            assert key not in seen, (entry["id"], alias)
            seen.add(key)


def test_common_names_resolve():
    """Names players are likely to type resolve to the right region or nation."""
    lookup = _alias_lookup(BOARD)
    expected = {
        "Bombay": "mumbai",
        "Peking": "beijing",
        "Calcutta": "kolkata",
        "Madras": "chennai",
        "USA": "usa",
        "U.S.A.": "usa",
        "US": "usa",
        "America": "usa",
        "Frisco": "sanfrancisco",
        "San Francisco": "sanfrancisco",
        "NY": "newyork",
        "new-york": "newyork",
        "Rio": "riodejaneiro",
        "rio de janeiro": "riodejaneiro",
        "N. Atlantic": "northatlantic",
        "Med": "mediterraneansea",
        "Middle East": "neareast",
        "Mid-East": "neareast",
        "Persia": "iran",
        "Delhi": "newdelhi",
        "Québec": "quebec",
        "Quebec": "quebec",
        "Brasil": "brazil",
        "Brasília": "brasilia",
        "Türkiye": "turkey",
        "Gulf of Guinea": "gulfofguinea",
        "Guinea": "guinea",
    }
    for text, region_or_nation in expected.items():
        assert lookup.get(normalise_name(text)) == region_or_nation, text


def test_normalise_name():
    """Normalising lowercases and drops spaces, hyphens, dots and apostrophes."""
    assert normalise_name("  N. Atlantic ") == "natlantic"
    assert normalise_name("Rio-de-Janeiro") == "riodejaneiro"
    assert normalise_name("St. Mary's") == normalise_name("st marys") == "stmarys"
    assert normalise_name("St. Mary\u2019s") == "stmarys"


def test_map_file_layout():
    """The map file is written with indent=1 so that diffs stay readable."""
    text = DEFAULT_MAP.read_text(encoding="utf-8")
    data = json.loads(text)
    assert text.strip() == json.dumps(data, indent=1, ensure_ascii=False)


# --------------------------------------------------------------------------- refusals


def test_refuses_unknown_region_in_adjacency():
    """An adjacency naming a region that does not exist is refused (not a KeyError)."""
    data = copy.deepcopy(_MAP)
    data["adjacency"][0]["b"] = "atlantis"
    a = data["adjacency"][0]["a"]
    assert _refusal(data) == f"adjacency {a!r}-'atlantis': unknown region 'atlantis'"


def test_refuses_duplicate_adjacency():
    """Each border is listed once, in either direction."""
    data = copy.deepcopy(_MAP)
    first = data["adjacency"][0]
    data["adjacency"].append(dict(first, a=first["b"], b=first["a"]))
    message = _refusal(data)
    assert message.startswith(f"adjacency {first['b']!r}-{first['a']!r}: listed twice")


def test_refuses_self_adjacency():
    """A region cannot border itself."""
    data = copy.deepcopy(_MAP)
    data["adjacency"].append({"a": "peru", "b": "peru", "kind": "land", "canal": None, "strait": False})
    assert _refusal(data) == "adjacency 'peru'-'peru': a region cannot border itself"


def test_refuses_duplicate_region_id():
    """Region ids are unique."""
    data = copy.deepcopy(_MAP)
    data["regions"].append(copy.deepcopy(_region(data, "peru")))
    assert _refusal(data) == "regions: region id 'peru' appears twice"


def test_refuses_shipyard_without_port():
    """R-MOVE-1: a shipyard city needs a port sea."""
    data = copy.deepcopy(_MAP)
    _region(data, "newyork")["port"] = None
    assert _refusal(data) == "region 'newyork': shipyard city needs a port on a known sea, found None"


def test_refuses_port_on_land():
    """A port must be a sea region."""
    data = copy.deepcopy(_MAP)
    _region(data, "newyork")["port"] = "quebec"
    assert _refusal(data) == "region 'newyork': shipyard city needs a port on a known sea, found 'quebec'"


def test_refuses_port_sea_not_bordering():
    """A shipyard's port sea must border its province."""
    data = copy.deepcopy(_MAP)
    _region(data, "newyork")["port"] = "southpacific"
    assert _refusal(data) == "region 'newyork': its port sea 'southpacific' does not border it"


def test_refuses_rail_link_between_non_bordering_provinces():
    """R-MOVE-5: rail runs along borders; London and Rome do not border each other."""
    data = copy.deepcopy(_MAP)
    data["tables"]["rail_links"]["europe"].append(["london", "rome"])
    assert _refusal(data) == "tables.rail_links.europe: 'london' and 'rome' do not border each other"


def test_refuses_rail_link_outside_own_homes():
    """R-MOVE-5: rail runs only between a nation's own home provinces."""
    data = copy.deepcopy(_MAP)
    data["tables"]["rail_links"]["europe"].append(["paris", "northafrica"])
    assert _refusal(data) == "tables.rail_links.europe: 'paris'-'northafrica' is not between its home provinces"


def test_refuses_wrong_city_count():
    """R-PIECE-1: 12 armaments cities; turning one into a shipyard breaks the count (and the nation's factories)."""
    data = copy.deepcopy(_MAP)
    region = _region(data, "novosibirsk")
    region["city"] = "shipyard"
    region["port"] = "northatlantic"
    message = _refusal(data)
    assert "novosibirsk" in message or "R-PIECE-1" in message


def test_refuses_missing_region_key():
    """A region without a name is refused naming the region and the key."""
    data = copy.deepcopy(_MAP)
    del _region(data, "peru")["name"]
    assert _refusal(data) == "region 'peru': missing key 'name'"


def test_refuses_missing_adjacency_key():
    """An adjacency without its second end is refused naming its place in the list."""
    data = copy.deepcopy(_MAP)
    del data["adjacency"][5]["b"]
    a = data["adjacency"][5]["a"]
    assert _refusal(data) == f"adjacency[5] ({a!r}-None): missing key 'b'"


def test_refuses_missing_section_and_table():
    """A missing top-level section or table names it."""
    data = copy.deepcopy(_MAP)
    del data["adjacency"]
    assert _refusal(data) == "map: missing key 'adjacency'"
    data = copy.deepcopy(_MAP)
    del data["tables"]["bonds"]
    assert _refusal(data) == "tables: missing key 'bonds'"
    data = copy.deepcopy(_MAP)
    del data["nations"][2]["turn_order"]
    assert _refusal(data) == "nation 'india': missing key 'turn_order'"


def test_refuses_unknown_region_kind():
    """A region kind must be sea, land or home."""
    data = copy.deepcopy(_MAP)
    _region(data, "peru")["kind"] = "mountain"
    assert _refusal(data) == "region 'peru' kind: 'mountain' is not one of sea, land, home"


def test_refuses_duplicate_alias():
    """An alias used by two regions is refused naming both."""
    data = copy.deepcopy(_MAP)
    _region(data, "kolkata")["aliases"].append("bom-bay")
    assert _refusal(data) == "region 'kolkata': alias 'bom-bay' is the same name as region 'mumbai' alias 'Bombay'"


def test_refuses_alias_equal_to_another_name_or_id():
    """An alias may not be another entry's name or id, nations included."""
    data = copy.deepcopy(_MAP)
    _region(data, "london")["aliases"].append("Paris")
    assert _refusal(data) == "region 'london': alias 'Paris' is the same name as region 'paris' id 'paris'"
    data = copy.deepcopy(_MAP)
    _region(data, "chicago")["aliases"].append("New-York")
    assert _refusal(data) == "region 'chicago': alias 'New-York' is the same name as region 'newyork' id 'newyork'"
    data = copy.deepcopy(_MAP)
    _region(data, "moscow")["aliases"].append("Russia")
    assert _refusal(data) == "region 'moscow': alias 'Russia' is the same name as nation 'russia' id 'russia'"


def test_refuses_alias_shared_by_nation_and_region():
    """Nation and region aliases share one name space."""
    data = copy.deepcopy(_MAP)
    _region(data, "newyork")["aliases"].append("U.S.")
    assert _refusal(data) == "region 'newyork': alias 'U.S.' is the same name as nation 'usa' alias 'US'"


def test_refuses_region_name_equal_to_another():
    """Two entries cannot share a name once normalised."""
    data = copy.deepcopy(_MAP)
    _region(data, "korea")["name"] = "Japan"
    assert _refusal(data) == "region 'japan': id 'japan' is the same name as region 'korea' name 'Japan'"


def test_refuses_bad_aliases():
    """Aliases are a list of non-empty strings."""
    data = copy.deepcopy(_MAP)
    _region(data, "newyork")["aliases"] = "NY"
    assert _refusal(data) == "region 'newyork': aliases must be a list of strings, found 'NY'"
    data = copy.deepcopy(_MAP)
    _region(data, "newyork")["aliases"].append(" . ")
    assert _refusal(data) == "region 'newyork': alias ' . ' is empty once spaces and punctuation are removed"


def test_load_board_names_the_file(tmp_path):
    """A map file that fails validation is refused naming the file and the fault."""
    data = copy.deepcopy(_MAP)
    _region(data, "newyork")["port"] = "southpacific"
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    with pytest.raises(BoardError) as info:
        load_board(path)
    assert str(info.value) == f"{path}: region 'newyork': its port sea 'southpacific' does not border it"


def test_load_board_refuses_invalid_json(tmp_path):
    """A file that is not JSON is refused with the line and column of the error."""
    path = tmp_path / "broken.json"
    path.write_text('{\n "nations": [\n  {"id": "russia",,}\n ]\n}\n', encoding="utf-8")
    with pytest.raises(BoardError) as info:
        load_board(path)
    message = str(info.value)
    assert message.startswith(f"{path}: not valid JSON: line 3 column 19: ")


def test_load_board_refuses_missing_file(tmp_path):
    """A map path that does not exist is refused naming the file."""
    path = tmp_path / "nowhere.json"
    with pytest.raises(BoardError) as info:
        load_board(path)
    assert str(info.value) == f"{path}: map file not found"


def test_load_board_round_trip(tmp_path):
    """The shipped map written elsewhere loads the same board."""
    path = tmp_path / "copy.json"
    path.write_text(json.dumps(_MAP, indent=1, ensure_ascii=False), encoding="utf-8")
    board = load_board(path)
    assert board.regions == BOARD.regions
    assert board.edges == BOARD.edges
