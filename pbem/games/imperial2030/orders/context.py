"""What one order line is read against: the state, the writer, the order's keyword and the rest of its line.

Every reader of an order (``parse`` for the nation's turn and the answers,
``maneuver`` for the units' orders) asks this context where the nation's
units and homes are, so that names are read among the regions that can
hold what the order names.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from engine.imperial2030.board import Board
from engine.imperial2030.decisions import decisions_for
from engine.imperial2030.model import (
    GameState,
    ManeuverStep,
    UnitKind,
)
from pbem.games.imperial2030.orders.errors import (
    OrderSyntaxError,
)
from pbem.games.imperial2030.orders.format import localize_order
from pbem.games.imperial2030.orders.keywords import (
    KeywordSpec,
    shown,
)
from pbem.games.imperial2030.orders.lexicon import name as local_name
from pbem.games.imperial2030.orders.names import (
    REGION,
)
from pbem.games.imperial2030.orders.reasons import Among, Noun, Reason, Why

LIST_SEPARATOR = re.compile(r"\s*(?:,|&|\+|\band\b)\s*", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Context:
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
        return Noun(noun, local_name(self.board.name(self.nation))) if self.nation else REGION

    def decision_nation(self) -> str | None:
        """The nation of the player's open decision, if exactly one is named (e.g. "BUY 9" in a round for China)."""
        nations = {d.nation for d in decisions_for(self.state, self.player)}
        return nations.pop() if len(nations) == 1 else None

    def syntax(self, reason: Reason, **values: object) -> OrderSyntaxError:
        """The refusal ``reason`` followed by how the order is written."""
        return OrderSyntaxError(Why(reason, values, localize_order(self.board, self.spec.usage)))

    def no_rest(self) -> None:
        if self.rest:
            raise self.syntax(Reason.TAKES_NOTHING, keyword=shown(self.spec.keyword), rest=self.rest)

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
        return Noun(noun, local_name(self.board.name(self.nation))) if self.nation else REGION

    def items(self, text: str) -> list[str]:
        """The items of a list ("IMPORT army Moscow, fleet Baltic"); a list ending in its separator, or with an
        empty item, is refused with where it went wrong."""
        parts = [p.strip() for p in LIST_SEPARATOR.split(text)]
        if len(parts) > 1 and not parts[-1] and all(parts[:-1]):  # "IMPORT army Moscow," and the rest on the next line
            end = LIST_SEPARATOR.findall(text)[-1].strip()
            raise self.syntax(Reason.LIST_ENDS, end=end)
        if not all(parts):
            raise self.syntax(Reason.EMPTY_ITEM, text=text)
        return parts
