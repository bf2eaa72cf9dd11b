"""``VACATION UNTIL <date>`` and ``VACATION OFF`` by mail: checked against the game's cap, stored, told to all.

What a vacation does is the game's choice (``vacation = stretch|bot``): the
player's deadlines wait until they are back (``pbem.moderator.deadlines``), or the
stand-in plays their turns meanwhile (the deadline tick). Every other seat is
told either way, so nobody wonders why the game waits, or who played.
The words, the player's and the others': ``templates/core/vacation.j2``.
"""
from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from pbem.games import kind_of
from pbem.moderator.inbound.preferences import Preferences, Refusal, Wrong
from pbem.moderator.inbound.words import Until, note
from pbem.moderator.notify.subjects import MailSubject, mail_subject, move_subject
from pbem.render.text import utc_stamp
from pbem.store import GameRow, SeatRow, seats
from pbem.store.absence import set_vacation
from pbem.store.settings import GameSettings

if TYPE_CHECKING:
    from pbem.moderator.notify.compose import MailComposer

VACATION = "vacation"  # templates/core/vacation.j2: the player's own confirmation, and the note to the others


def vacation_problem(settings: GameSettings, wanted: Preferences, now: datetime) -> Preferences:
    """``wanted`` refused when its vacation cannot be taken (in the past, or longer than the game allows)."""
    until = wanted.away_until
    if until is None:
        return wanted
    if until <= now:
        return replace(wanted, refusal=Refusal(Wrong.VACATION_PAST, until=Until.of(until)))
    if until - now > timedelta(days=settings.vacation_cap_days):
        return replace(wanted, refusal=Refusal(Wrong.VACATION_TOO_LONG, until=Until.of(until),
                                               days=settings.vacation_cap_days,
                                               latest=utc_stamp(now + timedelta(days=settings.vacation_cap_days))))
    return wanted


def announce_vacation(composer: MailComposer, game: GameRow, state: Any, seat: SeatRow, wanted: Preferences) -> str:
    """Store the vacation (or its end), tell every other seat; the confirmation for the player's own reply."""
    until = wanted.away_until
    set_vacation(composer.session, seat, until)
    settings = composer.settings(game)
    words = {"name": seat.name, "until": Until.of(until) if until is not None else None,
             "stand_in": settings.vacation == "bot"}
    kind = kind_of(game.kind)
    move = kind.shown_move(state)
    for other in seats(composer.session, game):
        if other.id != seat.id:
            with composer.writing_to(game, other):
                composer.to_seat(game, other, purpose="vacation", version=move,
                                 subject=move_subject(game.name, move,
                                                      mail_subject(MailSubject.VACATION, player=seat.name)),
                                 body=note(VACATION, to="others", **words),
                                 key=f"vacation:{seat.name}:{composer.cause or composer.now.isoformat()}")
    return note(VACATION, to="own", **words)
