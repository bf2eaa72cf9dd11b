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

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from engine.imperial2030.actions import (
    Action,
    BuildFactory,
    BuyBond,
    ChooseSpace,
    ClearStanding,
    Donate,
    Done,
    Fight,
    ForceStop,
    Import,
    ImportUnit,
    Pass,
    Passage,
    Produce,
    SetStanding,
    UpgradeBond,
)
from engine.imperial2030.errors import EngineError
from engine.imperial2030.game import apply as engine_apply
from engine.imperial2030.game import waiting_for
from engine.imperial2030.model import (
    GameState,
    ManeuverStep,
    StandingKind,
    StandingOrder,
)
from pbem.games.imperial2030.orders.context import Context as _Context
from pbem.games.imperial2030.orders.errors import (
    BadName,
    IllegalOrder,
    NotYourTurn,
    OrderError,
    OrderSyntaxError,
    UnsupportedOrder,
)
from pbem.games.imperial2030.orders.format import CLEAR, NOTHING, STANDING_KEYWORDS, localize_order
from pbem.games.imperial2030.orders.keywords import (
    SPEC_BY_KEYWORD,
    Keyword,
    Role,
    read_keyword,
)
from pbem.games.imperial2030.orders.legal import legal_orders, refusal
from pbem.games.imperial2030.orders.lexicon import to_english
from pbem.games.imperial2030.orders.maneuver import (
    read_allow,
    read_army,
    read_attack,
    read_deny,
    read_destroy,
    read_done,
    read_fight,
    read_fleet,
    read_no_fight,
)
from pbem.games.imperial2030.orders.names import (
    is_canal,
    is_unit_kind,
    normalise,
    resolve_canal,
    resolve_nation,
    resolve_region,
    resolve_space,
    resolve_unit_kind,
)
from pbem.games.imperial2030.orders.reasons import Among, Reason, Why, why
from pbem.games.imperial2030.orders.split import MessageLine, split_message

__all__ = ["MessageLine", "Query", "QueryKind", "keyword_usage", "parse_line", "parse_order", "split_message"]

NUMBER = r"[0-9]{1,6}"  # bounded: a thousand-digit "amount" is a typo, not a number to convert
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
    for part in c.items(c.rest):
        provinces.append(resolve_region(c.board, part, c.homes(), c.home_what(Among.HOME_PROVINCE)))
    return Produce(tuple(provinces))


def _import(c: _Context) -> Action:
    key = normalise(c.rest)
    if not key or key in _EMPTY_WORDS:
        return Import(())
    units: list[ImportUnit] = []
    for part in c.items(c.rest):
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
        raise OrderSyntaxError(Why(Reason.NOT_STANDING, {"text": c.rest}, localize_order(c.board, usage)))
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
    Keyword.FLEET: read_fleet,
    Keyword.ARMY: read_army,
    Keyword.ATTACK: read_attack,
    Keyword.DESTROY: read_destroy,
    Keyword.DONE: read_done,
    Keyword.FIGHT: read_fight,
    Keyword.NO_FIGHT: read_no_fight,
    Keyword.ALLOW: read_allow,
    Keyword.DENY: read_deny,
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
        rest = split.rest if split.spec.role is Role.QUERY else to_english(split.spec.keyword.value, split.rest)
        context = _Context(state, player, split.spec, rest)
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
