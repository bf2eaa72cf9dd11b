"""Press: players' letters to each other, relayed by the moderator without showing anyone's address.

A player writes, anywhere in a mail to the game::

    PRESS TO bob            (or several: PRESS TO bob, cy; or everyone else: PRESS TO ALL)
    Shall we share Asia?
    END PRESS

The press text is every line below the ``PRESS TO`` line up to a line ``END
PRESS``, or to the end of the message (its signature, a ``--`` line, ends it
too). ``PRESS TO bob: text`` is the one-line form: its text is that line alone
and the lines below are read as usual (orders), unless an ``END PRESS`` below
it (before another ``PRESS``) closes it as a block. Lines quoted from another
mail (``>``) are not relayed. Orders may stand above and below: the press
lines are taken out of the message (blanked, so the other lines keep their
numbers) before the game reads the orders, which apply as usual. Like
``MAIL``/``BOARD`` (``pbem.moderator.inbound.preferences``) this is the core's own
language, the same in every game, read before the game's. The sender's
confirmation quotes what was sent and from which lines of the mail, so that
orders taken for press show at once, not when the other player wonders.

A reply to a press mail (:func:`answered_press`) is press to the seat that
wrote it: the mail's text, from its top, up to ``END PRESS`` (orders may
follow that line), unless the reply has a ``PRESS TO`` line of its own, which
then rules as in any mail. The reply is known by its ``In-Reply-To`` (else the
last of its ``References``): it must be the Message-ID of a press mail of the
same game that went to the replying seat itself, whose token and address the
handler has checked already. The writer is taken from that mail's outbox row
(``WRITER``, kept there when it was queued and never sent), not from anything
in the reply, so a reply names nobody the replier could not write to anyway
and reveals no anonymous writer: the confirmation of a reply to anonymous
press does not name its writer. The same text in reply to the same press mail
is relayed once (a re-sent reply with a new Message-ID), counted for good in
the reply budgets. A press mail queued before its writer was kept (an older
moderator) is answered with how to write press, and nothing of the reply is
read as orders.

A recipient is a seat's name (case ignored, ``pbem.games.kind.match_player``)
or what the seat holds in its game (``GameKind.holdings``: a colour in
Eight-Minute Empire, a nation governed in Imperial 2030), or ``ALL``: every
other seat. What a seat holds is taken in the writer's language or in English
(``PRESS TO Китай`` as ``PRESS TO China``), case and accents forgiven as in
order names (``pbem.languages.folded``: ``китаи``, ``zolty``); a refusal lists
it in the writer's language. ``ALL`` means the players only; observers get public reports,
never press. ``ALL`` wins over a seat that happens to be called "all".

Each recipient gets one mail From the moderator, Reply-To their own token
address (``MailComposer.to_seat``), threaded in the game, never under the
sender's mail (its Message-ID could name the sender's host). The text is
relayed as written, under ``Press from <seat>`` or, when the game master set
``press=anonymous``, ``Anonymous press``; with ``press=none`` it is refused.
The sender's confirmation (or the reason for a refusal) rides in the one
mail back to their message. Anonymous press hides the name, not the moment:
press sent in the same mail as orders arrives together with the report of
those orders, so a player who wants to stay unknown sends it on its own.

Limits: a press text of at most ``MAX_BYTES`` (UTF-8), and a seat relays at
most ``PER_HOUR`` / ``PER_DAY`` mails (a press to three players is three),
counted in the reply budgets of ``pbem.store.inbound``. A press that breaks
a rule is refused alone; the rest of the message stands.

The words are in ``templates/core``: ``press_mail.j2`` (the mail relayed)
and ``press_told.j2`` (the sender's confirmation, and why a press was not
relayed: a :class:`Problem`, never a sentence, so that the same refusal can
be told in the seat's language).
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from enum import Enum
from typing import TYPE_CHECKING, Any

from sqlmodel import Session, col, select

from pbem.games import GameKind, kind_of
from pbem.games.kind import match_player
from pbem.games.messagetext import QUOTE, SIGNATURES
from pbem.languages import SOURCE, folded, speaking
from pbem.mail import InboundMessage
from pbem.moderator.inbound.words import said
from pbem.moderator.notify.subjects import MailSubject, game_subject
from pbem.render.text import join_words
from pbem.store import GameRow, SeatRow, seats
from pbem.store.inbound import Budget, replies_since, take_reply
from pbem.store.outbox import OutboxRow

if TYPE_CHECKING:
    from pbem.moderator.notify.compose import MailComposer

MAX_BYTES = 8 * 1024
PER_HOUR = 20  # press mails one seat may have relayed in an hour
PER_DAY = 100  # and in a day
EVERYONE = "all"
NONE, SIGNED, ANONYMOUS = "none", "signed", "anonymous"
PURPOSE = "press"  # the outbox purpose of a relayed press mail
WRITER, HIDDEN = "press_writer", "press_hidden"  # kept in its outbox row: who wrote it, and unnamed or not
SHOWN_LINES = 12  # lines of a press quoted back in the sender's confirmation
TOLD, MAIL = "press_told", "press_mail"  # templates/core: the sender's confirmation, a relayed press mail

_START = re.compile(r"^\s*press\b(.*)$", re.IGNORECASE)
_TO = re.compile(r"^\s*to\s+([^:]*?)\s*(?::\s*(.*?))?\s*$", re.IGNORECASE)  # "TO bob" or "TO bob: text"
_END = re.compile(r"^\s*end\s+press\s*[.!]?\s*$", re.IGNORECASE)
_SEPARATORS = re.compile(r"[\s,;\"']+")
_FILLER = {"and", "&", "+"}
_PRESS_WORD = re.compile(r"\bpress\b", re.IGNORECASE)  # in a press mail's subject (core/mail_subjects.j2)


class Problem(Enum):
    """Why a press is not relayed (the words: ``templates/core/press_told.j2``)."""

    OFF = "off"  # the game has no press (press=none)
    UNSIGNED_REPLY = "unsigned_reply"  # a reply to a press mail that does not say who wrote it
    NO_NAMES = "no_names"  # PRESS without TO and a player
    EMPTY_REPLY = "empty_reply"  # a reply to press with nothing of its own
    NO_TEXT = "no_text"  # PRESS TO and no text
    TOO_LONG = "too_long"  # more than MAX_BYTES
    NOT_A_PLAYER = "not_a_player"  # a name that is no seat's, nor what one seat holds
    TO_ONESELF = "to_oneself"  # the sender alone
    NO_OTHER = "no_other"  # PRESS TO ALL in a game of one
    WRITER_GONE = "writer_gone"  # the writer of the press answered no longer plays
    TOO_MUCH = "too_much"  # beyond the sender's PER_HOUR or PER_DAY


@dataclass(frozen=True)
class Named:
    """A seat one may write to, as a refusal lists it: its name and what it holds in the game (a colour, ...)."""

    name: str
    holds: tuple[str, ...]


@dataclass(frozen=True)
class Refusal:
    """Why a press is not relayed, with the values its sentence names."""

    problem: Problem
    name: str = ""  # NOT_A_PLAYER: the name as written
    others: tuple[Named, ...] = ()  # NOT_A_PLAYER: the seats one may name
    size: int = 0  # TOO_LONG: the text's size in bytes


@dataclass(frozen=True)
class Origin:
    """The press mail a reply answers: its Message-ID, the seat that wrote it (None when its row does not
    say: a mail of an older moderator) and whether that seat's name was hidden from the reader."""

    message_id: str
    writer: int | None
    hidden: bool


@dataclass(frozen=True)
class Press:
    """One press of a message (a ``PRESS TO`` block, or a reply to press): what it names, its text (or why it
    cannot be read)."""

    number: int  # the line of ``PRESS TO`` in the message (of the text's first line, for a reply)
    line: str  # the ``PRESS TO`` line as written, without a one-line text ("" for a reply)
    names: tuple[str, ...]
    text: str
    problem: Problem | None = None
    span: tuple[int, int] | None = None  # the first and last line of the text in the message
    reply: Origin | None = None  # a reply to a press mail: press to its writer

    @property
    def lines(self) -> list[str]:
        """The text's lines, as quoted back to the sender."""
        return self.text.split("\n")


@dataclass(frozen=True)
class PressReading:
    """A message's press, and the message without its lines (for the game's order language)."""

    body: str
    presses: tuple[Press, ...] = ()

    @property
    def any(self) -> bool:
        return bool(self.presses)


def answered_press(session: Session, game: GameRow, seat: SeatRow, message: InboundMessage) -> Origin | None:
    """The press mail to ``seat`` that ``message`` replies to, if it replies to one (the module docstring).

    Looked up only when the subject speaks of press ("Re: [g1] Press from ann"): a reply to a report or a
    prompt costs no query. The subject only spares the query; what counts is the outbox row.
    """
    parent = message.in_reply_to or (message.references[-1] if message.references else None)
    if parent is None or game.id is None or not _PRESS_WORD.search(message.subject or ""):
        return None
    row = session.exec(select(OutboxRow).where(col(OutboxRow.message_id) == parent, col(OutboxRow.game_id) == game.id,
                                               col(OutboxRow.purpose) == PURPOSE)).first()
    if row is None or row.recipient.strip().lower() != seat.email.strip().lower():
        return None  # not ours, or a press mail that went to someone else
    headers = row.headers or {}
    writer = headers.get(WRITER)
    return Origin(row.message_id, writer if type(writer) is int else None, bool(headers.get(HIDDEN)))


def read_press(body: str, reply: Origin | None = None) -> PressReading:
    """The press of ``body`` (see the module docstring); its lines are blanked in ``body``.

    ``reply``: the press mail ``body`` answers; without a ``PRESS TO`` line of its own the message's text,
    from its top, is press to that mail's writer.
    """
    lines = body.split("\n")
    span: tuple[int, int] | None  # the lines of a press's text
    if reply is not None and not any(_addressed(raw) for raw in _own(lines)):
        text, span, _ = _take_text(lines, 0)
        problem = None if reply.writer is not None else Problem.UNSIGNED_REPLY
        return PressReading("\n".join(lines), (Press(span[0] if span else 1, "", (), text, problem, span, reply),))
    presses: list[Press] = []
    index = 0
    while index < len(lines):
        raw = lines[index]
        if _signature(raw):
            break
        start = _start(raw)
        if start is None:
            index += 1
            continue
        number = index + 1
        lines[index] = ""
        to = _TO.match(start.group(1))
        inline = to.group(2) if to is not None else None
        if inline and not _closed(lines, index + 1):  # the one-line form: that line alone
            text, span, index = inline, (number, number), index + 1
        else:
            text, span, index = _take_text(lines, index + 1)
            if inline:  # "PRESS TO bob: text" closed by an END PRESS below: a block
                text, span = f"{inline}\n{text}".strip("\n"), (number, span[1] if span else number)
        names = _names(to.group(1)) if to else ()
        problem = None if names else Problem.NO_NAMES
        line = raw.strip().split(":", 1)[0].rstrip() if inline else raw.strip()
        presses.append(Press(number, line, names, text, problem, span))
    return PressReading("\n".join(lines), tuple(presses))


def _names(text: str) -> tuple[str, ...]:
    """"bob, cy and dan." -> ("bob", "cy", "dan")."""
    names = (n.rstrip(".!?") for n in _SEPARATORS.split(text))
    return tuple(n for n in names if n and n.lower() not in _FILLER)


def _signature(raw: str) -> bool:
    return raw.strip() in SIGNATURES or raw == "-- "


def _start(raw: str) -> re.Match[str] | None:
    """A ``PRESS`` line (not quoted from another mail)."""
    return None if raw.lstrip().startswith(QUOTE) else _START.match(raw)


def _addressed(raw: str) -> bool:
    """A ``PRESS TO ...`` line: in a reply to press, it makes the reply ordinary mail."""
    start = _start(raw)
    return start is not None and _TO.match(start.group(1)) is not None


def _own(lines: list[str]) -> list[str]:
    """The lines above the signature."""
    end = next((index for index, raw in enumerate(lines) if _signature(raw)), len(lines))
    return lines[:end]


def _closed(lines: list[str], index: int) -> bool:
    """Whether an ``END PRESS`` line follows ``index`` before another ``PRESS`` line or the signature."""
    for raw in _own(lines[index:]):
        if _start(raw) is not None:
            return False
        if _END.match(raw):
            return True
    return False


def _take_text(lines: list[str], index: int) -> tuple[str, tuple[int, int] | None, int]:
    """The press text from ``index`` on (blanked in ``lines``), the lines it spans, and where reading goes on."""
    kept: list[tuple[int, str]] = []  # (line number, line)
    while index < len(lines):
        raw = lines[index]
        if _signature(raw):
            break
        lines[index] = ""
        index += 1
        if _END.match(raw):
            break
        if not raw.lstrip().startswith(QUOTE):
            kept.append((index, raw.rstrip()))
    written = [number for number, line in kept if line.strip()]
    if not written:
        return "", None, index
    span = (written[0], written[-1])
    return "\n".join(line for number, line in kept if span[0] <= number <= span[1]), span, index


# --- relaying -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Relayed:
    """What became of a message's press: the block for the sender's reply, a line for the inbound record."""

    told: str
    note: str


@dataclass(frozen=True)
class Told:
    """One press of the message as the sender's confirmation tells it (``templates/core/press_told.j2``)."""

    press: Press
    writer: str | None  # the seat that wrote the press answered, when it may be named
    to: tuple[str, ...] = ()  # the recipients
    refusal: Refusal | None = None  # why it was not relayed
    again: bool = False  # the same reply to the same press mail, relayed before: not sent again


def relay(composer: MailComposer, game: GameRow, sender: SeatRow, state: Any, reading: PressReading,
          tag: str) -> Relayed:
    """Queue each readable press of ``reading`` to its recipients (inside the caller's transaction)."""
    mode = composer.settings(game).press
    table = list(seats(composer.session, game))
    kind = kind_of(game.kind)
    told: list[Told] = []
    notes: list[str] = []
    for number, press in enumerate(reading.presses):
        writer = _writer_name(press, table)
        problem = _refusal(mode, press)
        recipients: list[SeatRow] = []
        if problem is None and press.reply is not None:
            recipients, problem = _writer(table, sender, press.reply)
        elif problem is None:
            recipients, problem = _recipients(kind, state, table, sender, press.names)
        once = _once(game, sender, press)
        if problem is None and once is not None and replies_since(composer.session, once.key, None):
            told.append(Told(press, writer, _seat_names(recipients), again=True))
            notes.append("press already relayed")
            continue
        if problem is None and not _room(composer, sender, game, len(recipients)):
            problem = Refusal(Problem.TOO_MUCH)
        if problem is not None:
            told.append(Told(press, writer, refusal=problem))
            notes.append("press refused")
            continue
        if once is not None:
            take_reply(composer.session, (once,), "press reply", composer.now)
        for seat in recipients:
            _queue(composer, game, kind, state, sender, seat, recipients, press, mode, f"press:{tag}:{number}")
        told.append(Told(press, writer, _seat_names(recipients)))
        notes.append(f"press to {join_words(s.name for s in recipients)}")
    text = said(TOLD, items=told, signed=mode == SIGNED, game=game.name, max_bytes=MAX_BYTES, per_hour=PER_HOUR,
                per_day=PER_DAY, shown_lines=SHOWN_LINES)
    return Relayed(text, "; ".join(notes))


def _writer_name(press: Press, table: Sequence[SeatRow]) -> str | None:
    """The seat that wrote the press a reply answers, when the confirmation may name it."""
    if press.reply is None or press.reply.hidden:
        return None
    return next((seat.name for seat in table if seat.id == press.reply.writer), None)


def _seat_names(recipients: Sequence[SeatRow]) -> tuple[str, ...]:
    return tuple(seat.name for seat in recipients)


def _writer(table: Sequence[SeatRow], sender: SeatRow, origin: Origin) -> tuple[list[SeatRow], Refusal | None]:
    """The seat that wrote the press mail a reply answers, or why there is none."""
    seat = next((seat for seat in table if seat.id == origin.writer), None)
    if seat is None:
        return [], Refusal(Problem.WRITER_GONE)
    if seat.id == sender.id:
        return [], Refusal(Problem.TO_ONESELF)
    return [seat], None


def _once(game: GameRow, sender: SeatRow, press: Press) -> Budget | None:
    """For a reply: the budget, kept for good, that lets one text in reply to one press mail through once."""
    if press.reply is None:
        return None
    digest = hashlib.sha256("\x1f".join([game.name, press.reply.message_id, str(sender.id), press.text])
                            .encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return Budget(f"press-reply:{digest}", ever=1)


def _refusal(mode: str, press: Press) -> Refusal | None:
    if mode == NONE:
        return Refusal(Problem.OFF)
    if press.problem is not None:
        return Refusal(press.problem)
    if not press.text.strip() and press.reply is not None:
        return Refusal(Problem.EMPTY_REPLY)
    if not press.text.strip():
        return Refusal(Problem.NO_TEXT)
    size = len(press.text.encode("utf-8"))
    if size > MAX_BYTES:
        return Refusal(Problem.TOO_LONG, size=size)
    return None


def _recipients(kind: GameKind, state: Any, table: Sequence[SeatRow], sender: SeatRow,
                names: Sequence[str]) -> tuple[list[SeatRow], Refusal | None]:
    """The seats ``names`` give (never the sender), or why they give none."""
    others = [seat for seat in table if seat.id != sender.id]
    if any(name.lower() == EVERYONE for name in names):
        return others, None if others else Refusal(Problem.NO_OTHER)
    found: list[SeatRow] = []
    for name in names:
        seat = _seat_named(kind, state, table, name)
        if seat is None:
            listing = tuple(Named(s.name, _holdings(kind, state, s.name)) for s in others)
            return [], Refusal(Problem.NOT_A_PLAYER, name=name, others=listing)
        if seat.id != sender.id and seat not in found:
            found.append(seat)
    return found, None if found else Refusal(Problem.TO_ONESELF)


def _seat_named(kind: GameKind, state: Any, table: Sequence[SeatRow], name: str) -> SeatRow | None:
    """The seat called ``name``, else the one seat holding something called so (a colour, a nation) in the
    writer's language or in English."""
    player = match_player(name, [seat.name for seat in table])
    if player is not None:
        return next(seat for seat in table if seat.name == player)
    wanted = folded(name.strip())
    holders = [seat for seat in table if wanted in _written(kind, state, seat.name)]
    return holders[0] if len(holders) == 1 else None


def _written(kind: GameKind, state: Any, player: str) -> set[str]:
    """What ``player``'s seat holds as a writer may name it: in the language being written and in English,
    folded (``pbem.languages.folded``)."""
    with speaking(SOURCE):
        english = _holdings(kind, state, player)
    return {folded(name) for name in (*_holdings(kind, state, player), *english)}


def _holdings(kind: GameKind, state: Any, player: str) -> tuple[str, ...]:
    """What the seat holds, named in the language being written (``GameKind.holdings``)."""
    try:
        return kind.holdings(state, player)
    except (KeyError, ValueError):  # a seat the state does not know (it cannot happen in a sound game)
        return ()


def _room(composer: MailComposer, sender: SeatRow, game: GameRow, count: int) -> bool:
    """Whether ``count`` more press mails fit the sender's budget; if so they are counted in it."""
    budget = Budget(f"press:{game.name}:{sender.name}", per_hour=PER_HOUR, per_day=PER_DAY)
    now = composer.now
    used_hour = replies_since(composer.session, budget.key, now - timedelta(hours=1))
    used_day = replies_since(composer.session, budget.key, now - timedelta(days=1))
    if used_hour + count > PER_HOUR or used_day + count > PER_DAY:
        return False
    return all(take_reply(composer.session, (budget,), "press", now) for _ in range(count))


def _queue(composer: MailComposer, game: GameRow, kind: GameKind, state: Any, sender: SeatRow, seat: SeatRow,
           recipients: Sequence[SeatRow], press: Press, mode: str, key: str) -> None:
    """One relayed press: From the moderator, Reply-To the recipient's token; no address of the sender."""
    with composer.writing_to(game, seat):
        signed = mode == SIGNED
        subject = game_subject(game.name, MailSubject.PRESS_SIGNED if signed else MailSubject.PRESS_ANONYMOUS,
                               writer=sender.name)
        body = said(MAIL, game=game.name, text=press.text, signed=signed, writer=sender.name if signed else "",
                    others=[s.name for s in recipients if s.id != seat.id] if signed else [])
        row = composer.to_seat(game, seat, purpose=PURPOSE, version=kind.shown_move(state), subject=subject, body=body,
                               key=key)
        if WRITER not in row.headers:  # for a reply to it (answered_press); never sent: no header of the mail
            row.headers = {**row.headers, WRITER: sender.id, HIDDEN: mode != SIGNED}
