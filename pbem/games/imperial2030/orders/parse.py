"""Order text into engine actions, read against the current state.

Like python-chess's ``Board.parse_san``, parsing needs the position (which
nation's turn it is, where its rondel marker stands, which decision the
player has open) but never changes it: applying is a separate step
(``pbem.games.imperial2030.orders.apply``). Parsing checks words and names, not rules; whether a
readable order is legal is the engine's to say, in its own words.

Maneuver names are read in context: the start of ``FLEET``/``ARMY`` among the
regions holding a fleet/army of the nation whose turn it is, ``ATTACK ... IN``
among regions holding any of its units, ``DESTROY FACTORY`` among regions
holding its armies; destinations and ``VIA`` seas anywhere, a prefix that fits
several being narrowed to where the unit can go (to the seas holding its own
fleets). An exact name is accepted anywhere, so that the engine can say why
it is refused.

``PASS`` is the passive answer to the open decision: for a battle question it
means ``NO FIGHT``, for a canal question ``ALLOW`` (the rules' default: passage
is allowed unless denied), in the government's own maneuver ``DONE``; elsewhere
it is the engine's ``Pass``.
"""
from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from engine.imperial2030.actions import (
    Action,
    ArmyMove,
    Attack,
    BuildFactory,
    BuyBond,
    ChooseSpace,
    ClearStanding,
    DestroyFactory,
    Donate,
    Done,
    Fight,
    FleetMove,
    ForceStop,
    Import,
    ImportUnit,
    Pass,
    Passage,
    Produce,
    SetStanding,
    UpgradeBond,
)
from engine.imperial2030.board import Board
from engine.imperial2030.decisions import decisions_for
from engine.imperial2030.errors import EngineError
from engine.imperial2030.game import apply as engine_apply
from engine.imperial2030.game import waiting_for
from engine.imperial2030.model import (
    GameState,
    ManeuverStep,
    Stance,
    StandingKind,
    StandingOrder,
    UnitKind,
)
from engine.imperial2030.movement import army_routes, fleet_destinations
from pbem.games.imperial2030.orders.errors import (
    BadName,
    IllegalOrder,
    NotYourTurn,
    OrderError,
    OrderSyntaxError,
    UnsupportedOrder,
)
from pbem.games.imperial2030.orders.format import CLEAR, NOTHING, STANDING_KEYWORDS
from pbem.games.imperial2030.orders.keywords import (
    SPEC_BY_KEYWORD,
    Keyword,
    KeywordSpec,
    Role,
    read_keyword,
)
from pbem.games.imperial2030.orders.legal import legal_orders, refusal
from pbem.games.imperial2030.orders.names import (
    REGION,
    is_canal,
    is_unit_kind,
    normalise,
    region_domain,
    resolve_canal,
    resolve_nation,
    resolve_preferring,
    resolve_region,
    resolve_space,
    resolve_unit_kind,
    sea_domain,
)
from pbem.games.imperial2030.orders.reasons import Among, Noun, Reason, Why, why
from pbem.games.imperial2030.orders.split import MessageLine, split_message

__all__ = ["MessageLine", "Query", "QueryKind", "keyword_usage", "parse_line", "parse_order", "split_message"]

NUMBER = r"[0-9]{1,6}"  # bounded: a thousand-digit "amount" is a typo, not a number to convert
_LIST_SEPARATOR = re.compile(r"\s*(?:,|&|\+|\band\b)\s*", re.IGNORECASE)
_EMPTY_WORDS = frozenset({normalise(NOTHING), "none", "no"})
_ALL_WORDS = frozenset({"all", "every", "everything", "allfactories"})
MAX_IMPORT_COUNT = 9  # "IMPORT 2 army Moscow": counts above this are typos; the engine judges the real limit


class QueryKind(StrEnum):
    HELP = "help"
    STATUS = "status"
    BOARD = "board"
    OPTIONS = "options"
    HISTORY = "history"


@dataclass(frozen=True, slots=True)
class Query:
    """A request for a report (HELP, STATUS, BOARD, OPTIONS, HISTORY): changes nothing, answered by the moderator."""

    kind: QueryKind
    topic: str | None = None  # HELP <topic>
    count: int | None = None  # HISTORY <n>


@dataclass(frozen=True, slots=True)
class _Context:
    """What one order is read against: the state, the writer and the nation whose turn it is."""

    state: GameState
    player: str
    spec: KeywordSpec
    rest: str

    @property
    def board(self) -> Board:
        return self.state.board

    @property
    def nation(self) -> str | None:
        return self.state.turn.nation if self.state.turn is not None else None

    def homes(self, cities_only: bool = False) -> tuple[str, ...] | None:
        """Home provinces (or cities) of the nation whose turn it is; None (anywhere) outside a turn."""
        if self.nation is None:
            return None
        homes = self.board.homes[self.nation]
        return tuple(h for h in homes if self.board.regions[h].city is not None) if cities_only else homes

    def home_what(self, noun: Among) -> Noun:
        """``noun`` ("home_city", "home_province") of the nation whose turn it is; any region outside a turn."""
        return Noun(noun, self.board.name(self.nation)) if self.nation else REGION

    def decision_nation(self) -> str | None:
        """The nation of the player's open decision, if exactly one is named (e.g. "BUY 9" in a round for China)."""
        nations = {d.nation for d in decisions_for(self.state, self.player)}
        return nations.pop() if len(nations) == 1 else None

    def syntax(self, reason: Reason, **values: object) -> OrderSyntaxError:
        """The refusal ``reason`` followed by how the order is written."""
        return OrderSyntaxError(Why(reason, values, self.spec.usage))

    def no_rest(self) -> None:
        if self.rest:
            raise self.syntax(Reason.TAKES_NOTHING, keyword=self.spec.keyword.text, rest=self.rest)

    def maneuver(self) -> ManeuverStep | None:
        """The maneuver in progress, if the game waits for the government's next maneuver order."""
        step = self.state.step
        return step if isinstance(step, ManeuverStep) and step.entry is None and self.nation else None

    def own_regions(self, kind: UnitKind | None) -> tuple[str, ...] | None:
        """Regions holding units (of ``kind``, or any) of the nation whose turn it is; None outside a turn."""
        if self.nation is None:
            return None
        ns = self.state.nations[self.nation]
        kinds = tuple(UnitKind) if kind is None else (kind,)
        return tuple({r for k in kinds for r, n in ns.units(k).items() if n > 0})

    def own_what(self, kind: UnitKind | None) -> Noun:
        """A region with a unit (of ``kind``) of the nation whose turn it is; any region outside a turn."""
        noun = {UnitKind.ARMY: Among.OWN_ARMY, UnitKind.FLEET: Among.OWN_FLEET, None: Among.OWN_UNIT}[kind]
        return Noun(noun, self.board.name(self.nation)) if self.nation else REGION


# --- one reader per order ------------------------------------------------------------------------


def _rondel(c: _Context) -> Action:
    if not c.rest:
        raise c.syntax(Reason.WHICH_SPACE)
    marker = c.state.nations[c.nation].rondel if c.nation else None
    return ChooseSpace(resolve_space(c.board, c.rest, marker))


def _build(c: _Context) -> Action:
    if not c.rest:
        raise c.syntax(Reason.WHICH_CITY)
    return BuildFactory(resolve_region(c.board, c.rest, c.homes(cities_only=True), c.home_what(Among.HOME_CITY)))


def _produce(c: _Context) -> Action:
    key = normalise(c.rest)
    if not key or key in _ALL_WORDS:
        return Produce(None)
    if key in _EMPTY_WORDS:
        return Produce(())
    provinces = []
    for part in _items(c, c.rest):
        provinces.append(resolve_region(c.board, part, c.homes(), c.home_what(Among.HOME_PROVINCE)))
    return Produce(tuple(provinces))


def _import(c: _Context) -> Action:
    key = normalise(c.rest)
    if not key or key in _EMPTY_WORDS:
        return Import(())
    units: list[ImportUnit] = []
    for part in _items(c, c.rest):
        units.extend(_import_units(c, part.split()))
    return Import(tuple(units))


def _import_units(c: _Context, words: list[str]) -> list[ImportUnit]:
    """``[n] <army|fleet> <province>`` repeated: "2 army Moscow", "army moscow fleet vladivostok"."""
    units: list[ImportUnit] = []
    i = 0
    while i < len(words):
        count = 1
        if re.fullmatch(NUMBER, words[i]):
            count = int(words[i])
            i += 1
            if not 1 <= count <= MAX_IMPORT_COUNT:
                raise c.syntax(Reason.IMPORT_COUNT, count=count)
        if i >= len(words):
            raise c.syntax(Reason.ARMY_OR_FLEET)
        kind = resolve_unit_kind(words[i])
        i += 1
        end = i
        while end < len(words) and not _starts_unit(words, end):
            end += 1
        if end == i:
            raise c.syntax(Reason.WHERE_UNIT, unit=kind.value)
        region = resolve_region(c.board, " ".join(words[i:end]), c.homes(), c.home_what(Among.HOME_PROVINCE))
        units.extend([ImportUnit(kind, region)] * count)
        i = end
    return units


def _starts_unit(words: list[str], i: int) -> bool:
    """True where a new unit begins inside a list written without commas."""
    if is_unit_kind(words[i]):
        return True
    return bool(re.fullmatch(NUMBER, words[i])) and i + 1 < len(words) and is_unit_kind(words[i + 1])


def _items(c: _Context, text: str) -> list[str]:
    parts = [p.strip() for p in _LIST_SEPARATOR.split(text)]
    if len(parts) > 1 and not parts[-1] and all(parts[:-1]):  # "IMPORT army Moscow," and the rest on the next line
        end = _LIST_SEPARATOR.findall(text)[-1].strip()
        raise c.syntax(Reason.LIST_ENDS, end=end)
    if not all(parts):
        raise c.syntax(Reason.EMPTY_ITEM, text=text)
    return parts


_CURRENCY = re.compile(r"[$\u20ac\u00a3\u00a5]")  # "DONATE $5 TO Russia", "BUY China 4\u20ac"


def _buy(c: _Context) -> Action:
    rest = _CURRENCY.sub("", c.rest).strip()
    if m := re.fullmatch(NUMBER, rest):
        nation = c.decision_nation()
        if nation is None:
            raise c.syntax(Reason.WHICH_NATION)
        return BuyBond(nation, int(m.group()))
    m = (re.fullmatch(rf"(?P<nation>.+?)\s+(?P<value>{NUMBER})", rest)
         or re.fullmatch(rf"(?P<value>{NUMBER})\s+(?P<nation>.+)", rest))
    if not m:
        raise c.syntax(Reason.BUY_PARTS)
    return BuyBond(resolve_nation(c.board, m["nation"]), int(m["value"]))


_UPGRADE_VALUES = rf"(?P<old>{NUMBER})(?:\s+to\s+|\s*(?:->|→|>)\s*|\s+)(?P<new>{NUMBER})"


def _upgrade(c: _Context) -> Action:
    m = re.fullmatch(rf"(?P<nation>.+?)\s+{_UPGRADE_VALUES}", c.rest, re.IGNORECASE)
    if m:
        return UpgradeBond(resolve_nation(c.board, m["nation"]), int(m["old"]), int(m["new"]))
    m = re.fullmatch(_UPGRADE_VALUES, c.rest, re.IGNORECASE)
    if m and (nation := c.decision_nation()) is not None:
        return UpgradeBond(nation, int(m["old"]), int(m["new"]))
    raise c.syntax(Reason.UPGRADE_PARTS)


def _donate(c: _Context) -> Action:
    rest = _CURRENCY.sub("", c.rest).strip()
    m = (re.fullmatch(rf"(?P<amount>{NUMBER})\s+(?:to\s+)?(?P<nation>.+)", rest, re.IGNORECASE)
         or re.fullmatch(rf"(?:to\s+)?(?P<nation>.+?)\s+(?P<amount>{NUMBER})", rest, re.IGNORECASE))
    if m:
        return Donate(resolve_nation(c.board, m["nation"]), int(m["amount"]))
    if re.fullmatch(NUMBER, rest):
        governed = c.state.governed_by(c.player) if c.player in c.state.players else ()
        if len(governed) == 1:
            return Donate(governed[0], int(rest))
    raise c.syntax(Reason.DONATE_PARTS)


def _pass(c: _Context) -> Action:
    """The passive answer: NO FIGHT, ALLOW or DONE in the maneuver, the engine's ``Pass`` elsewhere."""
    c.no_rest()
    step = c.state.step
    if isinstance(step, ManeuverStep):
        if step.entry is None:
            return Done()
        return Passage(True) if step.entry.canals else Fight(False)
    return Pass()


def _force(c: _Context) -> Action:
    c.no_rest()
    return ForceStop(True)


def _no_force(c: _Context) -> Action:
    c.no_rest()
    return ForceStop(False)


# --- the maneuver ------------------------------------------------------------------------------

# TO may be written as an arrow ("->", "=>", a phone's "\u2014>", "\u2192") or as a dash between spaces
# ("ARMY Paris - London", as in Diplomacy; a dash inside a name like "new-york" is no arrow).
_ARROW = re.compile(r"\s*(?:[-=\u2013\u2014]+>|[\u2192\u27f6\u2013\u2014])\s*|\s+-\s+")
_TO = "to"
_ATTACK = "attack"
_VIA = "via"
_IN = "in"
_STANCES = {normalise(s.value): s for s in Stance}
_FACTORY_WORDS = frozenset({"factory", "factories"})


@dataclass(frozen=True, slots=True)
class _Move:
    """``<from> TO <to>`` and the clauses after it, each a keyword and its words."""

    origin: str
    dest: str
    clauses: tuple[tuple[str, tuple[str, ...]], ...]


def _move_parts(c: _Context, clause_words: frozenset[str]) -> _Move:
    words = _ARROW.sub(f" {_TO} ", c.rest).split()
    keys = [normalise(w) for w in words]
    if _TO not in keys:
        raise c.syntax(Reason.FROM_AND_TO)
    cut = keys.index(_TO)
    if cut == 0:
        raise c.syntax(Reason.FROM_WHERE)
    dest: list[str] = []
    clauses: list[tuple[str, list[str]]] = []
    for index, (word, key) in enumerate(zip(words[cut + 1:], keys[cut + 1:], strict=True)):
        if key not in clause_words and index and len(key) >= 4:
            near = difflib.get_close_matches(key, sorted(clause_words), n=1, cutoff=0.8)
            if near:  # "ARMY Paris TO Mumbai HOSTIL": a misspelt HOSTILE, not part of a name
                raise OrderSyntaxError(Why(Reason.NOT_A_WORD, {"word": word, "near": near[0].upper()}, c.spec.usage),
                                       suggestions=(near[0].upper(),))
        if key in clause_words:
            if any(k == key for k, _ in clauses):
                raise c.syntax(Reason.WRITTEN_TWICE, keyword=word.upper())
            clauses.append((key, []))
        elif clauses:
            clauses[-1][1].append(word)
        else:
            dest.append(word)
    if not dest:
        raise c.syntax(Reason.TO_WHERE)
    return _Move(" ".join(words[:cut]), " ".join(dest), tuple((k, tuple(w)) for k, w in clauses))


def _nation_and_kind(c: _Context, words: tuple[str, ...]) -> tuple[str | None, UnitKind | None]:
    """``<nation> [army|fleet]``, either part optional: "China army", "China", "army"."""
    kind = None
    if words and is_unit_kind(words[-1]):
        kind = resolve_unit_kind(words[-1])
        words = words[:-1]
    nation = resolve_nation(c.board, " ".join(words)) if words else None
    return nation, kind


def _attack_clause(c: _Context, words: tuple[str, ...]) -> tuple[str, UnitKind | None]:
    nation, kind = _nation_and_kind(c, words)
    if nation is None:
        raise c.syntax(Reason.ATTACK_WHICH)
    return nation, kind


def _fleet(c: _Context) -> Action:
    move = _move_parts(c, frozenset({_ATTACK}))
    origin = resolve_region(c.board, move.origin, c.own_regions(UnitKind.FLEET), c.own_what(UnitKind.FLEET))
    step = c.maneuver()

    def reachable() -> tuple[str, ...]:
        nation = c.nation
        if step is None or nation is None or origin not in c.state.nations[nation].fleets:
            return ()
        return fleet_destinations(c.state, nation, step, origin)

    dest = resolve_preferring(move.dest, region_domain(c.board), reachable,
                              Noun(Among.FLEET_REACH, c.board.name(origin)))
    attack = None
    for _key, words in move.clauses:
        attack, kind = _attack_clause(c, words)
        if kind is UnitKind.ARMY:
            raise c.syntax(Reason.FLEET_ATTACKS_FLEETS)
    return FleetMove(origin, dest, attack)


def _army(c: _Context) -> Action:
    move = _move_parts(c, frozenset({_ATTACK, _VIA, *_STANCES}))
    origin = resolve_region(c.board, move.origin, c.own_regions(UnitKind.ARMY), c.own_what(UnitKind.ARMY))
    step = c.maneuver()

    def reachable() -> tuple[str, ...]:
        nation = c.nation
        if step is None or nation is None or origin not in c.state.nations[nation].armies:
            return ()
        return tuple(army_routes(c.state, nation, step, origin))

    dest = resolve_preferring(move.dest, region_domain(c.board), reachable,
                              Noun(Among.ARMY_REACH, c.board.name(origin)))
    stance: Stance | None = None
    attack: str | None = None
    attack_kind: UnitKind | None = None
    via: tuple[str, ...] | None = None
    for key, words in move.clauses:
        if key in _STANCES:
            if stance is not None:
                raise c.syntax(Reason.ONE_STANCE, hostile=Stance.HOSTILE.value.upper(),
                               friendly=Stance.FRIENDLY.value.upper())
            if words:
                raise c.syntax(Reason.TAKES_NOTHING, keyword=key.upper(), rest=" ".join(words))
            stance = _STANCES[key]
        elif key == _ATTACK:
            attack, attack_kind = _attack_clause(c, words)
        else:
            if not words:
                raise c.syntax(Reason.VIA_WHICH, keyword=_VIA.upper())
            via = tuple(_sea(c, part) for part in _items(c, " ".join(words)))
    return ArmyMove(origin, dest, stance, attack, attack_kind, via)


def _sea(c: _Context, text: str) -> str:
    own = c.own_regions(UnitKind.FLEET)
    return resolve_preferring(text, sea_domain(c.board), (lambda: own) if own is not None else None,
                              Noun(Among.OWN_SEA, c.board.name(c.nation)) if c.nation else Noun(Among.SEA))


def _attack(c: _Context) -> Action:
    words = c.rest.split()
    keys = [normalise(w) for w in words]
    if _IN not in keys:
        raise c.syntax(Reason.ATTACK_WHOM)
    cut = len(keys) - 1 - keys[::-1].index(_IN)
    if cut == len(words) - 1:
        raise c.syntax(Reason.WHICH_REGION)
    nation, kind = _attack_clause(c, tuple(words[:cut]))
    region = resolve_region(c.board, " ".join(words[cut + 1:]), c.own_regions(None), c.own_what(None))
    return Attack(region, nation, kind)


def _destroy(c: _Context) -> Action:
    words = c.rest.split()
    if words and normalise(words[0]) in _FACTORY_WORDS:
        words = words[1:]
    if not words:
        raise c.syntax(Reason.WHICH_FACTORY)
    return DestroyFactory(resolve_region(c.board, " ".join(words), c.own_regions(UnitKind.ARMY),
                                         c.own_what(UnitKind.ARMY)))


def _done(c: _Context) -> Action:
    c.no_rest()
    return Done()


def _fight(c: _Context) -> Action:
    nation, kind = _nation_and_kind(c, tuple(c.rest.split()))
    return Fight(True, nation, kind)


def _no_fight(c: _Context) -> Action:
    c.no_rest()
    return Fight(False)


def _allow(c: _Context) -> Action:
    c.no_rest()
    return Passage(True)


def _deny(c: _Context) -> Action:
    c.no_rest()
    return Passage(False)


_STANDING_KINDS = {keyword: kind for kind, keyword in STANDING_KEYWORDS.items()}
_CANAL_KINDS = frozenset({StandingKind.ALLOW, StandingKind.DENY})


def _standing(c: _Context) -> Action:
    """``STANDING <answer> [<nation>] [<canal>]`` or ``STANDING CLEAR``."""
    usage = "STANDING ALLOW|DENY [<nation>] [<canal>], FIGHT|NO FIGHT [<nation>], FORCE|NO FORCE [<nation>] or CLEAR"
    if not c.rest:
        raise c.syntax(Reason.WHICH_STANDING)
    if normalise(c.rest) == normalise(CLEAR):
        return ClearStanding()
    try:
        split = read_keyword(c.rest)
    except OrderSyntaxError:
        split = None
    kind = _STANDING_KINDS.get(split.spec.keyword) if split is not None else None
    if split is None or kind is None:
        raise OrderSyntaxError(Why(Reason.NOT_STANDING, {"text": c.rest}, usage))
    words = split.rest.split()
    canal = None
    if kind in _CANAL_KINDS and words:
        canal, words = _trailing_canal(c, words)
    nation = resolve_nation(c.board, " ".join(words)) if words else None
    return SetStanding(StandingOrder(kind, nation, canal))


def _trailing_canal(c: _Context, words: list[str]) -> tuple[str | None, list[str]]:
    """A canal named at the end of a standing ALLOW/DENY ("europe suez", "suez canal", "eu su")."""
    for count in (2, 1):
        if len(words) >= count and is_canal(c.board, " ".join(words[-count:])):
            return resolve_canal(c.board, " ".join(words[-count:])), words[:-count]
    try:
        resolve_nation(c.board, " ".join(words))
        return None, words  # the whole text is a nation
    except BadName:
        pass
    try:
        return resolve_canal(c.board, words[-1]), words[:-1]
    except BadName:
        return None, words


_READERS: dict[Keyword, Callable[[_Context], Action]] = {
    Keyword.RONDEL: _rondel,
    Keyword.BUILD: _build,
    Keyword.PRODUCE: _produce,
    Keyword.IMPORT: _import,
    Keyword.BUY: _buy,
    Keyword.UPGRADE: _upgrade,
    Keyword.PASS: _pass,
    Keyword.FORCE: _force,
    Keyword.NO_FORCE: _no_force,
    Keyword.DONATE: _donate,
    Keyword.FLEET: _fleet,
    Keyword.ARMY: _army,
    Keyword.ATTACK: _attack,
    Keyword.DESTROY: _destroy,
    Keyword.DONE: _done,
    Keyword.FIGHT: _fight,
    Keyword.NO_FIGHT: _no_fight,
    Keyword.ALLOW: _allow,
    Keyword.DENY: _deny,
    Keyword.STANDING: _standing,
}

# Orders a player may give whatever the game waits for (the engine's ``ANYTIME``).
_ANYTIME = frozenset({Keyword.DONATE, Keyword.STANDING})


def _query(c: _Context) -> Query:
    kind = QueryKind(c.spec.keyword.value)
    if kind is QueryKind.HELP:
        return Query(kind, topic=c.rest or None)
    if kind is QueryKind.HISTORY:
        if not c.rest:
            return Query(kind)
        if not re.fullmatch(NUMBER, c.rest):
            raise c.syntax(Reason.HISTORY_COUNT, keyword=Keyword.HISTORY.text, text=c.rest)
        return Query(kind, count=int(c.rest))
    c.no_rest()
    return Query(kind)


# --- entry points ---------------------------------------------------------------------------------


def parse_line(state: GameState, player: str, text: str) -> Action | Query:
    """One order or report request, read against ``state`` (which is not changed).

    Every refusal carries the orders legal for ``player`` now. An order from a
    player the game is not waiting for is refused as ``NotYourTurn`` before its
    names are read: "not your turn" is the useful answer, not a name that
    fails in another nation's context.
    """
    try:
        split = read_keyword(text, lambda: legal_keywords(state, player))
        if split.spec.role is Role.ORDER and split.spec.keyword not in _ANYTIME:
            _check_turn(state, player)
        context = _Context(state, player, split.spec, split.rest)
        if split.spec.role is Role.QUERY:
            return _query(context)
        if split.spec.role is Role.UNSUPPORTED:
            raise UnsupportedOrder(why(Reason.NOT_YET, keyword=split.spec.keyword.text))
        return _READERS[split.spec.keyword](context)
    except (NotYourTurn, IllegalOrder):
        raise
    except OrderError as exc:
        exc.legal = legal_orders(state, player)
        raise


def legal_keywords(state: GameState, player: str) -> frozenset[Keyword]:
    """The keywords of the orders ``player`` may give now (to rank "did you mean" suggestions)."""
    found = set()
    for text in legal_orders(state, player):
        try:
            found.add(read_keyword(text).spec.keyword)
        except OrderSyntaxError:  # "FLEET|ARMY <from> ..." and other hints
            continue
    return frozenset(found)


def _check_turn(state: GameState, player: str) -> None:
    """Refuse in the engine's own words when ``player`` has nothing to decide (or the game is over).

    The engine answers any action but a donation from such a player with
    ``NotYourDecision``, whatever the action, so a passive ``Pass`` asks it.
    """
    if player in waiting_for(state) and not state.finished:
        return
    try:
        engine_apply(state, player, Pass())
    except EngineError as exc:
        raise refusal(state, player, exc) from exc


def parse_order(state: GameState, player: str, text: str) -> Action:
    """One order as an engine action, read against ``state`` (which is not changed).

    Raises ``OrderSyntaxError`` (unreadable, or a report request rather than an
    order), ``AmbiguousName``/``UnknownName`` (a name fitting several or no
    things allowed here) or ``NotYourTurn`` (the player has nothing to
    decide; DONATE and STANDING are accepted at any time). Beyond whose turn it is, legality is the engine's
    to judge when the action is applied.
    """
    parsed = parse_line(state, player, text)
    if isinstance(parsed, Query):
        raise OrderSyntaxError(why(Reason.ASKS_REPORT, keyword=parsed.kind.value.upper()),
                               legal=legal_orders(state, player))
    return parsed


def keyword_usage(keyword: Keyword) -> str:
    """The canonical form of one order, for help texts."""
    return SPEC_BY_KEYWORD[keyword].usage
