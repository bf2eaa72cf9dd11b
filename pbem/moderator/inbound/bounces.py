"""A bounce of our mail: matched to the seat it came back from, counted, and never answered.

A bounce (``pbem.mail.bounce``) is pinned to a seat only by what a mail of
ours carried and nobody else has seen: the Message-ID of the mail to that
seat (each mail to a seat has its own, and the outbox keeps who it went to
long after its text is forgotten), or the seat's reply token quoted from its
Reply-To. **Why not the address alone**: anybody can write a mail that looks
like a DSN and names a player's address in ``Final-Recipient``; were that
enough, a stranger could make a seat unreachable and the stand-in play for
it. The failed address is not required to be the seat's either: mail to a
forwarding address fails at the address it was forwarded to. A bounce that
quotes no mail of ours is set aside (recorded as ``automatic``, nothing else).

A hard bounce (``Action: failed``, ``5.x.x``) counts against the seat
(``seats.bounces``); a soft one (delayed, ``4.x.x``) is only recorded. At
``[limits] bounces_to_unreachable`` hard bounces in a row the seat becomes
*unreachable*: its mail is held in the outbox, never sent
(``pbem.moderator.notify.compose``), the game master is told once, and the
deadline tick plays for it (the stand-in at once with ``absent=bot``, else
the deadline defaults: ``pbem.moderator.tick``). A mail from the seat's own
address with its token, or a new player in the seat (``pbem replace``),
makes it reachable again and starts the count anew (:func:`reachable`).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlmodel import Session, col, select

from pbem.config import ModeratorSettings
from pbem.mail import InboundMessage
from pbem.mail.bounce import Bounce
from pbem.moderator.inbound.words import note
from pbem.moderator.notify.compose import MailComposer
from pbem.moderator.notify.subjects import MailSubject, game_subject
from pbem.store import GameRow, SeatRow
from pbem.store.alarm import wake
from pbem.store.outbox import OutboxRow
from pbem.store.tokens import seat_for_token

log = logging.getLogger("pbem.moderator.inbound")

UNREACHABLE = "unreachable"  # the outbox purpose of the game master's notice


@dataclass(frozen=True)
class BounceVerdict:
    """What a bounce did: the seat it came back from (None: it quotes no mail of ours) and what to record."""

    game: GameRow | None
    seat: SeatRow | None
    reason: str
    counted: bool = False


def judge_bounce(session: Session, compose: MailComposer, identity: ModeratorSettings, message: InboundMessage,
                 bounce: Bounce, limit: int, tag: str) -> BounceVerdict:
    """Match ``bounce`` to a seat and count it (see the module docstring); the game master's notice is queued in
    ``compose`` when the seat becomes unreachable now."""
    found = _seat_of(session, bounce, message)
    if found is None:
        return BounceVerdict(None, None, f"{bounce.describe()} that quotes no mail of ours to a seat: set aside")
    game, seat = found
    if not bounce.hard:
        log.info("%s: a soft bounce of mail to %s (%s): not counted", game.name, seat.name, bounce.describe())
        return BounceVerdict(game, seat, f"{bounce.describe()}: not counted")
    seat.bounces += 1
    session.add(seat)
    reason = f"{bounce.describe()}: {seat.bounces} in a row"
    log.warning("%s: mail to %s bounced (%s)", game.name, seat.name, reason)
    if limit and seat.bounces >= limit and not seat.unreachable:
        seat.unreachable = True
        wake(session, seat.game_id)  # the tick looks again: the stand-in may play for the seat now
        reason += f"; the seat is unreachable now{_tell_game_master(compose, identity, game, seat, tag)}"
        log.warning("%s: %s is unreachable after %d bounces in a row", game.name, seat.name, seat.bounces)
    return BounceVerdict(game, seat, reason, counted=True)


def reachable(session: Session, seat: SeatRow) -> bool:
    """The seat wrote, or has a new player: its bounces start again and its mail goes out; whether it had any."""
    if not seat.bounces and not seat.unreachable:
        return False
    if seat.unreachable:
        wake(session, seat.game_id)
    seat.bounces, seat.unreachable = 0, False
    session.add(seat)
    return True


def _seat_of(session: Session, bounce: Bounce, message: InboundMessage) -> tuple[GameRow, SeatRow] | None:
    """The seat of the mail the bounce quotes: by our Message-ID in the outbox first, else by a quoted token."""
    ids = [*bounce.message_ids, *([message.in_reply_to] if message.in_reply_to else [])]
    if ids:
        for game_id, recipient in session.exec(select(OutboxRow.game_id, OutboxRow.recipient)
                                               .where(col(OutboxRow.message_id).in_(ids))).all():
            if game_id is None:
                continue
            seat = session.exec(select(SeatRow).where(col(SeatRow.game_id) == game_id)
                                .where(col(SeatRow.email) == recipient)).first()
            if seat is not None:
                return _with_game(session, seat)
    for token in (*bounce.tokens, *([message.address_token] if message.address_token else [])):
        seat = seat_for_token(session, token)
        if seat is not None:
            return _with_game(session, seat)
    return None


def _with_game(session: Session, seat: SeatRow) -> tuple[GameRow, SeatRow] | None:
    game = session.get(GameRow, seat.game_id)
    return (game, seat) if game is not None else None


def _tell_game_master(compose: MailComposer, identity: ModeratorSettings, game: GameRow, seat: SeatRow,
                      tag: str) -> str:
    """The notice to the game master (once: the seat turns unreachable once per run of bounces); a note."""
    if not identity.game_master:
        return " (no game master address to tell)"
    compose.to_address(identity.game_master, purpose=UNREACHABLE, key=f"{UNREACHABLE}:{seat.name}:{tag}", game=game,
                       subject=game_subject(game.name, MailSubject.UNREACHABLE, player=seat.name),
                       body=note("notice_unreachable", game=game.name, player=seat.name, email=seat.email,
                                 bounces=seat.bounces))
    return "; the game master is told"
