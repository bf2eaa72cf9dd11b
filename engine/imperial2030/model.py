"""The game state: plain typed data, cloned before every change.

The state is "immutable in spirit": ``apply`` clones it and changes only the
clone, so a caller holding an old state (a report, an undo, a test) can trust
it. The clone is hand-written because ``copy.deepcopy`` is ten times slower and
random-play benchmarks apply thousands of actions per game.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from engine.core.seats import Seat
from engine.imperial2030.board import Board, SpaceAction


class Variant(StrEnum):
    """Optional rules a game master may switch on (R-SETUP-7, R-NOCARD-1, R-TAX-5)."""

    EXPERT = "expert"
    NO_INVESTOR_CARD = "no_investor_card"
    TAX_INCREASE_BONUS = "tax_increase_bonus"


class UnitKind(StrEnum):
    ARMY = "army"
    FLEET = "fleet"


class Stance(StrEnum):
    """How an army enters another nation's home province (R-HOSTILE-1)."""

    HOSTILE = "hostile"
    FRIENDLY = "friendly"


class StandingKind(StrEnum):
    FIGHT = "fight"
    NO_FIGHT = "no_fight"
    ALLOW = "allow"
    DENY = "deny"
    FORCE = "force"
    NO_FORCE = "no_force"


@dataclass(frozen=True, slots=True)
class StandingOrder:
    """An answer given before the question (R-DECIDE-3); ``nation`` and ``canal`` narrow it."""

    kind: StandingKind
    nation: str | None = None
    canal: str | None = None


@dataclass(frozen=True)
class GameSetup:
    """Everything needed to recreate the start of a game: replay starts here.

    ``deal`` fixes flag cards (nation -> player name, R-SETUP-6); cards it does
    not name are dealt from ``seed``. ``start_player`` fixes the expert
    variant's start player, otherwise drawn from ``seed``.
    """

    players: tuple[Seat, ...]
    seed: int = 0
    variants: frozenset[Variant] = frozenset()
    deal: tuple[tuple[str, str], ...] = ()
    start_player: str | None = None

    @property
    def player_names(self) -> tuple[str, ...]:
        return tuple(seat.name for seat in self.players)

    def has(self, variant: Variant) -> bool:
        return variant in self.variants


@dataclass(frozen=True, slots=True, order=True)
class Bond:
    nation: str
    value: int


@dataclass(slots=True)
class NationState:
    treasury: int = 0
    power: int = 0
    rondel: str | None = None
    government: str | None = None
    factories: list[str] = field(default_factory=list)
    armies: dict[str, int] = field(default_factory=dict)
    fleets: dict[str, int] = field(default_factory=dict)
    hostile: dict[str, int] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    tax_column: int = 0  # R-TAX-5: last income column (tax-increase variant)

    def clone(self) -> NationState:
        new = object.__new__(NationState)
        new.treasury = self.treasury
        new.power = self.power
        new.rondel = self.rondel
        new.government = self.government
        new.factories = self.factories[:]
        new.armies = self.armies.copy()
        new.fleets = self.fleets.copy()
        new.hostile = self.hostile.copy()
        new.flags = self.flags[:]
        new.tax_column = self.tax_column
        return new

    def units(self, kind: UnitKind) -> dict[str, int]:
        return self.armies if kind is UnitKind.ARMY else self.fleets

    def unit_count(self, kind: UnitKind) -> int:
        return sum(self.units(kind).values())


@dataclass(slots=True)
class PlayerState:
    name: str
    email: str
    cash: int = 0
    bonds: list[Bond] = field(default_factory=list)

    def clone(self) -> PlayerState:
        return PlayerState(self.name, self.email, self.cash, list(self.bonds))

    def bond_total(self, nation: str) -> int:
        return sum(b.value for b in self.bonds if b.nation == nation)


# --- Steps: where the game stands, i.e. what is being waited for -------------


@dataclass(frozen=True, slots=True)
class SetupBondsStep:
    """R-SETUP-7: the expert variant's bond selection for one nation."""

    nation: str
    queue: tuple[str, ...]  # players still to be offered, first is asked now


@dataclass(frozen=True, slots=True)
class RondelStep:
    """R-TURN-2: the current nation's government chooses a rondel space."""


@dataclass(frozen=True, slots=True)
class ForceStopStep:
    """R-RONDEL-5: Swiss-bank holders asked in turn whether to force a stop on Investor."""

    target: str
    queue: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ActionStep:
    """The government details the action of the space the marker stopped on."""

    action: SpaceAction


class InvestMode(StrEnum):
    CARD = "card"  # R-INVEST-3/4: investor card holder, then Swiss banks
    ROUND = "round"  # R-NOCARD-1: every player in turn may invest in one nation


@dataclass(frozen=True, slots=True)
class InvestSlot:
    """One player's chance to invest; ``nation`` None means any nation."""

    player: str
    nation: str | None


@dataclass(frozen=True, slots=True)
class InvestStep:
    mode: InvestMode
    queue: tuple[InvestSlot, ...]
    tie_start: str  # seating order for government ties starts here (R-INVEST-6)
    rounds_after: tuple[str, ...] = ()  # R-NOCARD-1: further nations to offer after this round


@dataclass(frozen=True, slots=True)
class Entry:
    """A unit on its way into a region, held until the questions it raises are answered.

    ``canals`` are canals still to be asked about (R-MOVE-2); once they are
    open, ``askers`` are the nations still to be asked whether they fight the
    newcomer (R-BATTLE-1). ``seas`` are the seas whose fleets carry an army.
    """

    kind: UnitKind
    origin: str
    dest: str
    seas: tuple[str, ...] = ()
    stance: Stance | None = None
    canals: tuple[str, ...] = ()
    askers: tuple[str, ...] = ()
    attack: str | None = None  # the mover's own choice to fight on entry (R-BATTLE-1)
    attack_kind: UnitKind | None = None


@dataclass(frozen=True, slots=True)
class ManeuverStep:
    """R-MOVE-1..5: the government moves units one order at a time, fleets before armies.

    Units are counted, not named: ``moved`` counts units per (kind, region)
    that arrived this maneuver and may not move again; ``carried`` counts
    fleets per sea that already carried an army (R-MOVE-4).
    """

    armies_moving: bool = False
    moved: tuple[tuple[UnitKind, str, int], ...] = ()
    carried: tuple[tuple[str, int], ...] = ()
    denied: tuple[str, ...] = ()
    entry: Entry | None = None

    def moved_count(self, kind: UnitKind, region: str) -> int:
        return next((n for k, r, n in self.moved if k is kind and r == region), 0)

    def carried_count(self, sea: str) -> int:
        return next((n for s, n in self.carried if s == sea), 0)


@dataclass(frozen=True, slots=True)
class FinishedStep:
    reason: str


Step = SetupBondsStep | RondelStep | ForceStopStep | ActionStep | ManeuverStep | InvestStep | FinishedStep


@dataclass(frozen=True, slots=True)
class TurnInfo:
    """The nation whose turn it is and what its rondel move triggered."""

    nation: str
    passed_investor: bool = False
    stopped_on_investor: bool = False


@dataclass(slots=True)
class GameState:
    board: Board
    setup: GameSetup
    nations: dict[str, NationState]
    players: dict[str, PlayerState]  # in seating order
    investor_card: str | None = None
    step: Step = field(default_factory=RondelStep)
    turn: TurnInfo | None = None
    round: int = 1
    version: int = 0
    scores: dict[str, int] | None = None
    standing: dict[str, tuple[StandingOrder, ...]] = field(default_factory=dict)
    # Nations and players this state has its own copy of (see ``fork``); not part of the game.
    owned: set[tuple[str, str]] = field(default_factory=set, compare=False, repr=False)

    def fork(self) -> GameState:
        """A successor sharing nations and players until ``nation_w``/``player_w`` copies them.

        ``apply`` forks instead of cloning: most actions touch one or two
        nations, and copying all six every time was a tenth of the engine's time.
        """
        return GameState(
            self.board,
            self.setup,
            dict(self.nations),
            dict(self.players),
            self.investor_card,
            self.step,
            self.turn,
            self.round,
            self.version,
            dict(self.scores) if self.scores is not None else None,
            dict(self.standing),
        )

    def governor(self, nation: str) -> str:
        """The player governing ``nation`` where the rules say it has a government (its turn, a question to it)."""
        player = self.nations[nation].government
        if player is None:
            raise ValueError(f"{nation} has no government, yet the rules ask its government")
        return player

    def nation_w(self, nation: str) -> NationState:
        """The nation's state, made this state's own before it is changed."""
        if ("n", nation) not in self.owned:
            self.nations[nation] = self.nations[nation].clone()
            self.owned.add(("n", nation))
        return self.nations[nation]

    def player_w(self, player: str) -> PlayerState:
        """The player's state, made this state's own before it is changed."""
        if ("p", player) not in self.owned:
            self.players[player] = self.players[player].clone()
            self.owned.add(("p", player))
        return self.players[player]

    def clone(self) -> GameState:
        """A deep, independent copy (for callers that edit states by hand, e.g. tests)."""
        return GameState(
            self.board,
            self.setup,
            {k: v.clone() for k, v in self.nations.items()},
            {k: v.clone() for k, v in self.players.items()},
            self.investor_card,
            self.step,
            self.turn,
            self.round,
            self.version,
            dict(self.scores) if self.scores is not None else None,
            dict(self.standing),
        )

    # --- derived facts, kept out of the stored state on purpose -----------------

    @property
    def finished(self) -> bool:
        return isinstance(self.step, FinishedStep)

    @property
    def seating(self) -> tuple[str, ...]:
        return self.setup.player_names

    def governed_by(self, player: str) -> tuple[str, ...]:
        return tuple(n for n in self.board.nation_ids if self.nations[n].government == player)

    def has_swiss_bank(self, player: str) -> bool:
        """R-INVEST-7: a player governing no nation holds a Swiss bank."""
        return not any(n.government == player for n in self.nations.values())

    def seats_from(self, player: str) -> tuple[str, ...]:
        """All players clockwise, starting with ``player``."""
        order = self.seating
        i = order.index(player)
        return order[i:] + order[:i]

    def next_seat(self, player: str) -> str:
        return self.seats_from(player)[1 % len(self.seating)]

    def bonds_held(self, nation: str) -> list[tuple[str, Bond]]:
        return [(p.name, b) for p in self.players.values() for b in p.bonds if b.nation == nation]

    def bonds_available(self, nation: str) -> tuple[int, ...]:
        """R-PIECE-3: bond values of a nation still in its stock."""
        held = {b.value for p in self.players.values() for b in p.bonds if b.nation == nation}
        return tuple(t.value for t in self.board.tables.bonds if t.value not in held)

    def stock(self) -> dict[str, tuple[int, ...]]:
        """``bonds_available`` for every nation at once (one pass over the players)."""
        held: dict[str, set[int]] = {n: set() for n in self.board.nation_ids}
        for p in self.players.values():
            for b in p.bonds:
                held[b.nation].add(b.value)
        values = [t.value for t in self.board.tables.bonds]
        return {n: tuple(v for v in values if v not in h) for n, h in held.items()}

    def multiplier(self, nation: str) -> int:
        return self.board.tables.multiplier(self.nations[nation].power)
