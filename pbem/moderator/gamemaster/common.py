"""What every game-master command shares: its errors, the mail context (and its composer), transactions."""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from dataclasses import replace as dc_replace
from datetime import datetime
from enum import StrEnum
from typing import Any, TypeVar

from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlmodel import Session, col, select

from pbem import store
from pbem.config import ModeratorSettings, SiteSettings
from pbem.crash import crash_point
from pbem.errors import ConcurrentUpdate, PbemError, StoreError, UnknownPlayer
from pbem.games import kind_of
from pbem.games.kind import match_player
from pbem.holders import holder_name
from pbem.mail.errors import OutboundError
from pbem.mail.outbound import domain_of
from pbem.moderator.deadlines import utc
from pbem.moderator.notify.compose import MailComposer
from pbem.moderator.notify.telling import Recorded, tell_safely
from pbem.moderator.notify.turnmail import Words
from pbem.moderator.site.write import refresh_safely
from pbem.render.env import environment, render
from pbem.render.text import due_stamp
from pbem.store import Database, GameRow, SeatRow
from pbem.store.settings import GameSettings, save_settings

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
    """What the mails need beyond the game: the Message-ID domain, our address, the game master's address.

    Without a moderator address nothing is queued: the command's work stands
    and it says nothing about mail. With one, every mail is written by
    :class:`MailComposer` (:meth:`composer`), as the mail flow's are: the same
    headers, threading, Reply-To token and Message-IDs (made in the address's
    domain). ``name`` is the display name in From; left empty, the sender
    puts the configured one.
    """

    domain: str = DEFAULT_MAIL_DOMAIN
    moderator_address: str | None = None
    game_master: str | None = None
    name: str = ""
    site: SiteSettings = field(default_factory=SiteSettings)  # the public pages a told move refreshes

    @classmethod
    def make(cls, *, mail_domain: str | None = None, moderator_address: str | None = None,
             game_master: str | None = None, name: str = "", site: SiteSettings | None = None) -> MailContext:
        """The domain is ``mail_domain``, else that of ``moderator_address``, else ``pbem.invalid``."""
        try:
            domain = mail_domain or (domain_of(moderator_address) if moderator_address else DEFAULT_MAIL_DOMAIN)
        except OutboundError as exc:
            raise GameMasterError(str(exc)) from None
        return cls(domain, moderator_address or None, game_master or None, name, site or SiteSettings())

    def identity(self) -> ModeratorSettings | None:
        """Who the mail is from (None without a moderator address: nothing is mailed)."""
        if self.moderator_address is None:
            return None
        return ModeratorSettings(self.moderator_address, self.name, self.game_master, self.site)

    def composer(self, session: Session, now: datetime, cause: str) -> MailComposer | None:
        """The composer of a command's mail in its transaction (``cause`` goes into the Message-IDs); None
        without a moderator address."""
        identity = self.identity()
        return MailComposer(session, identity, now, cause=cause) if identity is not None else None

    def tell(self, db: Database, moved: Recorded | int | None) -> int:
        """After a command's commit: tell the moves it recorded (``pbem.moderator.notify.telling``): the one it
        ``Recorded``, or those of the game with that id (None: it recorded none); the number of mails queued."""
        identity = self.identity()
        if moved is None or identity is None:
            return 0
        crash_point("after_apply_before_render")
        recorded = moved if isinstance(moved, Recorded) else None
        game_id = moved.row.game_id if isinstance(moved, Recorded) else moved
        return len(tell_safely(db, identity, game_id, holder=teller(), recorded=recorded).queued)

    def publish(self, db: Database, game_id: int | None, *, every: bool = False) -> None:
        """After a command's commit that changes what a game's public pages show and tells no move (undo,
        replace, pause, resume): with ``[site] dir`` the pages written again, as after a move
        (``pbem.moderator.site.write.refresh_safely``, which never raises). ``every``: every page narrated anew
        (a replacement renames the player in the history)."""
        if self.site.dir is not None and game_id is not None:
            refresh_safely(db, self.site.dir, game_id, every=every)

    def tell_first(self, db: Database, name: str) -> None:
        """Before a command rewrites a game's history (undo, replace): the moves still to tell are told, so that
        every seat hears of a move before it hears that it was taken back or that its player left."""
        identity = self.identity()
        if identity is None:
            return
        with _transaction(db) as session:
            game_id = store.find_game(session, name).id
        if game_id is not None:
            tell_safely(db, identity, game_id, holder=teller(), take_over=True)

    @classmethod
    def from_config(cls, config: Any) -> MailContext:
        """From the ``[moderator]`` section of a ``pbem.config.Config``: ``address``, ``game_master``."""
        moderator = getattr(config, "moderator", None)
        if moderator is not None:
            address, master = moderator.address, getattr(moderator, "game_master", None)
            name = getattr(moderator, "name", "")
        else:
            section = config.section("moderator") if hasattr(config, "section") else {}
            address, master, name = section.get("address"), section.get("game_master"), section.get("name", "")
        for key, value in (("address", address), ("game_master", master)):
            if value is not None and (not isinstance(value, str) or "@" not in value):
                raise GameMasterError(f"[moderator] {key} must be an e-mail address, not {value!r}")
        site = getattr(config, "site", None)
        return cls.make(moderator_address=address, game_master=master, name=name if isinstance(name, str) else "",
                        site=site if isinstance(site, SiteSettings) else None)


def teller() -> str:
    """Who records a command's move and tells it right after the commit: this process and thread."""
    return holder_name("tell")


def _stamp(moment: datetime) -> str:
    return utc(moment).strftime("%Y%m%dT%H%M%S.%f")


def _when(moment: datetime) -> str:
    return due_stamp(utc(moment))


# --- the words: templates/core (see the package docstring for the names) --------------------------------


def notice(template: str, **values: Any) -> str:
    """A headed notice (``core/notice_*.j2``) as ``note_block`` lays it out, blank line after it included:
    ``render`` ends every text with one newline, and what follows a notice in a mail (the report, the prompt)
    must stand a blank line below it."""
    return render(template, strict=True, **values) + "\n"


def words(template: str, **values: Any) -> str:
    """A sentence or a subject's words (``core/move_note_*.j2``, ``core/subjects.j2``, ``core/tick_report.j2``)
    that another layer lays out: the move's mail wraps its notes, a subject is one header line, a command's
    line goes to the console as it is. ``render``'s mail finish would wrap them at 78 columns first, so only
    the template's own leading and trailing blanks are taken off."""
    return environment().get_template(template).render(**values).strip()


def later(template: str, **values: Any) -> Words:
    """A move's note (``core/move_note_*.j2``), said in each seat's own language when its mail is written."""
    return Words(template, values)


class Subject(StrEnum):
    """Which mail's subject ``core/subjects.j2`` words (its comment names the values each takes); ``_SHORT``:
    the words in brackets after the question of a notice that carries a prompt."""

    UNDONE = "undone"
    UNDONE_SHORT = "undone_short"
    WELCOME = "welcome"
    WELCOME_SHORT = "welcome_short"
    TAKES_OVER = "takes_over"
    YOUR_SEAT = "your_seat"
    PAUSED = "paused"
    RESUMED = "resumed"
    EXTENDED = "extended"
    ENDED = "ended"
    SENT_AGAIN = "sent_again"
    SENT_AGAIN_SHORT = "sent_again_short"
    REMINDER = "reminder"
    STALLED = "stalled"
    REPLACE = "replace"
    DIGEST = "digest"


def subject_words(subject: Subject, **values: Any) -> str:
    """What a mail's subject says after its ``[GAME] Move N:`` frame (``core/subjects.j2``, ``subject``
    picks the mail)."""
    return words("core/subjects.j2", subject=subject, **values)


class TickLine(StrEnum):
    """Which line, or which detail of a line, of the deadline tick's report ``core/tick_report.j2`` words (its
    comment names the values each takes); the details are what the game did or why it could not."""

    REMINDED = "reminded"
    ANSWERED = "answered"
    STALLED = "stalled"
    PAUSED = "paused"
    ERROR = "error"
    NOTHING = "nothing"
    STAND_IN = "stand_in"
    REFUSED = "refused"
    NOTHING_APPLIED = "nothing_applied"
    NO_STAND_IN = "no_stand_in"
    NO_GAME_MASTER = "no_game_master"
    ALERTED = "alerted"
    ALERTED_BEFORE = "alerted_before"


def tick_words(line: TickLine, **values: Any) -> str:
    """A line of the deadline tick's report to the game master, or a detail of one (``core/tick_report.j2``)."""
    return words("core/tick_report.j2", line=line, **values)


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


def _seat_of(session: Session, game: GameRow, player: str) -> SeatRow:
    for seat in _seats(session, game):
        if seat.name == player:
            return seat
    raise UnknownPlayer(f"{player!r} has no seat in game {game.name!r}")


def _resolve(names: Sequence[str], text: str, game: str) -> str:
    found = match_player(text, names)
    if found is None:
        raise UnknownPlayer(f"{text!r} is not a player of game {game!r}; players: {', '.join(names)}")
    return found


def _restart_clock(session: Session, game: GameRow, settings: GameSettings, moment: datetime) -> GameSettings:
    """Deadlines count from ``moment`` (undo, replace, resume; read by ``pbem.moderator.deadlines.decision_since``)."""
    settings = dc_replace(settings, clock_reset=moment, extended_at=None)
    save_settings(session, game, settings)
    return settings


def _deciders(game: GameRow, state: Any) -> list[str]:
    seen: list[str] = []
    for decision in kind_of(game.kind).pending(state):
        if decision.player not in seen and not decision.answered:  # a sealed answer given: nothing to ask
            seen.append(decision.player)
    return seen
