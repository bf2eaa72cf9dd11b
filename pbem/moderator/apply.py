"""One message of orders applied to a game inside the caller's transaction: what it did, and its writes.

``submit_in`` does the whole work in a session the caller holds, so that the
mail flow can record an inbound message, apply its orders and note the move
to tell in one transaction (``pbem.moderator.inbound.handler``); the move's
mail is written after that transaction commits
(``pbem.moderator.notify.telling``). An order message is applied line by
line by the order layer; every applied action goes to the log in the same
transaction as the snapshot, so a message is recorded whole or not at all.
It knows no game: each game's kind (``pbem.games``) reads the messages and
tells the events.

Waiting lines: a game may hold the rest of a message back until another
player answers a question (Imperial's maneuver, docs/orders.md). The kind
returns the game's complete set of held-back lines with every message; they
are stored (``pbem.store.waiting``) in the same transaction, and the kind
resumes them when the answer comes (``SubmitResult.resumed``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session

from pbem import store
from pbem.errors import StoreError, UnknownPlayer
from pbem.games import kind_of
from pbem.games.kind import resolve_player
from pbem.games.results import (
    AppliedLine,
    MessageLine,
    Query,
    Refusal,
    Resumed,
    Waiting,
)
from pbem.store import GameRow, GameStatus
from pbem.store import waiting as waiting_store


@dataclass(frozen=True)
class SubmitResult:
    """What a message did: the lines that stand, the refusal, the queries, what waits; game values opaque."""

    game: str
    player: str
    version_before: int
    state: Any
    applied: tuple[AppliedLine, ...]
    refusal: Refusal | None
    pending: tuple[Any, ...] = field(default=())  # the game's own pending decisions after the message
    queries: tuple[Query, ...] = field(default=())
    waiting: Waiting | None = None  # the sender's lines that wait for another player's answer
    resumed: tuple[Resumed, ...] = field(default=())  # other players' waiting lines this message set going
    events: tuple[Any, ...] = field(default=())  # what every accepted action did, in log order
    ignored: tuple[MessageLine, ...] = field(default=())  # courtesy lines not read as orders ("Thanks, Alice")
    version_after: int | None = None  # the log position after the message; None only in hand-built results

    @property
    def ok(self) -> bool:
        return self.refusal is None

    @property
    def version(self) -> int:
        if self.version_after is not None:
            return self.version_after
        return int(self.state.version)


# --- a message, inside the caller's transaction --------------------------------------------


def submit_in(session: Session, game: GameRow, player_text: str, text: str, state: Any = None) -> SubmitResult:
    """Apply ``text`` as the message of ``player_text`` inside the caller's session (no transaction of its
    own, no retry): the log, the snapshot and the waiting lines are written in it.

    ``state`` is the game's current state when the caller has loaded it
    already. A ``ConcurrentUpdate`` leaves the session unusable: the caller
    rolls its transaction back and may start the whole message again.
    """
    name = game.name
    game_kind = kind_of(game.kind)
    if state is None:
        state = store.load_state(session, game)
    seating = tuple(seat.name for seat in game_kind.seats(game_kind.setup_of(state)))
    player = resolve_player(player_text, seating, f"game {name!r}", UnknownPlayer)
    waiting = waiting_store.load_waiting(session, game)
    before = game_kind.version(state)
    outcome = game_kind.run_message(state, player, text, waiting)
    after = game_kind.version(outcome.state)
    if [e.version for e in outcome.entries] != list(range(before, after)):
        raise StoreError(f"the order layer applied {len(outcome.entries)} actions but the state moved "
                         f"from version {before} to {after}")
    if outcome.entries:
        store.append_actions(session, game, outcome.entries)
        store.save_snapshot(session, game, outcome.state)
        if game_kind.finished(outcome.state):
            store.set_status(session, game, GameStatus.FINISHED)
    if outcome.waiting != waiting:
        waiting_store.save_waiting(session, game, outcome.waiting, after)
    return SubmitResult(name, player, before, outcome.state, outcome.applied, outcome.refusal, outcome.pending,
                        outcome.queries, outcome.sender_waiting, outcome.resumed, outcome.events, outcome.ignored,
                        after)
