"""HELP: the order language explained to players, with examples taken from the board.

``help_text(None)`` lists every order of the language (docs/orders.md), grouped as the
document groups them (the nation's turn, the maneuver, answers out of turn,
at any time), each with its meaning in one line and an example ready to copy.
``help_text("army")`` explains one order in full: its form, its meaning,
notes and two or three examples. A topic is read like the first word of an
order (any keyword, alias or unique prefix: ``HELP arm``, ``HELP invest``,
``HELP no fight``); a few other words lead to the order they belong to
(``HOSTILE`` and ``VIA`` to ARMY, ``FAR`` to RONDEL, a canal to ALLOW), and
``HELP maneuver``, ``HELP names`` and ``HELP messages`` explain a group or
the reading of a mail. An unknown topic is answered with the topics there are
and the closest ones ("did you mean").

Examples name real regions and nations of the board (its first nation in
turn order, its neighbours, its canals), so that they read like a game and
every one of them parses; nothing here knows a region by heart. The text is
pure ASCII and no line is wider than 78 columns.
"""
from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from engine.imperial2030.board import Board, CityKind
from engine.imperial2030.mapfile import default_board
from pbem.games.imperial2030.orders.errors import OrderSyntaxError
from pbem.games.imperial2030.orders.format import canal_name
from pbem.games.imperial2030.orders.keywords import (
    SPEC_BY_KEYWORD,
    SPECS,
    Keyword,
    read_keyword,
)
from pbem.games.imperial2030.orders.names import normalise
from pbem.render.text import MAX_WIDTH, finish, wrap

__all__ = ["Group", "OrderHelp", "help_text", "order_help", "resolve_topic", "topics"]

FORM_COLUMN = 35  # where the meaning starts in the list of all orders (2 + widest form + 2)


class Group(StrEnum):
    TURN = "your nation's turn"
    MANEUVER = "the maneuver"
    ANSWERS = "answers out of turn"
    ANYTIME = "at any time"


GROUP_INTRO: dict[Group, str] = {
    Group.TURN: "The government of the nation whose turn it is chooses a rondel space, then details its action.",
    Group.MANEUVER: "After RONDEL maneuver: one order per unit, fleets first, then armies; DONE (or the end of the "
                    "message) ends the maneuver.",
    Group.ANSWERS: "Asked of a player while another nation plays: investments, battles, canals, the Swiss bank's "
                   "force-stop.",
    Group.ANYTIME: "Accepted whatever the game waits for; the reports change nothing.",
}

# Topic words that are not keywords, and the order (or page) they lead to.
MESSAGES = "messages"
NAMES = "names"
_GROUP_WORDS: dict[str, Group] = {
    "turn": Group.TURN, "nationsturn": Group.TURN, "yourturn": Group.TURN,
    "maneuver": Group.MANEUVER, "manoeuvre": Group.MANEUVER, "maneuvre": Group.MANEUVER,
    "manoeuver": Group.MANEUVER, "movement": Group.MANEUVER, "move": Group.MANEUVER,
    "answers": Group.ANSWERS, "answer": Group.ANSWERS, "outofturn": Group.ANSWERS,
    "anytime": Group.ANYTIME, "reports": Group.ANYTIME, "queries": Group.ANYTIME,
}
_WORD_TOPICS: dict[str, Keyword] = {
    "hostile": Keyword.ARMY, "friendly": Keyword.ARMY, "via": Keyword.ARMY, "convoy": Keyword.ARMY,
    "armies": Keyword.ARMY, "fleets": Keyword.FLEET, "far": Keyword.RONDEL, "near": Keyword.RONDEL,
    "space": Keyword.RONDEL, "spaces": Keyword.RONDEL, "factory": Keyword.BUILD, "production": Keyword.PRODUCE,
    "taxation": Keyword.RONDEL, "tax": Keyword.RONDEL, "investor": Keyword.BUY, "bond": Keyword.BUY,
    "bonds": Keyword.BUY, "swissbank": Keyword.FORCE, "canal": Keyword.ALLOW, "canals": Keyword.ALLOW,
    "battle": Keyword.FIGHT, "standingorders": Keyword.STANDING, "default": Keyword.STANDING,
}
_PAGE_WORDS: dict[str, str] = {
    "messages": MESSAGES, "message": MESSAGES, "mail": MESSAGES, "email": MESSAGES, "orders": MESSAGES,
    "signature": MESSAGES, "comments": MESSAGES,
    "names": NAMES, "name": NAMES, "abbreviations": NAMES, "prefix": NAMES, "aliases": NAMES,
}


@dataclass(frozen=True)
class OrderHelp:
    """What HELP says about one order."""

    keyword: Keyword
    group: Group
    form: str  # short form for the list of all orders
    meaning: str  # one line
    full: str  # the full form, one line per way of writing it
    details: tuple[str, ...]  # paragraphs
    examples: tuple[str, ...]  # ready to copy, the first is the list's example
    see: tuple[Keyword, ...] = ()


# --- examples from the board -----------------------------------------------------------------


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
        via_nation=name(regions[via[0]].nation or nation), canal=canal_name(via[3]) if via[3] else "",
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


# --- the orders --------------------------------------------------------------------------------


def _orders(board: Board) -> dict[Keyword, OrderHelp]:  # one entry per order
    n = _names(board)
    t = board.tables
    values = n.bond_values
    low, mid, high = values[min(1, len(values) - 1)], values[min(2, len(values) - 1)], values[min(3, len(values) - 1)]
    factories = ", ".join(n.factories)
    via = ", ".join(n.via_seas)
    entries = [
        OrderHelp(
            Keyword.RONDEL, Group.TURN, "RONDEL <space>", "Move the marker, take the space's action.",
            "RONDEL <space>",
            (
                "Moves the marker of the nation whose turn it is clockwise to that space and carries out the "
                "space's action. Spaces: investor, import, production, maneuver, taxation, factory.",
                "Production and Maneuver come twice on the rondel: 'production' and 'maneuver' mean the nearer one "
                "clockwise, 'production far' and 'maneuver far' the farther one; the ids production_1, "
                "production_2, maneuver_1 and maneuver_2 name one space exactly.",
                f"The marker moves 1 to {t.max_spaces} spaces; {t.free_spaces} are free, each further space costs "
                "the government 1 + the nation's power multiplier from its own cash. The cost is charged "
                "automatically and the reply says what was paid. On its first turn a nation may start on any "
                "space, free.",
                "Where the space needs details (Factory, Production, Import, Maneuver), give them on the next "
                "lines of the same message.",
            ),
            ("RONDEL taxation", "RONDEL production far", f"RONDEL import\nIMPORT army {n.army_home}"),
            (Keyword.BUILD, Keyword.PRODUCE, Keyword.IMPORT, Keyword.FLEET),
        ),
        OrderHelp(
            Keyword.BUILD, Group.TURN, "BUILD <city>", "Factory: build a factory in a home city.",
            "BUILD <city>",
            (
                f"After RONDEL factory: builds a factory in a home city of the nation that has none yet, for "
                f"{t.factory_cost} from the nation's treasury. The kind of factory follows from the city: an "
                "armaments factory makes armies, a shipyard makes fleets.",
                "PASS builds nothing.",
            ),
            (f"BUILD {n.build_city}", f"RONDEL factory\nBUILD {n.build_city}", "PASS"),
            (Keyword.RONDEL, Keyword.PRODUCE),
        ),
        OrderHelp(
            Keyword.PRODUCE, Group.TURN, "PRODUCE [<province>, ...]", "Production: all factories or those named.",
            "PRODUCE\nPRODUCE <province>, <province>, ...",
            (
                "After RONDEL production: each factory of the nation that is free of hostile armies produces one "
                "unit, free: an armaments factory an army in its province, a shipyard a fleet in its port.",
                "PRODUCE alone uses every factory; name provinces to produce in those only; PRODUCE nothing (or "
                "PASS) produces nothing.",
            ),
            ("PRODUCE", f"PRODUCE {factories}", "PRODUCE nothing"),
            (Keyword.RONDEL,),
        ),
        OrderHelp(
            Keyword.IMPORT, Group.TURN, "IMPORT [<unit> <province>, ...]", "Import: buy up to "
            f"{t.import_max_units} units.",
            "IMPORT\nIMPORT <army|fleet> <province>, ...",
            (
                f"After RONDEL import: buys up to {t.import_max_units} units at {t.import_cost_per_unit} each from "
                "the nation's treasury: armies into any home province, fleets into port cities; several may go "
                "into one province. A number repeats a unit: '2 army X' is 'army X, army X'.",
                "IMPORT alone (or PASS) imports nothing.",
            ),
            (f"IMPORT 2 army {n.army_home}, fleet {n.fleet_home}",
             f"IMPORT army {n.army_home}, army {n.army_home}, fleet {n.fleet_home}", "IMPORT"),
            (Keyword.RONDEL,),
        ),
        OrderHelp(
            Keyword.FLEET, Group.MANEUVER, "FLEET <from> TO <to> [...]", "Maneuver: move one fleet.",
            "FLEET <from> TO <to> [ATTACK <nation>]",
            (
                "Moves one fleet of the nation to a neighbouring sea (out of its port city to the port's sea). "
                "Fleets move before armies: once an army has moved, fleets stay.",
                "ATTACK <nation> fights a fleet of that nation where the fleet arrives (each side loses one). "
                "Without ATTACK, the government of foreign units there may be asked whether it fights; the "
                "rest of the message then waits for its answer.",
                "Through a canal, the nation whose flag controls it may be asked to allow the passage; the rest "
                "of the message then waits for the answer and goes on by itself once it is given.",
                "'->' may stand for TO.",
            ),
            (f"FLEET {n.fleet_home} TO {n.port_sea}", f"FLEET {n.port_sea} TO {n.next_sea} ATTACK {n.sea_nation}",
             f"fleet {n.port_sea.lower()} -> {n.next_sea.lower()}"),
            (Keyword.ARMY, Keyword.DONE, Keyword.ALLOW),
        ),
        OrderHelp(
            Keyword.ARMY, Group.MANEUVER, "ARMY <from> TO <to> [...]", "Maneuver: move one army (land, rail, sea).",
            "ARMY <from> TO <to> [HOSTILE|FRIENDLY] [ATTACK <nation> [ARMY|FLEET]] [VIA <sea>, ...]",
            (
                "Moves one army by land, by rail through its own home provinces and by sea on its own fleets: "
                "the game finds the route and the fleets that carry it. VIA <sea>, <sea> forces the route over "
                "those seas.",
                "HOSTILE or FRIENDLY is required when the army enters another nation's home province: a hostile "
                "army keeps the factory there from producing (three of them may destroy it); a friendly one "
                "does neither.",
                "ATTACK <nation> fights a unit of that nation where the army arrives; add ARMY or FLEET when it "
                "has both there.",
                "When another nation's units stand where the army arrives, their government may be asked whether "
                "it fights; the rest of the message waits for the answer.",
            ),
            (f"ARMY {n.land_from} TO {n.land_to}", f"ARMY {n.hostile_from} TO {n.hostile_to} HOSTILE",
             f"ARMY {n.via_from} TO {n.via_to} FRIENDLY VIA {via}" if via else
             f"ARMY {n.hostile_from} TO {n.hostile_to} FRIENDLY ATTACK {n.other} army"),
            (Keyword.FLEET, Keyword.ATTACK, Keyword.DONE),
        ),
        OrderHelp(
            Keyword.ATTACK, Group.MANEUVER, "ATTACK <nation> IN <region>", "Maneuver: attack where a unit stands.",
            "ATTACK <nation> [ARMY|FLEET] IN <region>",
            (
                "A unit of the nation that has not moved this maneuver attacks a unit of that nation in its own "
                "region; each side loses one unit. Add ARMY or FLEET to say which unit is attacked.",
            ),
            (f"ATTACK {n.other} IN {n.hostile_to}", f"ATTACK {n.other} army IN {n.hostile_to}"),
            (Keyword.ARMY, Keyword.FLEET),
        ),
        OrderHelp(
            Keyword.DESTROY, Group.MANEUVER, "DESTROY FACTORY <province>", "Maneuver: three armies raze a factory.",
            "DESTROY FACTORY <province>",
            (
                "Three armies of the nation in another nation's home province with a factory destroy it; the "
                "three armies leave the board with it.",
            ),
            (f"DESTROY FACTORY {n.other_factory}", f"destroy {n.other_factory.lower()}"),
            (Keyword.ARMY,),
        ),
        OrderHelp(
            Keyword.DONE, Group.MANEUVER, "DONE", "Maneuver: end it; flags are placed.", "DONE",
            (
                "Ends the maneuver; flags are placed where the nation's units now stand alone.",
                "The end of a message with maneuver orders also ends the maneuver (as if DONE followed), unless a "
                "question to another player is still open: then it ends once that is answered. A message that "
                "only chooses RONDEL maneuver, or only asks STATUS or OPTIONS, ends nothing.",
                "PASS in one's own maneuver means DONE.",
            ),
            ("DONE", f"FLEET {n.fleet_home} TO {n.port_sea}\nDONE"),
            (Keyword.FLEET, Keyword.ARMY),
        ),
        OrderHelp(
            Keyword.BUY, Group.ANSWERS, "BUY <nation> <value>", "Invest: buy a bond.", "BUY <nation> <value>",
            (
                "In an investment round (as the holder of the investor card, or as a Swiss bank) buys that bond "
                "of the nation, paying its value into the nation's treasury. In a round for one nation the "
                "nation may be left out.",
                "Governments are settled after the round: whoever then holds the most bond value in a nation, "
                "strictly more than its government, takes it over. OPTIONS shows what each bond would do.",
                "PASS invests nothing.",
            ),
            (f"BUY {n.other} {mid}", f"BUY {high}", f"invest {n.third.lower()} {low}"),
            (Keyword.UPGRADE, Keyword.PASS),
        ),
        OrderHelp(
            Keyword.UPGRADE, Group.ANSWERS, "UPGRADE <nation> <old> TO <new>", "Invest: trade a bond for a higher.",
            "UPGRADE <nation> <old value> TO <new value>",
            (
                "Instead of buying, hands back one of your bonds of the nation and takes a higher one of the same "
                "nation, paying the difference into its treasury.",
            ),
            (f"UPGRADE {n.nation} {low} TO {high}", f"upgrade {n.nation.lower()} {low} {high}"),
            (Keyword.BUY,),
        ),
        OrderHelp(
            Keyword.PASS, Group.ANSWERS, "PASS", "Decline the open decision.", "PASS",
            (
                "The passive answer to whatever you are asked: no investment, no bond (expert setup), no force "
                "(Swiss bank), NO FIGHT to a battle question, ALLOW to a canal question, no factory, no "
                "production, no import, and DONE in your own maneuver.",
                "A rondel space must be chosen: PASS is no answer there.",
            ),
            ("PASS",),
            (Keyword.NO_FIGHT, Keyword.ALLOW, Keyword.DONE),
        ),
        OrderHelp(
            Keyword.FIGHT, Group.ANSWERS, "FIGHT [<nation>] [ARMY|FLEET]", "Battle: fight the unit entering.",
            "FIGHT [<nation>] [ARMY|FLEET]",
            (
                "When another nation's unit enters a region where your nation has units, you are asked whether "
                "you fight: FIGHT removes one unit of each side. Name the nation and the unit when you govern "
                "several nations there or have both armies and fleets there.",
            ),
            ("FIGHT", f"FIGHT {n.other} fleet", "NO FIGHT"),
            (Keyword.NO_FIGHT, Keyword.STANDING),
        ),
        OrderHelp(
            Keyword.NO_FIGHT, Group.ANSWERS, "NO FIGHT", "Battle: let the unit in peacefully.", "NO FIGHT",
            (
                "The answer to a battle question that lets the entering unit in without a fight (also PASS). "
                "Without an answer there is no battle.",
            ),
            ("NO FIGHT", "don't fight", f"STANDING NO FIGHT {n.other}"),
            (Keyword.FIGHT, Keyword.STANDING),
        ),
        OrderHelp(
            Keyword.ALLOW, Group.ANSWERS, "ALLOW", "Canal: let the unit through.", "ALLOW",
            (
                "When a unit wants to pass a canal that your nation controls with its flag, you are asked: "
                "ALLOW lets it through (also PASS); without an answer the canal stays open.",
            ),
            ("ALLOW", f"STANDING ALLOW {n.via_nation} {n.canal}".rstrip()),
            (Keyword.DENY, Keyword.STANDING),
        ),
        OrderHelp(
            Keyword.DENY, Group.ANSWERS, "DENY", "Canal: refuse the passage.", "DENY",
            ("The answer to a canal question that stops the unit: it may not pass the canal.",),
            ("DENY", f"STANDING DENY {n.via_nation} {n.canal}".rstrip()),
            (Keyword.ALLOW, Keyword.STANDING),
        ),
        OrderHelp(
            Keyword.FORCE, Group.ANSWERS, "FORCE", "Swiss bank: stop the nation on Investor.", "FORCE",
            (
                "When a nation moves past the Investor space, each Swiss bank is asked in turn whether it forces "
                "the nation to stop on Investor instead, so that it pays its bond interest now.",
            ),
            ("FORCE", "NO FORCE", "STANDING FORCE"),
            (Keyword.NO_FORCE, Keyword.STANDING),
        ),
        OrderHelp(
            Keyword.NO_FORCE, Group.ANSWERS, "NO FORCE", "Swiss bank: let the nation move on.", "NO FORCE",
            ("Lets the nation move past the Investor space as it chose (also PASS).",),
            ("NO FORCE", "don't force", f"STANDING NO FORCE {n.nation}"),
            (Keyword.FORCE, Keyword.STANDING),
        ),
        OrderHelp(
            Keyword.DONATE, Group.ANYTIME, "DONATE <amount> TO <nation>", "Give own cash to a nation you govern.",
            "DONATE <amount> TO <nation>",
            ("Moves money from your own cash into the treasury of a nation you govern, at any time.",),
            (f"DONATE 3 TO {n.nation}", f"donate 1 to {n.nation.lower()}"),
        ),
        OrderHelp(
            Keyword.STANDING, Group.ANYTIME, "STANDING <answer> | CLEAR", "Set an answer given automatically.",
            "STANDING <answer> [<nation>] [<canal>]\nSTANDING CLEAR",
            (
                "Answers future questions for you, so that the game need not wait: ALLOW or DENY [<nation>] "
                "[<canal>], FIGHT or NO FIGHT [<nation>], FORCE or NO FORCE [<nation>]. Without a nation (or "
                "canal) the answer holds for all. Standing orders are secret: only you see them in reports.",
                "STANDING CLEAR forgets all of yours.",
            ),
            (f"STANDING ALLOW {n.via_nation} {n.canal}".rstrip(), f"STANDING NO FIGHT {n.other}", "STANDING FORCE",
             "STANDING CLEAR"),
            (Keyword.ALLOW, Keyword.FIGHT, Keyword.FORCE),
        ),
        OrderHelp(
            Keyword.HELP, Group.ANYTIME, "HELP [<order>]", "These texts; HELP <order> for one.", "HELP [topic]",
            (
                "HELP alone lists every order; HELP with an order (or its first letters) explains it. Also: HELP "
                "names (how to write names), HELP messages (how a mail is read), HELP maneuver.",
            ),
            ("HELP", "HELP ARMY", "help rondel"),
        ),
        OrderHelp(
            Keyword.STATUS, Group.ANYTIME, "STATUS", "Where the game stands, and your money.", "STATUS",
            ("Whose turn it is, whom the game waits for, your cash, bonds and governments.",),
            ("STATUS",),
            (Keyword.OPTIONS, Keyword.BOARD),
        ),
        OrderHelp(
            Keyword.BOARD, Group.ANYTIME, "BOARD", "The world board in ASCII.", "BOARD",
            ("The world map with every unit and flag, in three panels of at most 78 columns.",),
            ("BOARD",),
        ),
        OrderHelp(
            Keyword.OPTIONS, Group.ANYTIME, "OPTIONS", "Everything you may decide now.", "OPTIONS",
            ("Your open decisions, each legal option written as an order you can copy, with what it costs.",),
            ("OPTIONS",),
            (Keyword.STATUS,),
        ),
        OrderHelp(
            Keyword.HISTORY, Group.ANYTIME, "HISTORY [<n>]", "The last n moves (10 if not given).", "HISTORY [n]",
            ("The last n accepted orders of all players, each with what it did.",),
            ("HISTORY", "HISTORY 25"),
        ),
    ]
    return {e.keyword: e for e in entries}


@lru_cache(maxsize=8)
def _cached_orders(board: Board) -> dict[Keyword, OrderHelp]:
    return _orders(board)


def order_help(keyword: Keyword, board: Board | None = None) -> OrderHelp:
    return _cached_orders(board or default_board())[keyword]


# --- topics ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Topic:
    """What a HELP topic names: an order, a group of orders, a page, or nothing (with suggestions)."""

    keyword: Keyword | None = None
    group: Group | None = None
    page: str | None = None
    suggestions: tuple[str, ...] = ()


def topics() -> tuple[str, ...]:
    """The topics HELP knows, as players would write them."""
    return tuple(s.keyword.text for s in SPECS) + ("MANEUVER", "NAMES", "MESSAGES")


def resolve_topic(text: str, board: Board | None = None) -> Topic:
    """The topic ``text`` names; ``Topic()`` with suggestions when it names none."""
    board = board or default_board()
    key = normalise(text)
    if key in _GROUP_WORDS:
        return Topic(group=_GROUP_WORDS[key])
    if key in _PAGE_WORDS:
        return Topic(page=_PAGE_WORDS[key])
    if key in _WORD_TOPICS:
        return Topic(keyword=_WORD_TOPICS[key])
    if key in {normalise(c) for c in board.canals} or key in {normalise(canal_name(c)) for c in board.canals}:
        return Topic(keyword=Keyword.ALLOW)
    try:
        return Topic(keyword=read_keyword(text).spec.keyword)
    except OrderSyntaxError as exc:
        suggestions = list(exc.suggestions)
    keywords = {normalise(k.text): k.text for k in Keyword}
    pages = {"maneuver": "MANEUVER", "manoeuvre": "MANEUVER", "names": "NAMES", "messages": "MESSAGES"}
    for words, cutoff in ((keywords, 0.6), (pages, 0.75)):  # "armee" is ARMY, not NAMES
        for close in difflib.get_close_matches(key, list(words), n=3, cutoff=cutoff):
            if words[close] not in suggestions:
                suggestions.append(words[close])
    return Topic(suggestions=tuple(suggestions[:4]))


# --- the texts ----------------------------------------------------------------------------------


def _heading(text: str, char: str = "-") -> list[str]:
    return [text, char * min(len(text), MAX_WIDTH)]


def _example_lines(example: str, indent: int) -> list[str]:
    return [" " * indent + line for line in example.splitlines()]


def _list_entry(entry: OrderHelp) -> list[str]:
    """Two lines: the form and its meaning, then an example under the meaning."""
    head = "  " + entry.form
    meaning = entry.meaning
    lines: list[str]
    if len(head) + 2 <= FORM_COLUMN:
        lines = wrap(meaning, indent=FORM_COLUMN, first=head.ljust(FORM_COLUMN)).splitlines()
    else:
        lines = [head, *wrap(meaning, indent=FORM_COLUMN).splitlines()]
    example = entry.examples[0].splitlines()[0]
    prefix = "e.g. "
    if FORM_COLUMN + len(prefix) + len(example) <= MAX_WIDTH:
        lines.append(" " * FORM_COLUMN + prefix + example)
    else:
        lines.append("      " + prefix + example)
    return lines


_INTRO = ("Write one order per line (or several on a line, separated by ';'). Case does not matter, and names "
          "may be shortened to their first letters. Lines starting with '#', quoted lines ('>') and everything "
          "after your signature ('-- ') or a line END are ignored.")


def _all_orders(board: Board) -> str:
    orders = _cached_orders(board)
    lines = _heading("HELP: THE ORDERS")
    lines += wrap(_INTRO).splitlines()
    lines += wrap("HELP <order> explains one order with more examples, e.g. HELP ARMY; HELP NAMES and HELP "
                  "MESSAGES tell how names and mails are read.").splitlines()
    for group in Group:
        lines += ["", group.value.upper()]
        lines += wrap(GROUP_INTRO[group], indent=2).splitlines()
        for entry in orders.values():
            if entry.group is group:
                lines += _list_entry(entry)
    return finish("\n".join(lines))


def _one_order(board: Board, keyword: Keyword) -> str:
    entry = _cached_orders(board)[keyword]
    spec = SPEC_BY_KEYWORD[keyword]
    lines = _heading(f"HELP: {keyword.text}")
    for form in entry.full.splitlines():
        lines += wrap(form, indent=4, first=0).splitlines()
    lines += ["", *wrap(entry.meaning).splitlines()]
    for paragraph in entry.details:
        lines += ["", *wrap(paragraph).splitlines()]
    lines += ["", "For example:" if len(entry.examples) == 1 else "For example, any of these:"]
    for number, example in enumerate(entry.examples):
        if number:
            lines.append("  or")
        lines += _example_lines(example, 4)
    if spec.aliases:
        lines += ["", *wrap("Also written: " + ", ".join(a.upper() for a in spec.aliases) + ".").splitlines()]
    lines += ["", *wrap(f"Group: {entry.group.value}." + (
        " See also: " + ", ".join(f"HELP {k.text}" for k in entry.see) + "." if entry.see else "")).splitlines()]
    return finish("\n".join(lines))


def _group_page(board: Board, group: Group) -> str:
    orders = _cached_orders(board)
    lines = _heading(f"HELP: {group.value.upper()}")
    lines += wrap(GROUP_INTRO[group]).splitlines()
    if group is Group.MANEUVER:
        lines += ["", *wrap(_cached_orders(board)[Keyword.DONE].details[1]).splitlines()]
    lines.append("")
    for entry in orders.values():
        if entry.group is group:
            lines += _list_entry(entry)
    lines += ["", *wrap("HELP <order> tells more about one of them.").splitlines()]
    return finish("\n".join(lines))


def _names_page(board: Board) -> str:
    n = _names(board)
    regions = [r for r in board.regions.values() if r.aliases]
    alias = regions[0] if regions else None
    alias_text = f" ('{alias.aliases[0]}' for {alias.name})" if alias else ""
    paragraphs = [
        "Names of nations, regions, rondel spaces and units are matched ignoring case, spaces, hyphens, dots "
        f"and apostrophes: '{n.via_to}', '{normalise(n.via_to)}' and '{n.via_to.upper()}' are the same.",
        f"Common other names work too{alias_text}, and so do the first letters of a name when they fit only one "
        f"thing where the order needs it: in {n.nation}'s turn, 'IMPORT army "
        f"{n.army_home[:3].lower()}' means {n.army_home}.",
        "A name that fits several things, or nothing, is refused with the candidates; the rest of the message "
        "is then not applied.",
    ]
    lines = _heading("HELP: NAMES")
    for paragraph in paragraphs:
        lines += [*wrap(paragraph).splitlines(), ""]
    return finish("\n".join(lines))


def _messages_page(board: Board) -> str:
    n = _names(board)
    paragraphs = [
        _INTRO,
        "The orders of a message are applied in order. The first order that fails stops the message: what came "
        "before it stands; the failing line and every line after it are quoted back with the reason and what "
        "is legal now.",
        "When a move needs another player's answer (a battle, a canal), the rest of the message waits and goes "
        "on by itself once the answer is given.",
        "A message may also hold reports (STATUS, BOARD, OPTIONS, HISTORY, HELP); they are answered after the "
        "orders.",
    ]
    lines = _heading("HELP: MESSAGES")
    for paragraph in paragraphs:
        lines += [*wrap(paragraph).splitlines(), ""]
    lines += ["For example:", "", "    RONDEL import", f"    IMPORT army {n.army_home}, fleet {n.fleet_home}",
              "    # a comment", "    STATUS", "    --", "    sent from my phone"]
    return finish("\n".join(lines))


def _unknown(text: str, topic: Topic) -> str:
    lines = _heading("HELP")
    shown = text.strip() if len(text.strip()) <= 40 else text.strip()[:39] + "~"
    lines += wrap(f"There is no help on {shown!r}." + (
        f" Did you mean: {', '.join(topic.suggestions)}?" if topic.suggestions else "")).splitlines()
    lines += ["", *wrap("Topics: " + ", ".join(topics()) + ".").splitlines()]
    lines += ["", *wrap("HELP alone lists every order with an example.").splitlines()]
    return finish("\n".join(lines))


_PAGES: dict[str, Callable[[Board], str]] = {NAMES: _names_page, MESSAGES: _messages_page}


def help_text(topic: str | None = None, board: Board | None = None) -> str:
    """The answer to ``HELP [topic]``: every order, or one order, group or page; never raises."""
    board = board or default_board()
    if topic is None or not normalise(topic):
        return _all_orders(board)
    found = resolve_topic(topic, board)
    if found.keyword is not None:
        return _one_order(board, found.keyword)
    if found.group is not None:
        return _group_page(board, found.group)
    if found.page is not None:
        return _PAGES[found.page](board)
    return _unknown(topic, found)
