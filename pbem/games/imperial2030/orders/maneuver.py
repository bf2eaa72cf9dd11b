"""The maneuver's orders read from text: FLEET, ARMY, ATTACK, DESTROY, DONE, and the answers to a battle or a
canal question (FIGHT, NO FIGHT, ALLOW, DENY).

Names are read in context (``context.Context``): the start of ``FLEET`` or
``ARMY`` among the regions holding a unit of that kind of the nation whose
turn it is, destinations and ``VIA`` seas anywhere (a prefix that fits
several narrowed to where the unit can go). ``parse`` holds the table of
readers by keyword.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from engine.imperial2030.actions import (
    Action,
    ArmyMove,
    Attack,
    DestroyFactory,
    Done,
    Fight,
    FleetMove,
    Passage,
)
from engine.imperial2030.model import (
    Stance,
    UnitKind,
)
from engine.imperial2030.movement import army_routes, fleet_destinations
from pbem.games.imperial2030.orders.context import Context as _Context
from pbem.games.imperial2030.orders.errors import (
    OrderSyntaxError,
)
from pbem.games.imperial2030.orders.format import localize_order
from pbem.games.imperial2030.orders.names import (
    is_unit_kind,
    normalise,
    region_domain,
    resolve_nation,
    resolve_preferring,
    resolve_region,
    resolve_unit_kind,
    sea_domain,
)
from pbem.games.imperial2030.orders.reasons import Among, Noun, Reason, Why

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
                raise OrderSyntaxError(Why(Reason.NOT_A_WORD, {"word": word, "near": near[0].upper()},
                                                   localize_order(c.board, c.spec.usage)),
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


def read_fleet(c: _Context) -> Action:
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


def read_army(c: _Context) -> Action:
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
            via = tuple(_sea(c, part) for part in c.items(" ".join(words)))
    return ArmyMove(origin, dest, stance, attack, attack_kind, via)


def _sea(c: _Context, text: str) -> str:
    own = c.own_regions(UnitKind.FLEET)
    return resolve_preferring(text, sea_domain(c.board), (lambda: own) if own is not None else None,
                              Noun(Among.OWN_SEA, c.board.name(c.nation)) if c.nation else Noun(Among.SEA))


def read_attack(c: _Context) -> Action:
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


def read_destroy(c: _Context) -> Action:
    words = c.rest.split()
    if words and normalise(words[0]) in _FACTORY_WORDS:
        words = words[1:]
    if not words:
        raise c.syntax(Reason.WHICH_FACTORY)
    return DestroyFactory(resolve_region(c.board, " ".join(words), c.own_regions(UnitKind.ARMY),
                                         c.own_what(UnitKind.ARMY)))


def read_done(c: _Context) -> Action:
    c.no_rest()
    return Done()


def read_fight(c: _Context) -> Action:
    nation, kind = _nation_and_kind(c, tuple(c.rest.split()))
    return Fight(True, nation, kind)


def read_no_fight(c: _Context) -> Action:
    c.no_rest()
    return Fight(False)


def read_allow(c: _Context) -> Action:
    c.no_rest()
    return Passage(True)


def read_deny(c: _Context) -> Action:
    c.no_rest()
    return Passage(False)
