"""The deadline tick: what falls due in a game is done, as if a player had mailed it.

:func:`tick` (the daemon calls it every minute, ``pbem poll`` once per pass,
``pbem deadlines tick`` once) acts on every active, unpaused game whose
*alarm* has rung, one transaction per game. **Why**: looking into every game
every minute made the tick's cost grow with the number of games (issue 13).
Each game row carries its alarm (``games.next_check``, ``pbem.store.alarm``):
the earliest moment the tick may have anything to do there, stored by the tick
after it looked (the next reminder, expiry, daily digest or end of a vacation;
before anything is loaded, the cheap bound of :func:`pbem.moderator.deadlines.first_due`), and cleared
by every change that can move a deadline (an action logged, settings saved —
pause, resume, ``game set``, the clock restarts of undo and replace — a
status change, a vacation, a mail mode, news kept for a digest), so that the
next tick looks. So a tick over idle games is one indexed query, whatever
their number. A paused game is listed as paused without being opened; a
stalled decision (no default, game master alerted) and anything due that the
tick could not mail are looked at again an hour later (:data:`LOOK_AGAIN`);
``pbem deadlines tick`` looks at every active game (``everything``). In each game:

- a reminder whose time has come is queued to the deciding player (the prompt
  with its deadline, under a reminder line); when several are due at once only
  the latest is sent. Its Message-ID is stable (game, version, player, hours,
  clock start), so a tick run twice, or by two processes, queues it once.
- a seat whose mail bounces (``seats.unreachable``, ``pbem.moderator.inbound.bounces``) cannot read its
  prompt: with ``absent = bot`` the stand-in plays its in-turn decisions at once, as for a vacation; else
  its decisions wait for their deadlines and their defaults, like any silent seat's.
- on expiry, a decision with a passive default takes it: the canonical order
  text of ``decision.default`` is applied as the deciding player through the
  order layer, exactly as if it had come by mail (so waiting lines of the
  maneuvering government resume), logged in the
  same transaction, and mailed as a mailed order is once that transaction
  has committed (``pbem.moderator.notify.telling``: each seat in its mail
  mode, the next decider's prompt in its one mail), telling "no answer by
  the deadline: PASS". **Decision**: the
  passive default is taken for every decision that has one, not only the
  out-of-turn questions of R-DECIDE-2 (investment, setup bond, force-stop,
  canal, battle): the engine also gives the maneuver (DONE) and production
  (PRODUCE: every factory) a default, and the prompt promises the player
  "Without an answer by the deadline, the game takes: DONE". Rondel, factory
  and import have none: there the game master is alerted (a mail to
  ``game_master``, once per decision: stable Message-ID) and decides with
  ``pbem force`` / ``pbem replace``.

The deadlines themselves are computed by ``pbem.moderator.deadlines``
(pure); the mail and the moves are the game master's machinery
(``pbem.moderator.gamemaster``), which this module drives.
"""
from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from pbem import counters, store
from pbem.errors import PbemError, StoreError
from pbem.moderator.deadlines import Deadline, deadlines, decision_since, first_due, kind_of_game, utc
from pbem.moderator.gamemaster.common import MailContext, TickLine, tick_words
from pbem.moderator.gamemaster.digests import daily_digests, next_digest
from pbem.moderator.gamemaster.playing import alert_addresses, alert_game_master, apply_default, remind, stand_in
from pbem.render.text import utc_stamp
from pbem.store import Database
from pbem.store.absence import unreachable_of, vacations_of
from pbem.store.alarm import NEVER, PAUSED, DueGame, due_games, settle
from pbem.store.models import GameRow, GameStatus
from pbem.store.settings import GameSettings, load_settings

log = logging.getLogger("pbem.moderator.tick")

#: When the tick looks again at a game where something is due that it could not do (a stalled decision waits
#: for the game master; a reminder or a digest without a moderator address to mail it from).
LOOK_AGAIN = timedelta(hours=1)


@dataclass(frozen=True)
class TickItem:
    """One thing a tick did (or found) in one game."""

    game: str
    player: str
    kind: str
    due: datetime
    detail: str = ""
    game_kind: str = ""  # the game's kind, for the count of moves made at deadlines (``pbem.counters``)
    by: str = "default"  # who moved (among ``defaults``): the passive ``default`` or the ``stand_in``


@dataclass
class TickReport:
    """What one :func:`tick` did: mails queued, defaults applied, games skipped, errors."""

    now: datetime
    checked: list[str] = field(default_factory=list)  # active games looked at
    paused: list[str] = field(default_factory=list)  # active games skipped because paused
    reminders: list[TickItem] = field(default_factory=list)  # reminders queued now
    defaults: list[TickItem] = field(default_factory=list)  # passive defaults applied now
    alerts: list[TickItem] = field(default_factory=list)  # game-master alerts queued now
    stalled: list[TickItem] = field(default_factory=list)  # every expired decision without a default
    errors: list[str] = field(default_factory=list)  # games that failed this time (tried again next tick)

    @property
    def acted(self) -> bool:
        return bool(self.reminders or self.defaults or self.alerts)

    def lines(self) -> list[str]:
        """A human summary, one line per thing done."""
        out = [tick_words(TickLine.REMINDED, game=item.game, player=item.player, decision=item.kind,
                          due=utc_stamp(item.due)) for item in self.reminders]
        out += [tick_words(TickLine.ANSWERED, game=item.game, player=item.player, due=utc_stamp(item.due),
                           detail=item.detail) for item in self.defaults]
        out += [tick_words(TickLine.STALLED, game=item.game, player=item.player, decision=item.kind,
                           due=utc_stamp(item.due), detail=item.detail) for item in self.stalled]
        out += [tick_words(TickLine.PAUSED, game=name) for name in self.paused]
        out += [tick_words(TickLine.ERROR, error=error) for error in self.errors]
        if not out:
            out.append(tick_words(TickLine.NOTHING, checked=len(self.checked)))
        return out




def tick(
    db: Database,
    now: datetime | None = None,
    *,
    mail_domain: str | None = None,
    moderator_address: str | None = None,
    game_master: str | None = None,
    games: Iterable[str] | None = None,
    everything: bool = False,
) -> TickReport:
    """Act on every due reminder and expired deadline of every active, unpaused game (see the module docstring).

    Only the games whose alarm has rung are opened (``pbem.store.alarm``: one
    indexed query, so an idle game costs nothing); ``everything`` opens every
    active game instead (``pbem deadlines tick``, the game master's own look,
    which also repairs alarms after a database was edited by hand). Each game
    opened gets its next alarm. One transaction per game: a game that fails
    (a concurrent writer, a database hiccup) is listed in ``errors`` and tried
    again at the next tick; the others go on. ``games`` limits the tick to
    those games (by name).
    """
    now = utc(now or datetime.now(UTC))
    mail = MailContext.make(mail_domain=mail_domain, moderator_address=moderator_address,
                                       game_master=game_master)
    report = TickReport(now)
    try:
        with db.transaction() as session:
            listed = due_games(session, now, None if games is None else set(games), everything=everything)
    except SQLAlchemyError as exc:
        raise StoreError(f"cannot read the games in {db.display_url}: {getattr(exc, 'orig', None) or exc}") from None
    alarms: list[tuple[DueGame, datetime]] = []
    for listing in listed:
        name = listing.name
        if listing.paused:  # its alarm says so: nothing changed since a tick found it paused
            report.checked.append(name)
            report.paused.append(name)
            continue
        try:
            moves = len(report.defaults)
            with db.transaction() as session:
                alarm = _tick_game(session, listing.id, now, mail, report)
            for item in report.defaults[moves:]:  # committed: counted for a monitor
                counters.deadline_move(item.game_kind, item.by)
            if len(report.defaults) > moves:  # a default or the stand-in moved the game: its mail, now
                mail.tell(db, listing.id)
            if alarm is not None:
                alarms.append((listing, alarm))
        except (PbemError, SQLAlchemyError) as exc:
            message = f"{name}: {getattr(exc, 'orig', None) or exc}"
            log.warning("deadline tick: %s", message)
            report.errors.append(message)
        except Exception as exc:  # one broken game must not stop the daemon's other games
            log.exception("deadline tick: game %s failed", name)
            report.errors.append(f"{name}: {type(exc).__name__}: {exc}")
    try:
        if alarms:
            with db.transaction() as session:
                settle(session, alarms)
    except SQLAlchemyError as exc:  # the games stay due: the next tick looks at them again
        log.warning("deadline tick: the next alarms were not stored: %s", getattr(exc, "orig", None) or exc)
    return report


def _in_turn(deadline: Deadline) -> bool:
    """A decision in the player's own turn (not a question asked during another's): the stand-in's to take."""
    return deadline.pending is not None and not deadline.pending.out_of_turn


def _act_on_expiry(session: Session, game: GameRow, state: Any, deadline: Deadline, settings: GameSettings,
                   mail: MailContext, now: datetime, report: TickReport,
                   detail: str) -> tuple[bool, str]:
    """The game's answer for an expired decision: the stand-in for an in-turn one (``absent = bot``), else the
    passive default; (whether the game moved, what to tell the game master otherwise)."""
    if settings.absent == "bot" and _in_turn(deadline):
        played, outcome = stand_in(session, game, state, deadline, settings, mail, now)
        if played:
            report.defaults.append(TickItem(game.name, deadline.player, deadline.kind, deadline.due,
                                            tick_words(TickLine.STAND_IN, orders=outcome, vacation=False),
                                            game.kind, "stand_in"))
            log.info("%s: no answer from %s by %s: the stand-in played %s", game.name, deadline.player,
                     utc_stamp(deadline.due), outcome)
            return True, detail
        detail = outcome
    if deadline.passive:
        applied, outcome = apply_default(session, game, state, deadline, settings, mail, now)
        if applied:
            report.defaults.append(TickItem(game.name, deadline.player, deadline.kind, deadline.due, outcome,
                                            game.kind))
            log.info("%s: no answer from %s by %s: %s", game.name, deadline.player, utc_stamp(deadline.due), outcome)
            return True, detail
        log.warning("%s: the default for %s could not be applied: %s", game.name, deadline.player, outcome)
        detail = outcome  # should not happen: the engine offers the default; the game master steps in
    return False, detail


def _tick_game(session: Session, game_id: int, now: datetime, mail: MailContext,
               report: TickReport) -> datetime | None:
    """Act on what is due in one game; when to look at it next (None: the game changed, look at the next tick).

    The cheap test first (settings and the clock's start; no state loaded)
    unless a stand-in may play for a player on vacation; the alarm then is the
    earliest moment anything could be due (:func:`pbem.moderator.deadlines.first_due`), or, with the
    state loaded, the next reminder, deadline or vacation's end (:func:`_alarm`).
    """
    game = session.get(GameRow, game_id)
    if game is None or game.status != GameStatus.ACTIVE:
        return None
    name = game.name
    report.checked.append(name)
    settings = load_settings(session, game)
    if settings.paused:
        report.paused.append(name)
        return PAUSED
    if daily_digests(session, game, mail, now):
        log.info("%s: daily digests queued", name)
    digest = next_digest(session, game, settings)
    since = decision_since(session, game)
    first = first_due(settings, since)
    due_soon = first is not None and now >= first
    cut_off = unreachable_of(session, game) if settings.absent == "bot" else frozenset()  # bounced: bot plays
    if not due_soon and settings.vacation != "bot" and not cut_off:
        return _alarm(now, [first, digest])  # the common case, one query cheaper: nothing due, no stand-in
    away = vacations_of(session, game, now)
    if not due_soon and not away and not cut_off:
        return _alarm(now, [first, digest])
    state = store.load_state(session, game)
    since = decision_since(session, game, state)  # a sealed round counts from where it opened
    moments: list[datetime | None] = [digest, *away.values()]  # a vacation's end moves its player's deadlines
    for deadline in deadlines(state, settings, since, kind_of_game(game), away):
        if deadline.player in away and settings.vacation == "bot" and _in_turn(deadline):
            played, outcome = stand_in(session, game, state, deadline, settings, mail, now,
                                       away_until=away[deadline.player])
            if played:
                report.defaults.append(TickItem(name, deadline.player, deadline.kind, deadline.due,
                                                tick_words(TickLine.STAND_IN, orders=outcome, vacation=True),
                                                game.kind, "stand_in"))
                return None
            moments.append(now)  # the stand-in found nothing: look again later
        if deadline.player in cut_off and _in_turn(deadline):  # its prompt cannot reach it: no use waiting
            played, outcome = stand_in(session, game, state, deadline, settings, mail, now, unreachable=True)
            if played:
                report.defaults.append(TickItem(name, deadline.player, deadline.kind, deadline.due,
                                                tick_words(TickLine.STAND_IN, orders=outcome, vacation=False)))
                return None
            moments.append(now)
        if now >= deadline.due:
            alerting = bool(alert_addresses(session, game, mail))  # the game's masters, else the host's address
            detail = tick_words(TickLine.NO_GAME_MASTER) if not alerting else ""
            acted, detail = _act_on_expiry(session, game, state, deadline, settings, mail, now, report, detail)
            if acted:
                return None  # the position changed: its new decisions start their clocks now
            alerted = alert_game_master(session, game, state, deadline, settings, mail, now)
            if alerted:
                detail = tick_words(TickLine.ALERTED, why=detail)
                log.info("%s: %s is past the deadline (%s); game master alerted", name, deadline.player,
                         deadline.kind)
            elif alerting and not detail:
                detail = tick_words(TickLine.ALERTED_BEFORE)
            item = TickItem(name, deadline.player, deadline.kind, deadline.due, detail)
            report.stalled.append(item)
            if alerted:
                report.alerts.append(item)
            moments.append(now)  # stalled: nothing more to do until someone acts, but it is listed again later
            continue
        passed = [moment for moment in deadline.reminders if moment <= now]
        if passed and remind(session, game, state, deadline, passed[-1], settings, mail, now):
            report.reminders.append(TickItem(name, deadline.player, deadline.kind, deadline.due))
            log.info("%s: reminded %s (%s, due %s)", name, deadline.player, deadline.kind, utc_stamp(deadline.due))
        elif passed and mail.moderator_address is None:
            moments.append(now)  # due, but this tick can mail nothing: a tick with mail must find it
        moments.extend([*(m for m in deadline.reminders if m > now), deadline.due])
    return _alarm(now, moments)


def _alarm(now: datetime, moments: Iterable[datetime | None]) -> datetime:
    """The next alarm: the earliest moment after ``now``; one not after ``now`` (something due that this tick
    could not do: a stalled decision, a mail without an address) is looked at again :data:`LOOK_AGAIN` later."""
    found = [utc(m) for m in moments if m is not None]
    later = [m for m in found if m > now]
    if len(later) < len(found):
        later.append(now + LOOK_AGAIN)
    return min(later, default=NEVER)
