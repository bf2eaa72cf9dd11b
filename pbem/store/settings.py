"""Per-game moderation settings: what the game master chose beyond the rules.

Kept apart from the setup (which is the engine's, and replay's, starting
point): these can change during a game (pause, deadlines) without touching
the game itself.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, Column, DateTime, ForeignKey, Integer, String, bindparam
from sqlalchemy import true as sa_true
from sqlmodel import Field, Session, SQLModel, col, select

from pbem.store.alarm import wake
from pbem.store.models import GameRow, id_of, utcnow

# Hours a player has for each kind of decision (engine DecisionKind values), and
# reminders sent that many hours before a deadline. Overridden by [deadlines] in the config.
DEFAULT_DEADLINE_HOURS: dict[str, float] = {
    "rondel": 72, "factory": 72, "production": 72, "import": 72, "maneuver": 72,
    "investment": 48, "setup_bond": 48, "force_stop": 24, "canal": 24, "battle": 24,
}
DEFAULT_REMINDER_HOURS: tuple[float, ...] = (24.0,)
FALLBACK_DECISION = "*"  # hours for a decision the game's hours do not name ([deadlines] default)
# Press between players (pbem.moderator.inbound.press): off, relayed with the sender's name, or without it.
PRESS_MODES = ("none", "signed", "anonymous")
DEFAULT_PRESS = "signed"


@dataclass
class GameSettings:
    open_cash: bool = False
    paused: bool = False
    deadline_hours: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_DEADLINE_HOURS))
    reminder_hours: tuple[float, ...] = DEFAULT_REMINDER_HOURS
    thread_root: str = ""  # Message-ID of the game's first mail: every later mail threads under it
    clock_reset: datetime | None = None  # undo, replace and resume restart every deadline from here
    mail_default: str = "every"  # a seat's mail mode unless it chose one (pbem.store.mailprefs.MailMode)
    board_default: bool = True  # whether reports carry the board unless the seat chose
    press: str = DEFAULT_PRESS  # one of PRESS_MODES
    absent: str = "alert"  # an expired decision without a default: "alert" the game master, or "bot" plays it
    absent_limit: int = 3  # decisions the stand-in took in a row before the game master is asked to replace
    vacation: str = "stretch"  # VACATION UNTIL: "stretch" the seat's deadlines, or the "bot" stands in
    vacation_cap_days: int = 14  # the longest vacation a player may announce
    language: str = "en"  # a seat's mail language unless it chose one (pbem.languages.Language)
    # who may write to the game besides the host's lists (pbem.moderator.senders): addresses and domains
    allow: tuple[str, ...] = ()  # when not empty, only these (and the seats and observers themselves)
    deny: tuple[str, ...] = ()  # never these
    # When the game master last gave more time (``clock_reset`` then lies ahead): the extension counts only for
    # decisions pending at that moment (pbem.moderator.deadlines); a clock restart clears it.
    extended_at: datetime | None = None

    def hours_for(self, decision: str) -> float | None:
        """The hours a decision of this kind gets, else the game's fallback; None: no deadline."""
        hours = self.deadline_hours.get(decision, self.deadline_hours.get(FALLBACK_DECISION))
        return None if hours is None else float(hours)


class GameSettingsRow(SQLModel, table=True):
    __tablename__ = "game_settings"

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(sa_column=Column(Integer, ForeignKey("games.id", ondelete="CASCADE"),
                                          nullable=False, unique=True))
    open_cash: bool = Field(default=False, sa_column=Column(Boolean, nullable=False))
    paused: bool = Field(default=False, sa_column=Column(Boolean, nullable=False))
    deadline_hours: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    reminder_hours: list[Any] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    thread_root: str = Field(default="", sa_column=Column(String(255), nullable=False))
    clock_reset: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))
    mail_default: str = Field(default="every", sa_column=Column(String(8), nullable=False, server_default="every"))
    board_default: bool = Field(default=True, sa_column=Column(Boolean, nullable=False, server_default=sa_true()))
    press: str = Field(default=DEFAULT_PRESS, sa_column=Column(String(9), nullable=False,
                                                               server_default=DEFAULT_PRESS))
    absent: str = Field(default="alert", sa_column=Column(String(8), nullable=False, server_default="alert"))
    absent_limit: int = Field(default=3, sa_column=Column(Integer, nullable=False, server_default="3"))
    vacation: str = Field(default="stretch", sa_column=Column(String(8), nullable=False, server_default="stretch"))
    vacation_cap_days: int = Field(default=14, sa_column=Column(Integer, nullable=False, server_default="14"))
    language: str = Field(default="en", sa_column=Column(String(8), nullable=False, server_default="en"))
    allow: list[Any] = Field(default_factory=list, sa_column=Column(JSON, nullable=False, server_default="[]"))
    deny: list[Any] = Field(default_factory=list, sa_column=Column(JSON, nullable=False, server_default="[]"))
    extended_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))
    changed: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))


_OF_GAME = select(GameSettingsRow).where(col(GameSettingsRow.game_id) == bindparam("game"))  # built once: run for every order


def load_settings(session: Session, game: GameRow) -> GameSettings:
    row = session.exec(_OF_GAME, params={"game": game.id}).first()
    if row is None:
        return GameSettings()
    hours = {k: float(v) for k, v in row.deadline_hours.items()}  # every game's row names all its hours
    return GameSettings(row.open_cash, row.paused, hours,
                        tuple(float(h) for h in row.reminder_hours), row.thread_root,  # empty: reminders=none
                        row.clock_reset, row.mail_default, row.board_default, row.press, row.absent,
                        row.absent_limit, row.vacation, row.vacation_cap_days, row.language,
                        tuple(str(entry) for entry in row.allow or ()), tuple(str(entry) for entry in row.deny or ()),
                        row.extended_at)


def save_settings(session: Session, game: GameRow, settings: GameSettings) -> None:
    """Store the settings; wakes the deadline tick's alarm (hours, pause, clock restarts, mail defaults)."""
    wake(session, game.id)
    _write(session, game, settings)


def _write(session: Session, game: GameRow, settings: GameSettings) -> None:
    row = session.exec(select(GameSettingsRow).where(col(GameSettingsRow.game_id) == game.id)).first()
    if row is None:
        row = GameSettingsRow(game_id=id_of(game))
    row.open_cash = settings.open_cash
    row.paused = settings.paused
    row.deadline_hours = dict(settings.deadline_hours)
    row.reminder_hours = list(settings.reminder_hours)
    row.thread_root = settings.thread_root
    row.clock_reset = settings.clock_reset
    row.mail_default = settings.mail_default
    row.board_default = settings.board_default
    row.press = settings.press
    row.absent = settings.absent
    row.absent_limit = settings.absent_limit
    row.vacation = settings.vacation
    row.vacation_cap_days = settings.vacation_cap_days
    row.language = settings.language
    row.allow = list(settings.allow)
    row.deny = list(settings.deny)
    row.extended_at = settings.extended_at
    row.changed = utcnow()
    session.add(row)
    session.flush()


def pin_thread_root(session: Session, game: GameRow, settings: GameSettings, root: str) -> None:
    """Store the game's mail thread root in ``settings`` (as loaded now): a game made without mail gets it with
    its first mail.

    Unlike :func:`save_settings` it leaves the deadline tick's alarm alone: a
    thread moves no deadline, and a reminder the tick mails must not make it
    look at the game again at once."""
    settings.thread_root = root
    _write(session, game, settings)
