"""The board pictures a composer's mail carries: drawn once per version, only for mail that shows the board.

A mail that carries the board (a report with the board for a seat with
``BOARD ON``, a ``BOARD`` answer, the end of the game) also shows it as a
picture (``pbem.mail.picture``). Every seat sees the same public board, so
the composer (``pbem.moderator.notify.compose``) draws each version's board
once, when the first mail that carries it is written, and never for a move
whose mail carries no board (a game whose seats all chose ``BOARD OFF``).

Writing a move's mail (``pbem.moderator.notify.telling``), the composer may
draw *aside*: the picture is asked of the helper process
(``pbem.moderator.notify.pictures``), the other seats' texts are written
while it draws, and :meth:`Boards.finish` waits for it before the mail is
written. Elsewhere (the game master's notices, digests, answers to
``BOARD``) it is drawn at once. A picture that cannot be drawn leaves the
mail as text alone: the text shows the same board.

The picture's words (its title, key, tables, and the names once a game
translates them) are in the language of the mail that carries it: a board is
drawn once per version and language, in the seat's language when this
machine has a font for its letters (``pbem.render.measure.writes``), else in
English.

A board drawn is stored once (``pbem.store.outbox.store_picture``), before
the first mail that carries it is written, and every such mail refers to it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session

from pbem.games import kind_of
from pbem.languages import SOURCE, Language, speaking, spoken
from pbem.moderator.notify import pictures
from pbem.moderator.notify.pictures import Drawing, Drawn, board_picture
from pbem.render.env import render_phrase
from pbem.render.measure import writes
from pbem.store import GameRow
from pbem.store.models import id_of
from pbem.store.outbox import OutboxRow, store_picture

SEEN_NOTE = "core/picture_note.j2"  # what the HTML says where it leaves the text's drawing out for the picture


@dataclass
class Board:
    """One version of one game's board, as the composer's mail carries it; ``waiting`` the rows (and the line
    their board begins at) queued while it was being drawn."""

    game_id: int
    version: int
    language: Language = SOURCE
    drawing: Drawing | None = None
    drawn: Drawn = None
    waiting: list[tuple[OutboxRow, BoardUse]] = field(default_factory=list)
    stored: int | None = None  # the picture's id, once stored

    def settle(self) -> Drawn:
        """The picture, waiting for the helper if it is still drawing."""
        if self.drawing is not None:
            self.drawn, self.drawing = self.drawing.result(), None
        return self.drawn


@dataclass(frozen=True)
class BoardUse:
    """A mail's board: which one, the line of the mail's text where the part that shows it begins, and what the
    mail's HTML says, in its reader's language, where it leaves the text's drawing out for the picture."""

    board: Board
    line: int = 0
    note: str = ""


class Boards:
    """The boards of one composer (one transaction); ``aside``: ask the helper process and wait in
    :meth:`finish` (see the module docstring)."""

    def __init__(self, session: Session, *, aside: bool = False) -> None:
        self.session = session
        self.aside = aside
        self._boards: dict[tuple[int, int, Language], Board] = {}

    def use(self, game: GameRow, state: Any, line: int = 0) -> BoardUse:
        """The board of ``state`` for a mail whose part that shows it begins at ``line``; drawn (or asked of the
        helper) the first time a mail of this composer carries it."""
        kind = kind_of(game.kind)
        language = spoken() if writes(spoken()) else SOURCE
        key = (id_of(game), kind.version(state), language)
        board = self._boards.get(key)
        if board is None:
            board = self._boards[key] = Board(*key)
            drawing = pictures.ask(game.kind, game.name, state, language) if self.aside else None
            if drawing is not None:
                board.drawing = drawing
            else:
                with speaking(language):
                    board.drawn = board_picture(kind, game.name, state)
        return BoardUse(board, line, render_phrase(SEEN_NOTE))

    def attach(self, row: OutboxRow, use: BoardUse) -> None:
        """``row`` shows ``use``'s board: in :meth:`finish` when drawing aside (the picture is stored with the
        mail, all written at the end), else now."""
        if self.aside:
            use.board.waiting.append((row, use))
        else:
            self._give(row, use)

    def finish(self) -> None:
        """Every picture still being drawn, into the rows that wait for it; call before the mail is written."""
        for board in self._boards.values():
            board.settle()
            for row, use in board.waiting:
                self._give(row, use)
            board.waiting.clear()

    def abandon(self) -> None:
        """Wait for the pictures still being drawn (the helper answers one question at a time) and forget the
        rows that wait for them: the transaction failed."""
        for board in self._boards.values():
            board.settle()
            board.waiting.clear()

    def _give(self, row: OutboxRow, use: BoardUse) -> None:
        """``row`` carries ``use``'s picture (none when it could not be drawn), stored with the first."""
        board = use.board
        if board.drawn is None:
            return
        if board.stored is None:
            png, alt = board.drawn
            board.stored = store_picture(self.session, board.game_id, board.version, png, alt)
        row.picture_id = board.stored
        row.headers = {**row.headers, "picture_line": use.line, "picture_note": use.note}
