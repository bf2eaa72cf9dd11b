"""Imperial 2030 as the moderator sees it: the ``GameKind`` that joins its engine, order language and views."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.core.decisions import Pending
from engine.core.log import LogEntry
from engine.imperial2030.actions import ANYTIME, Action
from engine.imperial2030.board import Board
from engine.imperial2030.board_validation import normalise_name
from engine.imperial2030.decisions import Decision, DecisionKind
from engine.imperial2030.events import Event, FlagCardDealt
from engine.imperial2030.mapfile import default_board
from engine.imperial2030.model import GameSetup, GameState, Variant
from engine.imperial2030.rules import ImperialRules
from engine.imperial2030.scoring import final_scores
from pbem.errors import BadSetup
from pbem.games.basekind import BaseKind
from pbem.games.imperial2030 import mails, queries
from pbem.games.imperial2030.bot.player import ImperialBot
from pbem.games.imperial2030.console import new_game_lines, pending_lines, summary_lines
from pbem.games.imperial2030.narrate import narrate
from pbem.games.imperial2030.orders import (
    format_action,
    held,
    legal_orders,
    split_orders,
)
from pbem.games.imperial2030.orders.errors import OrderSyntaxError
from pbem.games.imperial2030.orders.keywords import Role, read_keyword
from pbem.games.imperial2030.orders.lexicon import shown
from pbem.games.imperial2030.picture import picture
from pbem.games.imperial2030.runmessage import run_message
from pbem.games.imperial2030.sayings import say
from pbem.games.imperial2030.statejson import state_json
from pbem.games.imperial2030.viewmodels import VIEW_WORDS, decision_words, turn_line
from pbem.games.kind import GameKind, KindInfo, NewGame, Race, SetupChoices, resolve_player
from pbem.games.results import AppliedLine, MessageLine, MessageOutcome, Query, Refusal, StoredLines
from pbem.render.scene import Scene

OPTIONS = ("deal", "start_player")


class ImperialNewGame(NewGame[GameState, Event]):
    """A new Imperial game, which also tells whose flag cards were dealt to whom."""

    @property
    def flag_cards(self) -> dict[str, tuple[str, ...]]:
        """Player -> nations whose flag card they hold (empty in the expert variant)."""
        cards: dict[str, list[str]] = {p: [] for p in self.state.seating}
        for event in self.events:
            if isinstance(event, FlagCardDealt):
                cards[event.player].append(event.nation)
        return {p: tuple(n) for p, n in cards.items()}


@dataclass(frozen=True)
class _Refused:
    """A refusal with the lines that stood before it, as ``viewmodels.error_view`` reads a message's result."""

    refusal: Refusal
    applied: tuple[AppliedLine, ...]


class Imperial2030(BaseKind[GameState, Action, Event]):
    """The ``GameKind`` of Imperial 2030: 2 to 6 players, the variants of ``engine.imperial2030.model.Variant``."""

    def __init__(self, board: Board | None = None) -> None:
        self.board = board or default_board()
        # no hours of its own: Imperial's are the configuration's defaults ([deadlines], docs/configuration.md)
        self.info = KindInfo("imperial2030", "Imperial 2030", 2, len(self.board.nation_ids),
                             variants=tuple(v.value for v in Variant), options=OPTIONS,
                             decisions=tuple(kind.value for kind in DecisionKind), holding_verb="governs",
                             brief=(DecisionKind.BATTLE.value, DecisionKind.CANAL.value))
        self.rules = ImperialRules(self.board)
        self.bot = ImperialBot()

    # --- setup and orders ----------------------------------------------------------------

    def make_setup(self, choices: SetupChoices) -> GameSetup:
        names = tuple(s.name for s in choices.players)
        self.info.refuse_unknown(choices)
        try:
            chosen = frozenset(Variant(v) for v in choices.variants)
        except ValueError as exc:
            raise BadSetup(f"unknown variant: {exc}; variants: {', '.join(self.info.variants)}") from None
        fixed = self._deal(choices.options.get("deal") or (), names)
        if fixed and Variant.EXPERT in chosen:
            raise BadSetup("the expert variant deals no flag cards: --deal does not apply")
        start = None
        start_player = choices.options.get("start_player")
        if start_player is not None:
            if Variant.EXPERT not in chosen:
                raise BadSetup("--start-player only applies to the expert variant")
            start = resolve_player(start_player, names, "start player", BadSetup)
        return GameSetup(choices.players, choices.seed, chosen, fixed, start)

    def _deal(self, deal: Iterable[tuple[str, str]], names: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
        fixed: list[tuple[str, str]] = []
        for nation_text, player_text in deal:
            nation = self.resolve_nation(nation_text)
            player = resolve_player(player_text, names, "deal", BadSetup)
            if any(n == nation for n, _ in fixed):
                raise BadSetup(f"deal: {self.board.name(nation)} is dealt twice")
            fixed.append((nation, player))
        return tuple(fixed)

    def resolve_nation(self, text: str) -> str:
        key = normalise_name(text)
        for info in self.board.nations:
            if key in {normalise_name(s) for s in (info.id, info.name, *info.aliases)}:
                return info.id
        known = ", ".join(info.id for info in self.board.nations)
        raise BadSetup(f"deal: unknown nation {text!r}; nations: {known}")

    def created(self, name: str, state: GameState, events: Sequence[Event]) -> ImperialNewGame:
        return ImperialNewGame(name, state, tuple(events), tuple(narrate(self.board, events)), self.pending(state))

    def run_message(self, state: GameState, player: str, text: str, waiting: StoredLines) -> MessageOutcome:
        return run_message(self.board, state, player, text, waiting)

    def still_waiting(self, state: GameState, player: str) -> bool:
        return held(state, player)

    def is_side_action(self, action: Action) -> bool:
        return isinstance(action, ANYTIME)

    def queries_only(self, text: str) -> bool:
        lines = split_orders(text).orders
        if not lines:
            return False
        try:
            return all(read_keyword(line.text).spec.role is Role.QUERY for line in lines)
        except OrderSyntaxError:
            return False

    def order_lines(self, text: str) -> tuple[MessageLine, ...]:
        return tuple(split_orders(text).orders)

    def format_action(self, state: GameState, action: Action) -> str:
        return format_action(self.board, action)

    def default_order(self, state: GameState, decision: Pending) -> str | None:
        default = _own(decision).default
        return None if default is None else format_action(self.board, default)

    # --- words and views -----------------------------------------------------------------

    def narrate(self, state: GameState, events: Iterable[Event], viewer: str | None = None) -> list[str]:
        return narrate(self.board, events, viewer=viewer)

    def decision_words(self, state: GameState, decision: Pending) -> str:
        return decision_words(state, _own(decision))

    def subject_name(self, subject: str | None) -> str | None:
        return self.board.name(subject) if subject else None

    def status_words(self, state: GameState) -> str:
        nation = shown(state.board, state.turn.nation) if state.turn is not None else None
        return say(VIEW_WORDS, "game_state", finished=state.finished, round=state.round, nation=nation)

    def turn_line(self, state: GameState) -> str:
        return turn_line(state)

    def holdings(self, state: GameState, player: str) -> tuple[str, ...]:
        return tuple(shown(self.board, n) for n in state.governed_by(player))  # in the language being written

    def holding_words(self, state: GameState, player: str) -> str:
        names = self.holdings(state, player)
        return say(VIEW_WORDS, "holding", nations=names) if names else ""

    def report(self, state: GameState, player: str, events: Iterable[Event], *, game: str, open_cash: bool = False,
               board: bool = True, with_prompt: bool = False) -> str:
        # The prompt shows nothing of the report (its costs and options are its own): nothing to leave out.
        return mails.render_report(state, player, list(events), game=game, open_cash=open_cash, board=board)

    def prompt(self, state: GameState, player: str, *, game: str, deadline: datetime | str | None = None) -> str | None:
        return mails.render_prompt(state, player, game=game, deadline=deadline)

    def welcome(self, state: GameState, player: str, *, game: str, reply_to: str | None = None,
                open_cash: bool = False, mail_note: str = "") -> str:
        return mails.render_welcome(state, player, game=game, reply_to=reply_to, open_cash=open_cash,
                                      mail_note=mail_note)

    def error(self, state: GameState, player: str, refusal: Refusal, applied: Sequence[AppliedLine] = (), *,
              game: str) -> str:
        told: Any = _Refused(refusal, tuple(applied)) if applied else refusal
        return mails.render_error(state, player, told, game=game)

    def game_end(self, state: GameState, player: str | None, events: Iterable[Event], *, game: str) -> str:
        return mails.render_game_end(state, player, list(events), game=game)

    def board_text(self, state: GameState, *, game: str) -> str:
        return mails.render_board(state, game=game)

    def board_key(self, state: GameState) -> str:
        return mails.board_key(state)

    def picture(self, state: GameState, *, game: str) -> Scene:
        return picture(state, game=game)

    def answer_query(self, state: GameState, player: str, query: Query, *, log: Sequence[LogEntry[Any]] | None,
                     game: str,
                     open_cash: bool = False, deadline: datetime | str | None = None) -> str:
        return queries.answer(state, player, query, log=log, game=game, open_cash=open_cash, deadline=deadline)

    def state_json(self, name: str, state: GameState, viewer: str | None = None) -> dict[str, Any]:
        return state_json(name, state, self.info.name)  # no hidden information: every player sees the same

    def race(self, state: GameState) -> Race:
        board = self.board
        leader = max(board.nation_ids, key=lambda n: (state.nations[n].power, -board.nation_ids.index(n)))
        return Race(state.round, board.name(leader), state.nations[leader].power, board.tables.power_max, "power")

    def final_scores(self, state: GameState) -> tuple[tuple[str, int], ...]:
        return tuple(final_scores(state)) if state.finished else ()

    def end_lines(self, state: GameState) -> list[str]:
        board = self.board
        winner = max(board.nation_ids, key=lambda n: state.nations[n].power)
        return [say(VIEW_WORDS, "reached", nation=shown(board, winner), power=state.nations[winner].power)]

    def summary_lines(self, name: str, state: GameState) -> list[str]:
        return summary_lines(name, state)

    def pending_lines(self, state: GameState, *, options: bool = True) -> list[str]:
        return pending_lines(state, options=options)

    def legal_orders(self, state: GameState, player: str) -> list[str]:
        return list(legal_orders(state, player))

    def new_game_lines(self, created: NewGame) -> list[str]:
        return new_game_lines(created)


def _own(decision: Pending) -> Decision:
    """Imperial's own decision behind a moderator's summary (``ImperialRules.pending`` puts it there)."""
    own = decision.detail
    if not isinstance(own, Decision):
        raise TypeError(f"not a decision of Imperial 2030: {decision!r}")
    return own


def _keeps_the_interface(kind: Imperial2030) -> GameKind[GameState, Action, Event]:
    """Never called: mypy proves here that Imperial 2030 offers everything ``GameKind`` asks."""
    return kind
