"""The mail after a move: one mail per seat that is due one, in its mail mode.

It is written after the move has committed, by the stage that tells moves
(``pbem.moderator.notify.telling``), from the :class:`Move` it replays.

Every seat's mode (``pbem.store.mailprefs``) decides when it hears of a
change: ``EVERY`` at once, ``TURN`` when it must decide, ``ROUND`` when a
round ends, ``DAILY`` once a day (the deadline tick sends those). Until then
the sentences it may read are kept as its news, and its next mail opens with
them, oldest first: so nothing a seat may see is ever lost between mails.

A seat gets one mail, not a report and then a prompt. A mail that asks a
decision opens with the question (who decides what, by when, the options
ready to copy; within its first 15 lines, issue 29), so that a player sees on
the first screen what is wanted of them; then the answer to the sender's own
mail (a refusal, answers to its questions), which says why they are asked
again; then what happened since the seat's last mail (a note, its kept
news), then the report (with the board, or without it for ``BOARD OFF``;
without what the prompt shows already, ``GameKind.report``'s
``with_prompt``), the board last. The answer comes after the question, not
before it: a refusal or a ``BOARD`` answer runs to many lines, and would push
the options off the first screen. A mail that asks nothing opens with that
answer, else with what happened. A mail with the board also shows it as a
picture (``MailComposer.picture``), after the report's banner.

A seat with ``BOARD ON`` gets the board when it changed since the last mail
that showed it to that seat (``pbem.store.mailprefs.board_seen``: a digest
of ``GameKind.board_key``); else one line says it is unchanged and ``BOARD``
shows it, and the mail carries no picture. Most moves change no piece on
the map (a bid, an investment, a tax), and the board and its picture are
most of a mail's bytes. The game master's notices always show it: they are
rare, and a replaced player has seen nothing yet.

A decision the game asks in a brief mail (``KindInfo.brief``: Imperial
2030's battles and canal passages, taken within another nation's
maneuver, several in a few moves) comes with the question and the news
alone, what happened told as news; the report and the board wait for the
seat's next full mail (one line says so), whose board is then new to the
seat. Those decisions are a third of a seat's mails and are answered from
the question; with the board they were half of the seat's bytes (issue 29).

The player whose message caused the change gets
at most one mail back, threaded under their message, carrying also what the
inbound flow hands in as ``sender_parts`` (a refusal, answers to questions,
a note). In ``EVERY`` mode it always comes; in the other modes only when the
player must decide again or ``sender_parts`` has something to say: orders
that simply applied are confirmed by the news of the player's next mail.

The same code tells every other way a move happens (``pbem force``, a
deadline's passive default, the absent player's stand-in, ``pbem order``
with a mail configuration): it hands in a :class:`MoveSource`, and no seat is
a sender then (the player whose orders were given is told like any seat). The
source's note ("The game master gave these orders for ann: ...") reaches
every seat told of the move: in the head of an ``EVERY`` seat's mail at
once, and in the kept news of the other modes, so that their next mail opens
with it. Its private lines (orders that waited and were refused) go to their
player alone, who is mailed now whatever its mode, as a sender is for the
parts of its reply.

Observers (``pbem.moderator.notify.observers``) get the public report of every
change a non-player may see, whatever the seats' modes.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from functools import cache
from typing import TYPE_CHECKING, Any

from pbem.games import GameKind, kind_of
from pbem.moderator.notify.observers import after_change
from pbem.moderator.notify.subjects import decisions_of, move_subject
from pbem.render.env import environment, render, render_phrase
from pbem.render.text import bullet, finish, note_block
from pbem.store import GameRow, SeatRow, seats
from pbem.store.mailprefs import BoardSeen, MailMode, MailPrefs, board_seen, keep_news, prefs_of, saw_board, take_news

if TYPE_CHECKING:
    from pbem.moderator.notify.compose import MailComposer, Replied

UNCHANGED = "core/board_unchanged.j2"
BRIEF = "core/brief_mail.j2"
HEADINGS = "core/headings.j2"


class Heading(StrEnum):
    """Which block above a seat's report ``core/headings.j2`` heads: the words are the template's, to be
    translated; this module only lays the block out."""

    NEWS = "news"
    NOTE = "note"


def heading(which: Heading) -> str:
    """A block's heading, one line (``core/headings.j2``)."""
    return render_phrase(HEADINGS, heading=which)


@dataclass(frozen=True)
class Move:
    """A move as its mail tells it: the position before it and after it, what its actions did (``events``, in
    log order), whose orders it was, and who else is asked again (players whose waiting lines it resumed)."""

    player: str
    before: Any
    state: Any
    events: tuple[Any, ...] = ()
    also_prompt: tuple[str, ...] = ()

    @property
    def moved(self) -> bool:
        return bool(self.state.version != self.before.version)


@dataclass(frozen=True)
class Words:
    """A sentence of a template (``core/move_note_*.j2``) with its values, said when each seat's mail is written,
    in that seat's language: a note is recorded with the move, before anyone's mail exists (``telling``), so
    it keeps what to say, not how one language says it. Kept in the move's record as JSON (:meth:`to_json`)."""

    template: str
    values: Mapping[str, Any] = field(default_factory=dict)

    def said(self) -> str:
        """The sentence in the language being written, unwrapped (the mail lays it out)."""
        return environment().get_template(self.template).render(**self.values).strip()

    def to_json(self) -> dict[str, Any]:
        return {"template": self.template, "values": dict(self.values)}

    @staticmethod
    def of(stored: Any) -> str | Words:
        """A note as the move's record keeps it: a sentence (a record written before notes were kept as words),
        or its words."""
        return Words(str(stored["template"]), dict(stored["values"])) if isinstance(stored, dict) else str(stored)


def said(note: str | Words) -> str:
    return note if isinstance(note, str) else note.said()


@dataclass(frozen=True)
class MoveSource:
    """A move that came by no player's mail: what its mails add to the move (see the module docstring).

    ``note`` goes to every seat told of the move; ``private`` (player -> paragraphs) to that player alone; each
    said in the seat's language (:class:`Words`).
    """

    note: tuple[str | Words, ...] = ()
    private: Mapping[str, tuple[str | Words, ...]] = field(default_factory=dict)


def news_block(lines: Sequence[str]) -> str:
    """The kept news as a section above the report (empty when there is none)."""
    if not lines:
        return ""
    return finish("\n".join([heading(Heading.NEWS), *(bullet(line) for line in lines)]) + "\n")


def prefs(composer: MailComposer, game: GameRow, seat: SeatRow) -> MailPrefs:
    settings = composer.settings(game)
    return prefs_of(composer.session, seat, settings.mail_default, settings.board_default, settings.language)


def turn_mail(composer: MailComposer, game: GameRow, move: Move, *, sender_parts: Sequence[str] = (),
              reply_to_message: Replied | None = None, source: MoveSource | None = None) -> bool:
    """Mail every seat that is due a mail after ``move``; whether the sender got one (with ``sender_parts``).

    A decider is prompted when what they must decide changed, or when they
    just played (their options moved on), or is in ``move.also_prompt``.
    With a ``source`` the move came by no mail: nobody is the sender (the
    result is False) and the source's note and private lines are told
    instead.
    """
    if not move.moved:
        return False
    before, state, events, kind = move.before, move.state, list(move.events), kind_of(game.kind)
    prompted = {move.player, *move.also_prompt}

    @cache
    def round_ended() -> bool:  # asked only for a ROUND seat: race() may score the whole board
        return kind.race(before).round != kind.race(state).round

    table = {seat.name: seat for seat in seats(composer.session, game)}
    sender_told = False
    with composer.session.no_autoflush:  # every seat's mail goes in one INSERT at the end
        sender_told = _each_seat(composer, game, move, table, prompted, round_ended, sender_parts,
                                 reply_to_message, source)
    after_change(composer, game, state, events)
    return sender_told


def _each_seat(composer: MailComposer, game: GameRow, move: Move, table: dict[str, SeatRow],
               prompted: set[str], round_ended: Callable[[], bool], sender_parts: Sequence[str],
               reply_to_message: Replied | None, source: MoveSource | None) -> bool:
    before, state, events, kind = move.before, move.state, list(move.events), kind_of(game.kind)
    sender_told = False
    for player in state.seating:
        seat = table.get(player)
        if seat is None:
            continue
        with composer.writing_to(game, seat):  # the seat's news, notes and mail in its language
            sender = source is None and player == move.player
            told = kind.tells(state, events, player)
            note = tuple(map(said, source.note)) if source is not None and told else ()
            private = tuple(map(said, source.private.get(player, ()))) if source is not None else ()
            reply = tuple(sender_parts) if sender else ()
            parts: tuple[str, ...] = ()
            keys = _decision_keys(kind, state, player)
            asks = bool(keys) and (keys != _decision_keys(kind, before, player) or player in prompted)
            chosen = prefs(composer, game, seat)
            if state.finished:
                parts += _noted(note, private)
                news = take_news(composer.session, seat)
                composer.game_end(game, state, seat, events, head="".join([*reply, *parts, news_block(news)]),
                                  reply_to_message=reply_to_message if sender else None)
            elif chosen.mode is MailMode.EVERY:
                parts += _noted(note, private)
                if not (told or asks or parts or sender):  # a reply has a sender
                    continue
                seat_mail(composer, game, state, seat, chosen, events if told else (), asks, parts,
                          reply_to_message if sender else None, reply=reply)
            else:
                parts += _noted((), private)
                if told:
                    keep_news(composer.session, seat, kind.shown_move(state),
                              [*note, *kind.narrate(state, events, player)], composer.now)
                if not (asks or parts or reply or (chosen.mode is MailMode.ROUND and round_ended())):
                    continue  # orders that applied and ask nothing more: the next mail's news confirm them
                seat_mail(composer, game, state, seat, chosen, (), asks, parts, reply_to_message if sender else None,
                          reply=reply)
            sender_told = sender_told or sender
    return sender_told


def _noted(note: Sequence[str], private: Sequence[str]) -> tuple[str, ...]:
    """A source's note and a seat's private lines as one block of its mail's head (none when both are empty)."""
    return (note_block(heading(Heading.NOTE), [*note, *private]),) if note or private else ()


def seat_mail(composer: MailComposer, game: GameRow, state: Any, seat: SeatRow, chosen: MailPrefs,
              events: Sequence[Any], asks: bool, parts: Sequence[str],
              reply_to_message: Replied | None = None, *, purpose: str | None = None,
              subject: str | None = None, short: str = "", since: datetime | None = None,
              reply: Sequence[str] = (), whole_board: bool = False) -> str | None:
    """One mail to one seat: the prompt if ``asks``, ``reply``, ``parts``, its kept news, the report of ``events``.

    The question comes first, then the answer to the sender's own mail
    (``reply``) when there is one (the module docstring says why). The board
    is left out when the seat has seen it unchanged, unless ``whole_board``.

    With ``BOARD ON`` the report shows the board, and the mail its picture
    after the report's banner; with ``BOARD OFF`` only a ``BOARD`` answer among
    ``parts`` brings the picture, beside that answer.

    A move's mail is a ``prompt`` or a ``report``; a game master's notice
    (``pbem.moderator.gamemaster``: undo, replace, resume, resend) names its own
    ``purpose`` and ``subject``; a prompt's subject ends with ``short`` in brackets; its
    deadline counts from ``since`` (else from now). Returns the decision the
    mail asks for (``X-PBEM-Decision``), if any.
    """
    with composer.writing_to(game, seat):  # every word of the mail in the seat's language
        kind = kind_of(game.kind)
        settings = composer.settings(game)
        move = kind.shown_move(state)
        subject, decision, question = subject or move_subject(game.name, move, kind.status_words(state)), None, ""
        prompt = composer.prompt_parts(game, state, seat, since=since, short=short) if asks else None
        if prompt is not None:
            (subject, question, decision) = prompt
        brief = prompt is not None and purpose is None and not whole_board and _brief(kind, state, seat.name)
        kept = take_news(composer.session, seat)
        if brief:  # what happened is told as news: the report it would be told in is left out
            news = news_block([*kept, *kind.narrate(state, events, seat.name)] if events else kept)
            board, unchanged = False, render(BRIEF, strict=True)
        else:
            news, board, unchanged = news_block(kept), chosen.board, ""
            if board:
                board, unchanged = _board_again(composer, game, state, seat, whole_board)
        head = "\n".join(part for part in [question, *reply, *parts, news, unchanged] if part)
        report = "" if brief else kind.report(state, seat.name, list(events), game=game.name,
                                              open_cash=settings.open_cash, board=board, with_prompt=bool(question))
        text = "\n".join(part for part in (head, report, composer.site_link(game)) if part)
        # a BOARD answer can only be among the reply and the parts: without them no board text is rendered to look
        picture = composer.picture(game, state, line=head.count("\n") + 1 if head else 0) if board else \
            composer.board_answer_picture(game, state, head) if reply or parts else None
        composer.to_seat(game, seat, purpose=purpose or ("prompt" if decision else "report"), version=move,
                         subject=subject, body=text, decision=decision, reply_to_message=reply_to_message,
                         picture=picture)
        return decision


def _board_again(composer: MailComposer, game: GameRow, state: Any, seat: SeatRow, whole: bool) -> tuple[bool, str]:
    """(whether this mail shows the board, else the line that says it is unchanged) for a ``BOARD ON`` seat."""
    kind = kind_of(game.kind)
    digest = hashlib.sha256(kind.board_key(state).encode("utf-8")).hexdigest()[:32]
    seen = board_seen(composer.session, seat)
    if not whole and seen is not None and seen.digest == digest:
        return False, render(UNCHANGED, strict=True, move=seen.move)
    saw_board(composer.session, seat, BoardSeen(digest, kind.shown_move(state)))
    return True, ""


def _brief(kind: GameKind, state: Any, player: str) -> bool:
    """Whether every decision ``player`` is asked is one the game asks in a brief mail (``KindInfo.brief``)."""
    decisions = decisions_of(kind, state, player)
    return bool(decisions) and all(d.kind in kind.info.brief for d in decisions)


def _decision_keys(kind: GameKind, state: Any, player: str) -> tuple[tuple[str, str | None], ...]:
    return tuple((d.kind, d.subject) for d in decisions_of(kind, state, player))
