"""``extend``: more time for the decisions pending now (``pbem extend``, or ``EXTEND <hours>`` by mail).

The pending decisions of a game share one start (``decision_since``); the
extension moves that start ``hours`` later through ``GameSettings.clock_reset``,
so every pending deadline and its reminders come ``hours`` later, and the
next decisions count from when they become pending, as always. Every seat is
told with a notice of the new deadlines (in a sealed round, its own only,
like the resume notice), the notice alone: nothing else changed.
"""
from __future__ import annotations

from dataclasses import dataclass
from dataclasses import replace as dc_replace
from datetime import UTC, datetime, timedelta

from pbem import store
from pbem.games import kind_of
from pbem.moderator.deadlines import Deadline, decision_since, game_deadlines, utc
from pbem.moderator.gamemaster.commands import due_lines
from pbem.moderator.gamemaster.common import (
    GameMasterError,
    MailContext,
    Subject,
    _locked_game,
    _seats,
    _stamp,
    _transaction,
    notice,
    subject_words,
)
from pbem.moderator.notify.subjects import move_subject
from pbem.store import Database, GameStatus
from pbem.store.settings import load_settings, save_settings

MAX_HOURS = 24 * 60  # two months: more is a pause


@dataclass(frozen=True)
class Extended:
    game: str
    hours: float
    deadlines: tuple[Deadline, ...]  # the new deadlines
    mailed: int


def extend(db: Database, name: str, hours: float, *, mail: MailContext | None = None,
           now: datetime | None = None) -> Extended:
    """Give the pending decisions ``hours`` more (see the module docstring)."""
    mail = mail or MailContext()
    moment = utc(now or datetime.now(UTC))
    if not 0 < hours <= MAX_HOURS:
        raise GameMasterError(f"give between 1 and {MAX_HOURS} hours, not {hours:g}")
    with _transaction(db) as session:
        game = _locked_game(session, name)
        if game.status != GameStatus.ACTIVE:
            raise GameMasterError(f"game {name!r} is {game.status}: there are no deadlines to extend")
        settings = load_settings(session, game)
        if settings.paused:
            raise GameMasterError(f"game {name!r} is paused: its deadlines stand still until it is resumed")
        kind = kind_of(game.kind)
        state = store.load_state(session, game)
        start = decision_since(session, game, state)
        settings = dc_replace(settings, clock_reset=start + timedelta(hours=hours), extended_at=moment)
        save_settings(session, game, settings)
        dues = tuple(d for d in game_deadlines(session, game, state, settings) if d.pending is not None)
        if not dues:
            raise GameMasterError(f"game {name!r} has no pending decision with a deadline")
        composer = mail.composer(session, moment, _stamp(moment))
        shown = kind.shown_move(state)
        for seat in _seats(session, game) if composer is not None else ():
            assert composer is not None
            with composer.writing_to(game, seat):
                lines = due_lines(kind, state, dues, seat.name)
                composer.to_seat(game, seat, purpose="extend", version=shown,
                                 subject=move_subject(name, shown, subject_words(Subject.EXTENDED)),
                                 body=notice("core/notice_extended.j2", game=name, deadlines=lines))
        return Extended(name, hours, dues, len(composer.queued) if composer is not None else 0)
