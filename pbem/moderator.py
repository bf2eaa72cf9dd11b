"""The moderator: creates games, takes orders, answers "where do we stand".

Each call is one database transaction. ``submit_in`` and ``create_game_in``
do the same work inside a session the caller holds, so that the mail flow can
record an inbound message, apply its orders and queue the resulting mail in
one transaction (``pbem.mailflow.inbound``); ``plan_in`` leaves the writes to
the caller, who makes them last (``Unwritten``). An order message is applied line by
line by the order layer; every applied action goes to the log in the same
transaction as the snapshot, so a message is recorded whole or not at all.
The engine stays pure; the store stays dumb; this module joins them. It
knows no game: each game's kind (``pbem.games``) reads the messages, tells
the events and checks the setups.

Waiting lines: a game may hold the rest of a message back until another
player answers a question (Imperial's maneuver, docs/orders.md). The kind
returns the game's complete set of held-back lines with every message; they
are stored (``pbem.store.waiting``) in the same transaction, and the kind
resumes them when the answer comes (``SubmitResult.resumed``).
"""
from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Literal

from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlmodel import Session

from engine.core.errors import EngineError
from engine.core.seats import Seat
from pbem import store
from pbem.errors import BadSetup, ConcurrentUpdate, StoreError, UnknownPlayer
from pbem.games import (
    DEFAULT_KIND,
    GameKind,
    NewGame,
    SetupChoices,
    kind_named,
    kind_of,
)
from pbem.games.kind import resolve_player
from pbem.games.results import (
    AppliedLine,
    MessageLine,
    Query,
    Refusal,
    Resumed,
    StoredLines,
    Waiting,
)
from pbem.store import Database, GameInfo, GameRow, GameStatus
from pbem.store import waiting as waiting_store
from pbem.store.settings import GameSettings, save_settings

GAME_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
PLAYER_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,31}$")
EMAIL = re.compile(r"^[^@\s:]+@[^@\s:]+$")
SEED_LIMIT = 2**31

__all__ = ["AppliedLine", "Moderator", "NewGame", "Query", "Refusal", "Resumed", "SubmitResult", "Waiting"]


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
    """``submit`` inside the caller's session (no transaction of its own, no retry).

    ``state`` is the game's current state when the caller has loaded it
    already. A ``ConcurrentUpdate`` leaves the session unusable: the caller
    rolls its transaction back and may start the whole message again.
    """
    result, unwritten = plan_in(session, game, player_text, text, state)
    unwritten.write()
    return result


def plan_in(session: Session, game: GameRow, player_text: str, text: str,
            state: Any = None) -> tuple[SubmitResult, Unwritten]:
    """``submit_in`` without its writes: what the message does, and the writes, which the caller makes
    (``Unwritten.write``) before its transaction commits. Reads only."""
    name = game.name
    game_kind = kind_of(game.kind)
    rules = game_kind.rules
    if state is None:
        state = store.load_state(session, game)
    seating = tuple(seat.name for seat in rules.seats(rules.setup_of(state)))
    player = resolve_player(player_text, seating, f"game {name!r}", UnknownPlayer)
    waiting = waiting_store.load_waiting(session, game)
    before = rules.version(state)
    outcome = game_kind.run_message(state, player, text, waiting)
    after = rules.version(outcome.state)
    if [e.version for e in outcome.entries] != list(range(before, after)):
        raise StoreError(f"the order layer applied {len(outcome.entries)} actions but the state moved "
                         f"from version {before} to {after}")
    result = SubmitResult(name, player, before, outcome.state, outcome.applied, outcome.refusal,
                          outcome.pending, outcome.queries, outcome.sender_waiting, outcome.resumed,
                          outcome.events, outcome.ignored, after)
    unwritten = Unwritten(session, game, tuple(outcome.entries), outcome.state,
                          outcome.waiting if outcome.waiting != waiting else None, after)
    return result, unwritten


@dataclass(frozen=True)
class Unwritten:
    """A message's actions, the new snapshot and the waiting lines, applied in memory and not yet written.

    Why apart: from its first write a transaction holds SQLite's one write
    lock, and the outbox's sender waits for it to mark mail sent. A caller
    that has more to do before it commits (the mail flow writing every
    seat's mail) does that first and writes last (``pbem.mailflow.inbound``).
    """

    session: Session
    game: GameRow
    entries: tuple[Any, ...]  # the log entries (``engine.core.log.LogEntry``)
    state: Any
    waiting: StoredLines | None  # the game's waiting lines, when they changed
    version: int

    def write(self) -> None:
        """Into the session (a ``ConcurrentUpdate`` when another writer moved the game meanwhile). What the
        session holds already goes first, so that its own errors are not taken for another writer's."""
        session, game = self.session, self.game
        session.flush()
        if self.entries:
            store.append_actions(session, game, self.entries)
            store.save_snapshot(session, game, self.state)
            if kind_of(game.kind).rules.finished(self.state):
                store.set_status(session, game, GameStatus.FINISHED)
        if self.waiting is not None:
            waiting_store.save_waiting(session, game, self.waiting, self.version)


# --- the moderator ---------------------------------------------------------------------


class Moderator:
    """Games of every kind in one database."""

    def __init__(self, db: Database, *, retries: int = 5) -> None:
        self.db = db
        self.retries = retries
        self._waiting_table = False  # created on first use if the database predates it

    # --- games ---------------------------------------------------------------------------

    def create_game(
        self,
        name: str,
        players: Sequence[tuple[str, str]],
        deal: Iterable[tuple[str, str]] = (),
        seed: int | None = None,
        variants: Iterable[str] = (),
        start_player: str | None = None,
        *,
        kind: str = DEFAULT_KIND,
        options: Mapping[str, Any] | None = None,
    ) -> NewGame:
        """Set up and store a new game; seating order is the order of ``players``.

        ``deal`` and ``start_player`` are Imperial 2030's own options, ``options``
        any kind's (Eight-Minute Empire: ``ages``); a kind refuses options it
        does not know.
        """
        setup = self.make_setup(name, players, deal, seed, variants, start_player, kind=kind, options=options)
        with self._transaction() as session:
            _, created = self.create_game_in(session, name, setup, kind=kind_named(kind).name)
        return created

    def create_game_in(self, session: Session, name: str, setup: Any, *,
                       kind: str = DEFAULT_KIND) -> tuple[GameRow, NewGame]:
        """Store a new game from a checked setup (``make_setup``) in the caller's session."""
        game_kind = kind_of(kind)
        try:
            state, events = game_kind.rules.new_game(setup)
        except EngineError as exc:
            raise BadSetup(str(exc)) from None
        game = store.create_game(session, name, setup, kind)
        store.save_snapshot(session, game, state)
        if game_kind.deadline_hours():  # its own decisions' hours (mail creation puts the config's over them)
            save_settings(session, game, GameSettings(deadline_hours=dict(game_kind.deadline_hours())))
        if game_kind.rules.finished(state):
            store.set_status(session, game, GameStatus.FINISHED)
        return game, game_kind.created(name, state, events)

    def make_setup(
        self,
        name: str,
        players: Sequence[tuple[str, str]],
        deal: Iterable[tuple[str, str]] = (),
        seed: int | None = None,
        variants: Iterable[Any] = (),
        start_player: str | None = None,
        *,
        kind: str = DEFAULT_KIND,
        options: Mapping[str, Any] | None = None,
    ) -> Any:
        """Check the game master's choices and turn them into the kind's setup (names resolved)."""
        game_kind = kind_named(kind)
        if not GAME_NAME.match(name):
            raise BadSetup(f"bad game name {name!r}: use letters, digits, '.', '_' or '-' (at most 64, "
                           "starting with a letter or digit)")
        seats = _seats(players)
        if not game_kind.min_players <= len(seats) <= game_kind.max_players:
            raise BadSetup(f"{game_kind.title} needs {game_kind.min_players} to {game_kind.max_players} players, "
                           f"not {len(seats)}")
        if seed is None:
            seed = secrets.randbelow(SEED_LIMIT)
        if not 0 <= seed < 2**63:
            raise BadSetup(f"seed must be between 0 and {2**63 - 1}, not {seed}")
        chosen_options: dict[str, Any] = dict(options or {})
        deal = tuple(deal)
        if deal:
            chosen_options["deal"] = deal
        if start_player is not None:
            chosen_options["start_player"] = start_player
        chosen = tuple(getattr(v, "value", v) for v in variants)
        return game_kind.make_setup(SetupChoices(seats, seed, chosen, chosen_options))

    def list_games(self) -> list[GameInfo]:
        with self._transaction() as session:
            return store.list_games(session)

    def seats(self, name: str) -> list[tuple[str, str]]:
        with self._transaction() as session:
            return [(s.name, s.email) for s in store.seats(session, store.find_game(session, name))]

    def state(self, name: str) -> Any:
        with self._transaction() as session:
            return store.load_state(session, store.find_game(session, name))

    def state_json(self, name: str, viewer: str | None = None) -> dict[str, Any]:
        """The state as JSON (docs/state-json.md); with ``viewer``, only what that player may see."""
        return self.kind_of(name).state_json(name, self.state(name), viewer)

    def kind_of(self, name: str) -> GameKind:
        """Which game ``name`` is: its kind from the registry (``pbem.games``)."""
        with self._transaction() as session:
            return kind_of(store.find_game(session, name).kind)

    def verify(self, name: str) -> Any:
        """Replay the whole log (ignoring snapshots), refresh the snapshot and return the state."""
        with self._transaction() as session:
            game = store.find_game(session, name)
            state = store.replay_game(session, game)
            store.save_snapshot(session, game, state)
            return state

    # --- orders --------------------------------------------------------------------------

    def submit(self, name: str, player: str, text: str, *,
               guard: Callable[[Session, GameRow], None] | None = None) -> SubmitResult:
        """Apply a message of orders from ``player``: every line that stands is logged, in one transaction.

        A conflicting concurrent write makes the whole message be read again
        against the new position (up to ``retries`` times). ``guard`` runs in
        that transaction before anything is applied and may raise to refuse
        the whole message (the CLI refuses orders to a paused game this way,
        so a pause that lands meanwhile is seen).
        """
        for attempt in range(self.retries + 1):
            try:
                return self._submit_once(name, player, text, guard)
            except ConcurrentUpdate:
                if attempt == self.retries:
                    raise
        raise AssertionError("unreachable")

    def _submit_once(self, name: str, player_text: str, text: str,
                     guard: Callable[[Session, GameRow], None] | None) -> SubmitResult:
        self._ensure_waiting_table()
        with self._transaction() as session:
            game = store.find_game(session, name)
            if guard is not None:
                guard(session, game)
            return self.submit_in(session, game, player_text, text)

    def submit_in(self, session: Session, game: GameRow, player_text: str, text: str,
                  state: Any = None) -> SubmitResult:
        """``submit`` inside the caller's session (no transaction of its own, no retry): ``submit_in``."""
        return submit_in(session, game, player_text, text, state)

    def plan_in(self, session: Session, game: GameRow, player_text: str, text: str,
                state: Any = None) -> tuple[SubmitResult, Unwritten]:
        """``submit_in`` with the writes left to the caller: ``plan_in``."""
        return plan_in(session, game, player_text, text, state)

    def waiting(self, name: str) -> dict[str, tuple[tuple[int, str], ...]]:
        """Player -> (line number, text) of their lines waiting for another player's answer."""
        self._ensure_waiting_table()
        with self._transaction() as session:
            return waiting_store.load_waiting(session, store.find_game(session, name))

    def _ensure_waiting_table(self) -> None:
        if not self._waiting_table:
            try:
                waiting_store.ensure_table(self.db.engine)
            except SQLAlchemyError as exc:
                raise StoreError(f"cannot create tables in {self.db.display_url}: "
                                 f"{getattr(exc, 'orig', None) or exc}") from None
            self._waiting_table = True

    # --- plumbing ------------------------------------------------------------------------

    def transaction(self) -> _Transaction:
        """``Database.transaction`` with the moderator's errors (busy -> ``ConcurrentUpdate``, else ``StoreError``)."""
        return _Transaction(self.db)

    _transaction = transaction


class _Transaction:
    """``Database.transaction`` with SQLite's "database is locked" told as a concurrent update."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.cm: Any = None

    def __enter__(self) -> Session:
        self.cm = self.db.transaction()
        try:
            session: Session = self.cm.__enter__()
            return session
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot open database {self.db.display_url}: "
                             f"{getattr(exc, 'orig', None) or exc}") from None

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> Literal[False]:
        try:
            self.cm.__exit__(kind, value, tb)  # commits, or rolls back when the block raised
        except SQLAlchemyError as exc:
            value = exc
        if isinstance(value, OperationalError) and "locked" in str(value.orig).lower():
            raise ConcurrentUpdate(f"the database is busy ({value.orig}); nothing was written") from None
        if isinstance(value, SQLAlchemyError):
            raise StoreError(f"database error in {self.db.display_url}: "
                             f"{getattr(value, 'orig', None) or value}") from None
        return False


def _seats(players: Sequence[tuple[str, str]]) -> tuple[Seat, ...]:
    """The players as seats, each name and address checked; names and addresses must differ."""
    seats = []
    for player, email in players:
        if not PLAYER_NAME.match(player):
            raise BadSetup(f"bad player name {player!r}: use letters, digits, '.', '_' or '-' "
                           "(at most 32, starting with a letter)")
        if not EMAIL.match(email):
            raise BadSetup(f"bad email address {email!r} for player {player}")
        seats.append(Seat(player, email))
    lowered = [s.name.lower() for s in seats]
    if len(set(lowered)) != len(lowered):
        raise BadSetup(f"player names must differ: {', '.join(s.name for s in seats)}")
    emails = [s.email.lower() for s in seats]
    if len(set(emails)) != len(emails):
        raise BadSetup(f"each player needs an own email address: {', '.join(s.email for s in seats)}")
    return tuple(seats)
