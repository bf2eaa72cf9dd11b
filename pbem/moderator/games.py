"""The moderator: creates games, takes orders, answers "where do we stand".

Each call is one database transaction. ``create_game_in`` does its work
inside a session the caller holds (``pbem game new`` with mail queues the
welcome mails in the same transaction); a message of orders is applied by
``pbem.moderator.apply``. The engine stays pure; the store stays dumb; this
module joins them. It knows no game: each game's kind (``pbem.games``) checks
the setups and tells the events.
"""
from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import TracebackType
from typing import Any, Literal

from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlmodel import Session

from engine.core.errors import EngineError
from engine.core.seats import Seat
from pbem import store
from pbem.errors import BadSetup, ConcurrentUpdate, StoreError
from pbem.games import (
    DEFAULT_KIND,
    GameKind,
    NewGame,
    SetupChoices,
    kind_named,
    kind_of,
)
from pbem.languages import Language
from pbem.moderator.apply import SubmitResult, submit_in
from pbem.store import Database, GameInfo, GameRow, GameStatus
from pbem.store import waiting as waiting_store
from pbem.store.settings import GameSettings, load_settings, save_settings

GAME_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
PLAYER_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,31}$")
EMAIL = re.compile(r"^[^@\s:]+@[^@\s:]+$")
SEED_LIMIT = 2**31


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
            _, created = self.create_game_in(session, name, setup, kind=kind_named(kind).info.name)
        return created

    def create_game_in(self, session: Session, name: str, setup: Any, *,
                       kind: str = DEFAULT_KIND) -> tuple[GameRow, NewGame]:
        """Store a new game from a checked setup (``make_setup``) in the caller's session."""
        game_kind = kind_of(kind)
        try:
            state, events = game_kind.new_game(setup)
        except EngineError as exc:
            raise BadSetup(str(exc)) from None
        game = store.create_game(session, name, setup, kind)
        store.save_snapshot(session, game, state)
        if game_kind.info.deadline_hours:  # its own decisions' hours (mail creation puts the config's over them)
            save_settings(session, game, GameSettings(deadline_hours=dict(game_kind.info.deadline_hours)))
        if game_kind.finished(state):
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
        info = game_kind.info
        if not info.min_players <= len(seats) <= info.max_players:
            raise BadSetup(f"{info.title} needs {info.min_players} to {info.max_players} players, not {len(seats)}")
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

    def language_of(self, name: str, player: str) -> Language:
        """The language ``player``'s mail in game ``name`` is written in (``LANGUAGE``, else the game's)."""
        with self._transaction() as session:
            game = store.find_game(session, name)
            seat = next((s for s in store.seats(session, game) if s.name == player), None)
            own = seat.language if seat is not None else None
            return Language(own or load_settings(session, game).language)

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
