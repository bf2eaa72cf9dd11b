"""What every game-master command shares: its errors, the mail context, transactions, queueing mail."""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import replace as dc_replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlmodel import Session, col, select

from pbem import store
from pbem.errors import ConcurrentUpdate, PbemError, StoreError, UnknownPlayer
from pbem.games import kind_of
from pbem.games.kind import match_player
from pbem.mail.errors import OutboundError
from pbem.mail.outbound import domain_of, list_id_for, message_id_for, token_address
from pbem.mail.picture import InlinePicture
from pbem.moderator.deadlines import deadlines, utc
from pbem.moderator.notify.compose import line_at
from pbem.moderator.notify.observers import Sender, report_to_observers
from pbem.moderator.notify.pictures import board_picture
from pbem.moderator.notify.subjects import move_subject, prompt_subject
from pbem.moderator.notify.tokens import seat_token
from pbem.moderator.notify.turnmail import news_block
from pbem.render.text import note_block
from pbem.store import GameRow, SeatRow
from pbem.store.mailprefs import prefs_of, take_news
from pbem.store.outbox import OutboxRow, QueuedMail, queue_mail
from pbem.store.settings import GameSettings, save_settings

if TYPE_CHECKING:
    from pbem.store import Database


log = logging.getLogger("pbem.moderator.gamemaster")

DEFAULT_MAIL_DOMAIN = "pbem.invalid"  # Message-IDs when no moderator address is configured
RECENT_ACTIONS = 10
RETRIES = 5
T = TypeVar("T")


class GameMasterError(PbemError):
    """A game-master command that cannot be done as asked."""


class NothingToUndo(GameMasterError):
    """The game's log is empty."""


class GamePaused(GameMasterError):
    """The game is paused: no orders are taken."""


# --- mail settings ---------------------------------------------------------------------------


@dataclass(frozen=True)
class MailContext:
    """What the mails need beyond the game: the Message-ID domain, our address, the game master's address."""

    domain: str = DEFAULT_MAIL_DOMAIN
    moderator_address: str | None = None
    game_master: str | None = None

    @classmethod
    def make(cls, *, mail_domain: str | None = None, moderator_address: str | None = None,
             game_master: str | None = None) -> MailContext:
        """The domain is ``mail_domain``, else that of ``moderator_address``, else ``pbem.invalid``."""
        try:
            domain = mail_domain or (domain_of(moderator_address) if moderator_address else DEFAULT_MAIL_DOMAIN)
        except OutboundError as exc:
            raise GameMasterError(str(exc)) from None
        return cls(domain, moderator_address or None, game_master or None)

    @classmethod
    def from_config(cls, config: Any) -> MailContext:
        """From the ``[moderator]`` section of a ``pbem.config.Config``: ``address``, ``game_master``."""
        moderator = getattr(config, "moderator", None)
        if moderator is not None:
            address, master = moderator.address, getattr(moderator, "game_master", None)
        else:
            section = config.section("moderator") if hasattr(config, "section") else {}
            address, master = section.get("address"), section.get("game_master")
        for key, value in (("address", address), ("game_master", master)):
            if value is not None and (not isinstance(value, str) or "@" not in value):
                raise GameMasterError(f"[moderator] {key} must be an e-mail address, not {value!r}")
        return cls.make(moderator_address=address, game_master=master)


def _stamp(moment: datetime) -> str:
    return utc(moment).strftime("%Y%m%dT%H%M%S.%f")


def _when(moment: datetime) -> str:
    return utc(moment).strftime("%A %Y-%m-%d %H:%M UTC")


# --- transactions ------------------------------------------------------------------------------


@contextmanager
def _transaction(db: Database) -> Iterator[Session]:
    """``Database.transaction`` with database errors told as ``StoreError`` / ``ConcurrentUpdate``."""
    try:
        with db.transaction() as session:
            yield session
    except OperationalError as exc:
        if "locked" in str(exc.orig).lower():
            raise ConcurrentUpdate(f"the database is busy ({exc.orig}); nothing was written") from None
        raise StoreError(f"database error in {db.display_url}: {exc.orig or exc}") from None
    except SQLAlchemyError as exc:
        raise StoreError(f"database error in {db.display_url}: {getattr(exc, 'orig', None) or exc}") from None


def _retrying(call: Callable[[], T]) -> T:
    """``call()``, tried again on a concurrent update (up to ``RETRIES`` times)."""
    for attempt in range(RETRIES + 1):
        try:
            return call()
        except ConcurrentUpdate:
            if attempt == RETRIES:
                raise
    raise AssertionError("unreachable")


def _locked_game(session: Session, name: str) -> GameRow:
    """The game's row, locked for this transaction on PostgreSQL (SQLite locks the whole file on write)."""
    game = session.exec(select(GameRow).where(col(GameRow.name) == name).with_for_update()).first()
    return game if game is not None else store.find_game(session, name)  # the helpful "no game named" error


def _seats(session: Session, game: GameRow) -> list[SeatRow]:
    return store.seats(session, game)


def _email(session: Session, game: GameRow, player: str) -> str:
    for seat in _seats(session, game):
        if seat.name == player:
            return seat.email
    raise UnknownPlayer(f"{player!r} has no seat in game {game.name!r}")


def _resolve(names: Sequence[str], text: str, game: str) -> str:
    found = match_player(text, names)
    if found is None:
        raise UnknownPlayer(f"{text!r} is not a player of game {game!r}; players: {', '.join(names)}")
    return found


# --- queueing mail --------------------------------------------------------------------------------


def _headers(game: GameRow, settings: GameSettings, mail: MailContext, decision: str | None = None,
             reply_to: str | None = None) -> dict[str, Any]:
    """Header values for the outbox sender (threading, List-Id, X-PBEM-Decision, Reply-To)."""
    headers: dict[str, Any] = {"list_id": list_id_for(game.name, domain=mail.domain, name=kind_of(game.kind).title)}
    if settings.thread_root:
        headers["in_reply_to"] = settings.thread_root
        headers["references"] = [settings.thread_root]
    if decision:
        headers["decision"] = decision
    if reply_to:
        headers["reply_to"] = reply_to
    return headers


def _exists(session: Session, message_id: str) -> bool:
    return session.exec(select(OutboxRow.id).where(col(OutboxRow.message_id) == message_id)).first() is not None


def _queue(session: Session, game: GameRow, version: int, recipient: str, purpose: str, key: str,
           subject: str, body: str, headers: dict[str, Any], mail: MailContext, now: datetime, *,
           picture: InlinePicture | None = None) -> bool:
    """Queue one mail unless one with its Message-ID is queued already; True when queued now.

    ``purpose`` is stored (short: report, prompt, reminder …); ``key`` is what
    makes the Message-ID (purpose plus a time stamp). ``created`` is ``now``,
    the command's clock, which the deadline clock reads (CLOCK_PURPOSES).
    ``picture`` is the board shown beside the text (``pbem.mail.picture``).
    """
    if mail.moderator_address is None:
        return False  # no mail configured: the command's work stands, nothing is queued (see MailContext)
    message_id = message_id_for(game.name, version, recipient, key, domain=mail.domain)
    if _exists(session, message_id):
        return False
    headers = _with_reply_to(session, game, recipient, headers, mail.moderator_address)
    if picture is not None:
        headers = {**headers, "picture_alt": picture.alt, "picture_line": picture.line}
    row = queue_mail(session, QueuedMail(recipient=recipient, purpose=purpose, message_id=message_id,
                                         subject=subject, body=body, game_id=game.id, version=version,
                                         headers=headers, picture=picture.png if picture is not None else None,
                                         created=now))
    session.flush()
    return row.id is not None


def _with_reply_to(session: Session, game: GameRow, recipient: str, headers: dict[str, Any],
                   moderator_address: str) -> dict[str, Any]:
    """A mail to a seat carries the seat's token address, as every mail to a player does: Reply just works."""
    if headers.get("reply_to"):
        return headers
    seat = next((s for s in _seats(session, game) if s.email.strip().lower() == recipient.strip().lower()), None)
    if seat is None:  # the game master, a player who left
        return headers
    return {**headers, "reply_to": token_address(moderator_address, seat_token(session, seat, moderator_address))}


def _restart_clock(session: Session, game: GameRow, settings: GameSettings, moment: datetime) -> GameSettings:
    """Deadlines count from ``moment`` (undo, replace, resume; read by ``pbem.moderator.deadlines.decision_since``)."""
    settings = dc_replace(settings, clock_reset=moment)
    save_settings(session, game, settings)
    return settings


def _deciders(game: GameRow, state: Any) -> list[str]:
    seen: list[str] = []
    for decision in kind_of(game.kind).rules.pending(state):
        if decision.player not in seen and not decision.answered:  # a sealed answer given: nothing to ask
            seen.append(decision.player)
    return seen


def _due_by_player(game: GameRow, state: Any, settings: GameSettings, since: datetime) -> dict[str, datetime]:
    return {d.player: d.due for d in deadlines(state, settings, since, kind_of(game.kind).rules)}


def _queue_prompts(session: Session, game: GameRow, state: Any, settings: GameSettings, mail: MailContext,
                   now: datetime, since: datetime, tag: str, note: Sequence[str] = (),
                   subject_suffix: str = "", only: str | None = None, purpose: str = "prompt") -> int:
    """A prompt to every deciding player (with the deadline counted from ``since``); the number queued."""
    kind = kind_of(game.kind)
    dues = _due_by_player(game, state, settings, since)
    count = 0
    for player in _deciders(game, state):
        if only is not None and player != only:
            continue
        prompt = kind.prompt(state, player, game=game.name, deadline=dues.get(player))
        if prompt is None:
            continue
        decision = next(d for d in kind.rules.pending(state) if d.player == player)
        body = (note_block("Note from the moderator", note) if note else "") + prompt
        subject = prompt_subject(kind, game.name, state, decision, subject_suffix)
        if _queue(session, game, kind.shown_move(state), _email(session, game, player), purpose,
                  f"prompt:{tag}:{_stamp(now)}", subject, body,
                  _headers(game, settings, mail, decision.kind), mail, now):
            count += 1
    return count


def _queue_reports(session: Session, game: GameRow, state: Any, events: Sequence[Any],
                   settings: GameSettings, mail: MailContext, now: datetime, tag: str, purpose: str,
                   title: str, note: Sequence[str], private: Mapping[str, Sequence[str]] | None = None,
                   subject: str | None = None, only: str | None = None) -> int:
    """The report to every seat (or ``only`` one), under a note; the number queued.

    A seat with ``BOARD ON`` gets the board's picture after the report's
    banner, drawn once for all (``pbem.moderator.notify.compose.board_picture``).
    """
    kind = kind_of(game.kind)
    count = 0
    drawn: list[tuple[bytes, str] | None] = []
    for seat in _seats(session, game):
        if only is not None and seat.name != only:
            continue
        if events and not kind.tells(state, events, seat.name):
            continue  # what happened is another player's sealed answer: this seat hears nothing of it
        paragraphs = list(note) + list((private or {}).get(seat.name, ()))
        chosen = prefs_of(session, seat, settings.mail_default, settings.board_default)
        news = news_block(take_news(session, seat)) if mail.moderator_address else ""
        head = (note_block(title, paragraphs) if paragraphs else "") + news
        body = head + kind.report(
            state, seat.name, events, game=game.name, open_cash=settings.open_cash, board=chosen.board)
        move = kind.shown_move(state)
        if chosen.board and mail.moderator_address and not drawn:
            drawn.append(board_picture(kind, game.name, state))
        picture = InlinePicture(drawn[0][0], drawn[0][1], line_at(body, len(head))) \
            if chosen.board and drawn and drawn[0] is not None else None
        if _queue(session, game, move, seat.email, purpose, f"report:{tag}:{_stamp(now)}",
                  subject or move_subject(game.name, move, "report"), body,
                  _headers(game, settings, mail), mail, now, picture=picture):
            count += 1
    if only is None and purpose == "report" and mail.moderator_address:  # and the public report to observers
        count += len(report_to_observers(session, game, state, events, Sender(mail.moderator_address, mail.domain),
                                         f"{tag}:{_stamp(now)}", now))
    return count
