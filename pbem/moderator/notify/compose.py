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

Pictures. A mail that carries the board (a report with the board, a
``BOARD`` answer, the end of the game, each for a seat with ``BOARD ON``)
also shows it as a picture (``pbem.mail.picture``). It is drawn here, where
the state is at hand, once per composer and state (every seat sees the same
public board), and kept with the outbox row, so that the sender needs no
game state and a resend sends the same picture. A picture that cannot be
drawn, or is too big for a mail, is left out: the text alone still tells
everything. In the daemon a move's picture is drawn by a helper process
(``pbem.moderator.notify.pictures``) while the rest of the move is written; its rows
get it in :meth:`MailComposer.finish`, before the transaction commits, or,
when mail waits behind the move, after it (``pbem.moderator.notify.latepictures``).
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import event
from sqlmodel import Session, col, select

from pbem.config import ModeratorSettings
from pbem.games import GameKind, kind_of
from pbem.mail import (
    InboundMessage,
    InlinePicture,
    OutgoingMail,
    Threading,
    list_id_for,
    message_id_for,
    reply_threading,
    thread_headers,
    token_address,
)
from pbem.moderator.apply import SubmitResult
from pbem.moderator.notify import pictures, turnmail
from pbem.moderator.notify.latepictures import PicturesAfterCommit
from pbem.moderator.notify.pictures import Drawing, Drawn, LaterDrawing, board_picture
from pbem.moderator.notify.subjects import (
    decision_deadline,
    decisions_of,
    prompt_subject,
)
from pbem.moderator.notify.tokens import seat_token
from pbem.store import GameRow, SeatRow, load_state, seats
from pbem.store.inbound import Budget, take_reply
from pbem.store.mailprefs import prefs_of
from pbem.store.models import id_of
from pbem.store.outbox import OutboxRow, QueuedMail, queue_mail
from pbem.store.settings import GameSettings, load_settings, pin_thread_root

AUTO_GENERATED = "auto-generated"
AUTO_REPLIED = "auto-replied"
NO_GAME = "pbem"  # the "game" in the Message-ID of a reply that belongs to no game


def key_tag(key: str) -> str:
    """A short, stable tag of an inbound message key, for outbox purposes (the column is 64 long)."""
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def line_at(text: str, offset: int) -> int:
    """The index of the line of ``text`` that holds the character at ``offset``: where a picture's part begins."""
    return text.count("\n", 0, max(0, offset))


def outgoing_mail(row: OutboxRow, moderator: ModeratorSettings | None = None) -> OutgoingMail:
    """The ``OutgoingMail`` an outbox row describes (what the sender builds and sends).

    Rows queued by other code may carry fewer header values than the
    composer's: ``from``/``from_name`` then come from ``moderator``, the
    Date from the row's ``created``, ``Auto-Submitted`` is ``auto-generated``.
    """
    h = row.headers or {}
    if h.get("date"):
        date = datetime.fromisoformat(h["date"])
    else:
        date = row.created if row.created.tzinfo else row.created.replace(tzinfo=UTC)
    from_address = h.get("from") or (moderator.address if moderator is not None else None)
    if not from_address:
        raise ValueError("no From address: the row has none and no [moderator] address is configured")
    return OutgoingMail(
        to=row.recipient,
        subject=row.subject,
        body=row.body,
        from_address=from_address,
        from_name=h.get("from_name") or (moderator.name if moderator is not None else ""),
        to_name=h.get("to_name", ""),
        message_id=row.message_id,
        date=date,
        reply_to=h.get("reply_to") or None,
        in_reply_to=h.get("in_reply_to") or None,
        references=tuple(h.get("references") or ()),
        list_id=h.get("list_id") or None,
        decision=h.get("decision") or None,
        auto_submitted=h.get("auto_submitted", AUTO_GENERATED),
        picture=InlinePicture(row.picture, str(h.get("picture_alt") or "The board"), int(h.get("picture_line") or 0))
        if row.picture else None,
        attachment=(str(h["attachment"]["filename"]), str(h["attachment"]["text"])) if h.get("attachment") else None,
    )


@dataclass(frozen=True)
class LatePicture:
    """A picture the helper process is still drawing, for a mail whose board begins at ``line``: its row gets
    it in ``MailComposer.finish`` (a :class:`LaterDrawing`: after the commit)."""

    drawing: Drawing | LaterDrawing
    line: int = 0


Picture = InlinePicture | LatePicture


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

    def __init__(self, session: Session, moderator: ModeratorSettings, now: datetime, *, cause: str = "") -> None:
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
        self._pictures: dict[tuple[int, int], Drawn | Drawing | LaterDrawing] = {}
        self._after: PicturesAfterCommit | None = None  # the rows whose picture comes after the commit
        self._late: list[tuple[OutboxRow, LatePicture]] = []  # rows whose picture the helper is drawing
        self._listening = False  # to the session's flushes, for _late
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

    def picture(self, game: GameRow, state: Any, *, line: int = 0) -> Picture | None:
        """The board of ``state`` for a mail whose part that carries the board begins at ``line`` of its body.

        Drawn once per game and version in this composer (see the module
        docstring); None when it cannot be drawn; a :class:`LatePicture` while
        the helper process draws it.
        """
        key = self._picture_key(game, state)
        if key not in self._pictures:
            self._pictures[key] = board_picture(kind_of(game.kind), game.name, state)
        drawn = self._pictures[key]
        if isinstance(drawn, Drawing | LaterDrawing):
            return LatePicture(drawn, line)
        return InlinePicture(drawn[0], drawn[1], line) if drawn is not None else None

    def draw_ahead(self, game: GameRow, state: Any) -> None:
        """Start drawing the board of ``state``, when the game's reports show it by default (``picture`` keeps it).

        Why ahead: the daemon's helper process draws it while every seat's
        mail is composed (``pbem.moderator.notify.pictures``); without one it is drawn
        here and now, before the move's first write takes the database's
        write lock, so that it keeps no other writer (the outbox's sender
        marking mail sent) waiting.
        """
        if not self.settings(game).board_default:
            return
        drawing = pictures.ask(game.kind, game.name, state)
        if drawing is None:
            self.picture(game, state)
            return
        if isinstance(drawing, LaterDrawing):
            self._pictures_after_commit().expect(drawing)
        self._pictures.setdefault(self._picture_key(game, state), drawing)

    def _pictures_after_commit(self) -> PicturesAfterCommit:
        if self._after is None:
            self._after = PicturesAfterCommit(self.session, self.now)
        return self._after

    @staticmethod
    def _picture_key(game: GameRow, state: Any) -> tuple[int, int]:
        """Pictures are drawn once per game and version (every seat sees the same public board)."""
        assert game.id is not None
        return game.id, kind_of(game.kind).rules.version(state)

    def finish(self) -> None:
        """Give the rows queued without their picture (:class:`LatePicture`) the picture, once it is drawn;
        call before the transaction commits (the session's next flush calls it too). A picture asked for
        and not used is waited for all the same, so that the helper is free again."""
        for row, late in self._late:
            assert isinstance(late.drawing, Drawing)  # a LaterDrawing's rows are held instead (_queue)
            drawn = late.drawing.result()
            if drawn is not None:
                row.picture = drawn[0]
                row.headers = {**row.headers, "picture_alt": drawn[1], "picture_line": late.line}
        self._late.clear()
        self.abandon()

    def _before_flush(self, *_: Any) -> None:
        if self._late:
            self.finish()

    def abandon(self) -> None:
        """Wait for the pictures still being drawn and forget them (the transaction failed, or they went unused)."""
        for key, drawn in list(self._pictures.items()):
            if isinstance(drawn, Drawing):
                self._pictures[key] = drawn.result()

    def board_answer_picture(self, game: GameRow, state: Any, body: str) -> Picture | None:
        """The picture for a mail whose ``body`` holds the whole text board (a ``BOARD`` answer), beside it."""
        board = kind_of(game.kind).board_text(state, game=game.name).strip()
        at = body.find(board) if board else -1
        return self.picture(game, state, line=line_at(body, at)) if at >= 0 else None

    def board_wanted(self, game: GameRow, seat: SeatRow) -> bool:
        """Whether the seat takes the board in its mail (``BOARD ON|OFF``, else the game's default)."""
        settings = self.settings(game)
        return prefs_of(self.session, seat, settings.mail_default, settings.board_default).board

    # --- queueing -----------------------------------------------------------------------------

    def _queue(self, *, recipient: str, to_name: str, purpose: str, message_id: str, subject: str, body: str,
               game: GameRow | None, version: int, reply_to: str | None, threading: Threading,
               decision: str | None, auto_submitted: str, picture: Picture | None = None,
               attachment: tuple[str, str] | None = None, caused: bool = False) -> OutboxRow:
        """Queue one mail; ``caused``: its Message-ID was made with the composer's cause (see ``fresh_cause``)."""
        headers: dict[str, Any] = {
            "from": self.moderator.address,
            "from_name": self.moderator.name,
            "to_name": to_name,
            "reply_to": reply_to,
            "in_reply_to": threading.in_reply_to,
            "references": list(threading.references),
            "list_id": list_id_for(game.name, domain=self.moderator.domain, name=kind_of(game.kind).title)
            if game is not None else None,
            "decision": decision,
            "auto_submitted": auto_submitted,
            "date": self.now.isoformat(),
        }
        if isinstance(picture, InlinePicture):
            headers["picture_alt"], headers["picture_line"] = picture.alt, picture.line
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
                          headers=headers, picture=picture.png if isinstance(picture, InlinePicture) else None,
                          created=self.now)
        row = self._written[message_id] = queue_mail(self.session, mail, unseen=True)
        if isinstance(picture, LatePicture) and isinstance(picture.drawing, LaterDrawing):
            self._pictures_after_commit().hold(row, picture.drawing, picture.line)
        elif isinstance(picture, LatePicture):
            if not self._listening:  # the rows must not be written before they have it (no UPDATE afterwards)
                event.listen(self.session, "before_flush", self._before_flush)
                self._listening = True
            self._late.append((row, picture))
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
                reply_to_message: InboundMessage | None = None,
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
            attachment=attachment, caused=key is None)

    def to_address(self, address: str, *, purpose: str, subject: str, body: str,
                   reply_to_message: InboundMessage | None = None, game: GameRow | None = None,
                   version: int = 0, key: str | None = None) -> OutboxRow:
        """Queue a mail to an address that is no seat (no token, so no Reply-To): answers to strangers, alerts
        (threaded in the game's thread), a goodbye to a player who left."""
        if reply_to_message is not None:
            threading = reply_threading(reply_to_message)
        else:
            root = self.settings(game).thread_root if game is not None else None
            threading = thread_headers(root) if root else Threading(None, ())
        return self._queue(
            recipient=address, to_name="", purpose=purpose,
            message_id=self.message_id(game.name if game is not None else NO_GAME, version, address,
                                       key or self._key(purpose)),
            subject=subject, body=body, game=game, version=version, reply_to=None, threading=threading,
            decision=None, auto_submitted=AUTO_REPLIED if reply_to_message is not None else AUTO_GENERATED,
            caused=key is None)

    def may_reply(self, budgets: tuple[Budget, ...], purpose: str) -> bool:
        """Whether a direct reply fits every one of ``budgets``; counts it in each if so."""
        return take_reply(self.session, budgets, purpose, self.now)

    # --- the game's mails ---------------------------------------------------------------------

    def welcome(self, game: GameRow, state: Any, seat: SeatRow, *, known_token: str | None = None) -> None:
        """The welcome mail to one seat (its token in the Reply-To and in the text), and its prompt if it decides."""
        settings = self.settings(game)
        token = self.token_for(seat, known_token)
        kind = kind_of(game.kind)
        body = kind.welcome(state, seat.name, game=game.name, reply_to=token_address(self.moderator.address, token),
                            open_cash=settings.open_cash)
        self._queue(
            recipient=seat.email, to_name=seat.name, purpose="welcome", message_id=self.welcome_id(game, seat.email),
            subject=f"[{game.name}] Welcome to {kind.title}, {seat.name}", body=body, game=game,
            version=kind.shown_move(state), reply_to=token_address(self.moderator.address, token),
            threading=self._welcome_threading(game, seat.email), decision=None, auto_submitted=AUTO_GENERATED)
        self.prompt(game, state, seat)

    def _welcome_threading(self, game: GameRow, recipient: str) -> Threading:
        root = self.settings(game).thread_root
        own = self.welcome_id(game, recipient)
        return Threading(None, ()) if own == root else Threading(root, (root,))

    def welcomes(self, game: GameRow, state: Any) -> None:
        for seat in seats(self.session, game):
            self.welcome(game, state, seat)

    def prompt_parts(self, game: GameRow, state: Any, seat: SeatRow, *, since: datetime | None = None,
                     suffix: str = "") -> tuple[str, str, str] | None:
        """(subject, body, decision kind) of the seat's prompt now, its deadline counted from ``since`` (else
        from now: the decision is new); None when it decides nothing. ``suffix`` ends the subject."""
        kind = kind_of(game.kind)
        decisions = decisions_of(kind, state, seat.name)
        if not decisions:
            return None
        deadline = decision_deadline(self.settings(game), decisions[0], since or self.now)
        body = kind.prompt(state, seat.name, game=game.name, deadline=deadline)
        if body is None:
            return None
        return prompt_subject(kind, game.name, state, decisions[0], suffix), body, decisions[0].kind

    def prompt(self, game: GameRow, state: Any, seat: SeatRow, purpose: str = "prompt") -> bool:
        """The prompt to a seat that must decide now (with ``X-PBEM-Decision``); False when it decides nothing."""
        found = self.prompt_parts(game, state, seat)
        if found is None:
            return False
        subject, body, decision = found
        self.to_seat(game, seat, purpose=purpose, version=kind_of(game.kind).shown_move(state), subject=subject,
                     body=body, decision=decision)
        return True

    def game_end(self, game: GameRow, state: Any, seat: SeatRow, events: Iterable[Any], *, head: str = "",
                 reply_to_message: InboundMessage | None = None) -> None:
        """The last mail of the game to a seat, after ``head``; with the final board's picture (``BOARD ON``)."""
        kind = kind_of(game.kind)
        body = head + kind.game_end(state, seat.name, list(events), game=game.name)
        picture = self.picture(game, state, line=line_at(body, len(head))) if self.board_wanted(game, seat) else None
        self.to_seat(game, seat, purpose="game_end", version=kind.shown_move(state),
                     subject=f"[{game.name}] Game over", body=body, reply_to_message=reply_to_message,
                     picture=picture)

    def turn_mail(self, game: GameRow, before: Any, result: SubmitResult, also_prompt: Sequence[str] = (), *,
                  sender_parts: Sequence[str] = (), reply_to_message: InboundMessage | None = None) -> bool:
        """After a message changed the game: each seat's mail in its mode (``pbem.moderator.notify.turnmail``)."""
        return turnmail.turn_mail(self, game, before, result, also_prompt, sender_parts=sender_parts,
                                  reply_to_message=reply_to_message)


def error_body(kind: GameKind, result: SubmitResult, player: str, game: str) -> str:
    assert result.refusal is not None
    return kind.error(result.state, player, result.refusal, result.applied, game=game)
