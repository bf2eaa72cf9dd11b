"""Answers to the report requests of a message: STATUS, BOARD, OPTIONS, HISTORY [n], HELP [topic].

A message may ask for reports among its orders (``pbem.games.imperial2030.orders.Query``); the
moderator answers them after the orders, against the state the orders left.
``answer`` needs only what the moderator holds anyway: the state, the player,
the query, the game's log (for HISTORY), the game's name and its settings::

    text = answer(state, player, query, log=store.load_log(session, game), game=name,
                  open_cash=settings.open_cash)

Each answer is a section of plain mail text (pure ASCII, no line wider than
78 columns, ending in one newline) that starts with its own heading, so that
a reply can hold several one after the other.

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
from dataclasses import dataclass
from datetime import datetime
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
from pbem.games.imperial2030.prompts import prompt_view
from pbem.games.imperial2030.viewmodels import (
    nation_rows,
    player_rows,
    turn_line,
    waiting_list,
)
from pbem.render.text import MAX_WIDTH, bullet, finish, join_words, pair, plural, wrap

__all__ = ["DEFAULT_HISTORY", "MAX_HISTORY", "OPTION_LINE", "HistoryEntry", "QueryLike", "answer",
           "history_entries", "history_text", "option_orders", "options_text", "status_text"]

DEFAULT_HISTORY = 10  # HISTORY without a number
MAX_HISTORY = 200  # longer histories are cut: a mail of thousands of lines helps nobody
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


def _heading(text: str) -> list[str]:
    return [text, "-" * min(len(text), MAX_WIDTH)]


def _where(state: GameState, game: str) -> str:
    where = f"round {state.round}, after move {state.version}."
    return f'Game "{game}", {where}' if game else where[0].upper() + where[1:]


def _lines(text: str) -> list[str]:
    return text.splitlines()


# --- STATUS -------------------------------------------------------------------------------------


def status_text(state: GameState, player: str, *, game: str = "", open_cash: bool = False) -> str:
    """A short status: whose turn, whom the game waits for, the player's money, bonds and nations."""
    _check_player(state, player)
    board = state.board
    lines = _heading("STATUS")
    lines.append(_where(state, game))
    lines += _lines(wrap(turn_line(state)))
    if state.finished:
        scores = ", ".join(f"{p} {s}" for p, s in final_scores(state))
        lines += _lines(wrap(f"Final scores: {scores}."))
    else:
        waits = waiting_list(state, player)
        lines.append("The game waits for:")
        for w in waits:
            mine = " (that is you: OPTIONS lists every choice)" if w.you else ""
            lines += _lines(bullet(f"{w.player}: {w.what}{mine}"))
    rows = {r.name: r for r in player_rows(state, player, open_cash)}
    me = rows[player]
    roles = f"; you hold the {me.roles}" if me.roles else ""
    bonds = f"{me.bonds_text} (interest {me.interest})" if me.bonds else "none"
    lines += _lines(wrap(f"You ({player}): cash {state.players[player].cash}; bonds {bonds}{roles}."))
    for row in nation_rows(state):
        if state.nations[row.id].government != player:
            continue
        units = join_words([plural(row.factories, "factory", "factories"), plural(row.armies, "army", "armies"),
                            plural(row.fleets, "fleet"), plural(row.flags, "flag")])
        rondel = f"rondel on {row.rondel}" if row.rondel != "-" else "not on the rondel yet"
        lines += _lines(wrap(f"You govern {row.name}: treasury {row.treasury}, {row.power} power points "
                             f"(score multiplier x{row.multiplier}), {rondel}, {units}.", indent=2, first=0))
    if not state.governed_by(player):
        lines.append("You govern no nation.")
    power = sorted(board.nation_ids, key=lambda n: (-state.nations[n].power, board.nation_ids.index(n)))
    lines += _lines(wrap("Power points: " + ", ".join(f"{board.name(n)} {state.nations[n].power}" for n in power)
                         + "."))
    if open_cash:
        lines += _lines(wrap("Cash: " + ", ".join(f"{name} {state.players[name].cash}" for name in state.seating)
                             + "."))
    return finish("\n".join(lines))


# --- OPTIONS ------------------------------------------------------------------------------------


def options_text(state: GameState, player: str, *, game: str = "", deadline: datetime | str | None = None) -> str:
    """The player's open decisions, every legal option as an order to copy with its cost.

    Each option is one line ``    ORDER   details`` (details may wrap under
    themselves, an order too long for its column puts them on the next
    lines); ``option_orders`` reads the orders back from the text.
    """
    _check_player(state, player)
    lines = _heading(f"OPTIONS: WHAT {player.upper()} MAY DECIDE NOW")
    lines.append(_where(state, game))
    view = prompt_view(state, player, game=game, deadline=deadline)
    if state.finished:
        lines += _lines(wrap(turn_line(state) + " Nothing is left to decide."))
        return finish("\n".join(lines))
    if view is None:
        if held(state, player):
            lines += _lines(wrap("Your maneuver waits for another player's answer; it goes on (with the rest of "
                                 "your message, if any) once that is given. The game waits for:"))
        else:
            lines.append("You have nothing to decide now. The game waits for:")
        for w in waiting_list(state, player):
            lines += _lines(bullet(f"{w.player}: {w.what}"))
    else:
        if view.deadline:
            lines += _lines(wrap(f"Please answer by {view.deadline}."))
        for number, d in enumerate(view.decisions):
            lines += ["", d.title.upper()]
            for about in d.about:
                lines += _lines(wrap(about))
            if number == 0 and view.money:
                lines += _lines(wrap(view.money))
            lines.append("")
            for group in d.groups:
                if group.title:
                    lines.append(f"  {group.title}:")
                for option in group.options:
                    lines += _lines(pair(option.order, option.detail, 4, d.column))
            if d.combine:
                lines += _lines(wrap(d.combine, indent=2))
    lines += ["", *_anytime(state, player)]
    return finish("\n".join(lines))


def _anytime(state: GameState, player: str) -> list[str]:
    board = state.board
    governed = state.governed_by(player)
    cash = state.players[player].cash
    parts = []
    if governed and cash > 0:
        nations = " | ".join(board.name(n) for n in governed)
        amount = "1" if cash == 1 else f"<1 to {cash}>"
        parts.append(f"DONATE {amount} TO {nations} gives your cash to a treasury you govern")
    parts.append("STANDING sets an answer the game gives for you (HELP STANDING)")
    return _lines(wrap("At any time: " + "; ".join(parts) + "."))


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
    def line(self) -> str:
        return f"move {self.version + 1}, {self.player}: {self.order}"


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
                sentences = ["Nothing changed."]
            found.append(HistoryEntry(entry.version, entry.player, format_action(board, entry.action),
                                      tuple(sentences)))
    return found


def _quiet(board: Board, before: GameState, action: Action, events: Sequence[Event]) -> str | None:
    """A sentence for an action whose own events are silent (importing nothing, a move held by a question)."""
    nation = before.turn.nation if before.turn is not None else None
    who = board.name(nation) if nation else "The nation"
    if isinstance(action, Import | Produce) and not any(isinstance(e, UnitsPlaced) for e in events):
        return f"{who} {'imported' if isinstance(action, Import) else 'produced'} nothing."
    if isinstance(action, FleetMove | ArmyMove) and not events:
        unit = "fleet" if isinstance(action, FleetMove) else "army"
        return (f"{who}'s {unit} set out from {board.name(action.origin)} to {board.name(action.dest)}, "
                "waiting for an answer.")
    if all(isinstance(e, TurnStarted | NationSkipped) for e in events):
        return f"{format_action(board, action)}: nothing changed."
    return None


def history_text(state: GameState, player: str, log: Sequence[LogEntry[Action]] | None, count: int | None = None, *,
                 game: str = "") -> str:
    """The answer to ``HISTORY [count]``: the last actions, each with what it did."""
    _check_player(state, player)
    wanted = count if count and count > 0 else DEFAULT_HISTORY
    cut = wanted > MAX_HISTORY
    wanted = min(wanted, MAX_HISTORY)
    if log is None:
        lines = _heading("HISTORY")
        lines += _lines(wrap("The history of the game is not available here."))
        return finish("\n".join(lines))
    try:
        entries = history_entries(state.board, state.setup, log, wanted, viewer=player)
    except EngineError as exc:
        lines = _heading("HISTORY")
        lines += _lines(wrap(f"The history cannot be told: the game's log does not replay ({exc}). Please tell "
                             "the game master."))
        return finish("\n".join(lines))
    title = f"HISTORY: THE LAST {len(entries)} MOVES" if len(entries) != 1 else "HISTORY: THE LAST MOVE"
    lines = _heading(title)
    lines.append(_where(state, game))
    if not entries:
        lines.append("Nothing has been played yet.")
    if cut:
        lines += _lines(wrap(f"(HISTORY shows at most {MAX_HISTORY} moves.)"))
    for entry in entries:
        lines += ["", *_lines(wrap(entry.line, indent=6, first=0))]
        for sentence in entry.sentences:
            lines += _lines(bullet(sentence, indent=4))
    return finish("\n".join(lines))
