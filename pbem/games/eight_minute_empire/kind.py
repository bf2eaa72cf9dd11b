"""Eight-Minute Empire as the moderator sees it: the ``GameKind`` joining its engine, orders and views.

The bid is sealed (R8-BID-1): a bid tells only its bidder (``tells``), and the
move number players are shown stays at the one the bid began at until every
bid is in (``shown_move``), so nothing tells whether another has bid.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.core.decisions import Pending
from engine.core.errors import IllegalAction
from engine.core.log import LogEntry
from engine.eight_minute_empire.actions import Action, Bid, Done, Take
from engine.eight_minute_empire.board import Board, default_board
from engine.eight_minute_empire.events import BidGiven, Event
from engine.eight_minute_empire.game import DecisionKind
from engine.eight_minute_empire.model import Phase, Setup, State, Variant
from engine.eight_minute_empire.rules import EightMinuteRules
from engine.eight_minute_empire.scoring import final_scores
from pbem.errors import BadSetup
from pbem.games import messagetext
from pbem.games.basekind import BaseKind
from pbem.games.eight_minute_empire import names, orderitems, picture, prompts, views, welcome
from pbem.games.eight_minute_empire.bot import EightMinuteBot
from pbem.games.eight_minute_empire.cardtext import order_text
from pbem.games.eight_minute_empire.enginewords import engine_reason
from pbem.games.eight_minute_empire.help import help_text
from pbem.games.eight_minute_empire.orders import (
    OrderError,
    QueryOrder,
    colour_of,
    is_query,
    looks_like_order,
    parse,
)
from pbem.games.eight_minute_empire.viewmodels import render_part, say, status_view
from pbem.games.kind import GameKind, KindInfo, NewGame, Race, SetupChoices, match_player, option_flag
from pbem.games.results import AppliedLine, MessageLine, MessageOutcome, Query, Refusal, StoredLines
from pbem.render.env import render
from pbem.render.scene import Scene

OPTIONS = ("age_order",)


@dataclass(frozen=True, slots=True)
class ErrorView:
    """A refusal as its sender reads it: the lines that stand, the refused line and why, what is legal now."""

    game: str
    player: str
    applied: tuple[tuple[int, str], ...]  # line number, line
    line_number: int | None
    line: str | None
    reason: str  # the parser's or the engine's reason, already a sentence (see the report)
    legal: tuple[str, ...]  # orders, ready to copy
    not_applied: tuple[tuple[int, str], ...]


@dataclass(frozen=True, slots=True)
class Waiting:
    """A decision not yet answered, for the game master: whose, of what kind, and the options (when shown)."""

    player: str
    kind: str
    options: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NewGameView:
    """What the game master is told of a game just created."""

    name: str
    seats: tuple[tuple[str, str], ...]  # player, colour
    seed: int
    ages: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class HistoryLine:
    """One line of HISTORY: a move's order, a bid round's revealed bids, or the bid still open (move None)."""

    move: int | None
    player: str | None = None
    order: str | None = None  # the order as written in the order language
    bids: tuple[tuple[str, int], ...] = ()
    own_bid: int | None = None  # --age-order (option_flag): the players youngest first (R8-SETUP-4)


class EightMinuteEmpire(BaseKind[State, Action, Event]):
    """The ``GameKind`` of Eight-Minute Empire (2 to 5 players, the four-continent map)."""

    def __init__(self, board: Board | None = None) -> None:
        self.board = board or default_board()
        self.rules = EightMinuteRules(self.board)
        self.bot = EightMinuteBot()
        decisions = tuple(kind.value for kind in DecisionKind)
        self.info = KindInfo(
            "eight-minute-empire", "Eight-Minute Empire", 2, 5, variants=tuple(v.value for v in Variant),
            options=OPTIONS, decisions=decisions,
            # R8-BID-3, R8-TURN-4: two days for the bid, a card and its action (the game master may change them)
            deadline_hours=dict.fromkeys(decisions, 48.0))

    # --- setup and orders ----------------------------------------------------------------------------

    def make_setup(self, choices: SetupChoices) -> Setup:
        self.info.refuse_unknown(choices)
        strange = sorted(set(choices.variants) - set(self.info.variants))
        if strange:
            raise BadSetup(orderitems.refusal("no_variant", self.info.title, tuple(strange), self.info.variants))
        chosen = frozenset(Variant(v) for v in choices.variants)
        if Variant.NEUTRAL in chosen and len(choices.players) != 2:
            raise BadSetup(orderitems.refusal("neutral_for_two"))
        names = tuple(seat.name for seat in choices.players)
        ages = tuple(choices.options.get("age_order", ()))
        if ages:
            resolved = tuple(match_player(a, names) for a in ages)
            if None in resolved or sorted(r for r in resolved if r) != sorted(names):
                raise BadSetup(orderitems.refusal("age_order", option_flag("age_order"), names))
            ages = tuple(r for r in resolved if r)
        return Setup(choices.players, choices.seed, ages, chosen)

    def created(self, name: str, state: State, events: Sequence[Event]) -> NewGame:
        return NewGame(name, state, tuple(events), (), tuple(p.detail for p in self.rules.pending(state)))

    def run_message(self, state: State, player: str, text: str, waiting: StoredLines) -> MessageOutcome:
        split = messagetext.split_orders(text, looks_like_order)
        lines = split.orders
        applied: list[AppliedLine] = []
        entries: list[LogEntry[Any]] = []
        queries: list[Query] = []
        events: list[Event] = []
        refusal = None
        acted = False  # a card action order was given: the end of the message ends the action
        for index, line in enumerate(lines):
            try:
                order = parse(state, line.text)
                if isinstance(order, QueryOrder):
                    queries.append(Query(line.number, line.text, order.kind, order.topic, order.count))
                    continue
                new, done = self.rules.apply(state, player, order)
            except (OrderError, IllegalAction) as exc:
                # the engine's hints where it has them, but a bid's range with examples as OPTIONS gives it
                hinted = exc.legal and state.phase is not Phase.BID
                legal = exc.legal if hinted else tuple(self._option_lines(state, player))
                reason = engine_reason(exc) if isinstance(exc, IllegalAction) else exc.reason  # the seat's language
                refusal = Refusal(reason, line.number, line.text, legal,
                                  not_applied=tuple((x.number, x.text) for x in lines[index + 1:]))
                break
            acted = acted or not isinstance(order, Bid | Take | Done)
            entries.append(LogEntry(player, order, state.version))
            applied.append(AppliedLine(line.number, line.text, (order,), tuple(done),
                                       tuple(self.narrate(new, done, viewer=player))))
            events.extend(done)
            state = new
        if refusal is None and acted and state.phase is Phase.ACTION and state.current == player:
            state, done = self.rules.apply(state, player, Done())
            entries.append(LogEntry(player, Done(), state.version - 1))
            applied.append(AppliedLine(0, "DONE", (Done(),), tuple(done), tuple(self.narrate(state, done, player)),
                                       implicit=True))
            events.extend(done)
        if refusal is None and not applied and not queries:
            refusal = Refusal(orderitems.refusal("no_orders"), legal=tuple(self._option_lines(state, player)))
        return MessageOutcome(state, tuple(applied), tuple(entries), refusal, tuple(queries), {}, None, (),
                              tuple(p.detail for p in self.rules.pending(state)), tuple(events), split.ignored)

    def is_sealed_answer(self, action: Action) -> bool:
        return isinstance(action, Bid)  # R8-BID-1

    def queries_only(self, text: str) -> bool:
        lines = messagetext.split_orders(text, looks_like_order).orders
        return bool(lines) and all(is_query(line.text) for line in lines)

    def order_lines(self, text: str) -> tuple[MessageLine, ...]:
        return messagetext.split_orders(text, looks_like_order).orders

    def format_action(self, state: State, action: Action) -> str:
        return order_text(action)

    def default_order(self, state: State, decision: Pending) -> str | None:
        return self.format_action(state, decision.detail.default)  # R8-BID-3, R8-TURN-4

    # --- words and views ----------------------------------------------------------------------------

    def tells(self, state: State, events: Sequence[Event], player: str) -> bool:
        return any(not isinstance(e, BidGiven) or e.player == player for e in events)

    def narrate(self, state: State, events: Iterable[Event], viewer: str | None = None) -> list[str]:
        return views.narrate(self.board, state, events, viewer)

    def decision_words(self, state: State, decision: Pending) -> str:
        return say("_words", "decision", decision.kind)

    def shown_move(self, state: State) -> int:
        return state.bid_opened if state.phase is Phase.BID else state.version  # R8-BID-1: no bid counted

    def status_words(self, state: State) -> str:
        return say("_words", "game_state", state.finished, state.phase is Phase.BID, state.current)

    def turn_line(self, state: State) -> str:
        return views.status_line(state)

    def holdings(self, state: State, player: str) -> tuple[str, ...]:
        return (names.colour(colour_of(state, player)),)  # in the language being written

    def holding_words(self, state: State, player: str) -> str:
        return say("_words", "holding", colour_of(state, player))

    def report(self, state: State, player: str, events: Iterable[Event], *, game: str, open_cash: bool = False,
               board: bool = True, with_prompt: bool = False) -> str:
        return views.report(self.board, state, player, events, game, board, with_prompt=with_prompt)

    def prompt(self, state: State, player: str, *, game: str, deadline: datetime | str | None = None) -> str | None:
        due = deadline.strftime("%Y-%m-%d %H:%M UTC") if isinstance(deadline, datetime) else deadline
        return prompts.prompt(self.board, state, player, game, due)

    def welcome(self, state: State, player: str, *, game: str, reply_to: str | None = None,
                open_cash: bool = False, mail_note: str = "") -> str:
        return welcome.welcome(self.board, state, player, game, reply_to, mail_note)

    def error(self, state: State, player: str, refusal: Refusal, applied: Sequence[AppliedLine] = (), *,
              game: str) -> str:
        view = ErrorView(game, player, tuple((a.line_number, a.line) for a in applied), refusal.line_number,
                         refusal.line, refusal.reason, tuple(names.localized(line) for line in refusal.legal),
                         tuple(refusal.not_applied))
        return render("eight_minute_empire/error.j2", error=view)

    def game_end(self, state: State, player: str | None, events: Iterable[Event], *, game: str) -> str:
        return views.game_end(self.board, state, player, events, game)

    def board_text(self, state: State, *, game: str) -> str:
        return render("eight_minute_empire/board.j2", map_text=views.map_text(self.board, state))

    def board_key(self, state: State) -> str:
        return "\n".join(views.map_lines(self.board, state))

    def picture(self, state: State, *, game: str) -> Scene:
        return picture.picture(self.board, state, game=game)

    def answer_query(self, state: State, player: str, query: Query, *, log: Sequence[LogEntry[Any]] | None,
                     game: str, open_cash: bool = False, deadline: datetime | str | None = None) -> str:
        if query.kind == "help":
            return help_text(query.topic)
        if query.kind == "board":
            return self.board_text(state, game=game)
        if query.kind == "options":
            return render("eight_minute_empire/options.j2", options=tuple(self._option_lines(state, player)))
        if query.kind == "history":
            return render("eight_minute_empire/history.j2",
                          history=self._history(state, player, log or (), query.count or 10))
        return views.report(self.board, state, player, (), game, False)

    def _history(self, state: State, player: str, log: Sequence[LogEntry[Any]],
                 count: int) -> tuple[HistoryLine, ...]:
        """The last ``count`` moves as the reader may see them (R8-BID-1).

        A bid round is one line: while open, only the reader's own bid and no
        move number (log positions would count the others' hidden bids); once
        revealed, the final bids in seating order (a changed bid shows only as
        its last value). The window is counted in lines shown, never in log
        entries, so its length tells nothing either.
        """
        entries = list(log)
        open_bids: list[LogEntry[Any]] = []
        while state.phase is Phase.BID and entries and isinstance(entries[-1].action, Bid):
            open_bids.insert(0, entries.pop())
        lines: list[HistoryLine] = []
        start = 0
        while start < len(entries):
            end = start + 1
            if isinstance(entries[start].action, Bid):
                while end < len(entries) and isinstance(entries[end].action, Bid):
                    end += 1
                final = {entry.player: entry.action.coins for entry in entries[start:end]}
                shown = tuple((p, final[p]) for p in state.seating if p in final)
                lines.append(HistoryLine(entries[end - 1].version + 1, bids=shown))
            else:
                entry = entries[start]
                lines.append(HistoryLine(entry.version + 1, entry.player, names.localized(order_text(entry.action))))
            start = end
        if state.phase is Phase.BID:
            own = [entry.action.coins for entry in open_bids if entry.player == player]
            lines.append(HistoryLine(None, own_bid=own[-1] if own else None))
        return tuple(lines[-count:])

    def state_json(self, name: str, state: State, viewer: str | None = None) -> dict[str, Any]:
        """The state JSON of docs/state-json.md; bids only once revealed (``your_bid`` for the viewer's own)."""
        data = views.state_json(self.board, state, name, self.info.name)
        data["version"] = self.shown_move(state)  # the log position would count the sealed bids given
        data["pending"] = [{"player": p.player, "kind": p.kind, "options": self.legal_orders(state, p.player),
                            "default": self.default_order(state, p)} for p in self.rules.pending(state)]
        if viewer is not None and viewer in state.bids:
            data["your_bid"] = state.bids[viewer]
        return data

    def race(self, state: State) -> Race:
        """Progress is the cards taken; the leader is who has the most points if the game ended now."""
        if state.finished:
            best = state.scores[0]
        else:
            best = final_scores(state, self.board)[0][0]
        taken = max(len(hand) for hand in state.hands.values())
        goal = self.board.cards_at_end[len(state.seating)]
        return Race(taken, best.player, best.total, goal, "points", 1.0 if state.finished else taken / goal)

    def final_scores(self, state: State) -> tuple[tuple[str, int], ...]:
        return tuple((s.player, s.total) for s in state.scores)

    def end_lines(self, state: State) -> list[str]:
        return views.score_lines(self.board, state)

    def summary_lines(self, name: str, state: State) -> list[str]:
        return [say("_words", "summary_head", name, state.version, status_view(state, None)),
                *views.player_lines(self.board, state)]

    def pending_lines(self, state: State, *, options: bool = True) -> list[str]:
        return self._pending_text(state, options).split("\n")

    def _pending_text(self, state: State, options: bool) -> str:
        waiting = tuple(Waiting(d.player, d.kind, tuple(self._option_lines(state, d.player)) if options else ())
                        for d in self.rules.pending(state) if not d.answered)
        return render_part("pending", waiting=waiting, show_options=options)

    def legal_orders(self, state: State, player: str) -> list[str]:
        """Orders only, each a whole reply (the state JSON's options, the bots): the bid's are examples of its
        range, which :meth:`_option_lines` says to a reader."""
        if state.finished or (state.phase is not Phase.BID and player != state.current):
            return []
        return prompts.options(self.board, state, player)

    def _option_lines(self, state: State, player: str) -> list[str]:
        """What OPTIONS and refusals show: the bid's range before its examples (R8-BID-1)."""
        if not self.legal_orders(state, player):
            return []
        return prompts.option_lines(self.board, state, player)

    def new_game_lines(self, created: NewGame) -> list[str]:
        state = created.state
        view = NewGameView(created.name, tuple((p, colour_of(state, p)) for p in state.seating), state.setup.seed,
                           state.ages)
        return render_part("new_game", game=view, pending_text=self._pending_text(state, False)).split("\n")


def _keeps_the_interface(kind: EightMinuteEmpire) -> GameKind[State, Action, Event]:
    """Never called: mypy proves here that Eight-Minute Empire offers everything ``GameKind`` asks."""
    return kind
