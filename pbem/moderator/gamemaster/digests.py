"""The daily digest (``MAIL DAILY``): a seat's news kept for a day goes out in one mail, from the deadline tick.

The other modes mail when something asks for it (a decision, a round's
end); a daily seat with nothing to decide would otherwise hear nothing. The
tick looks at a game when its alarm rings (``pbem.store.alarm``: keeping the
first news wakes it, :func:`next_digest` tells it when to look again); a seat
whose oldest kept news is a day old gets them with the report as it stands (no
prompt: prompts were sent when they were due).
"""
from __future__ import annotations

from datetime import datetime, timedelta

from sqlmodel import Session

from pbem import store
from pbem.games import kind_of
from pbem.moderator.deadlines import utc
from pbem.moderator.gamemaster.common import MailContext, Subject, _seats, _stamp, subject_words
from pbem.moderator.notify.subjects import move_subject
from pbem.moderator.notify.turnmail import prefs, seat_mail
from pbem.store.mailprefs import MailMode, oldest_daily_news, seats_with_news_since
from pbem.store.models import GameRow
from pbem.store.settings import GameSettings

DAY = timedelta(days=1)


def next_digest(session: Session, game: GameRow, settings: GameSettings) -> datetime | None:
    """When the game's next daily digest falls due (None: no ``DAILY`` seat holds news): the tick's alarm."""
    oldest = oldest_daily_news(session, game, settings.mail_default)
    return None if oldest is None else utc(oldest) + DAY


def daily_digests(session: Session, game: GameRow, mail: MailContext, now: datetime) -> int:
    """Queue the digests due in ``game`` now, as the mail flow writes a seat's mail (``turnmail.seat_mail``:
    the news, the report with or without the board, its picture); the number queued."""
    due = set(seats_with_news_since(session, game, now - DAY))
    composer = mail.composer(session, now, _stamp(now)) if due else None
    if composer is None:
        return 0
    kind = kind_of(game.kind)
    state = store.load_state(session, game)
    for seat in _seats(session, game):
        chosen = prefs(composer, game, seat)
        if seat.id not in due or chosen.mode is not MailMode.DAILY:
            continue
        with composer.writing_to(game, seat):
            subject = move_subject(game.name, kind.shown_move(state), subject_words(Subject.DIGEST))
            seat_mail(composer, game, state, seat, chosen, (), False, (), purpose="digest", subject=subject)
    return len(composer.queued)
