"""`pbem game show`: seats, whose turn, deadlines, waiting lines, the last moves, the outbox."""
from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import func
from sqlmodel import col, select

from pbem import store
from pbem.games import kind_of
from pbem.moderator.deadlines import deadlines, decision_since, utc
from pbem.store import waiting as waiting_store
from pbem.store.masters import masters_of
from pbem.store.models import ActionRow
from pbem.store.outbox import OutboxRow
from pbem.store.settings import FALLBACK_DECISION, GameSettings, load_settings
from pbem.store.tokens import SeatTokenRow

if TYPE_CHECKING:
    from pbem.store import Database
from pbem.moderator.gamemaster.common import RECENT_ACTIONS, _seats, _transaction

log = logging.getLogger("pbem.moderator.gamemaster")

# --- game show ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatView:
    seat: int  # 1-based, clockwise
    name: str
    email: str
    governs: tuple[str, ...]  # what the seat holds in the game's words (Imperial: the nations it governs)
    token: bool  # a reply token was issued
    bounces: int = 0  # hard bounces of its mail in a row (pbem.moderator.inbound.bounces)
    unreachable: bool = False  # its mail bounced too often: held, not sent


@dataclass(frozen=True)
class PendingView:
    player: str
    nation: str | None  # what the decision is about, in the game's words (Imperial: the nation's name)
    kind: str
    what: str  # 'choose a rondel space for Russia'
    out_of_turn: bool
    default: str | None  # the order taken on expiry; None: the game master is alerted
    since: datetime
    due: datetime | None
    reminders: tuple[datetime, ...]


@dataclass(frozen=True)
class LoggedAction:
    version: int  # made against this version: it is move version + 1
    player: str
    order: str
    applied: datetime


@dataclass(frozen=True)
class GameView:
    name: str
    status: str
    paused: bool
    version: int
    created: datetime
    turn: str  # 'Round 2: Russia's turn (ann), choosing a rondel space.'
    seats: tuple[SeatView, ...]
    pending: tuple[PendingView, ...]
    waiting: Mapping[str, tuple[tuple[int, str], ...]]
    recent: tuple[LoggedAction, ...]  # the last actions, newest first
    outbox: Mapping[str, int]  # status -> number of mails
    settings: GameSettings
    holding_verb: str = "holds"  # how the game says a seat holds things: 'governs' (Imperial)
    deadlines: tuple[tuple[str, float | None], ...] = ()  # the game's own decisions' hours: see ``own_deadlines``
    masters: tuple[str, ...] = ()  # the game's masters' addresses (``pbem.store.masters``), oldest first


def game_show(db: Database, name: str) -> GameView:
    """Everything the game master wants to see about one game, read in one transaction."""
    with _transaction(db) as session:
        game = store.find_game(session, name)
        kind = kind_of(game.kind)
        state = store.load_state(session, game)
        settings = load_settings(session, game)
        since = decision_since(session, game, state)
        seats = _seats(session, game)
        tokens = set(session.exec(select(SeatTokenRow.seat_id).where(
            col(SeatTokenRow.seat_id).in_([s.id for s in seats]))).all())
        waiting = waiting_store.load_waiting(session, game)
        rows = session.exec(select(ActionRow).where(col(ActionRow.game_id) == game.id)
                            .order_by(col(ActionRow.version).desc()).limit(RECENT_ACTIONS)).all()
        recent = []
        for row in rows:
            action = kind.action_from_json(row.action)
            recent.append(LoggedAction(row.version, row.player, kind.format_action(state, action), utc(row.applied)))
        counts = dict(session.exec(select(OutboxRow.status, func.count(col(OutboxRow.id)))
                                   .where(col(OutboxRow.game_id) == game.id).group_by(col(OutboxRow.status))).all())
        status, created = game.status, utc(game.created)
        masters = tuple(row.email for row in masters_of(session, game))
    dues = {(d.player, d.kind): d for d in deadlines(state, settings, since, kind)}
    views = []
    for decision in kind.pending(state):
        d = dues.get((decision.player, decision.kind))
        views.append(PendingView(
            decision.player, kind.subject_name(decision.subject), decision.kind,
            kind.decision_words(state, decision), decision.out_of_turn, kind.default_order(state, decision),
            since, d.due if d else None, tuple(d.reminders) if d else ()))
    seat_views = tuple(SeatView(s.seat + 1, s.name, s.email, kind.holdings(state, s.name), s.id in tokens,
                                s.bounces, s.unreachable) for s in seats)
    return GameView(name, status, settings.paused, state.version, created, kind.turn_line(state), seat_views,
                    tuple(views), waiting, tuple(recent), counts, settings,
                    kind.info.holding_verb, own_deadlines(kind.info.decisions, settings), masters)


def own_deadlines(decisions: tuple[str, ...], settings: GameSettings) -> tuple[tuple[str, float | None], ...]:
    """The hours of each decision the game's kind asks for, then the fallback (``*``) if the game has one.

    A game's stored hours may name other kinds' decisions too (a new game takes
    every hour the configuration names, Imperial's defaults among them): those
    are no deadlines of this game and are left out. A decision of its own with
    no hours and no fallback has none (None).
    """
    hours = settings.deadline_hours
    named = [(d, hours[d]) for d in hours if d in decisions]  # in the settings' order, as game set shows them
    fallback = hours.get(FALLBACK_DECISION)
    unnamed = [] if fallback is not None else [(d, None) for d in decisions if d not in hours]
    return (*named, *unnamed, *([(FALLBACK_DECISION, fallback)] if fallback is not None else []))
