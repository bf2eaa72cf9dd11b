"""`pbem game set NAME key=value ...`: a game's own settings, changed while it runs.

Deadlines per decision (``deadline.bid=24``, ``deadline.default=48``; 0 means
no deadline), the reminders before a deadline (``reminders=24,2`` or
``none``), ``open_cash``, and the mail defaults of seats that chose none
(``mail=every|turn|round|daily``, ``board=on|off``), whether players may send each other press
(``press=none|signed|anonymous``, ``pbem.moderator.inbound.press``), and what happens when a player is absent:
``absent=alert|bot`` (a decision without a default past its deadline alerts the game master, or the
stand-in plays it), ``absent_limit=N`` (decisions the stand-in takes in a row before the game master is
asked to replace the seat; 0 never), ``vacation=stretch|bot`` and ``vacation_cap=DAYS``, and who may write
to the game (``allow=club.example,x@y.org``: only these besides its seats and observers; ``deny=...``: never
these; ``none`` empties a list: ``pbem.moderator.senders``). All pairs are
checked before any is stored: one
bad pair changes nothing. A changed deadline applies to the decisions pending
now as well, counted from when they became pending, as ``game show`` tells.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import replace as dc_replace
from enum import StrEnum
from typing import Any

from pbem.games import kind_of
from pbem.languages import Language
from pbem.moderator.gamemaster.common import GameMasterError, _locked_game, _transaction, words
from pbem.moderator.senders import parse_entries
from pbem.store import Database
from pbem.store.mailprefs import MailMode
from pbem.store.settings import FALLBACK_DECISION, PRESS_MODES, GameSettings, load_settings, save_settings

DEADLINE = "deadline."
KEYS = ("deadline.<decision>", "deadline.default", "reminders", "open_cash", "mail", "board", "press", "absent",
        "absent_limit", "vacation", "vacation_cap", "language", "allow", "deny")
# key -> (GameSettings field, the words it takes, whether it is a default for the seats that chose none)
CHOICES: dict[str, tuple[str, tuple[str, ...], bool]] = {
    "absent": ("absent", ("alert", "bot"), False),
    "vacation": ("vacation", ("stretch", "bot"), False),
    "mail": ("mail_default", tuple(m.value for m in MailMode), True),
    "press": ("press", PRESS_MODES, False),
    "language": ("language", tuple(language.value for language in Language), True),
}
FLAGS = {"board": ("board_default", True), "open_cash": ("open_cash", False)}  # key -> (field, a seats' default)
COUNTS = {"absent_limit": "absent_limit", "vacation_cap": "vacation_cap_days"}
LISTS = ("allow", "deny")  # addresses and domains; the GameSettings field has the key's name
YES = {"on": True, "yes": True, "true": True, "1": True, "off": False, "no": False, "false": False, "0": False}


class Value(StrEnum):
    """The kinds of value a setting takes, which ``core/setting_change.j2`` words each its own way."""

    DEADLINE = "deadline"  # hours, None when the game had none; 0 or fewer: no deadline
    REMINDERS = "reminders"  # hours before a deadline
    CHOICE = "choice"  # one of the setting's words
    FLAG = "flag"  # on or off
    COUNT = "count"  # a whole number
    LIST = "list"  # addresses and domains, joined by commas ("none" for an empty list)


@dataclass(frozen=True)
class SettingsChange:
    name: str
    changed: tuple[str, ...]  # "deadline.bid: 48h -> 24h" (core/setting_change.j2)
    settings: GameSettings


def set_game(db: Database, name: str, pairs: Sequence[str]) -> SettingsChange:
    """Apply ``key=value`` pairs to the game's settings, all or none (``GameMasterError`` names the bad one)."""
    if not pairs:
        raise GameMasterError("give at least one key=value; keys: " + ", ".join(KEYS))
    with _transaction(db) as session:
        game = _locked_game(session, name)
        settings = load_settings(session, game)
        decisions = _decisions(game.kind, settings)
        changed: list[str] = []
        for pair in pairs:
            settings = _apply(settings, pair, decisions, changed)
        save_settings(session, game, settings)
    return SettingsChange(name, tuple(changed), settings)


def _decisions(kind_name: str, settings: GameSettings) -> tuple[str, ...]:
    """The decision names this game's deadlines may name: its kind's, and those it already has hours for."""
    known = dict.fromkeys(kind_of(kind_name).info.deadline_hours)
    known.update(dict.fromkeys(k for k in settings.deadline_hours if k != FALLBACK_DECISION))
    return tuple(known)


def _apply(settings: GameSettings, pair: str, decisions: tuple[str, ...], changed: list[str]) -> GameSettings:
    key, sep, value = (part.strip() for part in pair.partition("="))
    key = key.lower()
    if not sep or not value:
        raise GameMasterError(f"{pair!r}: write key=value, e.g. deadline.bid=24")
    if key.startswith(DEADLINE):
        return _deadline(settings, key[len(DEADLINE):], value, decisions, changed)
    if key == "reminders":
        hours = () if value.lower() == "none" else tuple(sorted((_hours(key, h) for h in value.split(",")),
                                                               reverse=True))
        changed.append(_change(Value.REMINDERS, key, settings.reminder_hours, hours))
        return dc_replace(settings, reminder_hours=hours)
    if key in CHOICES:
        field, choices, defaults = CHOICES[key]
        if value.lower() not in choices:
            raise GameMasterError(f"{key}={value}: one of " + ", ".join(choices))
        changed.append(_change(Value.CHOICE, key, getattr(settings, field), value.lower(), defaults))
        return _set(settings, field, value.lower())
    if key in FLAGS:
        field, defaults = FLAGS[key]
        if value.lower() not in YES:
            raise GameMasterError(f"{key}={value}: write on or off")
        changed.append(_change(Value.FLAG, key, getattr(settings, field), YES[value.lower()], defaults))
        return _set(settings, field, YES[value.lower()])
    if key in COUNTS:
        if not value.isdigit() or int(value) > 365:
            raise GameMasterError(f"{key}={value}: a whole number from 0 to 365")
        changed.append(_change(Value.COUNT, key, getattr(settings, COUNTS[key]), int(value)))
        return _set(settings, COUNTS[key], int(value))
    if key in LISTS:
        try:
            entries = parse_entries(value)
        except ValueError as exc:
            raise GameMasterError(f"{key}={value}: {exc}") from None
        changed.append(_change(Value.LIST, key, ",".join(getattr(settings, key)) or "none", ",".join(entries) or "none"))
        return _set(settings, key, entries)
    raise GameMasterError(f"{key!r} is no setting; keys: " + ", ".join(KEYS))


def _set(settings: GameSettings, field: str, value: Any) -> GameSettings:
    changes: dict[str, Any] = {field: value}
    return dc_replace(settings, **changes)


def _deadline(settings: GameSettings, decision: str, value: str, decisions: tuple[str, ...],
              changed: list[str]) -> GameSettings:
    target = FALLBACK_DECISION if decision == "default" else decision
    if target != FALLBACK_DECISION and decision not in decisions:
        raise GameMasterError(f"{decision!r} is no decision of this game; its decisions: {', '.join(decisions)}"
                              " (or deadline.default)")
    hours = _hours(f"deadline.{decision}", value)
    before = settings.deadline_hours.get(target)
    changed.append(_change(Value.DEADLINE, f"deadline.{decision}", before, hours))
    return dc_replace(settings, deadline_hours={**settings.deadline_hours, target: hours})


def _hours(key: str, text: str) -> float:
    try:
        hours = float(text.strip().lower().removesuffix("h"))
    except ValueError:
        raise GameMasterError(f"{key}={text}: give hours as a number, e.g. 24") from None
    if hours < 0 or hours > 24 * 365:
        raise GameMasterError(f"{key}={text}: hours from 0 (no deadline) to a year")
    return hours


def _change(change: Value, key: str, before: Any, after: Any, defaults: bool = False) -> str:
    """How ``pbem game set`` tells one changed setting (``core/setting_change.j2``, which words each kind of
    value its own way)."""
    return words("core/setting_change.j2", change=change, key=key, before=before, after=after, defaults=defaults)
