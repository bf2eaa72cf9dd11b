"""The commands that change a game: force, order, undo, replace, pause and resume, resend.

Their mail is written by the mail flow's composer: a move (``force``,
``order``) is told after the command's commit
(``pbem.moderator.notify.telling``), as a mailed order's is;
a notice that is no move (undo, replace, resume, resend) by
``turnmail.seat_mail``, one mail per seat: the notice, the seat's kept
news, the report with or without the board (its ``BOARD`` choice) and the
prompt when the seat must decide. **Decision**: notices go to every seat
they concern whatever its mail mode (``TURN``, ``ROUND`` and ``DAILY``
too): they are rare, and they change what a player may do (orders taken or
not, a move gone, a new player, a deadline that counts from now). The pause
notice is the notice alone: nothing can be decided while the game is
paused, and the seat's kept news wait for the resume's mail.
"""
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
from pbem.moderator.notify.compose import MailComposer
from pbem.moderator.notify.subjects import move_subject
from pbem.moderator.notify.telling import Recorded
from pbem.moderator.notify.turnmail import prefs, seat_mail
from pbem.store import GameRow, GameStatus, SeatRow
from pbem.store import waiting as waiting_store
from pbem.store.mailprefs import take_news
from pbem.store.models import ActionRow, SnapshotRow
from pbem.store.moves import Source
from pbem.store.settings import GameSettings, load_settings, save_settings
from pbem.store.tokens import issue_token

if TYPE_CHECKING:
    from pbem.store import Database
from pbem.moderator.gamemaster.common import (
    GameMasterError,
    GamePaused,
    MailContext,
    NothingToUndo,
    Subject,
    _deciders,
    _locked_game,
    _resolve,
    _restart_clock,
    _retrying,
    _seats,
    _stamp,
    _transaction,
    _when,
    later,
    notice,
    subject_words,
)
from pbem.moderator.gamemaster.playing import Played, play_in_session, record_play

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

    def once() -> tuple[Played, Recorded | None]:
        with _transaction(db) as session:
            game = store.find_game(session, name)
            played = play_in_session(session, game, player, text, moment)
            if not played.applied:
                return played, None
            lines = [a.line.text for a in played.applied if a.player == played.player and not a.implicit]
            note = [later("core/move_note_forced.j2", player=played.player, orders=lines)]
            return played, record_play(session, game, played, mail, moment, Source.FORCE, note)

    played, moved = _retrying(once)
    return Forced(played, mail.tell(db, moved))


def order(db: Database, name: str, player: str, text: str, *, mail: MailContext | None = None,
          now: datetime | None = None) -> Forced:
    """``pbem order`` with a mail configuration: ``text`` as ``player``'s orders, and every seat's mail.

    As if the player had mailed them, but nobody mailed anything: no seat is
    the sender, so the player is told like any seat, in their own mail mode
    (the console shows them the refusal and the answers to questions, which
    are not mailed). No note: the orders are the player's own. A paused game
    refuses them (``GamePaused``), as it refuses mail.
    """
    mail = mail or MailContext()
    moment = utc(now or datetime.now(UTC))

    def once() -> tuple[Played, Recorded | None]:
        with _transaction(db) as session:
            game = store.find_game(session, name)
            refuse_if_paused(session, game)
            played = play_in_session(session, game, player, text, moment)
            if not played.applied:
                return played, None
            return played, record_play(session, game, played, mail, moment, Source.ORDER, ())

    played, moved = _retrying(once)
    return Forced(played, mail.tell(db, moved))


def _notice(composer: MailComposer | None, game: GameRow, state: Any, seat: SeatRow, purpose: str,
            head: Sequence[str], subject: str, short: str, *, events: Sequence[Any] = (),
            since: datetime | None = None) -> str | None:
    """One seat's mail about a change that is no move (see the module docstring): ``head``, the seat's news,
    the report of ``events`` and its prompt (its subject ends with ``short``); the decision it asks."""
    assert composer is not None
    return seat_mail(composer, game, state, seat, prefs(composer, game, seat), events, True, head, purpose=purpose,
                     subject=subject, short=short, since=since, whole_board=True)


def _count(composer: MailComposer | None) -> int:
    return len(composer.queued) if composer is not None else 0


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
    mail.tell_first(db, name)
    with _transaction(db) as session:
        game = _locked_game(session, name)
        kind = kind_of(game.kind)
        log_entries = store.load_log(session, game)
        if not log_entries:
            raise NothingToUndo(f"game {name!r} has no moves to undo")
        last = log_entries[-1]
        try:
            state = replay(kind, store.game_setup(game), log_entries[:-1])
            _, events = kind.apply(state, last.player, last.action)
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
        _restart_clock(session, game, load_settings(session, game), moment)
        order = kind.format_action(state, last.action)
        composer = mail.composer(session, moment, _stamp(moment))
        shown = kind.shown_move(state)
        for seat in _seats(session, game) if composer is not None else ():
            if not kind.tells(state, events, seat.name):
                continue  # the move taken back was never told to this seat (another player's sealed answer)
            assert composer is not None
            with composer.writing_to(game, seat):
                head = notice("core/notice_undone.j2", move=last.version + 1, player=last.player, order=order,
                              stands=state.version, told=kind.narrate(state, events, viewer=seat.name),
                              dropped=seat.name in dropped, deadlines=bool(_deciders(game, state)))
                _notice(composer, game, state, seat, "undo", [head],
                        move_subject(name, shown, subject_words(Subject.UNDONE, move=last.version + 1)),
                        subject_words(Subject.UNDONE_SHORT, move=last.version + 1))
        log.info("%s: undid move %d (%s: %s)", name, last.version + 1, last.player, order)
        done, game_id = Undone(name, last, order, state, dropped, _count(composer)), game.id
    mail.publish(db, game_id)  # the move's page goes, the one before loses its link to it
    return done


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
    mail.tell_first(db, name)
    with _transaction(db) as session:
        replaced = replace_in(session, name, old, new_name, new_email, mail, moment)
        game_id = _locked_game(session, name).id
    mail.publish(db, game_id, every=True)  # the history names the new player: every move's page says so
    return replaced


def replace_in(session: Session, name: str, old: str, new_name: str, new_email: str, mail: MailContext,
               moment: datetime) -> Replaced:
    """:func:`replace` in the caller's transaction (a seat taken over by mail, ``TAKEOVER``, in the
    transaction of the mail that confirmed it); the names are checked already."""
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
    kind = kind_of(game.kind)
    setup = kind.renamed(store.game_setup(game), old_name, new_name, new_email)
    game.setup = kind.setup_to_json(setup)
    session.add(game)
    seat.name, seat.email = new_name, new_email
    seat.bounces, seat.unreachable = 0, False  # a new player (or address): its mail goes out again
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


def change_address_in(session: Session, name: str, player: str, new_email: str) -> None:
    """The same player at a new address (``SET ADDRESS`` by mail, confirmed from both addresses): the seat's
    address in the seat and in the game's setup; its token, name and everything else stay, and no mail is
    written here (the seat's next mail goes to the new address)."""
    game = _locked_game(session, name)
    seat = next(s for s in _seats(session, game) if s.name == player)
    kind = kind_of(game.kind)
    game.setup = kind.setup_to_json(kind.renamed(store.game_setup(game), player, player, new_email))
    session.add(game)
    seat.email = new_email
    seat.bounces, seat.unreachable = 0, False  # a new address: its mail goes out again
    session.add(seat)
    session.execute(delete(SnapshotRow).where(col(SnapshotRow.game_id) == game.id))
    session.flush()
    store.save_snapshot(session, game, store.replay_game(session, game))
    log.info("%s: %s moves to a new address", name, player)


def _mail_replacement(session: Session, game: GameRow, state: Any, settings: GameSettings,
                      mail: MailContext, now: datetime, seat: SeatRow, old: str, old_email: str,
                      token: str | None) -> int:
    """The new player's welcome, every other seat's notice and the old address's goodbye; the number queued.

    The new player's welcome carries the report and, when the seat decides,
    the prompt; the news the seat kept for the player who left are dropped
    (they were told as that player may read them, and the report tells the
    position as it stands)."""
    composer = mail.composer(session, now, _stamp(now))
    if composer is None:
        return 0
    name, new = game.name, seat.name
    kind = kind_of(game.kind)
    taking = {"new": new, "seat": seat.seat + 1, "old": old, "holds": kind.holding_words(state, new)}
    reply_to = token_address(composer.moderator.address, composer.token_for(seat, token))
    take_news(session, seat)
    with composer.writing_to(game, seat):
        hello = notice("core/notice_seat_welcome.j2", game=name, seat=seat.seat + 1, old=old, token=token or "")
        welcome = kind.welcome(state, new, game=name, reply_to=reply_to, open_cash=settings.open_cash)
        _notice(composer, game, state, seat, "replace", [hello, welcome],
                f"[{name}] {subject_words(Subject.WELCOME, player=new)}",
                subject_words(Subject.WELCOME_SHORT, player=new))
    for other in _seats(session, game):
        if other.id == seat.id:
            continue
        with composer.writing_to(game, other):
            told = notice("core/notice_new_player.j2", deadlines=bool(_deciders(game, state)), **taking)
            takes_over = subject_words(Subject.TAKES_OVER, new=new, old=old)
            _notice(composer, game, state, other, "replace", [told], f"[{name}] {takes_over}", takes_over)
    if old_email.strip().lower() != seat.email.lower():
        composer.to_address(old_email, purpose="replace", game=game, version=kind.shown_move(state),
                            subject=f"[{name}] {subject_words(Subject.YOUR_SEAT, new=new)}",
                            body=notice("core/notice_seat_left.j2", game=name, **taking))
    return len(composer.queued)


# --- pause and resume --------------------------------------------------------------------------------


@dataclass(frozen=True)
class DueLine:
    """A deadline as the resume and extension notices tell it (``core/notice_resumed.j2``, ``notice_extended.j2``)."""

    player: str
    what: str  # the decision, in the game's words ('choose a rondel space for Russia')
    due: str  # when, as the mails tell a time


def due_lines(kind: GameKind, state: Any, dues: Sequence[Deadline], seat: str) -> list[DueLine]:
    """The deadlines ``seat`` is told, in the language being written. In a sealed round each seat hears its own
    deadline only: everyone's would tell who has answered."""
    sealed = any(p.sealed for p in kind.pending(state))
    return [DueLine(d.player, kind.decision_words(state, d.pending), _when(d.due)) for d in dues
            if d.pending is not None and (not sealed or d.player == seat)]


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
        composer = mail.composer(session, moment, _stamp(moment))
        for seat in _seats(session, game) if composer is not None else ():  # the notice alone: module docstring
            assert composer is not None
            with composer.writing_to(game, seat):
                composer.to_seat(game, seat, purpose="pause", version=version,
                                 subject=move_subject(name, version, subject_words(Subject.PAUSED)),
                                 body=notice("core/notice_paused.j2", game=name))
        paused, game_id = PauseChange(name, True, (), _count(composer)), game.id
    mail.publish(db, game_id)
    return paused


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
        composer = mail.composer(session, moment, _stamp(moment))
        shown = kind.shown_move(state)
        for seat in _seats(session, game) if composer is not None else ():
            assert composer is not None
            with composer.writing_to(game, seat):
                resumed = subject_words(Subject.RESUMED)
                head = notice("core/notice_resumed.j2", game=name, deadlines=due_lines(kind, state, dues, seat.name),
                              counted=bool(dues))
                _notice(composer, game, state, seat, "resume", [head], move_subject(name, shown, resumed), resumed)
        resumed_game, game_id = PauseChange(name, False, dues, _count(composer)), game.id
    mail.publish(db, game_id)  # the deadlines count from now
    return resumed_game


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
    state, setup_events = kind.new_game(setup)
    events: list[Any] = list(setup_events) if not entries else []
    for entry in entries:
        state, new = kind.apply(state, entry.player, entry.action)
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
        kind = kind_of(game.kind)
        since = decision_since(session, game, state)  # the prompt's deadline: as it stands, not from now
        composer = mail.composer(session, moment, _stamp(moment))
        mails: list[tuple[str, str]] = []
        for seat in seats if composer is not None else ():
            if only is not None and seat.name != only:
                continue
            told = events if kind.tells(state, events, seat.name) else ()  # (not another's sealed answer)
            assert composer is not None
            with composer.writing_to(game, seat):
                head = notice("core/notice_sent_again.j2")
                subject = move_subject(name, kind.shown_move(state), subject_words(Subject.SENT_AGAIN))
                short = subject_words(Subject.SENT_AGAIN_SHORT)
                asked = _notice(composer, game, state, seat, "resend", [head], subject, short, events=told,
                                since=since)
            mails.append((seat.name, "prompt" if asked else "report"))
        return Resent(name, state.version, tuple(mails))
