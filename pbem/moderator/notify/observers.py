"""Observers' mail: the public report after every change, their STOP, and the answer to anything else.

An observer (``pbem.store.observers``) holds no seat, so no game kind can be
asked for "their" report: Imperial 2030 refuses a reader who is no player,
and Eight-Minute Empire would address them as a bidder. The core writes their
mail itself from what every game offers to any reader: the events narrated
for :data:`VIEWER`, a name no seat can have (player names start with a
letter), the sentence saying where the game stands, what each seat holds,
and the board. Narrating for a reader who is nobody, rather than for no
reader (``None``), matters: ``None`` is the game master's view in Imperial
2030 (it tells standing orders). For the end of the game the kind's own
game-end mail for :data:`VIEWER` is used; it names no reader.

Sealed answers: a change that tells a non-player nothing (``GameKind.tells``:
Eight-Minute Empire's bid before the reveal) sends observers nothing, not
even a mail whose arrival would show that someone bid.

Every observer mail carries the observer's own token in its Reply-To, so
hitting Reply and writing ``STOP`` ends the mails of that game (one goodbye,
then nothing, ever, for that token). Only the observer's address may use its
token: a mail with it from elsewhere is recorded and not answered. Faking
both the token and the From would only unsubscribe an observer, who is told
so in the goodbye. Observers cannot order or send press: a mail with other
words is answered, a few times a day at most, saying so.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlmodel import Session, col, select

from pbem.errors import PbemError
from pbem.games import GameKind, kind_of
from pbem.games.messagetext import QUOTE, SIGNATURES
from pbem.languages import Language, speaking
from pbem.mail import (
    InboundMessage,
    Threading,
    list_id_for,
    message_id_for,
    reply_threading,
    token_address,
)
from pbem.moderator.notify.subjects import MailSubject, game_subject, move_subject
from pbem.moderator.notify.tokens import tokens_in_outbox
from pbem.render.env import render, render_phrase
from pbem.render.text import finish
from pbem.store import Database, GameRow, GameStatus, find_game, load_state, seats
from pbem.store.inbound import Budget
from pbem.store.observers import (
    ObserverRow,
    add_observer,
    find_observer,
    issue_observer_token,
    observers_of,
    remove_observer,
)
from pbem.store.outbox import OutboxRow, QueuedMail, queue_mail
from pbem.store.settings import load_settings
from pbem.store.tokens import hash_token

if TYPE_CHECKING:
    from pbem.moderator.notify.compose import MailComposer

VIEWER = "(observer)"  # the reader of an observer's mail: no seat can be called so
PURPOSE = "observer"
LEFT, REFUSED, IGNORED = "observer_left", "observer_refused", "observer_ignored"  # inbound outcomes
REPLIES_PER_DAY = 3  # "observers cannot order" answers to one observer address
_STOP = re.compile(r"^\s*(stop|unsubscribe)\s*[.!]*\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Sender:
    """Who the moderator is in the mail it queues: its address (for Reply-To tokens), domain and name."""

    address: str
    domain: str
    name: str | None = None  # None: the outbox sender takes it from the configuration


# --- the mail's text: words in templates/core/observer_*.j2 ----------------------------------------

REPORT, FOOTER, WELCOME = "core/observer_report.j2", "core/observer_footer.j2", "core/observer_welcome.j2"
LEFT_TEXT, REFUSED_TEXT, SUBJECT = "core/observer_left.j2", "core/observer_refused.j2", "core/observer_subject.j2"


def public_report(kind: GameKind, state: Any, events: Sequence[Any], game: str) -> str:
    """What an observer reads after ``events``: what everyone may see, never a seat's secret."""
    footer = render(FOOTER, strict=True, game=game).rstrip("\n")
    if state.finished:
        return finish(kind.game_end(state, VIEWER, events, game=game).rstrip("\n") + "\n\n" + footer + "\n")
    players = tuple((player, kind.holding_words(state, player)) for player in state.seating)
    return render(REPORT, strict=True, game=game, title=kind.info.title, move=kind.shown_move(state),
                  told=kind.narrate(state, events, VIEWER) if events else [], turn_line=kind.turn_line(state),
                  players=players, board=kind.board_text(state, game=game).rstrip("\n"), footer=footer)


def welcome_text(kind: GameKind, state: Any, game: str) -> str:
    intro = render(WELCOME, strict=True, game=game, title=kind.info.title)
    return intro + "\n" + public_report(kind, state, (), game)


def subject(game: str, what: str) -> str:
    """``what``: welcome, left or refused (templates/core/observer_subject.j2)."""
    return render_phrase(SUBJECT, game=game, what=what)


# --- queueing -----------------------------------------------------------------------------------


def observer_token(session: Session, row: ObserverRow, sender: Sender) -> str:
    """The observer's token in plaintext, from the newest mail to them that carries it; else a new one."""
    for token in tokens_in_outbox(session, row.game_id, row.email, sender.address):
        if hash_token(token) == row.token_hash:
            return token.strip().lower()
    return issue_observer_token(session, row)


def queue_to_observer(session: Session, game: GameRow, row: ObserverRow, sender: Sender, *, key: str,
                      version: int, subject: str, body: str, now: datetime, token: str | None = None,
                      threading: Threading | None = None) -> OutboxRow:
    """One mail to an observer, Reply-To their token address, threaded in the game unless told otherwise."""
    message_id = message_id_for(game.name, version, row.email, key, domain=sender.domain)
    existing = session.exec(select(OutboxRow).where(col(OutboxRow.message_id) == message_id)).first()
    if existing is not None:  # the same mail, queued before: keep it as it is
        return existing
    token = token or observer_token(session, row, sender)
    replying = threading is not None
    if threading is None:
        root = load_settings(session, game).thread_root
        threading = Threading(root or None, (root,) if root else ())
    headers: dict[str, Any] = {
        "reply_to": token_address(sender.address, token), "to_name": "",
        "in_reply_to": threading.in_reply_to, "references": list(threading.references),
        "list_id": list_id_for(game.name, domain=sender.domain, name=kind_of(game.kind).info.title),
        "auto_submitted": "auto-replied" if replying else "auto-generated", "date": now.isoformat(),
    }
    if sender.name is not None:
        headers.update({"from": sender.address, "from_name": sender.name})
    return queue_mail(session, QueuedMail(recipient=row.email, purpose=PURPOSE, message_id=message_id,
                                          subject=subject, body=body, game_id=game.id, version=version,
                                          headers=headers, created=now))


def report_to_observers(session: Session, game: GameRow, state: Any, events: Sequence[Any], sender: Sender,
                        cause: str, now: datetime) -> list[OutboxRow]:
    """The public report to every observer after ``events`` changed the game; the rows queued.

    Nothing when the events tell a non-player nothing (a sealed answer).
    """
    kind = kind_of(game.kind)
    watchers = observers_of(session, game)
    if not watchers or (events and not kind.tells(state, list(events), VIEWER)):
        return []
    body = public_report(kind, state, list(events), game.name)
    move = kind.shown_move(state)
    subject = game_subject(game.name, MailSubject.GAME_OVER) if state.finished else move_subject(game.name, move,
                                                                            kind.status_words(state))
    return [queue_to_observer(session, game, row, sender, key=f"{PURPOSE}:{cause}", version=move, subject=subject,
                              body=body, now=now) for row in watchers]


def after_change(composer: MailComposer, game: GameRow, state: Any, events: Sequence[Any]) -> None:
    """``report_to_observers`` from the mail flow (``pbem.moderator.notify.turnmail``), counted in the composer's mail."""
    identity = composer.moderator
    sender = Sender(identity.address, identity.domain, identity.name)
    with speaking(Language(composer.settings(game).language)):  # an observer reads the game's language
        rows = report_to_observers(composer.session, game, state, events, sender, composer.cause, composer.now)
    for row in rows:
        composer.note_queued(row.recipient, PURPOSE, row.message_id)


# --- mail from an observer ----------------------------------------------------------------------


def own_lines(body: str) -> list[str]:
    """The observer's own words: unquoted, non-blank lines above the signature."""
    lines: list[str] = []
    for raw in body.split("\n"):
        if raw.strip() in SIGNATURES or raw == "-- ":
            break
        if raw.strip() and not raw.lstrip().startswith(QUOTE):
            lines.append(raw.strip())
    return lines


def answer(composer: MailComposer, message: InboundMessage, row: ObserverRow, token: str, tag: str,
           allowed: Callable[[tuple[Budget, ...], str], bool]) -> tuple[str, str]:
    """Handle a mail carrying an observer's token (see the module docstring); (outcome, reason)."""
    session = composer.session
    game = session.get(GameRow, row.game_id)
    assert game is not None
    sender = (message.sender or "").strip().lower()
    if message.sender_problem is not None or sender != row.email:
        return IGNORED, f"an observer's token, sent from {sender or '(no address)'}, not from {row.email}"
    if not row.active:
        return IGNORED, "the token of an observer who left: not answered"
    words = own_lines(message.body)
    if any(_STOP.match(line) for line in words):
        remove_observer(session, row, composer.now)
        body = render(LEFT_TEXT, strict=True, game=game.name)
        composer.to_address(row.email, purpose=PURPOSE, key=f"observer_left:{tag}", game=game,
                            subject=subject(game.name, "left"), body=body,
                            reply_to_message=message)
        return LEFT, "the observer left (STOP)"
    if not words:
        return IGNORED, "an observer's mail without text: not answered"
    if allowed((Budget(f"observer:{row.email}", per_day=REPLIES_PER_DAY),), REFUSED):
        kind = kind_of(game.kind)
        body = render(REFUSED_TEXT, strict=True, game=game.name)
        identity = composer.moderator
        queue_to_observer(session, game, row, Sender(identity.address, identity.domain, identity.name),
                          key=f"observer_refused:{tag}", version=kind.shown_move(load_state(session, game)),
                          subject=subject(game.name, "refused"), body=body, now=composer.now,
                          token=token, threading=reply_threading(message, load_settings(session, game).thread_root))
    return REFUSED, "an observer's mail with words other than STOP: observers cannot order"


# --- the game master's command ------------------------------------------------------------------


@dataclass(frozen=True)
class Added:
    game: str
    email: str
    welcomed: bool


class ObserverError(PbemError):
    """An observer cannot be added or removed as asked."""


def add(db: Database, game_name: str, email: str, sender: Sender | None, now: datetime) -> Added:
    """Add an observer to a game; with ``sender`` (mail configured) their welcome, with the position, is queued."""
    address = email.strip().lower()
    if address.count("@") != 1 or any(c.isspace() for c in address) or address.startswith("@") or \
            address.endswith("@"):
        raise ObserverError(f"{email!r} is not an e-mail address")
    with db.transaction() as session:
        game = find_game(session, game_name)
        if game.status == GameStatus.FINISHED:
            raise ObserverError(f"game {game.name} is over: there is nothing left to observe")
        if any(seat.email.strip().lower() == address for seat in seats(session, game)):
            raise ObserverError(f"{address} holds a seat in game {game.name}: players get the reports already")
        existing = find_observer(session, game, address)
        if existing is not None and existing.active:
            raise ObserverError(f"{address} observes game {game.name} already")
        welcome_observer(session, game, address, sender, now)
        return Added(game.name, address, sender is not None)


def welcome_observer(session: Session, game: GameRow, address: str, sender: Sender | None, now: datetime) -> None:
    """Make ``address`` an observer of ``game`` in the caller's transaction; with ``sender``, queue its welcome
    with the position (``pbem game observe``, and ``OBSERVE`` by mail once confirmed)."""
    row, token = add_observer(session, game, address, now)
    if sender is not None:
        kind = kind_of(game.kind)
        state = load_state(session, game)
        queue_to_observer(session, game, row, sender, key=f"observer_welcome:{now.isoformat()}",
                          version=kind.shown_move(state), subject=subject(game.name, "welcome"),
                          body=welcome_text(kind, state, game.name), now=now, token=token)


def remove(db: Database, game_name: str, email: str, now: datetime) -> None:
    """The game master takes an observer off a game (no mail is sent)."""
    with db.transaction() as session:
        game = find_game(session, game_name)
        row = find_observer(session, game, email)
        if row is None or not row.active:
            raise ObserverError(f"{email.strip().lower()} does not observe game {game.name}")
        remove_observer(session, row, now)


def listing(db: Database, game_name: str) -> tuple[str, list[ObserverRow]]:
    with db.transaction() as session:
        game = find_game(session, game_name)
        return game.name, observers_of(session, game)
