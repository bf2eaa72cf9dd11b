"""Composing the moderator's mail into the outbox, inside the caller's transaction.

:class:`MailComposer` is the one place that decides what an outgoing mail
looks like; the inbound flow, ``pbem game new`` and the game-master commands
(undo, replace, resend, reminders) all queue through it, so every mail has the
same headers:

* ``From`` the moderator (``[moderator] address``/``name``);
* ``Reply-To`` the recipient seat's token address ``moderator+TOKEN@host``
  (direct answers to someone who is no seat have none);
* a stable ``Message-ID`` per (game, version, recipient, purpose)
  (:func:`pbem.mail.message_id_for`), so a mail queued twice is stored once
  and a resend after a crash is a duplicate the receiver collapses;
* threading per game: ``References`` the game's thread root
  (``GameSettings.thread_root``: the Message-ID of the welcome mail of the
  first seat) and the recipient's own welcome mail, ``In-Reply-To`` the
  latter (so each player's client threads under a mail it has); answers to a
  player's mail reply to that mail (``pbem.mail.reply_threading``);
* ``List-Id`` per game, ``Auto-Submitted`` (``auto-generated``, or
  ``auto-replied`` for an answer to a mail), ``X-PBEM-Decision: <kind>`` when
  the reader has to decide.

Tokens: every mail to a seat carries the seat's token in its Reply-To
(:meth:`MailComposer.token_for`, ``pbem.moderator.notify.tokens``).

A seat whose mail bounces for good (``seats.unreachable``,
``pbem.moderator.inbound.bounces``) has its mail written as for any seat but
*held*: kept in the outbox, with its text, and never sent (a mail server that
refuses an address should not be asked again and again: it harms the
sender's standing with every provider).

Pictures. A mail that carries the board (a report with the board, a
``BOARD`` answer, the end of the game, each for a seat with ``BOARD ON``)
also shows it as a picture (``pbem.mail.picture``), drawn once per composer
and version, and only when some mail carries it
(``pbem.moderator.notify.boards``); the outbox keeps it with the mail, so
that the sender needs no game state and a resend sends the same picture.
A move's mail is written after the move has committed
(``pbem.moderator.notify.telling``): its composer draws *aside*, asking the
helper process for the picture while it writes the seats' texts, and
:meth:`MailComposer.finish` puts it into the mail before it is written. A
picture that cannot be drawn, or is too big for a mail, is left out: the
text alone still tells everything.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from pbem.config import ModeratorSettings
from pbem.games import GameKind, kind_of
from pbem.languages import Language, labels, speaking
from pbem.mail import (
    InboundMessage,
    ReplyTo,
    Threading,
    list_id_for,
    message_id_for,
    reply_threading,
    thread_headers,
    token_address,
)
from pbem.moderator.apply import SubmitResult
from pbem.moderator.notify.boards import Boards, BoardUse
from pbem.moderator.notify.subjects import (
    MailSubject,
    decision_deadline,
    decisions_of,
    game_subject,
    prompt_subject,
)
from pbem.moderator.notify.tokens import seat_token
from pbem.moderator.site.links import game_url
from pbem.render.env import render
from pbem.store import GameRow, SeatRow, load_state, seats
from pbem.store.inbound import Budget, take_reply
from pbem.store.mailprefs import prefs_of
from pbem.store.models import id_of
from pbem.store.outbox import OutboxRow, OutboxStatus, QueuedMail, queue_mail
from pbem.store.settings import GameSettings, load_settings, pin_thread_root

WELCOME_MAIL = "core/welcome_mail.j2"  # the welcome's items on how much mail the seat gets
SITE_LINK = "core/site_link.j2"  # the last lines of a seat's mail when the games have a public site

AUTO_GENERATED = "auto-generated"
AUTO_REPLIED = "auto-replied"
NO_GAME = "pbem"  # the "game" in the Message-ID of a reply that belongs to no game


def key_tag(key: str) -> str:
    """A short, stable tag of an inbound message key, for outbox purposes (the column is 64 long)."""
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def line_at(text: str, offset: int) -> int:
    """The index of the line of ``text`` that holds the character at ``offset``: where a picture's part begins."""
    return text.count("\n", 0, max(0, offset))


Picture = BoardUse  # a mail's board picture: which version's, and where in the text it goes
Replied = InboundMessage | ReplyTo  # the player's mail an answer replies to


@dataclass(frozen=True)
class Queued:
    """One mail the composer queued (or found queued already)."""

    recipient: str
    purpose: str
    message_id: str


class MailComposer:
    """Queues the moderator's mail in one session (one transaction); see the module docstring.

    ``now`` stamps every mail (its Date, when it is due) and counts the
    direct replies in their budgets (``may_reply``).

    ``cause`` names what the mail is about (the inbound message's tag, a
    game-master command and its time …) and goes into the Message-IDs of the
    reports, prompts and game-end mails with the version: after an ``undo`` a
    version is played again, and the new report about it must not be taken
    for the old one (same Message-ID: not queued at all). The outbox
    ``purpose`` column stays the plain kind (``report``, ``prompt``, ``error`` …);
    ``key`` arguments make the Message-ID of a single mail unique the same way.
    """

    def __init__(self, session: Session, moderator: ModeratorSettings, now: datetime, *, cause: str = "",
                 aside: bool = False) -> None:
        if now.tzinfo is None:
            raise ValueError("the composer's clock must be timezone-aware")
        self.session = session
        self.moderator = moderator
        self.now = now
        self.cause = cause
        self.queued: list[Queued] = []
        self._tokens: dict[int, str] = {}
        self._settings: dict[int, GameSettings] = {}
        self.attachments: dict[int, tuple[str, str]] = {}  # seat id -> (file name, text) for its one reply
        self.boards = Boards(session, aside=aside)  # the pictures; ``aside``: drawn by the helper while texts are written
        self._written: dict[str, OutboxRow] = {}  # queued by this composer, not yet flushed
        # True once the caller knows that nothing was ever queued for ``cause``: the inbound message it names
        # is new in this transaction (its row is written with the mail). A Message-ID made with the cause then
        # cannot be in the outbox yet, and is not looked for (a query per mail).
        self.fresh_cause = False

    # --- tokens and settings ---------------------------------------------------------------

    def token_for(self, seat: SeatRow, known: str | None = None) -> str:
        """The seat's current token in plaintext (see the module docstring); issued when none is at hand."""
        assert seat.id is not None
        if seat.id not in self._tokens:
            with self.session.no_autoflush:  # its search of the outbox need not see the mails being written
                self._tokens[seat.id] = seat_token(self.session, seat, self.moderator.address, known)
        return self._tokens[seat.id]

    def settings(self, game: GameRow) -> GameSettings:
        assert game.id is not None
        if game.id not in self._settings:
            settings = load_settings(self.session, game)
            if not settings.thread_root:
                first = seats(self.session, game)
                if first:
                    pin_thread_root(self.session, game, settings, self.welcome_id(game, first[0].email))
            self._settings[game.id] = settings
        return self._settings[game.id]

    def know_settings(self, game: GameRow, settings: GameSettings) -> None:
        """The game's settings as the caller read them a moment ago (a move's teller: its own transaction)."""
        assert game.id is not None
        self._settings[game.id] = settings

    # --- ids and threading ------------------------------------------------------------------

    def message_id(self, game: str, version: int, recipient: str, purpose: str) -> str:
        return message_id_for(game, version, recipient, purpose, domain=self.moderator.domain)

    def welcome_id(self, game: GameRow, recipient: str) -> str:
        """The Message-ID of the welcome mail to ``recipient``: the parent of all their later mail."""
        return self.message_id(game.name, 0, recipient, "welcome")

    def threading(self, game: GameRow, recipient: str) -> Threading:
        root = self.settings(game).thread_root
        return thread_headers(root, self.welcome_id(game, recipient))

    # --- pictures -----------------------------------------------------------------------------

    def picture(self, game: GameRow, state: Any, *, line: int = 0) -> Picture:
        """The board of ``state`` for a mail whose part that carries the board begins at ``line`` of its body:
        drawn once per game and version in this composer (see the module docstring)."""
        return self.boards.use(game, state, line)

    def finish(self) -> None:
        """Put the pictures still being drawn into the rows that carry them; call before the mail is written
        (a composer that draws aside: see the module docstring)."""
        self.boards.finish()

    def abandon(self) -> None:
        """Wait for the pictures still being drawn and forget them (the transaction failed)."""
        self.boards.abandon()

    def board_answer_picture(self, game: GameRow, state: Any, body: str) -> Picture | None:
        """The picture for a mail whose ``body`` holds the whole text board (a ``BOARD`` answer), beside it."""
        board = kind_of(game.kind).board_text(state, game=game.name).strip()
        at = body.find(board) if board else -1
        return self.picture(game, state, line=line_at(body, at)) if at >= 0 else None

    def language_of(self, game: GameRow, seat: SeatRow) -> Language:
        """The language the seat's mail is written in (``LANGUAGE``, else the game's)."""
        return Language(seat.language or self.settings(game).language)  # the seat's row only: see SeatRow.language

    def writing_to(self, game: GameRow, seat: SeatRow) -> AbstractContextManager[Language]:
        """Write in the seat's language inside the block: every mail to one seat is written inside one
        (``pbem.languages`` says why a context and not an argument)."""
        return speaking(self.language_of(game, seat))

    def board_wanted(self, game: GameRow, seat: SeatRow) -> bool:
        """Whether the seat takes the board in its mail (``BOARD ON|OFF``, else the game's default)."""
        settings = self.settings(game)
        return prefs_of(self.session, seat, settings.mail_default, settings.board_default).board

    # --- queueing -----------------------------------------------------------------------------

    def _queue(self, *, recipient: str, to_name: str, purpose: str, message_id: str, subject: str, body: str,
               game: GameRow | None, version: int, reply_to: str | None, threading: Threading,
               decision: str | None, auto_submitted: str, picture: Picture | None = None,
               attachment: tuple[str, str] | None = None, caused: bool = False, held: bool = False) -> OutboxRow:
        """Queue one mail; ``caused``: its Message-ID was made with the composer's cause (see ``fresh_cause``);
        ``held``: to a seat that is unreachable, so kept in the outbox as held and never sent."""
        headers: dict[str, Any] = {
            "from": self.moderator.address,
            "from_name": self.moderator.name,
            "to_name": to_name,
            "reply_to": reply_to,
            "in_reply_to": threading.in_reply_to,
            "references": list(threading.references),
            "list_id": list_id_for(game.name, domain=self.moderator.domain, name=kind_of(game.kind).info.title)
            if game is not None else None,
            "decision": decision,
            "auto_submitted": auto_submitted,
            "date": self.now.isoformat(),
        }
        if attachment is not None:
            headers["attachment"] = {"filename": attachment[0], "text": attachment[1]}
        self.note_queued(recipient, purpose, message_id)
        if message_id in self._written:
            return self._written[message_id]
        if not (caused and self.fresh_cause and self.cause):
            existing = self.queued_before(message_id)
            if existing is not None:  # the same mail, queued before: keep it as it is
                return existing
        mail = QueuedMail(recipient=recipient, purpose=purpose[:64], message_id=message_id, subject=subject,
                          body=body, game_id=game.id if game is not None else None, version=version,
                          headers=headers, created=self.now)
        row = self._written[message_id] = queue_mail(self.session, mail, unseen=True)
        if held:  # what the seat would have been told stays on record; no picture is kept for it
            row.status, row.last_error = OutboxStatus.HELD, "held: the seat is unreachable (its mail bounced)"
        elif picture is not None:
            self.boards.attach(row, picture)
        return row

    def note_queued(self, recipient: str, purpose: str, message_id: str) -> None:
        """Count a mail in ``queued``: one this composer wrote, or one queued in its session by other code
        (the observers' copies of a move's report)."""
        self.queued.append(Queued(recipient, purpose, message_id))

    def queued_before(self, message_id: str) -> OutboxRow | None:
        """The mail with ``message_id`` if it is queued already: a reminder or an alert is queued once."""
        if message_id in self._written:
            return self._written[message_id]
        with self.session.no_autoflush:  # the mails written so far go in one INSERT, at the end
            return self.session.exec(select(OutboxRow).where(col(OutboxRow.message_id) == message_id)).first()

    def _key(self, purpose: str) -> str:
        return f"{purpose}:{self.cause}" if self.cause else purpose

    def to_seat(self, game: GameRow, seat: SeatRow, *, purpose: str, version: int, subject: str, body: str,
                decision: str | None = None, known_token: str | None = None,
                reply_to_message: Replied | None = None,
                auto_submitted: str = AUTO_GENERATED, key: str | None = None,
                picture: Picture | None = None) -> OutboxRow:
        """Queue a mail to a seat: Reply-To its token address, threaded in the game (or under the player's mail).

        The Message-ID is made of (game, ``version``, the seat's address, ``key``
        or else ``purpose`` with the composer's ``cause``). ``picture`` shows
        the board beside the text; an answer to questions (``query``) that
        holds the whole text board gets its picture here, from the stored state.
        """
        if picture is None and purpose == "query" and "\n" in body:
            picture = self.board_answer_picture(game, load_state(self.session, game), body)
        token = self.token_for(seat, known_token)
        attachment = None
        if reply_to_message is not None:
            threading = reply_threading(reply_to_message, self.settings(game).thread_root)
            attachment = self.attachments.pop(id_of(seat), None)  # a long answer rides on the one reply
        else:
            threading = self.threading(game, seat.email)
        return self._queue(
            recipient=seat.email, to_name=seat.name, purpose=purpose,
            message_id=self.message_id(game.name, version, seat.email, key or self._key(purpose)), subject=subject,
            body=body, game=game, version=version, reply_to=token_address(self.moderator.address, token),
            threading=threading, decision=decision, auto_submitted=auto_submitted, picture=picture,
            attachment=attachment, caused=key is None, held=seat.unreachable)

    def to_address(self, address: str, *, purpose: str, subject: str, body: str,
                   reply_to_message: Replied | None = None, game: GameRow | None = None,
                   version: int = 0, key: str | None = None, reply_token: str | None = None) -> OutboxRow:
        """Queue a mail to an address that is no seat (no token, so no Reply-To): answers to strangers, alerts
        (threaded in the game's thread), a goodbye to a player who left. ``reply_token``: a one-time token the
        reply carries back in its address (a confirmation asked of a stranger, ``pbem.moderator.inbound.judge``)."""
        if reply_to_message is not None:
            threading = reply_threading(reply_to_message)
        else:
            root = self.settings(game).thread_root if game is not None else None
            threading = thread_headers(root) if root else Threading(None, ())
        return self._queue(
            recipient=address, to_name="", purpose=purpose,
            message_id=self.message_id(game.name if game is not None else NO_GAME, version, address,
                                       key or self._key(purpose)),
            subject=subject, body=body, game=game, version=version,
            reply_to=token_address(self.moderator.address, reply_token) if reply_token else None,
            threading=threading,
            decision=None, auto_submitted=AUTO_REPLIED if reply_to_message is not None else AUTO_GENERATED,
            caused=key is None)

    def may_reply(self, budgets: tuple[Budget, ...], purpose: str) -> bool:
        """Whether a direct reply fits every one of ``budgets``; counts it in each if so."""
        return take_reply(self.session, budgets, purpose, self.now)

    # --- the game's mails ---------------------------------------------------------------------

    def welcome(self, game: GameRow, state: Any, seat: SeatRow, *, known_token: str | None = None) -> None:
        """The welcome mail to one seat (its token in the Reply-To and in the text), and its prompt if it decides."""
        with self.writing_to(game, seat):
            settings = self.settings(game)
            token = self.token_for(seat, known_token)
            kind = kind_of(game.kind)
            prefs = prefs_of(self.session, seat, settings.mail_default, settings.board_default, settings.language)
            note = render(WELCOME_MAIL, strict=True, mode=prefs.mode.value, board=prefs.board,
                          language=prefs.language.value, languages=labels()).rstrip("\n")
            body = kind.welcome(state, seat.name, game=game.name, reply_to=token_address(self.moderator.address, token),
                                open_cash=settings.open_cash, mail_note=note)
            body = "\n".join(part for part in (body, self.site_link(game)) if part)
            self._queue(
                recipient=seat.email, to_name=seat.name, purpose="welcome", message_id=self.welcome_id(game, seat.email),
                subject=game_subject(game.name, MailSubject.WELCOME, title=kind.info.title, player=seat.name),
                body=body, game=game,
                version=kind.shown_move(state), reply_to=token_address(self.moderator.address, token),
                threading=self._welcome_threading(game, seat.email), decision=None, auto_submitted=AUTO_GENERATED,
                held=seat.unreachable)
            self.prompt(game, state, seat)

    def _welcome_threading(self, game: GameRow, recipient: str) -> Threading:
        root = self.settings(game).thread_root
        own = self.welcome_id(game, recipient)
        return Threading(None, ()) if own == root else Threading(root, (root,))

    def site_link(self, game: GameRow) -> str:
        """A seat mail's last lines: the game's public page, when the games have a site (``[site] url``); else
        ''. In the welcome, every report and prompt, and the game's last mail."""
        base = self.moderator.site.url
        return render(SITE_LINK, url=game_url(base, game.name)) if base else ""

    def welcomes(self, game: GameRow, state: Any) -> None:
        for seat in seats(self.session, game):
            self.welcome(game, state, seat)

    def prompt_parts(self, game: GameRow, state: Any, seat: SeatRow, *, since: datetime | None = None,
                     short: str = "") -> tuple[str, str, str] | None:
        """(subject, body, decision kind) of the seat's prompt now, its deadline counted from ``since`` (else
        from now: the decision is new); None when it decides nothing. ``short`` ends the subject, in brackets."""
        kind = kind_of(game.kind)
        decisions = decisions_of(kind, state, seat.name)
        if not decisions:
            return None
        deadline = decision_deadline(self.settings(game), decisions[0], since or self.now)
        body = kind.prompt(state, seat.name, game=game.name, deadline=deadline)
        if body is None:
            return None
        return prompt_subject(kind, game.name, state, decisions[0], short), body, decisions[0].kind

    def prompt(self, game: GameRow, state: Any, seat: SeatRow, purpose: str = "prompt") -> bool:
        """The prompt to a seat that must decide now (with ``X-PBEM-Decision``); False when it decides nothing."""
        with self.writing_to(game, seat):
            found = self.prompt_parts(game, state, seat)
            if found is None:
                return False
            subject, body, decision = found
            self.to_seat(game, seat, purpose=purpose, version=kind_of(game.kind).shown_move(state), subject=subject,
                         body=body, decision=decision)
            return True

    def game_end(self, game: GameRow, state: Any, seat: SeatRow, events: Iterable[Any], *, head: str = "",
                 reply_to_message: Replied | None = None) -> None:
        """The last mail of the game to a seat, after ``head``; with the final board's picture (``BOARD ON``)."""
        with self.writing_to(game, seat):
            kind = kind_of(game.kind)
            body = "\n".join(part for part in (head + kind.game_end(state, seat.name, list(events), game=game.name),
                                                self.site_link(game)) if part)
            picture = self.picture(game, state, line=line_at(body, len(head))) if self.board_wanted(game, seat) else None
            self.to_seat(game, seat, purpose="game_end", version=kind.shown_move(state),
                         subject=game_subject(game.name, MailSubject.GAME_OVER), body=body, reply_to_message=reply_to_message,
                         picture=picture)


def error_body(kind: GameKind, result: SubmitResult, player: str, game: str, *, with_prompt: bool = False) -> str:
    """The refusal of ``player``'s message; ``with_prompt``: in a mail that asks them again, whose options are what
    is legal now, so the refusal leaves its own list of them out (a mail shows the options once, issue 29)."""
    assert result.refusal is not None
    refusal = replace(result.refusal, legal=()) if with_prompt else result.refusal
    return kind.error(result.state, player, refusal, result.applied, game=game)
