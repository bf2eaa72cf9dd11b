"""The commands that change a game: force, undo, replace, pause and resume, resend."""
from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from dataclasses import replace as dc_replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, update
from sqlmodel import Session, col, select

from engine.core.errors import EngineError
from engine.core.log import LogEntry, replay
from pbem import store
from pbem.errors import BadSetup, ConcurrentUpdate, StoreError
from pbem.games import GameKind, kind_of
from pbem.mail.outbound import token_address
from pbem.moderator.deadlines import Deadline, decision_since, game_deadlines, utc
from pbem.moderator.games import EMAIL, PLAYER_NAME  # the same rules as for a new game
from pbem.moderator.notify.subjects import move_subject
from pbem.render.text import note_block
from pbem.store import GameRow, GameStatus, SeatRow
from pbem.store import waiting as waiting_store
from pbem.store.models import ActionRow, SnapshotRow
from pbem.store.settings import GameSettings, load_settings, save_settings
from pbem.store.tokens import issue_token

if TYPE_CHECKING:
    from pbem.store import Database
from pbem.moderator.gamemaster.common import (
    GameMasterError,
    GamePaused,
    MailContext,
    NothingToUndo,
    _deciders,
    _headers,
    _locked_game,
    _queue,
    _queue_prompts,
    _queue_reports,
    _resolve,
    _restart_clock,
    _retrying,
    _seats,
    _stamp,
    _transaction,
    _when,
)
from pbem.moderator.gamemaster.playing import Played, _mail_after_play, play_in_session

log = logging.getLogger("pbem.moderator.gamemaster")

# --- force -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Forced:
    played: Played
    mailed: int


def force(db: Database, name: str, player: str, text: str, *, mail: MailContext | None = None,
          now: datetime | None = None) -> Forced:
    """Apply ``text`` as ``player``'s orders (see the module docstring); reports tell the game master gave them.

    Like a mailed message, the lines before a refused one stand; the refusal is
    in ``played.refusal``. Nothing is mailed when nothing was applied.
    """
    mail = mail or MailContext()
    moment = utc(now or datetime.now(UTC))

    def once() -> Forced:
        with _transaction(db) as session:
            game = store.find_game(session, name)
            played = play_in_session(session, game, player, text, moment)
            if not played.applied:
                return Forced(played, 0)
            settings = load_settings(session, game)
            lines = [a.line.text for a in played.applied if a.player == played.player and not a.implicit]
            note = [f"The game master gave these orders for {played.player}: " + "; ".join(lines) + "."]
            return Forced(played, _mail_after_play(session, game, played, settings, mail, moment, "force", note))

    return _retrying(once)


# --- undo --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Undone:
    game: str
    entry: LogEntry[Any]  # the action taken back
    order: str  # its canonical text
    state: Any  # the position now
    dropped: Mapping[str, tuple[tuple[int, str], ...]]  # waiting lines dropped with it
    mailed: int

    @property
    def version(self) -> int:
        return int(self.state.version)


def undo(db: Database, name: str, *, mail: MailContext | None = None, now: datetime | None = None) -> Undone:
    """Take back the last logged action (see the module docstring); ``NothingToUndo`` for an empty log."""
    mail = mail or MailContext()
    moment = utc(now or datetime.now(UTC))
    with _transaction(db) as session:
        game = _locked_game(session, name)
        kind = kind_of(game.kind)
        log_entries = store.load_log(session, game)
        if not log_entries:
            raise NothingToUndo(f"game {name!r} has no moves to undo")
        last = log_entries[-1]
        try:
            state = replay(kind.rules, store.game_setup(game), log_entries[:-1])
            _, events = kind.rules.apply(state, last.player, last.action)
        except EngineError as exc:
            raise StoreError(f"game {name!r}: the log does not replay: {exc}") from None
        session.execute(delete(ActionRow).where(col(ActionRow.game_id) == game.id,
                                             col(ActionRow.version) == last.version))
        session.execute(delete(SnapshotRow).where(col(SnapshotRow.game_id) == game.id,
                                               col(SnapshotRow.version) > last.version))
        session.flush()
        if store.log_length(session, game) != last.version:
            raise ConcurrentUpdate(f"game {name!r} changed meanwhile; nothing was undone")
        store.save_snapshot(session, game, state)
        store.set_status(session, game, GameStatus.FINISHED if state.finished else GameStatus.ACTIVE)
        waiting = waiting_store.load_waiting(session, game)
        since_rows = dict(session.exec(select(waiting_store.WaitingRow.player, waiting_store.WaitingRow.since)
                                       .where(col(waiting_store.WaitingRow.game_id) == game.id)).all())
        kept = {p: lines for p, lines in waiting.items()
                if since_rows.get(p, 0) <= state.version and kind.still_waiting(state, p)}
        dropped = {p: lines for p, lines in waiting.items() if p not in kept}
        if dropped:
            waiting_store.save_waiting(session, game, kept, state.version)
        settings = _restart_clock(session, game, load_settings(session, game), moment)
        order = kind.format_action(state, last.action)
        count = 0
        shown = kind.shown_move(state)
        for seat in _seats(session, game):
            if not kind.tells(state, events, seat.name):
                continue  # the move taken back was never told to this seat (another player's sealed answer)
            paragraphs = [f"The game master has undone move {last.version + 1}: {last.player}'s {order}. "
                          f"The game stands again as after move {state.version}."]
            told = kind.narrate(state, events, viewer=seat.name)
            if told:
                paragraphs.append("Taken back: " + " ".join(told))
            if seat.name in dropped:
                paragraphs.append("Your orders that waited for an answer were dropped with it; please send "
                                  "them again if they still apply.")
            if _deciders(game, state):
                paragraphs.append("Deadlines count from now.")
            body = note_block("Move undone", paragraphs) + kind.report(
                state, seat.name, (), game=name, open_cash=settings.open_cash)
            if _queue(session, game, shown, seat.email, "undo", f"undo:{_stamp(moment)}",
                      move_subject(name, shown, f"move {last.version + 1} taken back by the game master"), body,
                      _headers(game, settings, mail), mail, moment):
                count += 1
        for player in _deciders(game, state):
            if kind.tells(state, events, player):
                count += _queue_prompts(session, game, state, settings, mail, moment, moment, "undo", only=player)
        log.info("%s: undid move %d (%s: %s)", name, last.version + 1, last.player, order)
        return Undone(name, last, order, state, dropped, count)


# --- replace -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Replaced:
    game: str
    old: str
    new: str
    email: str
    seat: int  # 1-based
    token: str | None  # the new seat token, when one was issued (it exists nowhere else)
    state: Any
    mailed: int


def replace(db: Database, name: str, old: str, new_name: str, new_email: str, *,
            mail: MailContext | None = None, now: datetime | None = None) -> Replaced:
    """A new player takes ``old``'s seat (see the module docstring for the token and what is renamed)."""
    mail = mail or MailContext()
    moment = utc(now or datetime.now(UTC))
    new_name, new_email = new_name.strip(), new_email.strip()
    if not PLAYER_NAME.match(new_name):
        raise BadSetup(f"bad player name {new_name!r}: use letters, digits, '.', '_' or '-' "
                       "(at most 32, starting with a letter)")
    if not EMAIL.match(new_email):
        raise BadSetup(f"bad email address {new_email!r} for player {new_name}")
    with _transaction(db) as session:
        game = _locked_game(session, name)
        seats = _seats(session, game)
        old_name = _resolve([s.name for s in seats], old, name)
        seat = next(s for s in seats if s.name == old_name)
        old_email = seat.email
        for other in seats:
            if other is seat:
                continue
            if other.name.casefold() == new_name.casefold():
                raise BadSetup(f"{new_name!r} is already a player of game {name!r}")
            if other.email.strip().lower() == new_email.lower():
                raise BadSetup(f"{new_email} is the address of {other.name}; each player needs an own address")
        if new_name == old_name and new_email == old_email:
            raise BadSetup(f"{old_name} <{old_email}> already holds that seat: nothing to change")
        rules = kind_of(game.kind).rules
        setup = rules.renamed(store.game_setup(game), old_name, new_name, new_email)
        game.setup = rules.setup_to_json(setup)
        session.add(game)
        seat.name, seat.email = new_name, new_email
        session.add(seat)
        session.execute(update(ActionRow).where(col(ActionRow.game_id) == game.id,
                                             col(ActionRow.player) == old_name).values(player=new_name))
        session.execute(update(waiting_store.WaitingRow)
                     .where(col(waiting_store.WaitingRow.game_id) == game.id,
                            col(waiting_store.WaitingRow.player) == old_name).values(player=new_name))
        session.execute(delete(SnapshotRow).where(col(SnapshotRow.game_id) == game.id))
        session.flush()
        state = store.replay_game(session, game)
        store.save_snapshot(session, game, state)
        token = issue_token(session, seat) if new_email.lower() != old_email.strip().lower() else None
        settings = _restart_clock(session, game, load_settings(session, game), moment)
        count = _mail_replacement(session, game, state, settings, mail, moment, seat, old_name, old_email, token)
        log.info("%s: %s <%s> takes over seat %d from %s", name, new_name, new_email, seat.seat + 1, old_name)
        return Replaced(name, old_name, new_name, new_email, seat.seat + 1, token, state, count)


def _mail_replacement(session: Session, game: GameRow, state: Any, settings: GameSettings,
                      mail: MailContext, now: datetime, seat: SeatRow, old: str, old_email: str,
                      token: str | None) -> int:
    name, new = game.name, seat.name
    kind = kind_of(game.kind)
    holds = kind.holding_words(state, new)
    what = f"{new} takes over seat {seat.seat + 1} from {old}" + (f", with {holds}" if holds else "") + "."
    later = "Deadlines of the pending decisions count from now." if _deciders(game, state) else ""
    count = 0
    key = f"replace:{_stamp(now)}"
    reply_to = token_address(mail.moderator_address, token) if token and mail.moderator_address else None
    paragraphs = [f"Welcome to game {name}: you take over seat {seat.seat + 1} from {old}, as it stands now."]
    if token:
        paragraphs.append(f"Your secret reply token is {token}. Replies to the moderator's mails carry it; "
                          f"if a reply of yours does not, add this line to it: TOKEN {token}")
    body = note_block("A seat for you", paragraphs) + kind.welcome(
        state, new, game=name, reply_to=reply_to, open_cash=settings.open_cash)
    if _queue(session, game, kind.shown_move(state), seat.email, "replace", key, f"[{name}] Welcome, {new}", body,
              _headers(game, settings, mail, reply_to=reply_to), mail, now):
        count += 1
    for other in _seats(session, game):
        if other.id == seat.id:
            continue
        body = note_block("New player", [f"The game master has given {old}'s seat to another player: {what}",
                                         later]) + kind.report(state, other.name, (), game=name,
                                                               open_cash=settings.open_cash)
        if _queue(session, game, kind.shown_move(state), other.email, "replace", key,
                  f"[{name}] {new} takes over from {old}", body, _headers(game, settings, mail), mail, now):
            count += 1
    if old_email.strip().lower() != seat.email.lower():
        body = note_block("You have left the game", [
            f"The game master has given your seat in game {name} to another player: {what} Your orders are "
            "no longer taken. Thank you for playing."])
        if _queue(session, game, kind.shown_move(state), old_email, "replace", key,
                  f"[{name}] {new} takes over your seat",
                  body, _headers(game, settings, mail), mail, now):
            count += 1
    count += _queue_prompts(session, game, state, settings, mail, now, now, "replace")
    return count


# --- pause and resume --------------------------------------------------------------------------------


@dataclass(frozen=True)
class PauseChange:
    game: str
    paused: bool
    deadlines: tuple[Deadline, ...]  # after a resume: the new deadlines
    mailed: int


def refuse_if_paused(session: Session, game: GameRow) -> None:
    """For the mail pipeline: raise ``GamePaused`` when the game takes no orders now."""
    if load_settings(session, game).paused:
        raise GamePaused(f"game {game.name!r} is paused by the game master: no orders are taken until it is "
                         "resumed")


def is_paused(db: Database, name: str) -> bool:
    with _transaction(db) as session:
        return load_settings(session, store.find_game(session, name)).paused


def pause(db: Database, name: str, *, mail: MailContext | None = None, now: datetime | None = None) -> PauseChange:
    """Pause the game: orders are refused, deadlines stand still; every seat is told."""
    mail = mail or MailContext()
    moment = utc(now or datetime.now(UTC))
    with _transaction(db) as session:
        game = _locked_game(session, name)
        settings = load_settings(session, game)
        if settings.paused:
            raise GameMasterError(f"game {name!r} is paused already")
        if game.status != GameStatus.ACTIVE:
            raise GameMasterError(f"game {name!r} is {game.status}: there is nothing to pause")
        settings = dc_replace(settings, paused=True)
        save_settings(session, game, settings)
        version = kind_of(game.kind).shown_move(store.load_state(session, game))
        count = 0
        for seat in _seats(session, game):
            body = note_block("Game paused", [
                f"The game master has paused game {name}. Orders are not taken and deadlines stand still "
                "until the game is resumed; you will get a mail then."])
            if _queue(session, game, version, seat.email, "pause", f"pause:{_stamp(moment)}",
                      move_subject(name, version, "game paused"), body, _headers(game, settings, mail), mail,
                      moment):
                count += 1
        return PauseChange(name, True, (), count)


def resume(db: Database, name: str, *, mail: MailContext | None = None, now: datetime | None = None) -> PauseChange:
    """Resume a paused game: deadlines count from now (the resume notice restarts the clock)."""
    mail = mail or MailContext()
    moment = utc(now or datetime.now(UTC))
    with _transaction(db) as session:
        game = _locked_game(session, name)
        kind = kind_of(game.kind)
        settings = load_settings(session, game)
        if not settings.paused:
            raise GameMasterError(f"game {name!r} is not paused")
        settings = _restart_clock(session, game, dc_replace(settings, paused=False), moment)
        state = store.load_state(session, game)
        dues = tuple(game_deadlines(session, game, state, settings))
        sealed = any(p.sealed for p in kind.rules.pending(state))
        count = 0
        for seat in _seats(session, game):
            paragraphs = [f"The game master has resumed game {name}: orders are taken again."]
            # In a sealed round each seat hears its own deadline only: everyone's would tell who has answered.
            lines = [f"{d.player}: {kind.decision_words(state, d.pending)}, by {_when(d.due)}" for d in dues
                     if d.pending is not None and (not sealed or d.player == seat.name)]
            if lines or dues:
                paragraphs.append("Deadlines count from now" + (": " + "; ".join(lines) if lines else "") + ".")
            body = note_block("Game resumed", paragraphs) + kind.report(
                state, seat.name, (), game=name, open_cash=settings.open_cash)
            shown = kind.shown_move(state)
            if _queue(session, game, shown, seat.email, "resume", f"resume:{_stamp(moment)}",
                      move_subject(name, shown, "game resumed"), body, _headers(game, settings, mail), mail, moment):
                count += 1
        count += _queue_prompts(session, game, state, settings, mail, moment, moment, "resume")
        return PauseChange(name, False, dues, count)


# --- resend --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Resent:
    game: str
    version: int
    mails: tuple[tuple[str, str], ...]  # (player, purpose) of every mail queued


def _last_message_events(kind: GameKind, setup: Any, entries: Sequence[LogEntry[Any]]) -> tuple[Any, list[Any]]:
    """The state, and the events of the last run of log entries by one player (the setup's when none)."""
    start = len(entries)
    while start > 0 and entries[start - 1].player == entries[-1].player:
        start -= 1
    state, setup_events = kind.rules.new_game(setup)
    events: list[Any] = list(setup_events) if not entries else []
    for entry in entries:
        state, new = kind.rules.apply(state, entry.player, entry.action)
        if entry.version >= start:
            events.extend(new)
    return state, events


def resend(db: Database, name: str, player: str | None = None, *, mail: MailContext | None = None,
           now: datetime | None = None) -> Resent:
    """Queue the current report (and the prompt of a deciding player) again, for one seat or all."""
    mail = mail or MailContext()
    moment = utc(now or datetime.now(UTC))
    with _transaction(db) as session:
        game = store.find_game(session, name)
        seats = _seats(session, game)
        only = _resolve([s.name for s in seats], player, name) if player is not None else None
        try:
            state, events = _last_message_events(kind_of(game.kind), store.game_setup(game),
                                                 store.load_log(session, game))
        except EngineError as exc:
            raise StoreError(f"game {name!r}: the log does not replay: {exc}") from None
        settings = load_settings(session, game)
        note = ["Sent again at the game master's request; the position is as of now."]
        mails: list[tuple[str, str]] = []
        for seat in seats:
            if only is not None and seat.name != only:
                continue
            if _queue_reports(session, game, state, events, settings, mail, moment, "resend", "resend",
                              "Sent again", note,
                              subject=move_subject(name, kind_of(game.kind).shown_move(state), "report (sent again)"),
                              only=seat.name):
                mails.append((seat.name, "report"))
        since = decision_since(session, game, state)
        for who in _deciders(game, state):
            if only is not None and who != only:
                continue
            if _queue_prompts(session, game, state, settings, mail, moment, since, "resend", note,
                              " (sent again)", only=who, purpose="resend"):
                mails.append((who, "prompt"))
        return Resent(name, state.version, tuple(mails))
