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
from pbem.mail.picture import InlinePicture
from pbem.moderator.deadlines import utc
from pbem.moderator.gamemaster.common import MailContext, _headers, _queue, _seats, _stamp
from pbem.moderator.notify.compose import line_at
from pbem.moderator.notify.pictures import board_picture
from pbem.moderator.notify.subjects import move_subject
from pbem.moderator.notify.turnmail import news_block
from pbem.store.mailprefs import MailMode, oldest_daily_news, prefs_of, seats_with_news_since, take_news
from pbem.store.models import GameRow
from pbem.store.settings import GameSettings, load_settings

DAY = timedelta(days=1)


def next_digest(session: Session, game: GameRow, settings: GameSettings) -> datetime | None:
    """When the game's next daily digest falls due (None: no ``DAILY`` seat holds news): the tick's alarm."""
    oldest = oldest_daily_news(session, game, settings.mail_default)
    return None if oldest is None else utc(oldest) + DAY


def daily_digests(session: Session, game: GameRow, mail: MailContext, now: datetime) -> int:
    """Queue the digests due in ``game`` now; the number queued."""
    due = set(seats_with_news_since(session, game, now - DAY))
    if not due or mail.moderator_address is None:
        return 0
    settings = load_settings(session, game)
    kind = kind_of(game.kind)
    state = store.load_state(session, game)
    count = 0
    for seat in _seats(session, game):
        chosen = prefs_of(session, seat, settings.mail_default, settings.board_default)
        if seat.id not in due or chosen.mode is not MailMode.DAILY:
            continue
        head = news_block(take_news(session, seat))
        body = head + kind.report(state, seat.name, (), game=game.name, open_cash=settings.open_cash,
                                  board=chosen.board)
        move = kind.shown_move(state)
        drawn = board_picture(kind, game.name, state) if chosen.board else None
        picture = InlinePicture(drawn[0], drawn[1], line_at(body, len(head))) if drawn is not None else None
        if _queue(session, game, move, seat.email, "digest", f"digest:{_stamp(now)}",
                  move_subject(game.name, move, "your daily digest"), body, _headers(game, settings, mail), mail,
                  now, picture=picture):
            count += 1
    return count
