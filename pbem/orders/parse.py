"""Order text into engine actions, read against the current state.

Like python-chess's ``Board.parse_san``, parsing needs the position (which
nation's turn it is, where its rondel marker stands, which decision the
player has open) but never changes it: applying is a separate step
(``pbem.orders.apply``). Parsing checks words and names, not rules; whether a
readable order is legal is the engine's to say, in its own words.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from engine.actions import (
    Action,
    BuildFactory,
    BuyBond,
    ChooseSpace,
    Donate,
    ForceStop,
    Import,
    ImportUnit,
    Pass,
    Produce,
    UpgradeBond,
)
from engine.board import Board
from engine.decisions import decisions_for
from engine.errors import EngineError
from engine.game import apply as engine_apply
from engine.game import waiting_for
from engine.model import GameState
from pbem.orders.errors import IllegalOrder, NotYourTurn, OrderError, OrderSyntaxError, UnsupportedOrder
from pbem.orders.format import NOTHING
from pbem.orders.keywords import SPEC_BY_KEYWORD, Keyword, KeywordSpec, Role, read_keyword
from pbem.orders.legal import legal_orders, refusal
from pbem.orders.message import MessageLine, split_message
from pbem.orders.names import is_unit_kind, normalise, resolve_nation, resolve_region, resolve_space, \
    resolve_unit_kind

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

    def home_what(self, noun: str) -> str:
        return f"{noun} of {self.board.name(self.nation)}" if self.nation else "region"

    def decision_nation(self) -> str | None:
        """The nation of the player's open decision, if exactly one is named (e.g. "BUY 9" in a round for China)."""
        nations = {d.nation for d in decisions_for(self.state, self.player)}
        return nations.pop() if len(nations) == 1 else None

    def syntax(self, reason: str) -> OrderSyntaxError:
        return OrderSyntaxError(f"{reason} Write: {self.spec.usage}.")

    def no_rest(self) -> None:
        if self.rest:
            raise self.syntax(f"{self.spec.keyword.text} takes nothing after it, not {self.rest!r}.")


# --- one reader per order ------------------------------------------------------------------------


def _rondel(c: _Context) -> Action:
    if not c.rest:
        raise c.syntax("Which space?")
    marker = c.state.nations[c.nation].rondel if c.nation else None
    return ChooseSpace(resolve_space(c.board, c.rest, marker))


def _build(c: _Context) -> Action:
    if not c.rest:
        raise c.syntax("In which city?")
    return BuildFactory(resolve_region(c.board, c.rest, c.homes(cities_only=True), c.home_what("home city")))


def _produce(c: _Context) -> Action:
    key = normalise(c.rest)
    if not key or key in _ALL_WORDS:
        return Produce(None)
    if key in _EMPTY_WORDS:
        return Produce(())
    provinces = []
    for part in _items(c, c.rest):
        provinces.append(resolve_region(c.board, part, c.homes(), c.home_what("home province")))
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
                raise c.syntax(f"{count} is not a number of units to import.")
        if i >= len(words):
            raise c.syntax("Army or fleet, and where?")
        kind = resolve_unit_kind(words[i])
        i += 1
        end = i
        while end < len(words) and not _starts_unit(words, end):
            end += 1
        if end == i:
            raise c.syntax(f"Where should the {kind.value} go?")
        region = resolve_region(c.board, " ".join(words[i:end]), c.homes(), c.home_what("home province"))
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
    if not all(parts):
        raise c.syntax(f"An empty item in the list {text!r}.")
    return parts


def _buy(c: _Context) -> Action:
    rest = c.rest
    if m := re.fullmatch(NUMBER, rest):
        nation = c.decision_nation()
        if nation is None:
            raise c.syntax("Which nation?")
        return BuyBond(nation, int(m.group()))
    m = (re.fullmatch(rf"(?P<nation>.+?)\s+(?P<value>{NUMBER})", rest)
         or re.fullmatch(rf"(?P<value>{NUMBER})\s+(?P<nation>.+)", rest))
    if not m:
        raise c.syntax("A nation and a bond value are needed.")
    return BuyBond(resolve_nation(c.board, m["nation"]), int(m["value"]))


_UPGRADE_VALUES = rf"(?P<old>{NUMBER})(?:\s+to\s+|\s*(?:->|→|>)\s*|\s+)(?P<new>{NUMBER})"


def _upgrade(c: _Context) -> Action:
    m = re.fullmatch(rf"(?P<nation>.+?)\s+{_UPGRADE_VALUES}", c.rest, re.IGNORECASE)
    if m:
        return UpgradeBond(resolve_nation(c.board, m["nation"]), int(m["old"]), int(m["new"]))
    m = re.fullmatch(_UPGRADE_VALUES, c.rest, re.IGNORECASE)
    if m and (nation := c.decision_nation()) is not None:
        return UpgradeBond(nation, int(m["old"]), int(m["new"]))
    raise c.syntax("A nation, the bond handed back and the bond taken are needed.")


def _donate(c: _Context) -> Action:
    rest = c.rest
    m = (re.fullmatch(rf"(?P<amount>{NUMBER})\s+(?:to\s+)?(?P<nation>.+)", rest, re.IGNORECASE)
         or re.fullmatch(rf"(?:to\s+)?(?P<nation>.+?)\s+(?P<amount>{NUMBER})", rest, re.IGNORECASE))
    if m:
        return Donate(resolve_nation(c.board, m["nation"]), int(m["amount"]))
    if re.fullmatch(NUMBER, rest):
        governed = c.state.governed_by(c.player) if c.player in c.state.players else ()
        if len(governed) == 1:
            return Donate(governed[0], int(rest))
    raise c.syntax("An amount and a nation are needed.")


def _pass(c: _Context) -> Action:
    c.no_rest()
    return Pass()


def _force(c: _Context) -> Action:
    c.no_rest()
    return ForceStop(True)


def _no_force(c: _Context) -> Action:
    c.no_rest()
    return ForceStop(False)


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
}


def _query(c: _Context) -> Query:
    kind = QueryKind(c.spec.keyword.value)
    if kind is QueryKind.HELP:
        return Query(kind, topic=c.rest or None)
    if kind is QueryKind.HISTORY:
        if not c.rest:
            return Query(kind)
        if not re.fullmatch(NUMBER, c.rest):
            raise c.syntax(f"HISTORY takes a number of events, not {c.rest!r}.")
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
        split = read_keyword(text)
        if split.spec.role is Role.ORDER and split.spec.keyword is not Keyword.DONATE:
            _check_turn(state, player)
        context = _Context(state, player, split.spec, split.rest)
        if split.spec.role is Role.QUERY:
            return _query(context)
        if split.spec.role is Role.UNSUPPORTED:
            raise UnsupportedOrder(
                f"{split.spec.keyword.text} is not available yet: this version of the game has no maneuvers, "
                f"battles, canals or standing orders (the Maneuver space is passed without action).")
        return _READERS[split.spec.keyword](context)
    except (NotYourTurn, IllegalOrder):
        raise
    except OrderError as exc:
        exc.legal = legal_orders(state, player)
        raise


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
    things allowed here), ``UnsupportedOrder`` or ``NotYourTurn`` (the player
    has nothing to decide). Beyond whose turn it is, legality is the engine's
    to judge when the action is applied.
    """
    parsed = parse_line(state, player, text)
    if isinstance(parsed, Query):
        raise OrderSyntaxError(f"{parsed.kind.value.upper()} asks for a report; it is not an order.",
                               legal=legal_orders(state, player))
    return parsed


def keyword_usage(keyword: Keyword) -> str:
    """The canonical form of one order, for help texts."""
    return SPEC_BY_KEYWORD[keyword].usage
