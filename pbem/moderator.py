"""The moderator: creates games, takes orders, answers "where do we stand".

Each call is one database transaction. ``submit_in`` and ``create_game_in``
do the same work inside a session the caller holds, so that the mail flow can
record an inbound message, apply its orders and queue the resulting mail in
one transaction (``pbem.mailflow.inbound``). An order message is applied line by
line by the order layer; every applied action goes to the log in the same
transaction as the snapshot, so a message is recorded whole or not at all.
The engine stays pure; the store stays dumb; this module joins them.

Waiting lines (docs/orders.md, "The maneuver"): when a maneuver move raises a
question to another player, the rest of the message is stored
(``pbem.store.waiting``) and the sender is told whom it waits for. Every
later message that makes such a player the one the game waits for again (the
answer) resumes their lines in the same transaction; the outcome is reported
in ``SubmitResult.resumed``. While a player's lines wait, their further
orders are refused as out of turn (DONATE, STANDING and queries excepted)
and the waiting lines are kept. A player's message ends their maneuver (an
implicit DONE) under the rules told in ``pbem.games.imperial2030.orders.apply``.
"""
from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlmodel import Session

from engine.imperial2030.actions import Action, ArmyMove, FleetMove, Import, Produce
from engine.imperial2030.board import Board, default_board
from engine.imperial2030.board_validation import normalise_name
from engine.imperial2030.decisions import Decision, DecisionKind, pending
from engine.imperial2030.events import (
    Event,
    FlagCardDealt,
    NationSkipped,
    TurnStarted,
    UnitsPlaced,
)
from engine.imperial2030.game import LogEntry, waiting_for
from engine.imperial2030.model import GameSetup, GameState, ManeuverStep, Seat, Variant
from engine.imperial2030.setup import SetupError, new_game
from pbem import store
from pbem.errors import BadSetup, ConcurrentUpdate, StoreError, UnknownPlayer
from pbem.games.imperial2030 import orders
from pbem.games.imperial2030.narrate import narrate
from pbem.games.imperial2030.orders import (
    MessageLine,
    MessageResult,
    format_action,
    split_orders,
)
from pbem.games.imperial2030.statejson import state_json
from pbem.store import Database, GameInfo, GameRow, GameStatus
from pbem.store import waiting as waiting_store

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
    implicit: bool = False  # the DONE that the end of the message added (``line`` is then "DONE")


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
class Waiting:
    """The rest of ``player``'s message, held until ``asked`` answers the open ``question``.

    ``lines`` may be empty: the message's last order raised the question, and
    only the end of the message waits (it ends the maneuver once answered).
    """

    player: str
    asked: str
    question: str
    lines: tuple[tuple[int, str], ...] = ()

    @property
    def text(self) -> str:
        """'waiting for bob (…) — these lines will be applied once answered'."""
        then = ("these lines will be applied once answered" if self.lines
                else "the maneuver ends once answered")
        return f"waiting for {self.asked} ({self.question}) \u2014 {then}"


@dataclass(frozen=True)
class Resumed:
    """Waiting lines of ``player`` that an answer in this message set going again.

    ``refusal`` is set when a waiting line was refused (the answer made it
    illegal): the lines from it on are dropped and the government is asked to
    continue. ``waiting`` is set when the lines stopped at a new question.
    """

    player: str
    applied: tuple[AppliedLine, ...]
    refusal: Refusal | None
    waiting: Waiting | None = None
    queries: tuple[Query, ...] = ()


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
    waiting: Waiting | None = None  # the sender's lines that wait for another player's answer
    resumed: tuple[Resumed, ...] = field(default=())  # other players' waiting lines this message set going
    events: tuple[Event, ...] = field(default=())  # what every accepted action did, in log order
    ignored: tuple[MessageLine, ...] = field(default=())  # courtesy lines not read as orders ("Thanks, Alice")

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


def describe_question(state: GameState, decision: Decision) -> str:
    """The open maneuver question in a few words: 'India: allow Europe's fleet through the Suez canal?'."""
    board = state.board
    step = state.step
    entry = step.entry if isinstance(step, ManeuverStep) else None
    if entry is None or state.turn is None or decision.kind not in (DecisionKind.CANAL, DecisionKind.BATTLE):
        return decision.kind.value.replace("_", " ") + (f" for {board.name(decision.nation)}"
                                                        if decision.nation else "")
    mover = board.name(state.turn.nation)
    unit = mover + ("'" if mover.endswith("s") else "'s") + f" {entry.kind.value}"
    if decision.kind is DecisionKind.CANAL:
        canal = entry.canals[0].replace("_", " ").title()
        return f"{board.name(decision.nation)}: allow {unit} through the {canal} canal?"
    return f"{board.name(decision.nation)}: fight {unit} entering {board.name(entry.dest)}?"


# --- the order layer, behind one function -----------------------------------------------


@dataclass(frozen=True)
class _Outcome:
    state: GameState
    applied: tuple[AppliedLine, ...]
    entries: tuple[LogEntry, ...]
    refusal: Refusal | None
    queries: tuple[Query, ...]
    waiting: dict[str, tuple[tuple[int, str], ...]]
    sender_waiting: Waiting | None
    resumed: tuple[Resumed, ...]
    events: tuple[Event, ...] = ()
    ignored: tuple[MessageLine, ...] = ()


def _lines(stored: dict[str, tuple[tuple[int, str], ...]]) -> dict[str, tuple[MessageLine, ...]]:
    return {p: tuple(MessageLine(n, t) for n, t in lines) for p, lines in stored.items()}


def _run_orders(board: Board, state: GameState, player: str, text: str,
                waiting: dict[str, tuple[tuple[int, str], ...]] | None = None) -> _Outcome:
    """Apply a message through the order layer and turn its result into log entries and narration.

    ``waiting`` holds the stored waiting lines of the game; those of players
    the message's answers make deciders again are resumed on the way.
    """
    split = split_orders(text)
    exchange = orders.apply_exchange(state, player, split.orders, _lines(waiting or {}), end_maneuver=True)
    entries = tuple(LogEntry(a.player, a.action, a.version) for a in exchange.applied)
    if [e.version for e in entries] != list(range(state.version, state.version + len(entries))) \
            or exchange.state.version != state.version + len(entries):
        raise StoreError(f"the order layer applied {len(entries)} actions but the state moved "
                         f"from version {state.version} to {exchange.state.version}")
    result = exchange.message
    applied = _applied_lines(board, result)
    queries = _queries(result)
    refusal = _refusal(result)
    if refusal is None and not applied and not queries:
        refusal = Refusal(reason="The message holds no orders.")
    final = exchange.state
    if refusal is not None and player not in waiting_for(final) and not final.finished:
        refusal = _with_waiting(board, final, refusal)
    stored = {p: tuple((line.number, line.text) for line in lines) for p, lines in exchange.waiting.items()}
    if final.finished:
        stored = {}
    resumed = tuple(Resumed(part.player, _applied_lines(board, part), _refusal(part),
                            _stopped_at(part), _queries(part))
                    for part in exchange.resumed)
    events = tuple(event for item in exchange.applied for event in item.events)
    return _Outcome(final, applied, entries, refusal, queries, stored, _waiting_of(final, player, stored), resumed,
                    events, split.ignored)


def _applied_lines(board: Board, result: MessageResult) -> tuple[AppliedLine, ...]:
    applied = []
    for item in result.applied:
        sentences = narrate(board, item.events)
        quiet = _quiet_action(board, item.nation, item.action, item.events)
        if quiet:
            sentences.insert(0, quiet)
        applied.append(AppliedLine(item.line.number, item.line.text, (item.action,), item.events, tuple(sentences),
                                   item.implicit))
    return tuple(applied)


def _queries(result: MessageResult) -> tuple[Query, ...]:
    return tuple(Query(q.line.number, q.line.text, q.query.kind.value, q.query.topic, q.query.count)
                 for q in result.queries)


def _refusal(result: MessageResult) -> Refusal | None:
    error = result.error
    if error is None:
        return None
    return Refusal(
        reason=error.reason,
        line_number=error.line_number,
        line=error.line,
        legal=error.legal,
        suggestions=error.suggestions,
        not_applied=tuple((line.number, line.text) for line in result.not_applied),
        kind=type(error).__name__,
    )


def _stopped_at(result: MessageResult) -> Waiting | None:
    """The question a part of a message stopped at, as it stood then."""
    if result.question is None:
        return None
    lines = tuple((line.number, line.text) for line in result.waiting)
    return Waiting(result.player, result.question.player, describe_question(result.state, result.question), lines)


def _waiting_of(state: GameState, player: str, stored: dict[str, tuple[tuple[int, str], ...]]) -> Waiting | None:
    """What the waiting rest of ``player``'s message waits for, if any waits."""
    if player not in stored:
        return None
    lines = stored[player]
    decisions = pending(state)
    if not decisions:  # cannot happen while the game runs: stored lines are cleared when it ends
        return Waiting(player, "nobody", "the game is over", lines)
    return Waiting(player, decisions[0].player, describe_question(state, decisions[0]), lines)


def _quiet_action(board: Board, nation: str | None, action: Action, events: Sequence[Event]) -> str | None:
    """A sentence for an accepted action whose own events are silent (importing or producing nothing)."""
    who = board.name(nation) if nation else "The nation"
    if isinstance(action, Import | Produce) and not any(isinstance(e, UnitsPlaced) for e in events):
        return f"{who} {'imported' if isinstance(action, Import) else 'produced'} nothing."
    if isinstance(action, FleetMove | ArmyMove) and not events:  # held by a question to another player
        unit = "fleet" if isinstance(action, FleetMove) else "army"
        return (f"{who}'s {unit} sets out from {board.name(action.origin)} to {board.name(action.dest)}, "
                "waiting for an answer.")
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
        self._waiting_table = False  # created on first use if the database predates it

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
        with self._transaction() as session:
            _, created = self.create_game_in(session, name, setup)
        return created

    def create_game_in(self, session: Session, name: str, setup: GameSetup) -> tuple[GameRow, NewGame]:
        """Store a new game from a checked setup (``make_setup``) in the caller's session."""
        try:
            state, events = new_game(self.board, setup)
        except SetupError as exc:
            raise BadSetup(str(exc)) from None
        game = store.create_game(session, name, setup)
        store.save_snapshot(session, game, state)
        if state.finished:
            store.set_status(session, game, GameStatus.FINISHED)
        return game, NewGame(name, state, tuple(events), tuple(narrate(self.board, events)))

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
        return state_json(name, self.state(name), self.kind(name))

    def kind(self, name: str) -> str:
        """Which game ``name`` is (a kind name of ``pbem.games``)."""
        with self._transaction() as session:
            return store.find_game(session, name).kind

    def verify(self, name: str) -> GameState:
        """Replay the whole log (ignoring snapshots), refresh the snapshot and return the state."""
        with self._transaction() as session:
            game = store.find_game(session, name)
            state = store.replay_game(session, game, self.board)
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
                  state: GameState | None = None) -> SubmitResult:
        """``submit`` inside the caller's session (no transaction of its own, no retry).

        ``state`` is the game's current state when the caller has loaded it
        already. A ``ConcurrentUpdate`` leaves the session unusable: the caller
        rolls its transaction back and may start the whole message again.
        """
        name = game.name
        if state is None:
            state = store.load_state(session, game, self.board)
        player = _resolve_name(player_text, state.seating, f"game {name!r}", UnknownPlayer)
        waiting = waiting_store.load_waiting(session, game)
        outcome = _run_orders(self.board, state, player, text, waiting)
        if outcome.entries:
            store.append_actions(session, game, outcome.entries)
            store.save_snapshot(session, game, outcome.state)
            if outcome.state.finished:
                store.set_status(session, game, GameStatus.FINISHED)
        if outcome.waiting != waiting:
            waiting_store.save_waiting(session, game, outcome.waiting, outcome.state.version)
        return SubmitResult(name, player, state.version, outcome.state, outcome.applied, outcome.refusal,
                            pending(outcome.state), outcome.queries, outcome.sender_waiting, outcome.resumed,
                            outcome.events, outcome.ignored)

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

    def transaction(self):  # type: ignore[no-untyped-def]
        """``Database.transaction`` with the moderator's errors (busy -> ``ConcurrentUpdate``, else ``StoreError``)."""
        return _Transaction(self.db)

    _transaction = transaction


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
