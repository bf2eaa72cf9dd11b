"""`pbem export`: a game's whole history, to replay it elsewhere, to archive it or to publish it.

The export is written once for every kind of game: it reads the stored game
(setup, seats, the action log with the time each action was applied) and
replays the log from the setup through the kind's ``Rules``, so each action
comes with the order text a player would have written (``format_action`` on
the state before it) and the sentences its events tell every reader
(``narrate`` with no viewer: the public view, which hides sealed answers).
The replay also checks the stored state (snapshot plus log) against the
truth, the replay of the log (``replay_matches``).

Two readers, two exports:

- The game master's own (the default) holds everything: e-mail addresses,
  the setup with its seed, every logged action.
- ``public`` is for publishing: no e-mail addresses; while a sealed round is
  open the log entries from the move players are shown (``shown_move``) on
  are left out, because they are sealed answers not revealed yet. It says
  only *that* a sealed round is open, never how many entries were left out:
  a count would tell who has answered. The setup is left out until the game
  is over, because its seed lets anyone deal the hidden cards ahead of play
  (a deck's order is hidden information, ARCHITECTURE).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlmodel import Session, col, select

from engine.core.errors import EngineError
from engine.core.log import LogEntry
from pbem import store
from pbem.errors import StoreError
from pbem.games import GameKind, kind_of
from pbem.moderator.deadlines import utc
from pbem.moderator.gamemaster.common import _transaction
from pbem.render.env import render
from pbem.render.text import utc_stamp
from pbem.store import GameRow
from pbem.store.models import ActionRow

if TYPE_CHECKING:
    from pbem.store import Database

FORMAT = "pbem-export/1"


@dataclass(frozen=True)
class ExportedSeat:
    seat: int  # 1-based, clockwise
    name: str
    email: str | None  # None in a public export


@dataclass(frozen=True)
class ExportedAction:
    version: int  # the log version it was made against: it is move version + 1
    player: str
    action: dict[str, Any]  # the kind's own action JSON (Rules.action_to_json)
    order: str  # as a player writes it (GameKind.format_action on the state before it)
    applied: datetime  # UTC
    narration: tuple[str, ...]  # what it told every reader

    @property
    def move(self) -> int:
        return self.version + 1


@dataclass(frozen=True)
class GameExport:
    """One game's history as exported; ``export_json`` and ``export_text`` write it out."""

    name: str
    kind: str
    title: str
    created: datetime  # UTC
    status: str
    public: bool
    setup: dict[str, Any] | None  # Rules.setup_to_json; None when withheld (a public export of a running game)
    seats: tuple[ExportedSeat, ...]
    setup_narration: tuple[str, ...]
    actions: tuple[ExportedAction, ...]
    sealed_round_open: bool
    finished: bool
    final_scores: tuple[tuple[str, int], ...] | None  # best first; None until the game is over
    replay_matches: bool  # the stored state equals the replay of setup and log


@dataclass(frozen=True)
class _Stored:
    """What the export reads of a game, in one transaction (the replay happens after it)."""

    name: str
    kind: GameKind
    created: datetime
    status: str
    setup: Any
    seats: tuple[tuple[str, str], ...]
    log: tuple[LogEntry[Any], ...]
    applied: dict[int, datetime]  # log version -> when it was applied
    state: Any  # as load_state gives it: the latest snapshot plus the log after it


@dataclass(frozen=True)
class _Replayed:
    first: Any  # the start position
    setup_events: tuple[Any, ...]
    actions: tuple[ExportedAction, ...]
    state: Any  # the position after the whole log


# --- reading and replaying ---------------------------------------------------------------------------


def export_game(db: Database, name: str, *, public: bool = False) -> GameExport:
    """The history of game ``name``; ``public`` for publishing (see the module docstring)."""
    stored = _read(db, name)
    replayed = _replay(stored)
    kind = stored.kind
    # open while the game waits for a sealed decision; "shown_move below the log length" would say
    # that somebody has answered already
    sealed_open = any(decision.sealed for decision in kind.pending(replayed.state))
    finished = kind.finished(replayed.state)
    return GameExport(
        name=stored.name, kind=stored.kind.info.name, title=stored.kind.info.title, created=stored.created,
        status=stored.status, public=public, setup=_setup_json(stored, public, finished),
        seats=tuple(ExportedSeat(index, seat, None if public else email)
                    for index, (seat, email) in enumerate(stored.seats, start=1)),
        setup_narration=tuple(stored.kind.narrate(replayed.first, replayed.setup_events, None)),
        actions=_shown_actions(stored.kind, replayed, public and sealed_open),
        sealed_round_open=sealed_open, finished=finished,
        final_scores=tuple(stored.kind.final_scores(replayed.state)) if finished else None,
        replay_matches=kind.state_to_json(replayed.state) == kind.state_to_json(stored.state),
    )


def _read(db: Database, name: str) -> _Stored:
    """Everything stored of the game, read in one transaction so the log and its times agree."""
    with _transaction(db) as session:
        game = store.find_game(session, name)
        kind = kind_of(game.kind)
        return _Stored(
            name=game.name, kind=kind, created=utc(game.created), status=game.status,
            setup=store.game_setup(game),
            seats=tuple((seat.name, seat.email) for seat in store.seats(session, game)),
            log=tuple(store.load_log(session, game)), applied=_applied_times(session, game),
            state=store.load_state(session, game),
        )


def _applied_times(session: Session, game: GameRow) -> dict[int, datetime]:
    """Log version -> when the action was applied (``load_log`` gives the actions, not their times)."""
    rows = session.exec(select(ActionRow.version, ActionRow.applied).where(col(ActionRow.game_id) == game.id)).all()
    return {version: utc(applied) for version, applied in rows}


def _replay(stored: _Stored) -> _Replayed:
    """The log replayed from the setup, each action with its order text and the narration of its events.

    The replay is the truth (ARCHITECTURE); an entry that does not apply means
    a damaged log, which the game master must hear of rather than get a
    history that stops short.
    """
    kind = stored.kind
    first, setup_events = kind.new_game(stored.setup)
    state, actions = first, []
    for entry in stored.log:
        try:
            after, events = kind.apply(state, entry.player, entry.action)
        except EngineError as exc:
            raise StoreError(f"game {stored.name!r}: move {entry.version + 1} of the log does not replay: "
                             f"{exc}") from None
        actions.append(ExportedAction(
            entry.version, entry.player, kind.action_to_json(entry.action), kind.format_action(state, entry.action),
            stored.applied[entry.version], tuple(kind.narrate(after, events, None))))
        state = after
    return _Replayed(first, tuple(setup_events), tuple(actions), state)


def _shown_actions(kind: GameKind, replayed: _Replayed, withhold: bool) -> tuple[ExportedAction, ...]:
    """Every action, or (``withhold``: a public export in an open sealed round) those before the shown move."""
    if not withhold:
        return replayed.actions
    shown = kind.shown_move(replayed.state)
    return tuple(action for action in replayed.actions if action.version < shown)


def _setup_json(stored: _Stored, public: bool, finished: bool) -> dict[str, Any] | None:
    """The setup as the kind serialises it; public: without addresses, and only once the game is over.

    The addresses are blanked through ``Rules.renamed`` (each player renamed
    to themself at no address), so the core needs no knowledge of the
    setup's JSON.
    """
    kind = stored.kind
    if not public:
        return kind.setup_to_json(stored.setup)
    if not finished:
        return None  # its seed tells the hidden deal of the rest of the game
    setup = stored.setup
    for seat in kind.seats(setup):
        setup = kind.renamed(setup, seat.name, seat.name, "")
    return kind.setup_to_json(setup)


# --- writing it out --------------------------------------------------------------------------------


def export_json(export: GameExport) -> dict[str, Any]:
    """The export as JSON (format ``pbem-export/1``, docs/game-master.md)."""
    return {
        "format": FORMAT,
        "game": export.name,
        "kind": export.kind,
        "title": export.title,
        "created": export.created.isoformat(),
        "status": export.status,
        "public": export.public,
        "setup": export.setup,
        "setup_withheld": export.setup is None,
        "seats": [_seat_json(seat) for seat in export.seats],
        "setup_narration": list(export.setup_narration),
        "actions": [_action_json(action) for action in export.actions],
        "sealed_round_open": export.sealed_round_open,
        "finished": export.finished,
        "final_scores": None if export.final_scores is None else [
            {"player": player, "score": score} for player, score in export.final_scores],
        "replay_matches": export.replay_matches,
    }


def _seat_json(seat: ExportedSeat) -> dict[str, Any]:
    data: dict[str, Any] = {"seat": seat.seat, "name": seat.name}
    if seat.email is not None:
        data["email"] = seat.email
    return data


def _action_json(action: ExportedAction) -> dict[str, Any]:
    return {"move": action.move, "version": action.version, "player": action.player, "action": action.action,
            "order": action.order, "applied": action.applied.isoformat(), "narration": list(action.narration)}


def export_text(export: GameExport) -> str:
    """The export as a chronicle to read: mail text (ASCII, at most 78 columns; ``core/export.j2``). Not
    strict: a long order line is kept as written and broken by the mail finish."""
    return render("core/export.j2", export=export, created=utc_stamp(export.created),
                  stamps=[utc_stamp(action.applied) for action in export.actions])
