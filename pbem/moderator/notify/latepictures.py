"""Mail whose board picture arrives after its move has committed.

Why: with mail waiting behind a message, its handler does not wait for the
helper process's picture (``pbem.moderator.notify.pictures.busy``): it commits the
move and goes on to the next message while the helper draws. The move's
mail that should carry the board is queued without it, held by the
picture (``claimed_by`` is the picture's holder name, and it falls due only
``PICTURE_LEASE`` later). So no sender takes it yet, and the same player's
later mail of the game waits behind it (``pbem.store.outbox.claim_due``):
mail still leaves in the order it was written.

Once the transaction has committed, the picture's answer goes to its mail
(:func:`pbem.store.outbox.give_picture`, one UPDATE in a transaction of its
own), which falls due at once, and the daemon's sender is woken. Should the
picture never come (the process died), the hold runs out, or is taken back
at once by the next process on the same host (``pbem.holders.gone``), and
the mail goes without its picture, as any mail whose board cannot be drawn
does: its text shows the same board.
"""
from __future__ import annotations

import functools
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, event
from sqlmodel import Session

from pbem.moderator.notify.pictures import Drawn, LaterDrawing
from pbem.store.outbox import OutboxRow, give_picture

PICTURE_LEASE = 60.0  # seconds a mail waits for its picture before it goes without (the helper's limit is 30)


class PicturesAfterCommit:
    """The mail of one session (one transaction) that waits for pictures no one waits for: hands each picture
    its mail once the session commits; drops the pictures when it rolls back."""

    def __init__(self, session: Session, now: datetime) -> None:
        self.now = now
        self._engine = session.get_bind()
        self._waiting: dict[LaterDrawing, list[tuple[OutboxRow, int]]] = {}
        event.listen(session, "after_commit", self._committed)
        event.listen(session, "after_soft_rollback", self._rolled_back)

    def expect(self, drawing: LaterDrawing) -> None:
        """A picture on its way: dropped should no mail take it."""
        self._waiting.setdefault(drawing, [])

    def hold(self, row: OutboxRow, drawing: LaterDrawing, line: int) -> None:
        """``row`` (not yet written) waits for ``drawing``'s picture, its board beginning at ``line``."""
        row.claimed_by = drawing.holder
        row.next_attempt = self.now + timedelta(seconds=PICTURE_LEASE)
        self._waiting.setdefault(drawing, []).append((row, line))

    def _committed(self, session: Session) -> None:
        waiting, self._waiting = self._waiting, {}
        for drawing, rows in waiting.items():
            if not rows:
                drawing.drop()
                continue
            mails = tuple((row.message_id, dict(row.headers), line) for row, line in rows)
            drawing.deliver(functools.partial(_give, self._engine, drawing.holder, mails, self.now))

    def _rolled_back(self, session: Session, previous: Any) -> None:
        if session.in_transaction():  # a savepoint's: the transaction, and its mail, go on
            return
        waiting, self._waiting = self._waiting, {}
        for drawing in waiting:
            drawing.drop()


def _give(engine: Engine | Connection, holder: str, mails: tuple[tuple[str, dict[str, Any], int], ...], due: datetime,
          drawn: Drawn) -> None:
    """The picture into its mail (or, when it could not be drawn, the mail free to go without)."""
    png = drawn[0] if drawn is not None else None
    given = [(message_id, {**headers, "picture_alt": drawn[1], "picture_line": line} if drawn is not None else headers)
             for message_id, headers, line in mails]
    give_picture(engine, holder, given, png, due)
