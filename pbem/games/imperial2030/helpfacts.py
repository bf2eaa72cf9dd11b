"""What Imperial's HELP quotes from the board: each order's group, examples and see-also, the board's numbers.

The words of HELP are in ``templates/imperial2030/_help_orders.j2`` (one
macro an order) and ``help.j2`` (the pages); this module holds only what
they cannot know by themselves, so that a wording change or a translation
touches no Python and the facts cannot drift from the game:

- the examples, ready to copy: order language, not prose. They name real
  regions and nations of the board (its first nation in turn order, its
  neighbours, its canals), so that they read like a game and every one of
  them parses in that nation's first turn (tests check it); nothing here
  knows a region by heart;
- the numbers the texts quote (the rondel's free spaces, the import's
  price...) from the board's tables, so that HELP says what the engine plays;
- which group each order belongs to and which orders it points to.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from engine.imperial2030.board import Board, CityKind
from pbem.games.imperial2030.orders.format import canal_english
from pbem.games.imperial2030.orders.keywords import SPEC_BY_KEYWORD, Keyword
from pbem.games.imperial2030.orders.names import normalise

__all__ = ["Group", "HelpFacts", "OrderHelp", "help_facts", "orders_help"]


class Group(StrEnum):
    """The groups of docs/orders.md; the template names them (``group_name``)."""

    TURN = "turn"  # your nation's turn
    MANEUVER = "maneuver"
    ANSWERS = "answers"  # out of turn
    ANYTIME = "anytime"


@dataclass(frozen=True)
class OrderHelp:
    """What HELP knows of one order besides its words: its group, examples, aliases and see-also."""

    keyword: Keyword  # the template's macro is named ``keyword.name``
    group: Group
    examples: tuple[str, ...]  # ready to copy, the first is the list's example
    see: tuple[Keyword, ...] = ()
    aliases: tuple[str, ...] = ()  # other spellings the parser reads, as the keyword spec has them


@dataclass(frozen=True)
class HelpFacts:
    """The board's numbers and names the texts quote (display names)."""

    max_spaces: int  # the rondel: how far a marker may move
    free_spaces: int  # ... of which free
    factory_cost: int
    import_max_units: int
    import_cost_per_unit: int
    nation: str  # the first nation in turn order
    army_home: str  # one of its home provinces
    prefix: str  # the first letters of ``army_home`` that name it in an IMPORT
    spellings: tuple[str, ...]  # one name written three ways that all read the same
    alias: tuple[str, str] | None  # (another name, the region's name) when the board has one
    mail_import: str  # the IMPORT order of the example mail


@dataclass(frozen=True)
class _Names:
    """Real names of the board that the examples use (display names)."""

    nation: str  # the first nation in turn order
    other: str  # a nation bordering it
    third: str  # a third nation, for bonds
    build_city: str  # a home city of ``nation`` without a starting factory
    factories: tuple[str, ...]  # provinces of ``nation`` with starting factories
    army_home: str  # a home province of ``nation`` where armies may be imported
    fleet_home: str  # a port city of ``nation``
    port_sea: str  # the sea of that port
    next_sea: str  # a sea next to it
    sea_nation: str  # a nation with a home on ``next_sea``
    land_from: str  # a home province of ``nation``
    land_to: str  # a neutral land next to it
    hostile_from: str  # a home province of ``nation`` next to a home province of ``other``
    hostile_to: str
    other_factory: str  # a factory province of ``other``
    via_from: str  # an army crossing by sea (through a canal where the board has one)
    via_to: str
    via_seas: tuple[str, ...]
    via_nation: str  # the nation of ``via_from``
    canal: str  # a canal's name ("Suez"), or "" without canals
    bond_values: tuple[int, ...]


def _names(board: Board) -> _Names:
    name = board.name
    ids = board.nation_ids
    nation = ids[0]
    homes = board.homes[nation]
    regions = board.regions
    cities = [h for h in homes if regions[h].city is not None]
    factories = tuple(h for h in homes if regions[h].starting_factory) or tuple(cities[:1]) or homes[:1]
    build = next((h for h in cities if not regions[h].starting_factory), cities[0] if cities else homes[0])
    shipyards = [h for h in cities if regions[h].city is CityKind.SHIPYARD and regions[h].port]
    fleet_home = next((h for h in shipyards if regions[h].starting_factory), shipyards[0] if shipyards else "")
    port_sea = regions[fleet_home].port or "" if fleet_home else ""
    next_sea = next(iter(board.seas_of.get(port_sea, ())), port_sea)
    sea_nation = next((regions[r].nation for r in board.lands_of.get(next_sea, ())
                       if regions[r].is_home and regions[r].nation not in (None, nation)), None)
    armaments = [h for h in homes if regions[h].city is CityKind.ARMAMENTS]
    army_home = next((h for h in armaments if regions[h].starting_factory), homes[0])
    land_to = next((r for r in board.lands_of[army_home] if not regions[r].is_home), board.lands_of[army_home][0])
    hostile_from, hostile_to, other = homes[0], homes[0], ids[1 % len(ids)]
    for home in homes:
        found = [r for r in board.lands_of[home] if regions[r].is_home and regions[r].nation != nation]
        if found:
            hostile_from, hostile_to, other = home, found[0], regions[found[0]].nation or other
            break
    other_factory = next((h for h in board.homes[other] if regions[h].starting_factory), board.homes[other][0])
    third = next(n for n in ids if n not in (nation, other)) if len(ids) > 2 else other
    via = _via(board)
    return _Names(
        nation=name(nation), other=name(other), third=name(third), build_city=name(build),
        factories=tuple(name(f) for f in factories), army_home=name(army_home),
        fleet_home=name(fleet_home) if fleet_home else name(homes[0]), port_sea=name(port_sea) if port_sea else "",
        next_sea=name(next_sea) if next_sea else "", sea_nation=name(sea_nation or other),
        land_from=name(army_home), land_to=name(land_to), hostile_from=name(hostile_from),
        hostile_to=name(hostile_to), other_factory=name(other_factory),
        via_from=name(via[0]), via_to=name(via[1]), via_seas=tuple(name(s) for s in via[2]),
        via_nation=name(regions[via[0]].nation or nation), canal=canal_english(via[3]) if via[3] else "",
        bond_values=tuple(t.value for t in board.tables.bonds),
    )


def _via(board: Board) -> tuple[str, str, tuple[str, ...], str]:
    """An army move by sea: from a home province on one sea to another nation's home on the next.

    Through a canal where the board has one (the example of ORDERS.md:
    Paris to Mumbai through Suez), else over any two neighbouring seas.
    """
    regions = board.regions
    pairs = [(c.seas, c.id) for c in board.canals.values()]
    pairs += [((a, b), "") for a in board.regions if regions[a].is_sea for b in board.seas_of[a]]
    for (first, second), canal in pairs:
        for origin in board.lands_of.get(first, ()):
            if not regions[origin].is_home:
                continue
            for dest in board.lands_of.get(second, ()):
                if regions[dest].is_home and regions[dest].nation != regions[origin].nation:
                    return origin, dest, (first, second), canal
    home = next(iter(board.homes.values()))[0]
    return home, home, (), ""


def _order(keyword: Keyword, group: Group, examples: tuple[str, ...], see: tuple[Keyword, ...] = ()) -> OrderHelp:
    return OrderHelp(keyword, group, examples, see, SPEC_BY_KEYWORD[keyword].aliases)


def _orders(board: Board) -> dict[Keyword, OrderHelp]:  # one entry per order, in the order of the list
    n = _names(board)
    values = n.bond_values
    low, mid, high = values[min(1, len(values) - 1)], values[min(2, len(values) - 1)], values[min(3, len(values) - 1)]
    factories = ", ".join(n.factories)
    via = ", ".join(n.via_seas)
    canal_pass = f"{n.via_nation} {n.canal}".rstrip()
    k = Keyword
    entries = [
        _order(k.RONDEL, Group.TURN, ("RONDEL taxation", "RONDEL production far",
                                      f"RONDEL import\nIMPORT army {n.army_home}"),
               (k.BUILD, k.PRODUCE, k.IMPORT, k.FLEET)),
        _order(k.BUILD, Group.TURN, (f"BUILD {n.build_city}", f"RONDEL factory\nBUILD {n.build_city}", "PASS"),
               (k.RONDEL, k.PRODUCE)),
        _order(k.PRODUCE, Group.TURN, ("PRODUCE", f"PRODUCE {factories}", "PRODUCE nothing"), (k.RONDEL,)),
        _order(k.IMPORT, Group.TURN, (f"IMPORT 2 army {n.army_home}, fleet {n.fleet_home}",
                                      f"IMPORT army {n.army_home}, army {n.army_home}, fleet {n.fleet_home}",
                                      "IMPORT"), (k.RONDEL,)),
        _order(k.FLEET, Group.MANEUVER, (f"FLEET {n.fleet_home} TO {n.port_sea}",
                                         f"FLEET {n.port_sea} TO {n.next_sea} ATTACK {n.sea_nation}",
                                         f"fleet {n.port_sea.lower()} -> {n.next_sea.lower()}"),
               (k.ARMY, k.DONE, k.ALLOW)),
        _order(k.ARMY, Group.MANEUVER, (f"ARMY {n.land_from} TO {n.land_to}",
                                        f"ARMY {n.hostile_from} TO {n.hostile_to} HOSTILE",
                                        f"ARMY {n.via_from} TO {n.via_to} FRIENDLY VIA {via}" if via else
                                        f"ARMY {n.hostile_from} TO {n.hostile_to} FRIENDLY ATTACK {n.other} army"),
               (k.FLEET, k.ATTACK, k.DONE)),
        _order(k.ATTACK, Group.MANEUVER, (f"ATTACK {n.other} IN {n.hostile_to}",
                                          f"ATTACK {n.other} army IN {n.hostile_to}"), (k.ARMY, k.FLEET)),
        _order(k.DESTROY, Group.MANEUVER, (f"DESTROY FACTORY {n.other_factory}",
                                           f"destroy {n.other_factory.lower()}"), (k.ARMY,)),
        _order(k.DONE, Group.MANEUVER, ("DONE", f"FLEET {n.fleet_home} TO {n.port_sea}\nDONE"), (k.FLEET, k.ARMY)),
        _order(k.BUY, Group.ANSWERS, (f"BUY {n.other} {mid}", f"BUY {high}", f"invest {n.third.lower()} {low}"),
               (k.UPGRADE, k.PASS)),
        _order(k.UPGRADE, Group.ANSWERS, (f"UPGRADE {n.nation} {low} TO {high}",
                                          f"upgrade {n.nation.lower()} {low} {high}"), (k.BUY,)),
        _order(k.PASS, Group.ANSWERS, ("PASS",), (k.NO_FIGHT, k.ALLOW, k.DONE)),
        _order(k.FIGHT, Group.ANSWERS, ("FIGHT", f"FIGHT {n.other} fleet", "NO FIGHT"), (k.NO_FIGHT, k.STANDING)),
        _order(k.NO_FIGHT, Group.ANSWERS, ("NO FIGHT", "don't fight", f"STANDING NO FIGHT {n.other}"),
               (k.FIGHT, k.STANDING)),
        _order(k.ALLOW, Group.ANSWERS, ("ALLOW", f"STANDING ALLOW {canal_pass}"), (k.DENY, k.STANDING)),
        _order(k.DENY, Group.ANSWERS, ("DENY", f"STANDING DENY {canal_pass}"), (k.ALLOW, k.STANDING)),
        _order(k.FORCE, Group.ANSWERS, ("FORCE", "NO FORCE", "STANDING FORCE"), (k.NO_FORCE, k.STANDING)),
        _order(k.NO_FORCE, Group.ANSWERS, ("NO FORCE", "don't force", f"STANDING NO FORCE {n.nation}"),
               (k.FORCE, k.STANDING)),
        _order(k.DONATE, Group.ANYTIME, (f"DONATE 3 TO {n.nation}", f"donate 1 to {n.nation.lower()}")),
        _order(k.STANDING, Group.ANYTIME, (f"STANDING ALLOW {canal_pass}", f"STANDING NO FIGHT {n.other}",
                                           "STANDING FORCE", "STANDING CLEAR"), (k.ALLOW, k.FIGHT, k.FORCE)),
        _order(k.HELP, Group.ANYTIME, ("HELP", "HELP ARMY", "help rondel")),
        _order(k.STATUS, Group.ANYTIME, ("STATUS",), (k.OPTIONS, k.BOARD)),
        _order(k.BOARD, Group.ANYTIME, ("BOARD",)),
        _order(k.OPTIONS, Group.ANYTIME, ("OPTIONS",), (k.STATUS,)),
        _order(k.HISTORY, Group.ANYTIME, ("HISTORY", "HISTORY 25")),
    ]
    return {e.keyword: e for e in entries}


@lru_cache(maxsize=8)
def orders_help(board: Board) -> dict[Keyword, OrderHelp]:
    """Every order's entry, in the order HELP lists them (remembered: a board's examples never change)."""
    return _orders(board)


@lru_cache(maxsize=8)
def help_facts(board: Board) -> HelpFacts:
    n = _names(board)
    t = board.tables
    regions = [r for r in board.regions.values() if r.aliases]
    return HelpFacts(
        max_spaces=t.max_spaces, free_spaces=t.free_spaces, factory_cost=t.factory_cost,
        import_max_units=t.import_max_units, import_cost_per_unit=t.import_cost_per_unit,
        nation=n.nation, army_home=n.army_home, prefix=n.army_home[:3].lower(),
        spellings=(n.via_to, normalise(n.via_to), n.via_to.upper()),
        alias=(regions[0].aliases[0], regions[0].name) if regions else None,
        mail_import=f"IMPORT army {n.army_home}, fleet {n.fleet_home}",
    )
