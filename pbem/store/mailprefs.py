"""How much mail each seat wants and in which language, the news kept for its next digest, and the board its
last mail showed.

A seat's mode (``MAIL EVERY|TURN|ROUND|DAILY``), board choice (``BOARD
ON|OFF``) and language (``LANGUAGE RU``) override the game's defaults
(``GameSettings.mail_default``, ``board_default``, ``language``). A seat that does not get a mail for a change keeps the
change's sentences, as that seat may read them, in ``news``; its next mail
carries them all, oldest first, and empties the list. So the mails a seat
receives, read in order, tell everything it may see, whatever its mode.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Boolean, Column, DateTime, ForeignKey, Integer, String
from sqlmodel import Field, Session, SQLModel, col, select

from pbem.languages import Language
from pbem.store.alarm import wake
from pbem.store.memo import game_rows, remember
from pbem.store.models import GameRow, SeatRow, id_of


class MailMode(StrEnum):
    EVERY = "every"  # a report after every change the seat may see, with the prompt when it must decide
    TURN = "turn"  # a mail only when the seat must decide (or the game ends), with a digest since the last
    ROUND = "round"  # a digest when a round ends, and the prompts
    DAILY = "daily"  # a digest once a day, and the prompts


NEW_GAME_MAIL = MailMode.TURN
"""The mail mode a new game gives its seats unless the game master chooses another (``pbem game new --mail``).

Why TURN: in a long game most moves are other seats' (in Imperial 2030 most
turns are other nations'), and a mail per move buried the one that asks
something; TURN mails a seat when it must decide, with everything since its
last mail, and when the game ends (a third of EVERY's mail in a 3-player
game). A player who wants every move sends MAIL EVERY. Games stored before
this keep the mode they were created with.
"""


@dataclass(frozen=True)
class MailPrefs:
    mode: MailMode
    board: bool
    language: Language = Language.EN


class SeatMailRow(SQLModel, table=True):
    __tablename__ = "seat_mail"

    seat_id: int = Field(sa_column=Column(Integer, ForeignKey("seats.id", ondelete="CASCADE"), primary_key=True))
    game_id: int = Field(sa_column=Column(Integer, ForeignKey("games.id", ondelete="CASCADE"), nullable=False,
                                          index=True))
    mode: str | None = Field(default=None, sa_column=Column(String(8), nullable=True))  # None: the game's
    board: bool | None = Field(default=None, sa_column=Column(Boolean, nullable=True))
    news: list[Any] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))  # [[version, line]...]
    news_since: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))
    board_seen: str | None = Field(default=None, sa_column=Column(String(32), nullable=True))  # see BoardSeen
    board_seen_move: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))


@dataclass(frozen=True)
class BoardSeen:
    """The board a seat's last mail showed: a digest of its text (``pbem.moderator.notify.turnmail``) and the move."""

    digest: str
    move: int


def _row(session: Session, seat: SeatRow) -> SeatMailRow | None:
    rows = game_rows(session, SeatMailRow.__tablename__, seat.game_id, lambda: (
        (row.seat_id, row) for row in session.exec(select(SeatMailRow).where(col(SeatMailRow.game_id) == seat.game_id))))
    return rows.get(id_of(seat))


def _row_for_update(session: Session, seat: SeatRow) -> SeatMailRow:
    row = _row(session, seat)
    if row is None:
        row = SeatMailRow(seat_id=id_of(seat), game_id=seat.game_id)
        session.add(row)
        remember(session, SeatMailRow.__tablename__, seat.game_id, id_of(seat), row)
    return row


def prefs_of(session: Session, seat: SeatRow, default_mode: str, default_board: bool,
             default_language: str = Language.EN.value) -> MailPrefs:
    row = _row(session, seat)
    mode = row.mode if row is not None and row.mode else default_mode
    board = row.board if row is not None and row.board is not None else default_board
    language = seat.language or default_language
    return MailPrefs(MailMode(mode), board, Language(language))


def set_prefs(session: Session, seat: SeatRow, *, mode: MailMode | None = None, board: bool | None = None,
              language: Language | None = None) -> None:
    """The seat's choices; a mode change wakes the deadline tick's alarm (daily digests are sent by the tick)."""
    if mode is not None:
        wake(session, seat.game_id)
    if language is not None:
        seat.language = language.value  # kept on the seat: see SeatRow.language
        session.add(seat)
    if mode is None and board is None:
        session.flush()
        return
    row = _row_for_update(session, seat)
    if mode is not None:
        row.mode = mode.value
    if board is not None:
        row.board = board
    session.add(row)
    session.flush()


def keep_news(session: Session, seat: SeatRow, version: int, lines: list[str], now: datetime) -> None:
    """Keep ``lines`` (what the seat may read of a change at ``version``) for the seat's next mail."""
    if not lines:
        return
    row = _row_for_update(session, seat)
    if row.news_since is None:  # a daily digest falls due a day from now: the tick's alarm must know
        wake(session, seat.game_id)
    row.news = [*row.news, *([version, line] for line in lines)]
    row.news_since = row.news_since or now
    session.add(row)  # written with the transaction's next flush: a move's mail is written all at once


def take_news(session: Session, seat: SeatRow) -> list[str]:
    """The seat's kept news, oldest first, emptied: the caller puts them into the mail it sends now."""
    row = _row(session, seat)
    if row is None or not row.news:
        return []
    lines = [str(line) for _, line in row.news]
    row.news = []
    row.news_since = None
    session.add(row)  # written with the transaction's next flush (the mail that carries the news goes with it)
    return lines


def oldest_daily_news(session: Session, game: GameRow, default_mode: str) -> datetime | None:
    """When the oldest news still kept for a ``DAILY`` seat of ``game`` was kept (its digest is due a day later)."""
    rows = session.exec(select(SeatMailRow.mode, SeatMailRow.news_since)
                        .where(col(SeatMailRow.game_id) == game.id, col(SeatMailRow.news_since).is_not(None))).all()
    kept = [since for mode, since in rows if since is not None and (mode or default_mode) == MailMode.DAILY.value]
    return min(kept, default=None)


def seats_with_news_since(session: Session, game: GameRow, before: datetime) -> list[int]:
    """The seats of ``game`` holding news kept since before ``before`` (daily digests due)."""
    rows = session.exec(select(SeatMailRow).where(col(SeatMailRow.game_id) == game.id,
                                                  col(SeatMailRow.news_since).is_not(None),
                                                  col(SeatMailRow.news_since) <= before)).all()
    return [row.seat_id for row in rows]


def board_seen(session: Session, seat: SeatRow) -> BoardSeen | None:
    """The board the seat's last mail with the board showed, if any mail did."""
    row = _row(session, seat)
    if row is None or row.board_seen is None or row.board_seen_move is None:
        return None
    return BoardSeen(row.board_seen, row.board_seen_move)


def saw_board(session: Session, seat: SeatRow, seen: BoardSeen) -> None:
    """The mail being written shows the seat this board (written with the mail, in its transaction)."""
    row = _row_for_update(session, seat)
    row.board_seen, row.board_seen_move = seen.digest, seen.move
    session.add(row)
