"""What a player can do: small frozen value objects that convert to and from JSON.

Actions carry only the player's choice; who made it and the state version it
was made against travel beside it in the log.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any, ClassVar

from engine.imperial2030.errors import EngineError
from engine.imperial2030.model import Stance, StandingKind, StandingOrder, UnitKind


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


@dataclass(frozen=True, slots=True)
class FleetMove:
    """FLEET: one sea step, or out of port onto its sea (R-MOVE-1); may attack a fleet there."""

    origin: str
    dest: str
    attack: str | None = None
    tag: ClassVar[str] = "fleet"


@dataclass(frozen=True, slots=True)
class ArmyMove:
    """ARMY: rail, one land step or one convoy, rail (R-MOVE-3..5).

    ``via`` forces the seas of a convoy; ``attack``/``attack_kind`` fight a unit
    of that nation on entry (R-BATTLE-1/3).
    """

    origin: str
    dest: str
    stance: Stance | None = None
    attack: str | None = None
    attack_kind: UnitKind | None = None
    via: tuple[str, ...] | None = None
    tag: ClassVar[str] = "army"


@dataclass(frozen=True, slots=True)
class Attack:
    """ATTACK: a unit of the active nation that did not move attacks in its region (R-BATTLE-2)."""

    region: str
    nation: str
    kind: UnitKind | None = None
    tag: ClassVar[str] = "attack"


@dataclass(frozen=True, slots=True)
class DestroyFactory:
    """DESTROY FACTORY: three armies remove a foreign factory (R-HOSTILE-3)."""

    province: str
    tag: ClassVar[str] = "destroy"


@dataclass(frozen=True, slots=True)
class Done:
    """DONE: ends the maneuver; flags are placed (R-FLAG-1)."""

    tag: ClassVar[str] = "done"


@dataclass(frozen=True, slots=True)
class Fight:
    """FIGHT / NO FIGHT: the answer when a unit enters a region of yours (R-BATTLE-1).

    ``nation`` is which of the answering government's nations fights, ``kind``
    its unit that fights; both may be left for the engine to infer.
    """

    fight: bool
    nation: str | None = None
    kind: UnitKind | None = None
    tag: ClassVar[str] = "fight"


@dataclass(frozen=True, slots=True)
class Passage:
    """ALLOW / DENY: the canal controller's answer (R-MOVE-2)."""

    allow: bool
    tag: ClassVar[str] = "passage"


@dataclass(frozen=True, slots=True)
class SetStanding:
    """STANDING <order>: keep an answer ready; it replaces an earlier one on the same question."""

    order: StandingOrder
    tag: ClassVar[str] = "standing"


@dataclass(frozen=True, slots=True)
class ClearStanding:
    """STANDING CLEAR: forget every standing answer of the player."""

    tag: ClassVar[str] = "standing_clear"


Action = (
    ChooseSpace | ForceStop | BuildFactory | Produce | Import | BuyBond | UpgradeBond | Pass | Donate
    | FleetMove | ArmyMove | Attack | DestroyFactory | Done | Fight | Passage | SetStanding | ClearStanding
)

ACTION_TYPES: dict[str, type[Action]] = {
    cls.tag: cls
    for cls in (ChooseSpace, ForceStop, BuildFactory, Produce, Import, BuyBond, UpgradeBond, Pass, Donate,
                FleetMove, ArmyMove, Attack, DestroyFactory, Done, Fight, Passage, SetStanding, ClearStanding)
}

# Actions a player may take whatever the game waits for.
ANYTIME = (Donate, SetStanding, ClearStanding)


class ActionFormatError(EngineError):
    """A JSON action that does not describe any action."""


def action_to_json(action: Action) -> dict[str, Any]:
    data: dict[str, Any] = {"type": action.tag}
    for f in fields(action):
        data[f.name] = _plain(getattr(action, f.name))
    return data


def _plain(value: Any) -> Any:
    if isinstance(value, ImportUnit):
        return {"kind": value.kind.value, "region": value.region}
    if isinstance(value, StandingOrder):
        return {"kind": value.kind.value, "nation": value.nation, "canal": value.canal}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, StrEnum):
        return value.value
    return value


_TUPLE_FIELDS = {"provinces", "via"}
_ENUM_FIELDS: dict[str, type[StrEnum]] = {"stance": Stance, "kind": UnitKind, "attack_kind": UnitKind}


def action_from_json(data: dict[str, Any]) -> Action:
    try:
        cls = ACTION_TYPES[data["type"]]
        kwargs = {k: v for k, v in data.items() if k != "type"}
        for name, value in list(kwargs.items()):
            if value is None:
                continue
            if cls is Import and name == "units":
                kwargs[name] = tuple(ImportUnit(UnitKind(u["kind"]), u["region"]) for u in value)
            elif cls is SetStanding and name == "order":
                kwargs[name] = StandingOrder(StandingKind(value["kind"]), value.get("nation"), value.get("canal"))
            elif name in _TUPLE_FIELDS:
                kwargs[name] = tuple(value)
            elif name in _ENUM_FIELDS:
                kwargs[name] = _ENUM_FIELDS[name](value)
        action: Action = cls(**kwargs)
        return action
    except (KeyError, TypeError, ValueError) as exc:
        raise ActionFormatError(f"not an action: {data!r} ({exc})") from None
