"""What a player can do: small frozen value objects that convert to and from JSON.

Actions carry only the player's choice; who made it and the state version it
was made against travel beside it in the log.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

from engine.errors import EngineError
from engine.model import UnitKind


@dataclass(frozen=True, slots=True)
class ChooseSpace:
    """RONDEL: move the nation's marker to a space (R-RONDEL-2/3)."""

    space: str
    tag: ClassVar[str] = "rondel"


@dataclass(frozen=True, slots=True)
class ForceStop:
    """FORCE / NO FORCE: a Swiss-bank holder's answer (R-RONDEL-5)."""

    force: bool
    tag: ClassVar[str] = "force"


@dataclass(frozen=True, slots=True)
class BuildFactory:
    """BUILD: the factory type follows from the city (R-FACTORY-1)."""

    city: str
    tag: ClassVar[str] = "build"


@dataclass(frozen=True, slots=True)
class Produce:
    """PRODUCE: ``provinces`` None means every eligible factory (R-PROD-1)."""

    provinces: tuple[str, ...] | None = None
    tag: ClassVar[str] = "produce"


@dataclass(frozen=True, slots=True)
class ImportUnit:
    kind: UnitKind
    region: str


@dataclass(frozen=True, slots=True)
class Import:
    """IMPORT: up to three units (R-IMPORT-1); empty imports nothing."""

    units: tuple[ImportUnit, ...] = ()
    tag: ClassVar[str] = "import"


@dataclass(frozen=True, slots=True)
class BuyBond:
    """BUY: a bond from a nation's stock (R-INVEST-5, R-SETUP-7)."""

    nation: str
    value: int
    tag: ClassVar[str] = "buy"


@dataclass(frozen=True, slots=True)
class UpgradeBond:
    """UPGRADE: hand back an own bond for a higher one, paying the difference (R-INVEST-5)."""

    nation: str
    old: int
    new: int
    tag: ClassVar[str] = "upgrade"


@dataclass(frozen=True, slots=True)
class Pass:
    """PASS: the passive answer to the open decision."""

    tag: ClassVar[str] = "pass"


@dataclass(frozen=True, slots=True)
class Donate:
    """DONATE: own cash to a treasury the player governs, at any time (R-PIECE-5)."""

    nation: str
    amount: int
    tag: ClassVar[str] = "donate"


Action = ChooseSpace | ForceStop | BuildFactory | Produce | Import | BuyBond | UpgradeBond | Pass | Donate

ACTION_TYPES: dict[str, type] = {
    cls.tag: cls for cls in (ChooseSpace, ForceStop, BuildFactory, Produce, Import, BuyBond, UpgradeBond, Pass, Donate)
}


class ActionFormatError(EngineError):
    """A JSON action that does not describe any action."""


def action_to_json(action: Action) -> dict[str, Any]:
    data: dict[str, Any] = {"type": action.tag}
    for f in fields(action):
        value = getattr(action, f.name)
        if isinstance(action, Import) and f.name == "units":
            value = [{"kind": u.kind.value, "region": u.region} for u in value]
        elif isinstance(value, tuple):
            value = list(value)
        data[f.name] = value
    return data


def action_from_json(data: dict[str, Any]) -> Action:
    try:
        cls = ACTION_TYPES[data["type"]]
        kwargs = {k: v for k, v in data.items() if k != "type"}
        if cls is Import:
            kwargs["units"] = tuple(ImportUnit(UnitKind(u["kind"]), u["region"]) for u in kwargs.get("units", ()))
        elif cls is Produce and kwargs.get("provinces") is not None:
            kwargs["provinces"] = tuple(kwargs["provinces"])
        return cls(**kwargs)
    except (KeyError, TypeError, ValueError) as exc:
        raise ActionFormatError(f"not an action: {data!r} ({exc})") from None
