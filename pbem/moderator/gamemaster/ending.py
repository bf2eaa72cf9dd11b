"""``end_game``: the game master ends a game before its rules do (``pbem end``, or ``END GAME`` by mail).

The game is marked finished: mail with orders is answered that the game is
over, the deadline tick leaves it alone. Its position and history stay as
they are (no scores are made up: the rules did not end it). Every seat is
told with a notice alone. ``UNDO`` afterwards reopens the game, as it
reopens one that ended by its rules.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from pbem import store
from pbem.games import kind_of
from pbem.moderator.deadlines import utc
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


@dataclass(frozen=True)
class Ended:
    game: str
    move: int  # the move it ended at
    mailed: int


def end_game(db: Database, name: str, *, mail: MailContext | None = None, now: datetime | None = None) -> Ended:
    """End the game now (see the module docstring); every seat is told."""
    mail = mail or MailContext()
    moment = utc(now or datetime.now(UTC))
    with _transaction(db) as session:
        game = _locked_game(session, name)
        if game.status != GameStatus.ACTIVE:
            raise GameMasterError(f"game {name!r} is {game.status} already")
        kind = kind_of(game.kind)
        shown = kind.shown_move(store.load_state(session, game))
        store.set_status(session, game, GameStatus.FINISHED)
        composer = mail.composer(session, moment, _stamp(moment))
        for seat in _seats(session, game) if composer is not None else ():
            assert composer is not None
            with composer.writing_to(game, seat):
                composer.to_seat(game, seat, purpose="end", version=shown,
                                 subject=move_subject(name, shown, subject_words(Subject.ENDED)),
                                 body=notice("core/notice_ended.j2", game=name, move=shown))
        return Ended(name, shown, len(composer.queued) if composer is not None else 0)
