"""The moderator: creates games, takes orders, answers "where do we stand".

Each call is one database transaction. An order message is applied line by
line by the order layer; every applied action goes to the log in the same
transaction as the snapshot, so a message is recorded whole or not at all.
The engine stays pure; the store stays dumb; this module joins them.
"""
from __future__ import annotations

import re
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.exc import OperationalError, SQLAlchemyError

from engine.board import Board, default_board
from engine.board_validation import normalise_name
from engine.decisions import Decision, pending
from engine.actions import Action, Import, Produce
from engine.events import Event, FlagCardDealt, NationSkipped, TurnStarted, UnitsPlaced
from engine.game import LogEntry, apply, waiting_for
from engine.model import GameSetup, GameState, Seat, Variant
from engine.setup import SetupError, new_game
from pbem import orders, store
from pbem.errors import BadSetup, ConcurrentUpdate, StoreError, UnknownPlayer
from pbem.narrate import narrate
from pbem.orders import format_action
from pbem.statejson import state_json
from pbem.store import Database, GameInfo, GameStatus

GAME_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
PLAYER_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,31}$")
EMAIL = re.compile(r"^[^@\s:]+@[^@\s:]+$")
SEED_LIMIT = 2**31


# --- results ----------------------------------------------------------------------------


@dataclass(frozen=True)
class NewGame:
    """A game just created: its start position and what setting it up did."""

    name: str
    state: GameState
    events: tuple[Event, ...]
    narration: tuple[str, ...]

    @property
    def flag_cards(self) -> dict[str, tuple[str, ...]]:
        """Player -> nations whose flag card they hold (empty in the expert variant)."""
        cards: dict[str, list[str]] = {p: [] for p in self.state.seating}
        for event in self.events:
            if isinstance(event, FlagCardDealt):
                cards[event.player].append(event.nation)
        return {p: tuple(n) for p, n in cards.items()}

    @property
    def pending(self) -> tuple[Decision, ...]:
        return pending(self.state)


@dataclass(frozen=True)
class AppliedLine:
    """One order of the message that stands: the line it came from, its actions and what they did."""

    line_number: int
    line: str
    actions: tuple[Action, ...]
    events: tuple[Event, ...]
    narration: tuple[str, ...]


@dataclass(frozen=True)
class Refusal:
    """Why the message stopped: the failing line, the reason, what is legal now, what was not applied.

    ``waiting_for`` names the pending decisions (as text) when the sender had
    nothing to decide at that point.
    """

    reason: str
    line_number: int | None = None
    line: str | None = None
    legal: tuple[str, ...] = ()
    suggestions: tuple[str, ...] = ()
    not_applied: tuple[tuple[int, str], ...] = ()
    waiting_for: tuple[str, ...] = ()
    kind: str = "refused"


@dataclass(frozen=True)
class Query:
    """A report asked for among the orders (STATUS, OPTIONS, BOARD, HISTORY, HELP)."""

    line_number: int
    line: str
    kind: str
    topic: str | None = None
    count: int | None = None


@dataclass(frozen=True)
class SubmitResult:
    game: str
    player: str
    version_before: int
    state: GameState
    applied: tuple[AppliedLine, ...]
    refusal: Refusal | None
    pending: tuple[Decision, ...] = field(default=())
    queries: tuple[Query, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return self.refusal is None

    @property
    def version(self) -> int:
        return self.state.version


def describe_decision(board: Board, decision: Decision) -> str:
    """Who must decide what, in a few words: 'bob (investment)', 'ann (rondel for Russia)'."""
    kind = decision.kind.value.replace("_", " ")
    return f"{decision.player} ({kind}" + (f" for {board.name(decision.nation)})" if decision.nation else ")")


# --- the order layer, behind one function -----------------------------------------------


@dataclass(frozen=True)
class _Outcome:
    state: GameState
    applied: tuple[AppliedLine, ...]
    entries: tuple[LogEntry, ...]
    refusal: Refusal | None
    queries: tuple[Query, ...]


def _run_orders(board: Board, state: GameState, player: str, text: str) -> _Outcome:
    """Apply a message through the order layer and turn its result into log entries and narration."""
    result = orders.apply_message(state, player, text)
    applied: list[AppliedLine] = []
    entries: list[LogEntry] = []
    nations = _turn_nations(state, player, [item.action for item in result.applied])
    for offset, (item, nation) in enumerate(zip(result.applied, nations)):
        entries.append(LogEntry(player, item.action, state.version + offset))
        sentences = narrate(board, item.events)
        quiet = _quiet_action(board, nation, item.action, item.events)
        if quiet:
            sentences.insert(0, quiet)
        applied.append(AppliedLine(item.line.number, item.line.text, (item.action,), item.events, tuple(sentences)))
    if result.state.version != state.version + len(entries):
        raise StoreError(f"the order layer applied {len(entries)} actions but the state moved "
                         f"from version {state.version} to {result.state.version}")
    queries = tuple(Query(q.line.number, q.line.text, q.query.kind.value, q.query.topic, q.query.count)
                    for q in result.queries)
    refusal = None
    error = result.error
    if error is not None:
        refusal = Refusal(
            reason=error.reason,
            line_number=error.line_number,
            line=error.line,
            legal=error.legal,
            suggestions=error.suggestions,
            not_applied=tuple((line.number, line.text) for line in result.not_applied),
            kind=type(error).__name__,
        )
    elif not applied and not queries:
        refusal = Refusal(reason="The message holds no orders.")
    if refusal is not None and player not in waiting_for(result.state) and not result.state.finished:
        refusal = _with_waiting(board, result.state, refusal)
    return _Outcome(result.state, tuple(applied), tuple(entries), refusal, queries)


def _turn_nations(state: GameState, player: str, actions: list[Action]) -> list[str | None]:
    """The nation whose turn it was before each action (replayed: the order layer hands back only the end)."""
    nations = []
    for action in actions:
        nations.append(state.turn.nation if state.turn else None)
        state, _ = apply(state, player, action)
    return nations


def _quiet_action(board: Board, nation: str | None, action: Action, events: Sequence[Event]) -> str | None:
    """A sentence for an accepted action whose own events are silent (importing or producing nothing)."""
    who = board.name(nation) if nation else "The nation"
    if isinstance(action, Import | Produce) and not any(isinstance(e, UnitsPlaced) for e in events):
        return f"{who} {'imported' if isinstance(action, Import) else 'produced'} nothing."
    if all(isinstance(e, TurnStarted | NationSkipped) for e in events):
        return f"{format_action(board, action)}: nothing changed."
    return None


def _with_waiting(board: Board, state: GameState, refusal: Refusal) -> Refusal:
    waits = tuple(describe_decision(board, d) for d in pending(state))
    return Refusal(refusal.reason, refusal.line_number, refusal.line, refusal.legal, refusal.suggestions,
                   refusal.not_applied, waits, refusal.kind)


# --- the moderator ---------------------------------------------------------------------


class Moderator:
    """Games in one database, played on one board."""

    def __init__(self, db: Database, board: Board | None = None, *, retries: int = 5) -> None:
        self.db = db
        self.board = board or default_board()
        self.retries = retries

    # --- games ---------------------------------------------------------------------------

    def create_game(
        self,
        name: str,
        players: Sequence[tuple[str, str]],
        deal: Iterable[tuple[str, str]] = (),
        seed: int | None = None,
        variants: Iterable[Variant | str] = (),
        start_player: str | None = None,
    ) -> NewGame:
        """Set up and store a new game; seating order is the order of ``players``."""
        setup = self.make_setup(name, players, deal, seed, variants, start_player)
        try:
            state, events = new_game(self.board, setup)
        except SetupError as exc:
            raise BadSetup(str(exc)) from None
        with self._transaction() as session:
            game = store.create_game(session, name, setup)
            store.save_snapshot(session, game, state)
            if state.finished:
                store.set_status(session, game, GameStatus.FINISHED)
        return NewGame(name, state, tuple(events), tuple(narrate(self.board, events)))

    def make_setup(
        self,
        name: str,
        players: Sequence[tuple[str, str]],
        deal: Iterable[tuple[str, str]] = (),
        seed: int | None = None,
        variants: Iterable[Variant | str] = (),
        start_player: str | None = None,
    ) -> GameSetup:
        """Check the game master's choices and turn them into an engine setup (names resolved)."""
        if not GAME_NAME.match(name):
            raise BadSetup(f"bad game name {name!r}: use letters, digits, '.', '_' or '-' (at most 64, "
                           "starting with a letter or digit)")
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
        count = len(self.board.nation_ids)
        if not 2 <= len(seats) <= count:
            raise BadSetup(f"Imperial 2030 needs 2 to {count} players, not {len(seats)}")
        names = tuple(s.name for s in seats)
        try:
            chosen = frozenset(Variant(v) for v in variants)
        except ValueError as exc:
            raise BadSetup(f"unknown variant: {exc}; variants: {', '.join(v.value for v in Variant)}") from None
        fixed: list[tuple[str, str]] = []
        for nation_text, player_text in deal:
            nation = self.resolve_nation(nation_text)
            player = _resolve_name(player_text, names, "deal")
            if any(n == nation for n, _ in fixed):
                raise BadSetup(f"deal: {self.board.name(nation)} is dealt twice")
            fixed.append((nation, player))
        if fixed and Variant.EXPERT in chosen:
            raise BadSetup("the expert variant deals no flag cards: --deal does not apply")
        start = None
        if start_player is not None:
            if Variant.EXPERT not in chosen:
                raise BadSetup("--start-player only applies to the expert variant")
            start = _resolve_name(start_player, names, "start player")
        if seed is None:
            seed = secrets.randbelow(SEED_LIMIT)
        if not 0 <= seed < 2**63:
            raise BadSetup(f"seed must be between 0 and {2**63 - 1}, not {seed}")
        return GameSetup(tuple(seats), seed, chosen, tuple(fixed), start)

    def resolve_nation(self, text: str) -> str:
        key = normalise_name(text)
        for info in self.board.nations:
            if key in {normalise_name(s) for s in (info.id, info.name, *info.aliases)}:
                return info.id
        known = ", ".join(info.id for info in self.board.nations)
        raise BadSetup(f"deal: unknown nation {text!r}; nations: {known}")

    def list_games(self) -> list[GameInfo]:
        with self._transaction() as session:
            return store.list_games(session)

    def seats(self, name: str) -> list[tuple[str, str]]:
        with self._transaction() as session:
            return [(s.name, s.email) for s in store.seats(session, store.find_game(session, name))]

    def state(self, name: str) -> GameState:
        with self._transaction() as session:
            return store.load_state(session, store.find_game(session, name), self.board)

    def state_json(self, name: str) -> dict[str, Any]:
        return state_json(name, self.state(name))

    def verify(self, name: str) -> GameState:
        """Replay the whole log (ignoring snapshots), refresh the snapshot and return the state."""
        with self._transaction() as session:
            game = store.find_game(session, name)
            state = store.replay_game(session, game, self.board)
            store.save_snapshot(session, game, state)
            return state

    # --- orders --------------------------------------------------------------------------

    def submit(self, name: str, player: str, text: str) -> SubmitResult:
        """Apply a message of orders from ``player``: every line that stands is logged, in one transaction.

        A conflicting concurrent write makes the whole message be read again
        against the new position (up to ``retries`` times).
        """
        for attempt in range(self.retries + 1):
            try:
                return self._submit_once(name, player, text)
            except ConcurrentUpdate:
                if attempt == self.retries:
                    raise
        raise AssertionError("unreachable")

    def _submit_once(self, name: str, player_text: str, text: str) -> SubmitResult:
        with self._transaction() as session:
            game = store.find_game(session, name)
            state = store.load_state(session, game, self.board)
            player = _resolve_name(player_text, state.seating, f"game {name!r}", UnknownPlayer)
            outcome = _run_orders(self.board, state, player, text)
            if outcome.entries:
                store.append_actions(session, game, outcome.entries)
                store.save_snapshot(session, game, outcome.state)
                if outcome.state.finished:
                    store.set_status(session, game, GameStatus.FINISHED)
            return SubmitResult(name, player, state.version, outcome.state, outcome.applied, outcome.refusal,
                                pending(outcome.state), outcome.queries)

    # --- plumbing ------------------------------------------------------------------------

    def _transaction(self):  # type: ignore[no-untyped-def]
        return _Transaction(self.db)


class _Transaction:
    """``Database.transaction`` with SQLite's "database is locked" told as a concurrent update."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.cm: Any = None

    def __enter__(self):  # type: ignore[no-untyped-def]
        self.cm = self.db.transaction()
        try:
            return self.cm.__enter__()
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot open database {self.db.display_url}: "
                             f"{getattr(exc, 'orig', None) or exc}") from None

    def __exit__(self, kind, value, tb):  # type: ignore[no-untyped-def]
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


def _resolve_name(text: str, names: Sequence[str], where: str, error: type[Exception] = BadSetup) -> str:
    """A player name as typed, matched ignoring case."""
    for name in names:
        if name == text:
            return name
    matches = [name for name in names if name.casefold() == text.strip().casefold()]
    if len(matches) == 1:
        return matches[0]
    raise error(f"{where}: {text!r} is not a player; players: {', '.join(names)}")
