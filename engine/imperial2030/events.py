"""What happened: typed events returned by ``apply``, the raw material of reports.

Every movement of money is a ``MoneyMoved`` event between two accounts, so that
the conservation of money can be checked from the events alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.imperial2030.model import Stance, StandingOrder, UnitKind


class AccountKind(StrEnum):
    BANK = "bank"
    TREASURY = "treasury"
    CASH = "cash"


@dataclass(frozen=True, slots=True)
class Account:
    kind: AccountKind
    owner: str | None = None  # nation for a treasury, player for cash

    @property
    def holder(self) -> str:
        """The nation or player owning a treasury or cash account (the bank has none)."""
        if self.owner is None:
            raise ValueError("the bank's account has no owner")
        return self.owner


BANK = Account(AccountKind.BANK)


def treasury(nation: str) -> Account:
    return Account(AccountKind.TREASURY, nation)


def cash(player: str) -> Account:
    return Account(AccountKind.CASH, player)


class Reason(StrEnum):
    STARTING_CASH = "starting cash"
    BOND = "bond"
    UPGRADE = "bond upgrade"
    RONDEL = "rondel move"
    INTEREST = "interest"
    INTEREST_SHORTFALL = "interest shortfall"
    INVESTOR_CARD = "investor card"
    FACTORY = "factory"
    IMPORT = "import"
    TAX = "tax income"
    SOLDIERS_PAY = "soldiers' pay"
    BONUS = "success bonus"
    DONATION = "donation"


@dataclass(frozen=True, slots=True)
class MoneyMoved:
    source: Account
    target: Account
    amount: int
    reason: Reason


@dataclass(frozen=True, slots=True)
class FlagCardDealt:
    nation: str
    player: str


@dataclass(frozen=True, slots=True)
class BondBought:
    player: str
    nation: str
    value: int


@dataclass(frozen=True, slots=True)
class BondUpgraded:
    player: str
    nation: str
    old: int
    new: int


@dataclass(frozen=True, slots=True)
class InvestmentPassed:
    player: str


@dataclass(frozen=True, slots=True)
class GovernmentChanged:
    nation: str
    old: str | None
    new: str


@dataclass(frozen=True, slots=True)
class InvestorCardPassed:
    old: str | None
    new: str


@dataclass(frozen=True, slots=True)
class TurnStarted:
    nation: str
    round: int


@dataclass(frozen=True, slots=True)
class NationSkipped:
    """R-TURN-1: a nation without government is skipped."""

    nation: str


@dataclass(frozen=True, slots=True)
class RondelMoved:
    nation: str
    start: str | None
    space: str
    steps: int
    cost: int
    forced_by: str | None = None


@dataclass(frozen=True, slots=True)
class ForceStopAnswered:
    player: str
    nation: str
    force: bool


@dataclass(frozen=True, slots=True)
class FactoryBuilt:
    nation: str
    city: str


@dataclass(frozen=True, slots=True)
class UnitsPlaced:
    nation: str
    kind: UnitKind
    region: str
    count: int
    imported: bool


@dataclass(frozen=True, slots=True)
class NothingDone:
    """An action step that had no legal effect (no money, no site, no supply)."""

    nation: str
    action: str
    why: str


@dataclass(frozen=True, slots=True)
class TaxCollected:
    nation: str
    income: int
    factories: int
    flags: int
    soldiers_owed: int
    soldiers_paid: int
    bonus: int


@dataclass(frozen=True, slots=True)
class PowerGained:
    nation: str
    points: int
    total: int


@dataclass(frozen=True, slots=True)
class FleetMoved:
    nation: str
    origin: str
    dest: str
    canal: str | None = None


@dataclass(frozen=True, slots=True)
class ArmyMoved:
    """An army's whole move; ``seas`` are the seas whose fleets carried it."""

    nation: str
    origin: str
    dest: str
    seas: tuple[str, ...] = ()
    stance: Stance | None = None
    by_rail: bool = False


@dataclass(frozen=True, slots=True)
class Battle:
    """R-BATTLE-1..3: one unit of each side removed."""

    region: str
    attacker: str
    attacker_kind: UnitKind
    defender: str
    defender_kind: UnitKind


@dataclass(frozen=True, slots=True)
class FightAnswered:
    player: str
    nation: str
    region: str
    fight: bool
    standing: bool = False


@dataclass(frozen=True, slots=True)
class PassageAnswered:
    player: str
    nation: str  # the controller
    canal: str
    mover: str
    allow: bool
    standing: bool = False


@dataclass(frozen=True, slots=True)
class FactoryDestroyed:
    owner: str
    province: str
    by: str


@dataclass(frozen=True, slots=True)
class FlagPlaced:
    nation: str
    region: str
    replaced: str | None = None


@dataclass(frozen=True, slots=True)
class FlagRemoved:
    """R-FLAG-3: an old flag removed because the occupier has no flag left to place."""

    nation: str
    region: str
    occupier: str


@dataclass(frozen=True, slots=True)
class StandingChanged:
    player: str
    order: StandingOrder | None  # None: all cleared


@dataclass(frozen=True, slots=True)
class GameEnded:
    reason: str
    scores: tuple[tuple[str, int], ...]  # ranked, winner first


Event = (
    MoneyMoved
    | FlagCardDealt
    | BondBought
    | BondUpgraded
    | InvestmentPassed
    | GovernmentChanged
    | InvestorCardPassed
    | TurnStarted
    | NationSkipped
    | RondelMoved
    | ForceStopAnswered
    | FactoryBuilt
    | UnitsPlaced
    | NothingDone
    | TaxCollected
    | PowerGained
    | FleetMoved
    | ArmyMoved
    | Battle
    | FightAnswered
    | PassageAnswered
    | FactoryDestroyed
    | FlagPlaced
    | FlagRemoved
    | StandingChanged
    | GameEnded
)
