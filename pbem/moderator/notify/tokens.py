"""The seats' reply tokens in plaintext, as their mail carries them.

Tokens (ARCHITECTURE, "Identity and trust"). Only a token's hash is stored
(``seat_tokens``); the plaintext exists in the mails sent to the seat. Since
every mail to a seat carries its token, the outbox row of the latest mail to
the seat holds it: :func:`seat_token` takes it from there (checked against
the stored hash), or from the player's own mail, and issues a new token only
when there is none yet (a game created without mail, a new player) or the
one found is no longer the seat's. So the outbox is exactly as secret as the
moderator's mailbox: whoever reads either can play every seat. Keep the
database private, as the mailbox is.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterator

from sqlmodel import Session, col, select

from pbem.mail import token_of_address
from pbem.render.boundedcache import Remembered
from pbem.store import SeatRow
from pbem.store.models import id_of
from pbem.store.outbox import OutboxRow
from pbem.store.tokens import hash_token, issue_token, token_row

TOKEN_SEARCH_DEPTH = 50  # outbox rows to a seat read per page when searching its token, newest first
FIRST_PAGE = 2  # ... and in the first page


def seat_token(session: Session, seat: SeatRow, moderator_address: str, known: str | None = None) -> str:
    """The seat's current token in plaintext (see the module docstring); issued when none is at hand.

    ``known`` is a token the caller has (the player's own mail carried it);
    else the newest mail to the seat that carries the current one gives it.
    """
    row = token_row(session, seat)
    token = None
    if row is not None:
        candidates = itertools.chain([known] if known else [], [_TOKENS.get((seat.game_id, id_of(seat)))],
                                     tokens_in_outbox(session, seat.game_id, seat.email, moderator_address))
        token = next((c.strip().lower() for c in candidates if c and hash_token(c) == row.token_hash), None)
    token = token if token is not None else issue_token(session, seat)
    return _TOKENS.put((seat.game_id, id_of(seat)), token)


def remember_token(seat: SeatRow, token: str) -> None:
    """The token a seat's own mail carried, found to be the seat's (its hash): its next mail takes it from here
    (:func:`seat_token` still checks it) rather than from the outbox; nothing is read."""
    _TOKENS.put((seat.game_id, id_of(seat)), token.strip().lower())


# The seats' tokens this process found or issued last, by game and seat: a move's mail to the other seats
# needs their tokens, and searching the outbox for them was a query per seat and move. Tried after the token
# the player's own mail carried, and taken only when its hash is the seat's (a newer token, another database:
# the search goes on). Bound: about 2,000 seats.
_TOKENS: Remembered[tuple[int, int], str] = Remembered("seat tokens", 1 << 20, lambda _, token: 300)


def tokens_in_outbox(session: Session, game_id: int, email: str, moderator_address: str) -> Iterator[str]:
    """Tokens in the Reply-To of the game's mails to ``email`` (a seat, an observer), newest first, in pages.

    The first page is the newest ``FIRST_PAGE`` mails: the newest mail nearly
    always carries the current token, and a page's headers are all decoded
    (in a long game, 50 of them per seat and move, for one).
    """
    before: int | None = None
    page = FIRST_PAGE
    while True:
        query = select(OutboxRow.id, OutboxRow.headers).where(
            col(OutboxRow.game_id) == game_id, col(OutboxRow.recipient) == email)
        if before is not None:
            query = query.where(col(OutboxRow.id) < before)
        rows = session.exec(query.order_by(col(OutboxRow.id).desc()).limit(page)).all()
        for row_id, headers in rows:
            before = row_id
            reply_to = (headers or {}).get("reply_to")
            token = token_of_address(reply_to, moderator_address) if reply_to else None
            if token:
                yield token
        if len(rows) < page:
            return
        page = TOKEN_SEARCH_DEPTH
