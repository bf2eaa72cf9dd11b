"""What happened: typed events returned by ``apply``, the raw material of reports.

Every movement of money is a ``MoneyMoved`` event between two accounts, so that
the conservation of money can be checked from the events alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.model import UnitKind


class AccountKind(StrEnum):
    BANK = "bank"
    TREASURY = "treasury"
    CASH = "cash"


@dataclass(frozen=True, slots=True)
class Account:
    kind: AccountKind
    owner: str | None = None  # nation for a treasury, player for cash


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
class ManeuverSkipped:
    """Until the maneuver is implemented, a Maneuver turn moves nothing."""

    nation: str


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
    | ManeuverSkipped
    | GameEnded
)
