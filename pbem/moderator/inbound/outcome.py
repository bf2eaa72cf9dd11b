"""What became of one inbound mail: the result of ``pbem.moderator.inbound.handler.process_message``.

Kept apart so that the modules that write a seat's replies
(``pbem.moderator.inbound.seatreplies``) and the queue's workers can name it without
importing the whole decision.
"""
from __future__ import annotations

from dataclasses import dataclass

DUPLICATE = "duplicate"
FAILED = "failed"
PROCESSED = "processed"


@dataclass(frozen=True)
class Outcome:
    """What :func:`process_message` did with one mail.

    ``outcome`` is an ``InboundOutcome`` value, ``"duplicate"`` or (set aside
    by the queue's worker) ``"failed"``; ``folder`` is the mailbox folder the
    mail belongs in (``processed`` or ``failed``: the receiver moved it there
    when it was queued); ``queued`` the Message-IDs of the mail queued for it.
    """

    key: str
    outcome: str
    reason: str = ""
    sender: str = ""
    game: str | None = None
    player: str | None = None
    version_before: int | None = None
    version: int | None = None
    queued: tuple[str, ...] = ()
    folder: str = PROCESSED
    kind: str | None = None  # the game's kind (``imperial2030``): what a monitor is told, never the game's name
    game_id: int | None = None  # the game's id: what names its move's mail, whoever writes it (``pbem.counters``)

    @property
    def duplicate(self) -> bool:
        return self.outcome == DUPLICATE
