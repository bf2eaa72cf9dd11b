"""Answers to the report requests of a message: STATUS, BOARD, OPTIONS, HISTORY [n], HELP [topic].

A message may ask for reports among its orders (``pbem.games.imperial2030.orders.Query``); the
moderator answers them after the orders, against the state the orders left.
``answer`` needs only what the moderator holds anyway: the state, the player,
the query, the game's log (for HISTORY), the game's name and its settings::

    text = answer(state, player, query, log=store.load_log(session, game), game=name,
                  open_cash=settings.open_cash)

Each answer is a section of plain mail text (pure ASCII, no line wider than
78 columns, ending in one newline) that starts with its own heading, so that
a reply can hold several one after the other. The words are in
``templates/imperial2030/`` (status.j2, options.j2, history.j2 and
_queries.j2), marked for translation; this module gathers the facts they
word (numbers, names, which case applies) into the views below.

- STATUS: whose turn it is, whom the game waits for, the player's own cash,
  bonds and governments (everyone's cash only with ``open_cash``).
- BOARD: the ASCII world board (``pbem.render.render_board``).
- OPTIONS: the player's open decisions with every legal option written as an
  order to copy, with its cost (the option lists of the prompt,
  ``pbem.render.prompt_view``). Each option is a line of its own, indented by
  exactly four spaces, the order text first (``OPTION_LINE`` reads them back).
- HISTORY [n]: the last n accepted actions (10 by default), each as
  ``vNN player: ORDER`` with what it did in sentences (``history_entries``).
  The log is replayed for it; another player's standing orders stay secret.
- HELP [topic]: ``pbem.games.imperial2030.help.help_text``.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Protocol

from engine.core.log import LogEntry
from engine.imperial2030.actions import (
    Action,
    ArmyMove,
    ClearStanding,
    FleetMove,
    Import,
    Produce,
    SetStanding,
)
from engine.imperial2030.board import Board
from engine.imperial2030.errors import EngineError
from engine.imperial2030.events import Event, NationSkipped, TurnStarted, UnitsPlaced
from engine.imperial2030.game import apply as engine_apply
from engine.imperial2030.model import GameSetup, GameState
from engine.imperial2030.scoring import final_scores
from engine.imperial2030.setup import new_game
from pbem.games.imperial2030.help import help_text
from pbem.games.imperial2030.mails import render_board
from pbem.games.imperial2030.narrate import narrate
from pbem.games.imperial2030.orders import QueryKind, format_action, held
from pbem.games.imperial2030.orders.format import localize_order
from pbem.games.imperial2030.orders.lexicon import shown
from pbem.games.imperial2030.prompts import PromptView, prompt_view
from pbem.games.imperial2030.viewmodels import (
    Waiting,
    nation_rows,
    player_rows,
    turn_line,
    waiting_list,
)
from pbem.render.env import environment, render

__all__ = ["DEFAULT_HISTORY", "MAX_HISTORY", "OPTION_LINE", "QUERIES_TEMPLATE", "Governed", "HistoryEntry",
           "HistoryView", "OptionsView", "Quiet", "QueryLike", "StatusView", "Where", "answer", "history_entries",
           "history_text", "option_orders", "options_text", "options_view", "status_text", "status_view"]

DEFAULT_HISTORY = 10  # HISTORY without a number
MAX_HISTORY = 200  # longer histories are cut: a mail of thousands of lines helps nobody
QUERIES_TEMPLATE = "imperial2030/_queries.j2"  # the sentences the answers share
OPTION_LINE = re.compile(r"^ {4}(?P<order>\S.*?)(?: {2,}.*)?$")  # an option of OPTIONS: the order before the details


class QueryLike(Protocol):
    """``pbem.games.imperial2030.orders.Query`` or the moderator's record of one: a kind and its topic or count."""

    @property
    def kind(self) -> str: ...

    @property
    def topic(self) -> str | None: ...

    @property
    def count(self) -> int | None: ...


def answer(
    state: GameState,
    player: str,
    query: QueryLike,
    *,
    log: Sequence[LogEntry[Action]] | None = None,
    game: str = "",
    open_cash: bool = False,
    deadline: datetime | str | None = None,
) -> str:
    """The answer to one report request of ``player``, against ``state`` (the state after the orders).

    ``log`` is the game's whole action log (``pbem.store.load_log``), needed
    for HISTORY only; without it HISTORY says it cannot answer. ``open_cash``
    is the game's option that shows everyone's cash; ``deadline``, when
    deadlines exist, is shown with OPTIONS. Raises ``ValueError`` only for a
    ``player`` who is not in the game (a caller's mistake, not a player's).
    """
    kind = QueryKind(query.kind)
    if kind is QueryKind.HELP:
        return help_text(query.topic, state.board)
    _check_player(state, player)
    if kind is QueryKind.STATUS:
        return status_text(state, player, game=game, open_cash=open_cash)
    if kind is QueryKind.BOARD:
        return render_board(state, game=game)
    if kind is QueryKind.OPTIONS:
        return options_text(state, player, game=game, deadline=deadline)
    return history_text(state, player, log, query.count, game=game)


def _check_player(state: GameState, player: str) -> None:
    if player not in state.players:
        raise ValueError(f"{player!r} is not a player of this game; players: {', '.join(state.seating)}")


@dataclass(frozen=True)
class Where:
    """Which game and how far it is, the line under each answer's heading (``_queries.j2``'s ``where``)."""

    game: str  # "" when the answer is not for a named game
    round: int
    move: int  # the moves applied: "after move N"


def _where(state: GameState, game: str) -> Where:
    return Where(game, state.round, state.version)


# --- STATUS -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Governed:
    """A nation the reader governs, as STATUS tells it."""

    name: str
    treasury: int
    power: int
    multiplier: int
    rondel: str | None  # the space its marker is on; None before its first turn
    factories: int
    armies: int
    fleets: int
    flags: int


@dataclass(frozen=True)
class StatusView:
    """What ``status.j2`` words: the reader's money and nations, whom the game waits for."""

    player: str
    where: Where
    turn: str  # the turn line of the report (``viewmodels.turn_line``)
    finished: bool
    scores: tuple[tuple[str, int], ...]  # (player, score) once the game is over
    waits: tuple[Waiting, ...]
    cash: int
    bonds: str | None  # the reader's bonds in words (``PlayerRow.bonds_text``); None without bonds
    interest: int
    roles: str  # what else the reader holds ("investor card"), or ""
    governed: tuple[Governed, ...]
    power: tuple[tuple[str, int], ...]  # every nation's power points, the strongest first
    cash_of: tuple[tuple[str, int], ...]  # everyone's cash in seating order, with ``open_cash`` only
    keywords: dict[str, str] = field(default_factory=dict)  # STATUS and OPTIONS in the seat's words


def status_view(state: GameState, player: str, *, game: str = "", open_cash: bool = False) -> StatusView:
    board = state.board
    me = {r.name: r for r in player_rows(state, player, open_cash)}[player]
    governed = tuple(Governed(row.name, row.treasury, row.power, row.multiplier,
                              row.rondel if row.rondel != "-" else None, row.factories, row.armies, row.fleets,
                              row.flags)
                     for row in nation_rows(state) if state.nations[row.id].government == player)
    power = sorted(board.nation_ids, key=lambda n: (-state.nations[n].power, board.nation_ids.index(n)))
    return StatusView(
        player, _where(state, game), turn_line(state), state.finished,
        tuple(final_scores(state)) if state.finished else (), () if state.finished else waiting_list(state, player),
        state.players[player].cash, me.bonds_text if me.bonds else None, me.interest, me.roles, governed,
        tuple((shown(board, n), state.nations[n].power) for n in power),
        tuple((name, state.players[name].cash) for name in state.seating) if open_cash else (),
        {w: localize_order(board, w) for w in ("STATUS", "OPTIONS")})


def status_text(state: GameState, player: str, *, game: str = "", open_cash: bool = False) -> str:
    """A short status: whose turn, whom the game waits for, the player's money, bonds and nations."""
    _check_player(state, player)
    return render("imperial2030/status.j2", status=status_view(state, player, game=game, open_cash=open_cash))


# --- OPTIONS ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OptionsView:
    """What ``options.j2`` words: the reader's open decisions (the prompt's), or whom the game waits for."""

    player: str
    where: Where
    turn: str
    finished: bool
    prompt: PromptView | None  # the decisions with their options; None when the reader decides nothing now
    held: bool  # the reader's maneuver waits for another player's answer
    waits: tuple[Waiting, ...]
    governs: tuple[str, ...]  # the nations the reader may DONATE to (none without cash)
    cash: int
    keywords: dict[str, str] = field(default_factory=dict)  # the order words the text quotes, in the seat's


OPTIONS_KEYWORDS = ("DONATE", "TO", "STANDING", "HELP")  # the order words options.j2 quotes


def options_view(state: GameState, player: str, *, game: str = "",
                 deadline: datetime | str | None = None) -> OptionsView:
    board = state.board
    cash = state.players[player].cash
    view = None if state.finished else prompt_view(state, player, game=game, deadline=deadline)
    waiting = view is None and not state.finished
    return OptionsView(player, _where(state, game), turn_line(state), state.finished, view,
                       waiting and bool(held(state, player)), waiting_list(state, player) if waiting else (),
                       tuple(shown(board, n) for n in state.governed_by(player)) if cash > 0 else (), cash,
                       {w: localize_order(board, w) for w in OPTIONS_KEYWORDS})


def options_text(state: GameState, player: str, *, game: str = "", deadline: datetime | str | None = None) -> str:
    """The player's open decisions, every legal option as an order to copy with its cost.

    Each option is one line ``    ORDER   details`` (details may wrap under
    themselves, an order too long for its column puts them on the next
    lines); ``option_orders`` reads the orders back from the text.
    """
    _check_player(state, player)
    return render("imperial2030/options.j2", options=options_view(state, player, game=game, deadline=deadline))


def option_orders(text: str) -> tuple[str, ...]:
    """The orders an OPTIONS answer lists, in order (the lines ``OPTION_LINE`` matches)."""
    found = []
    for line in text.splitlines():
        m = OPTION_LINE.match(line)
        if m:
            found.append(m["order"])
    return tuple(found)


# --- HISTORY ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HistoryEntry:
    """One accepted action as HISTORY tells it.

    ``version`` is the state version the action was made against, i.e. its
    place in the log: the first action of a game is move 1, and the state
    after it is "after move 1", as reports say.
    """

    version: int
    player: str
    order: str  # canonical order text (``format_action``)
    sentences: tuple[str, ...]  # what it did (``narrate``, as ``viewer`` may see it)

    @property
    def move(self) -> int:
        return self.version + 1


class Quiet(StrEnum):
    """What HISTORY says of an action whose own events are silent (``_queries.j2``'s ``quiet``)."""

    IMPORTED_NOTHING = "imported_nothing"
    PRODUCED_NOTHING = "produced_nothing"
    FLEET_WAITS = "fleet_waits"  # a move held by a question to another player
    ARMY_WAITS = "army_waits"
    UNCHANGED = "unchanged"  # the order changed nothing but whose turn it is
    NOTHING = "nothing"  # no event at all


def _say(macro: str, *args: object) -> str:
    """One sentence of ``_queries.j2``, for the narration HISTORY lists with ``narrate``'s own sentences."""
    return str(getattr(environment().get_template(QUERIES_TEMPLATE).module, macro)(*args))


def _visible(entry: LogEntry[Action], viewer: str | None) -> bool:
    """Standing orders are a player's secret: another player's are left out of their history."""
    return viewer is None or entry.player == viewer or not isinstance(entry.action, SetStanding | ClearStanding)


def history_entries(board: Board, setup: GameSetup, log: Sequence[LogEntry[Action]], n: int = DEFAULT_HISTORY, *,
                    viewer: str | None = None) -> list[HistoryEntry]:
    """The last ``n`` actions of ``log`` that ``viewer`` may see, oldest first, each with its narration.

    The log is replayed from the setup; raises ``EngineError`` when it does
    not replay (a corrupt store, not a player's doing).
    """
    shown = [i for i, entry in enumerate(log) if _visible(entry, viewer)][-n:] if n > 0 else []
    wanted = set(shown)
    state, _ = new_game(board, setup)
    found: list[HistoryEntry] = []
    for index, entry in enumerate(log):
        if not wanted:
            break
        if entry.version != state.version:
            raise EngineError(f"log entry {index} was made against version {entry.version}, "
                              f"the replayed state is at {state.version}")
        before = state
        state, events = engine_apply(state, entry.player, entry.action)
        if index in wanted:
            wanted.discard(index)
            sentences = narrate(board, events, viewer=viewer)
            quiet = _quiet(board, before, entry.action, events)
            if quiet is not None:
                sentences.insert(0, quiet)
            if not sentences:
                sentences = [_say("quiet", Quiet.NOTHING, "", "", "", "")]
            found.append(HistoryEntry(entry.version, entry.player, format_action(board, entry.action),
                                      tuple(sentences)))
    return found


def _quiet(board: Board, before: GameState, action: Action, events: Sequence[Event]) -> str | None:
    """A sentence for an action whose own events are silent (importing nothing, a move held by a question)."""
    nation = before.turn.nation if before.turn is not None else None
    who = shown(board, nation) if nation else ""
    if isinstance(action, Import | Produce) and not any(isinstance(e, UnitsPlaced) for e in events):
        return _say("quiet", Quiet.IMPORTED_NOTHING if isinstance(action, Import) else Quiet.PRODUCED_NOTHING, who,
                    "", "", "")
    if isinstance(action, FleetMove | ArmyMove) and not events:
        return _say("quiet", Quiet.FLEET_WAITS if isinstance(action, FleetMove) else Quiet.ARMY_WAITS, who,
                    shown(board, action.origin), shown(board, action.dest), "")
    if all(isinstance(e, TurnStarted | NationSkipped) for e in events):
        return _say("quiet", Quiet.UNCHANGED, who, "", "", format_action(board, action))
    return None


@dataclass(frozen=True)
class HistoryView:
    """What ``history.j2`` words: the last moves, or why they cannot be told."""

    where: Where
    entries: tuple[HistoryEntry, ...]
    available: bool  # False: no log at hand
    broken: str  # why the log does not replay, or ""
    most: int | None  # the most moves HISTORY shows, when more were asked for


def history_text(state: GameState, player: str, log: Sequence[LogEntry[Action]] | None, count: int | None = None, *,
                 game: str = "") -> str:
    """The answer to ``HISTORY [count]``: the last actions, each with what it did."""
    _check_player(state, player)
    wanted = count if count and count > 0 else DEFAULT_HISTORY
    most = MAX_HISTORY if wanted > MAX_HISTORY else None
    entries: tuple[HistoryEntry, ...] = ()
    broken = ""
    if log is not None:
        try:
            entries = tuple(history_entries(state.board, state.setup, log, min(wanted, MAX_HISTORY), viewer=player))
        except EngineError as exc:
            broken = str(exc)
    return render("imperial2030/history.j2",
                  history=HistoryView(_where(state, game), entries, log is not None, broken, most))
