"""Deadlines: every pending decision has one; reminders before it; on expiry the passive default or the game master.

Nothing is stored for a deadline: it is derived (ARCHITECTURE: "Deadlines and
reminders hang on pending decisions").

- A decision's *clock* starts when it became pending: the ``applied`` time of
  the latest logged action that answered a decision (DONATE and STANDING orders,
  which a player may give at any time, do not restart anyone's clock), else the
  game's creation. The game master restarts the clock of the whole game with
  ``undo``, ``replace`` and ``resume`` (``pbem.moderator.gamemaster``): each stores the
  time in ``GameSettings.clock_reset`` (and, with mail, queues a notice to
  every seat whose outbox purpose is in :data:`CLOCK_PURPOSES`, which older
  games were read from), and the newest restart counts as a start too. So a resumed game gets its full
  deadline again, and an undone move does not leave a long-expired deadline.
- ``due`` = clock start + ``settings.hours_for(kind)`` (the kind's hours, else
  the game's fallback ``*`` from ``[deadlines] default``; a kind without hours,
  or with 0 hours or fewer, has no deadline). A reminder is due
  ``h`` hours before ``due`` for each ``h`` in ``settings.reminder_hours`` that
  falls after the clock start.

The tick (``pbem.moderator.tick``: the daemon calls it every minute) acts on
what falls due here: reminders, passive defaults, the stand-in, alerts. This
module only computes; it writes nothing and sends nothing.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from engine.core.decisions import Pending
from pbem.errors import StoreError
from pbem.games import DEFAULT_KIND, GameKind, UnknownKind, kind_of
from pbem.store.absence import vacations_of
from pbem.store.models import ActionRow, GameRow, as_utc
from pbem.store.outbox import OutboxRow
from pbem.store.settings import GameSettings, load_settings

#: Outbox purposes of the game master's notices that restart the deadline clock of a game (a notice that carries
#: a decider's prompt keeps its purpose; the game master's ask to replace a seat comes with the stand-in's move).
CLOCK_PURPOSES = ("undo", "replace", "resume")


@dataclass(frozen=True)
class Deadline:
    """When ``player`` must have answered their pending decision, and when to remind them."""

    player: str
    nation: str | None
    kind: str
    due: datetime
    reminders: list[datetime] = field(default_factory=list)  # oldest first, each after ``since``
    since: datetime | None = None  # when the decision's clock started
    pending: Pending | None = field(default=None, compare=False, repr=False)

    @property
    def decision(self) -> Any:
        """The game's own decision (``pending`` summarises it for the moderator)."""
        return None if self.pending is None else self.pending.detail

    @property
    def passive(self) -> bool:
        """Whether the decision takes its default on expiry (else the game master is alerted)."""
        return self.pending is not None and self.pending.has_default

    def reminder_hours(self, moment: datetime) -> float:
        """How many hours before ``due`` the reminder at ``moment`` is."""
        return round((self.due - moment).total_seconds() / 3600, 4)


utc = as_utc  # the name the game master's modules import


def deadlines(state: Any, settings: GameSettings, since: datetime,
              kind: GameKind | None = None,
              vacations: Mapping[str, datetime] | None = None) -> list[Deadline]:
    """The deadline of every pending decision whose kind has one (pure: no clock, no database).

    ``since`` is when the decisions became pending (:func:`decision_since`).
    ``settings.paused`` is not looked at here: a paused game has deadlines, it
    just does not act on them (:func:`tick` skips it). ``kind`` is the
    game's (by default the default kind). ``vacations`` (player ->
    back on): with ``settings.vacation == "stretch"`` a player's decision is
    due no sooner than its usual hours after they are back.
    """
    kind = kind or kind_of(DEFAULT_KIND)
    if kind.finished(state):
        return []
    start = utc(since)
    result = []
    for decision in kind.pending(state):
        if decision.answered:  # a sealed answer is in: nothing to remind of, no default to take
            continue
        hours = settings.hours_for(decision.kind)
        if hours is None or hours <= 0:
            continue
        due = start + timedelta(hours=float(hours))
        back = (vacations or {}).get(decision.player)
        if back is not None and settings.vacation == "stretch":
            due = max(due, utc(back) + timedelta(hours=float(hours)))
        reminders = sorted({due - timedelta(hours=float(h)) for h in settings.reminder_hours
                            if 0 < float(h) < float(hours)})
        result.append(Deadline(decision.player, decision.subject, decision.kind, due, reminders, start, decision))
    return result


# --- the clock, from the database ------------------------------------------------------------


LOOK_BACK = 200  # log rows read back for the latest decision; a game with more side actions in a row starts late


def decision_since(session: Session, game: GameRow, state: Any = None) -> datetime:
    """When the game's pending decisions became pending (see the module docstring).

    With ``state``: while a sealed round is open (the kind's shown move lies
    behind the log), the clock starts where the round opened, so that one
    player's sealed answer moves nobody else's deadline. Without it (the
    tick's cheap look before loading a game), sealed answers are passed over
    like side actions: the start found is then never later than the true one.
    """
    start = utc(game.created)
    kind = kind_of_game(game)
    shown = kind.shown_move(state) if state is not None else None
    if shown is not None and shown < state.version:
        if shown > 0:
            opened = session.exec(select(ActionRow.applied).where(col(ActionRow.game_id) == game.id,
                                                                  col(ActionRow.version) == shown - 1)).first()
            if opened is not None:
                start = max(start, utc(opened))
        return _with_resets(session, game, start)
    rows = session.exec(
        select(ActionRow.applied, ActionRow.action).where(col(ActionRow.game_id) == game.id)
        .order_by(col(ActionRow.version).desc()).limit(LOOK_BACK)
    ).all()
    for applied, action in rows:
        if not _side_action(kind, action, sealed_too=state is None):
            start = max(start, utc(applied))
            break
    else:
        if len(rows) == LOOK_BACK:  # only side actions that far back: the oldest of them is a safe (late) start
            start = max(start, utc(rows[-1][0]))
    return _with_resets(session, game, start)


def _with_resets(session: Session, game: GameRow, start: datetime) -> datetime:
    """``start``, or the game master's latest restart of the clock (undo, replace, resume) if later; or the
    end of the extension of the pending decisions (``extend``) if they were pending when it was given."""
    reset = session.exec(
        select(func.max(col(OutboxRow.created))).where(col(OutboxRow.game_id) == game.id,
                                                  col(OutboxRow.purpose).in_(CLOCK_PURPOSES))
    ).one()
    if reset is not None:  # games from before clock_reset was stored: their notices tell
        start = max(start, utc(reset))
    settings = load_settings(session, game)
    stored, extended = settings.clock_reset, settings.extended_at
    if stored is not None and (extended is None or start <= utc(extended)):  # an extension: only for its decisions
        start = max(start, utc(stored))
    return start


def kind_of_game(game: GameRow) -> GameKind:
    try:
        return kind_of(game.kind)
    except UnknownKind as exc:
        raise StoreError(f"game {game.name!r}: {exc}") from None


def _side_action(kind: GameKind, data: Mapping[str, Any] | None, *, sealed_too: bool = False) -> bool:
    """Whether a logged action answered no decision (a donation, a standing order): it restarts no clock.

    ``sealed_too``: a sealed answer counts as one (it may be the round's last, which does start a clock;
    passing over it only makes the start earlier, which is safe for a look ahead).
    """
    try:
        action = kind.action_from_json(dict(data or {}))
        return kind.is_side_action(action) or (sealed_too and kind.is_sealed_answer(action))
    except Exception:  # an unreadable row is no side action; replay reports it elsewhere
        return False


def game_deadlines(session: Session, game: GameRow, state: Any,
                   settings: GameSettings | None = None) -> list[Deadline]:
    """:func:`deadlines` of a stored game at its current clock."""
    return deadlines(state, settings or load_settings(session, game), decision_since(session, game, state),
                     kind_of_game(game), vacations_of(session, game))


def first_due(settings: GameSettings, since: datetime) -> datetime | None:
    """The earliest moment any reminder or deadline of any kind could fall due (None: the game has no deadlines)."""
    first = []  # per kind: hours until its earliest reminder, else until its deadline
    for value in settings.deadline_hours.values():
        hours = float(value or 0)
        if hours > 0:
            first.append(hours - max((float(r) for r in settings.reminder_hours if 0 < float(r) < hours),
                                     default=0.0))
    return utc(since) + timedelta(hours=min(first)) if first else None


def _may_act(settings: GameSettings, since: datetime, now: datetime) -> bool:
    """Cheap test before loading a state: could any reminder or deadline of any kind be due by ``now``?"""
    first = first_due(settings, since)
    return first is not None and now >= first
