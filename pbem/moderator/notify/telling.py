"""Telling a move: its mail written after the move has committed, in a transaction of its own.

Why after: applying a move is a short transaction (the log, the snapshot,
the inbound message's key, the waiting lines). Writing every seat's mail
(its mode, its news, its token, the observers) and drawing the board take
longer; done inside that transaction they held the database's write lock
(SQLite has one) and the next move of every game waited. So a move is
applied and committed first, with a row that says what its mail needs
beyond the log (:func:`record_move`, ``pbem.store.moves``), and told after
(:func:`tell_moves`), as mailing-list servers do: the committed move is the
truth, its mail follows it.

Telling a move, in one transaction: the position before it (kept in its
row), the position after it and what it did (the logged actions applied to
it again: the log is the truth), every seat's mail by
``pbem.moderator.notify.turnmail`` exactly as a mailed order's always was,
its board drawn only when some mail carries it (the helper process draws it
while the texts are written: ``pbem.moderator.notify.boards``), the rows
queued in the outbox, the move's row deleted. The outbox's Message-IDs are
made of the game, the version, the recipient and the move's ``cause``, so a
crash between the commit and the telling, or in the middle of it (nothing
of it is committed then), neither loses a mail nor sends one twice: the row
is still there, and telling it again writes the same mails.

Who tells: the process that applied a move, right after its commit (the
inbound handler, ``pbem force``, ``pbem order``, the deadline tick); every
pass of a daemon tells the moves nobody tells (:func:`tell_left_over`: the
row's claim ran out, or its process died). A game's moves are told in the
order they were applied, one at a time: whoever tells a game's move goes
on with the game's next ones. On PostgreSQL the row is locked while it is
told, and a second teller waits for it and goes on after it; on SQLite (one
writer) a move whose older sibling another process is telling is left to
that process, and a second teller of the same move fails at its first write
and finds it told when it tries again.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session

from engine.core.errors import EngineError
from engine.core.log import replay
from pbem.config import ModeratorSettings
from pbem.crash import crash_point
from pbem.games import kind_of
from pbem.holders import gone
from pbem.mail import ReplyTo
from pbem.moderator.apply import SubmitResult
from pbem.moderator.notify.compose import MailComposer
from pbem.moderator.notify.turnmail import Move, MoveSource, Words, turn_mail
from pbem.moderator.site.write import refresh_safely
from pbem.store import Database, GameRow, game_setup, load_log, seats
from pbem.store.models import as_utc, id_of
from pbem.store.moves import (
    MoveToTellRow,
    Source,
    add_move,
    first_move,
    left_over,
    more_moves,
    move_of,
    told,
)
from pbem.store.settings import GameSettings

log = logging.getLogger("pbem.moderator.notify")

RETRIES = 5  # tries of one move's telling that met another writer (the other teller of the same move)


@dataclass(frozen=True)
class Recorded:
    """A move just recorded, as the process that applied it knows it: what it tells right after the commit
    without reading back what it wrote (the record, the game, the settings) nor replaying the log (the
    positions and events it has at hand are the very ones logged)."""

    row: MoveToTellRow
    game: GameRow
    move: Move
    settings: GameSettings | None = None  # the game's mail settings the move was made under


@dataclass(frozen=True)
class Told:
    """What telling did: the Message-IDs of the mail queued, and the number of moves told."""

    queued: tuple[str, ...] = ()
    moves: int = 0

    def __add__(self, other: Told) -> Told:
        return Told(self.queued + other.queued, self.moves + other.moves)


# --- recording a move, in its own transaction --------------------------------------------------------------


def record_move(session: Session, game: GameRow, before: Any, result: SubmitResult, *, cause: str, source: str,
                holder: str, now: datetime, parts: Sequence[str] = (), reply: ReplyTo | None = None,
                attachment: tuple[str, str] | None = None, note: Sequence[str | Words] = (),
                private: Mapping[str, Sequence[str | Words]] | None = None,
                settings: GameSettings | None = None) -> Recorded:
    """Note in the move's transaction that ``result`` (applied to ``before``) is to be told (see the module
    docstring). ``cause`` makes the mails' Message-IDs; ``parts``, ``reply`` and ``attachment`` are the sender's
    reply (a mailed move); ``note`` and ``private`` what a move no one mailed adds (``turnmail.MoveSource``);
    ``settings`` the game's settings as the caller read them. Returns what the caller passes to
    :func:`tell_moves` after its commit."""
    kind = kind_of(game.kind)
    replied: dict[str, Any] | None = None
    if reply is not None:
        replied = {"message_id": reply.message_id, "references": list(reply.references)}
        if attachment is not None:
            replied["attachment"] = {"filename": attachment[0], "text": attachment[1]}
    row = MoveToTellRow(
        game_id=id_of(game), version_before=result.version_before, version_after=result.version,
        state_before=kind.state_to_json(before), cause=cause, source=source, player=result.player,
        parts=list(parts), reply=replied, also_prompt=[part.player for part in result.resumed],
        note=[_stored(line) for line in note],
        private={player: [_stored(line) for line in lines] for player, lines in (private or {}).items() if lines},
        created=now)
    add_move(session, row, holder, now)
    move = Move(result.player, before, result.state, tuple(result.events), tuple(row.also_prompt))
    return Recorded(row, game, move, settings)


def _stored(note: str | Words) -> Any:
    return note if isinstance(note, str) else note.to_json()


# --- telling, after the commit ---------------------------------------------------------------------------


def tell_moves(db: Database, identity: ModeratorSettings, game_id: int, *, holder: str,
               now: Callable[[], datetime] | None = None, take_over: bool = False,
               recorded: Recorded | None = None) -> Told:
    """Tell the game's moves that wait, oldest first, each in a transaction of its own, until none waits or the
    next is another process's to tell (see the module docstring; ``take_over``: whoever's it is, as the game
    master does before taking moves back; ``recorded``: the move this process just committed, when it is the
    game's next). Database errors are raised."""
    clock = now or (lambda: datetime.now(UTC))
    total, chained = Told(), take_over
    while True:
        done = _tell_next(db, identity, game_id, holder, chained, clock, recorded)
        if done is None:
            return total
        told, more, ours = done
        total, chained, recorded = total + told, True, None if ours else recorded
        if not more:
            return total


def tell_left_over(db: Database, identity: ModeratorSettings, *, holder: str,
                   now: Callable[[], datetime] | None = None) -> Told:
    """Tell the moves nobody tells: claimed by a process that died, or whose claim ran out. A move that cannot be
    told (a bug) is logged and left for a later pass."""
    clock = now or (lambda: datetime.now(UTC))
    with db.transaction() as session:
        games = left_over(session, clock(), gone)
    total = Told()
    for game_id in games:
        total += tell_safely(db, identity, game_id, holder=holder, now=clock)
    return total


def tell_safely(db: Database, identity: ModeratorSettings, game_id: int, *, holder: str,
                now: Callable[[], datetime] | None = None, take_over: bool = False,
                recorded: Recorded | None = None) -> Told:
    """:func:`tell_moves`, for a caller whose own work is done and committed (a message handled, a command
    done): a failure is logged, and the move waits for a later pass (``tell_left_over``). With ``[site] dir``
    the game's public pages are written after the mail (``pbem.moderator.site.write.refresh_safely``: its
    failure is logged, and never undoes or holds back the mail)."""
    try:
        told = tell_moves(db, identity, game_id, holder=holder, now=now, take_over=take_over, recorded=recorded)
    except Exception:  # the move stays recorded: nothing is lost, a later pass tells it
        log.exception("the mail of a move of game %s could not be written; a later pass tries again", game_id)
        return Told()
    if told.moves and identity.site.dir is not None:  # the mail is committed: now the game's public pages
        refresh_safely(db, identity.site.dir, game_id)
    return told


def _tell_next(db: Database, identity: ModeratorSettings, game_id: int, holder: str, chained: bool,
               clock: Callable[[], datetime], recorded: Recorded | None) -> tuple[Told, bool, bool] | None:
    """The game's next move told, in one transaction, whether another may wait, and whether the move told was
    ``recorded``; None when there is none that is ours to tell."""
    for attempt in range(RETRIES + 1):
        try:
            with db.transaction() as session:
                return _tell_one(session, identity, game_id, holder, chained, clock(), recorded)
        except (IntegrityError, OperationalError, _ToldMeanwhile) as exc:
            # another teller wrote the same mail first (a unique Message-ID), or holds SQLite's write lock, or an
            # older move of the game waits: look again, oldest first
            if isinstance(exc, OperationalError) and "locked" not in str(exc.orig).lower() or attempt == RETRIES:
                raise
            log.info("a move of game %s met another writer (%s); looking again", game_id, _first_line(exc))
            recorded = None
    raise AssertionError("unreachable")


def _tell_one(session: Session, identity: ModeratorSettings, game_id: int, holder: str, chained: bool,
              now: datetime, recorded: Recorded | None = None) -> tuple[Told, bool, bool] | None:
    """One move told, whether the game may have another to tell, and whether it was ``recorded``; None when it
    has none that is ours.

    Who tells: on SQLite, a move another process claimed and is telling is left to it (it goes on with the
    game's later moves: whether one follows is asked after this one's writes, in the same transaction, so a
    move applied meanwhile is seen, or its own teller finds this one told; a second teller of the same move
    fails at its first write). On PostgreSQL the game's next move is locked while it is told: a second
    teller waits for that lock, finds the move told, and goes on with the next, its own among them; so each
    teller goes on until it has told its own move (told after the older ones), and need not look further.
    """
    locking = session.get_bind().dialect.name == "postgresql"
    # The move this process just committed, as it has it at hand. On SQLite it is taken to be the game's next,
    # and the DELETE that ends its telling checks that no older one waits; on PostgreSQL the lock says so.
    first = recorded.row.id if recorded is not None and not locking else first_move(session, game_id, lock=locking)
    if first is None and locking:  # nothing, or the move waited for was told meanwhile: look once more
        first = first_move(session, game_id, lock=True)
    if first is None:
        return None
    if recorded is not None and first == recorded.row.id:
        row, game, move, settings = recorded.row, recorded.game, recorded.move, recorded.settings
    else:
        found = move_of(session, first)
        if found is None:
            return Told(), True, False  # told meanwhile: look again
        (row, game), move, settings = found, None, None
        if not (chained or locking or _free_for(row, holder, now)):
            return None  # its teller is at work (it goes on with this game's later moves)
    assert row.id is not None
    move = move or _replayed(session, game, row)
    queued = _write(session, identity, game, row, move, settings) if move is not None else ()
    crash_point("mid_render")
    if not told(session, row.id, first=recorded is not None and not locking):
        raise _ToldMeanwhile("told by another process meanwhile, or an older move waits")  # its mail rolled back
    ours = recorded is not None and row.id == recorded.row.id
    more = not ours if locking and recorded is not None else more_moves(session, game_id)
    return Told(queued, 1), more, ours


class _ToldMeanwhile(Exception):
    """The move's row was gone when its telling was done (another process told it), or an older move of its
    game waits."""


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _free_for(row: MoveToTellRow, holder: str, now: datetime) -> bool:
    """Whether ``holder`` may tell ``row`` now: its own, unclaimed, its claim ran out, or its process died."""
    return (row.claimed_by in ("", holder[:64]) or row.claimed_until is None
            or as_utc(row.claimed_until) <= as_utc(now) or gone(row.claimed_by))


def _replayed(session: Session, game: GameRow, row: MoveToTellRow) -> Move | None:
    """The move of ``row``: the position before it, and its logged actions applied to it again; None when the
    log no longer holds them (the game master took the move back before it was told)."""
    kind = kind_of(game.kind)
    count = row.version_after - row.version_before
    entries = load_log(session, game, since=row.version_before)[:count]
    if [entry.version for entry in entries] != list(range(row.version_before, row.version_after)):
        log.warning("game %s: move %d-%d is no longer in the log; its mail is not written", game.name,
                    row.version_before, row.version_after)
        return None
    try:
        before = kind.state_from_json(row.state_before)
        usable = kind.version(before) == row.version_before and \
            kind.setup_to_json(kind.setup_of(before)) == game.setup
    except (EngineError, KeyError, TypeError, ValueError):
        usable = False
    if not usable:  # a seat renamed meanwhile (pbem replace): the log, as it reads now, is the truth
        before = replay(kind, game_setup(game), load_log(session, game)[:row.version_before])
    state, events = before, []
    for entry in entries:
        state, done = kind.apply(state, entry.player, entry.action)
        events.extend(done)
    return Move(row.player, before, state, tuple(events), tuple(row.also_prompt))


def _write(session: Session, identity: ModeratorSettings, game: GameRow, row: MoveToTellRow,
           move: Move, settings: GameSettings | None = None) -> tuple[str, ...]:
    """Every seat's mail about ``move`` into the outbox (``turnmail.turn_mail``), its pictures drawn aside."""
    composer = MailComposer(session, identity, as_utc(row.created), cause=row.cause, aside=True)
    if settings is not None:
        composer.know_settings(game, settings)
    composer.fresh_cause = True  # the row is still here: nothing made with its cause was ever committed
    source = None if row.source == Source.MAIL else MoveSource(
        tuple(map(Words.of, row.note)), {player: tuple(map(Words.of, lines)) for player, lines in row.private.items()})
    reply = None
    if row.reply is not None:
        reply = ReplyTo(row.reply.get("message_id"), tuple(row.reply.get("references") or ()))
        attached = row.reply.get("attachment")
        sender = next((seat for seat in seats(session, game) if seat.name == row.player), None)
        if attached and sender is not None:
            composer.attachments[id_of(sender)] = (str(attached["filename"]), str(attached["text"]))
    try:
        with session.no_autoflush:  # nothing is written before the pictures are in: the mail goes in at once
            turn_mail(composer, game, move, sender_parts=row.parts, reply_to_message=reply, source=source)
            composer.finish()
    finally:
        composer.abandon()
    return tuple(queued.message_id for queued in composer.queued)
