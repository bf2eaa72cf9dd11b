"""``BaseKind``: what a game inherits so that it writes only what is its own.

``pbem.games.kind.GameKind`` is what the moderator core may ask of a game;
most of it has one sensible answer for most games (nothing is sealed, no
seat holds anything, the move shown is the log position), and the engine's
part is the game's ``Rules`` as it is. A kind that subclasses ``BaseKind``
states its ``info`` and ``rules`` and writes the members marked abstract
here and ``read_order`` (or its own ``run_message``): ``REQUIRED`` names them
all. Every other member has a default below, which a game overrides where its
rules differ (Eight-Minute Empire's sealed bid overrides ``tells``,
``shown_move`` and ``is_sealed_answer``). The mails default to the plain ones
(``pbem.games.plainmails``) and the bot to the generic one
(``pbem.games.optionsbot``): a game with nine members written plays by mail,
and the demo plays it; both built-in games write their own of each.

The ``Rules`` methods are passed on to ``rules`` unchanged, so the core asks
the kind for everything (``kind.pending(state)``, ``replay(kind, ...)``) and
never reaches past it into a game's engine: the kind is the one place a game
may wrap or check what its engine does.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, Generic, TypeVar

from engine.core.decisions import Pending
from engine.core.errors import IllegalAction
from engine.core.log import LogEntry
from engine.core.protocol import JsonObject, Rules
from engine.core.seats import Seat
from pbem.games import messagetext, plainmails
from pbem.games.kind import Bot, KindInfo, NewGame, Race, SetupChoices
from pbem.games.optionsbot import OptionsBot
from pbem.games.results import AppliedLine, MessageLine, MessageOutcome, Query, Refusal, StoredLines
from pbem.render.scene import Node, Point, Scene
from pbem.render.text import join_words, wrap

S = TypeVar("S")  # the game's state
A = TypeVar("A")  # the game's action
E = TypeVar("E")  # the game's event


class BaseKind(ABC, Generic[S, A, E]):
    """A ``GameKind`` with every member that can have a default given one; subclass it for a new game.

    A subclass sets ``info`` and ``rules`` (class attributes or in
    ``__init__``) and writes the abstract methods; ``REQUIRED`` names them
    all, and the suite counts them.
    """

    info: KindInfo
    rules: Rules[Any, S, A, E]
    bot: Bot = OptionsBot()  # plays any game from its options block; a game with a strategy brings its own

    # --- what a game must write --------------------------------------------------------------------

    @abstractmethod
    def make_setup(self, choices: SetupChoices) -> Any:
        """A setup for ``new_game``; ``BadSetup`` naming what is wrong and what is allowed."""

    def read_order(self, state: S, line: MessageLine) -> A | Query:
        """One order line as the action it gives or the report it asks for; ``IllegalAction`` if neither.

        Only the default ``run_message`` calls it: a game writes this or its
        own ``run_message`` (Imperial holds lines back for other players' moves,
        so it writes the whole reading itself).
        """
        raise NotImplementedError(f"{type(self).__name__} writes neither read_order nor run_message")

    @abstractmethod
    def format_action(self, state: S, action: A) -> str:
        """An action as order text, as a player would write it."""

    @abstractmethod
    def narrate(self, state: S, events: Iterable[E], viewer: str | None = None) -> list[str]:
        """Events as sentences ``viewer`` may read (None: what every player may read)."""

    @abstractmethod
    def turn_line(self, state: S) -> str:
        """Where the game stands, in a sentence: 'Round 2: Russia's turn (ann), choosing a rondel space.'"""

    @abstractmethod
    def race(self, state: S) -> Race:
        """Who leads and how near the end the game is (the demo's progress line)."""

    @abstractmethod
    def final_scores(self, state: S) -> tuple[tuple[str, int], ...]:
        """(player, score), best first, once the game is over; empty before."""

    # --- the engine, passed on (the core asks the kind, never ``rules``) ----------------------------

    def new_game(self, setup: Any) -> tuple[S, list[E]]:
        return self.rules.new_game(setup)

    def apply(self, state: S, player: str, action: A) -> tuple[S, list[E]]:
        return self.rules.apply(state, player, action)

    def pending(self, state: S) -> tuple[Pending, ...]:
        return self.rules.pending(state)

    def version(self, state: S) -> int:
        return self.rules.version(state)

    def finished(self, state: S) -> bool:
        return self.rules.finished(state)

    def setup_of(self, state: S) -> Any:
        return self.rules.setup_of(state)

    def renamed(self, setup: Any, old: str, new: str, email: str) -> Any:
        return self.rules.renamed(setup, old, new, email)

    def seats(self, setup: Any) -> tuple[Seat, ...]:
        return self.rules.seats(setup)

    def setup_to_json(self, setup: Any) -> JsonObject:
        return self.rules.setup_to_json(setup)

    def setup_from_json(self, data: JsonObject) -> Any:
        return self.rules.setup_from_json(data)

    def action_to_json(self, action: A) -> JsonObject:
        return self.rules.action_to_json(action)

    def action_from_json(self, data: JsonObject) -> A:
        return self.rules.action_from_json(data)

    def state_to_json(self, state: S) -> JsonObject:
        return self.rules.state_to_json(state)

    def state_from_json(self, data: JsonObject) -> S:
        return self.rules.state_from_json(data)

    # --- mails: plain ones (``pbem.games.plainmails``) until a game writes its own ---------------------

    def standing(self, state: S, player: str | None) -> list[str]:
        """Where the game stands as ``player`` (None: anyone) may read it, one paragraph each; the plain
        mails end with it. A game adds its scores and what the reader alone may know."""
        return [self.turn_line(state)]

    def decision_about(self, state: S, decision: Pending) -> list[str]:
        """What a plain prompt says about a decision above its options: nothing, unless the game has more."""
        return []

    def _plain(self, state: S, game: str, reader: str | None, told: Iterable[str] = ()) -> plainmails.Plain:
        return plainmails.Plain(self.info.title, game, self.shown_move(state), reader,
                                tuple(self.standing(state, reader)), tuple(told))

    def report(self, state: S, player: str, events: Iterable[E], *, game: str, open_cash: bool = False,
               board: bool = True, with_prompt: bool = False) -> str:
        """What ``events`` did, as ``player`` may read it, with where the game stands; ``with_prompt``: below
        the player's prompt, leaving out what it shows (the plain prompt shows no standing of its own here)."""
        return plainmails.report(self._plain(state, game, player, self.narrate(state, events, viewer=player)))

    def prompt(self, state: S, player: str, *, game: str, deadline: datetime | str | None = None) -> str | None:
        """What ``player`` must decide now with every legal option; None when nothing is asked of them."""
        asked = [d for d in self.pending(state) if d.player == player and not d.answered]
        options = tuple(self.legal_orders(state, player))  # none: the decision's words and HELP tell what to write
        if not asked:
            return None
        decisions = tuple(plainmails.Decision(self.decision_words(state, d), tuple(self.decision_about(state, d)),
                                              options, self.default_order(state, d)) for d in asked[:1])
        when = f"{deadline:%Y-%m-%d %H:%M} UTC" if isinstance(deadline, datetime) else deadline or ""
        return plainmails.prompt(plainmails.Prompt(**vars(self._plain(state, game, player)), decisions=decisions,
                                                   deadline=when))

    def welcome(self, state: S, player: str, *, game: str, reply_to: str | None = None,
                open_cash: bool = False, mail_note: str = "") -> str:
        """The first mail a seat gets: the game, the seats, how to play by mail. ``mail_note``: the core's
        items on how much mail the seat gets (its MAIL mode and BOARD choice), printed among the game's own
        items on playing by mail; empty outside a game played by mail."""
        seating = join_words(seat.name for seat in self.seats(self.setup_of(state)))
        return plainmails.welcome(plainmails.Welcome(**vars(self._plain(state, game, player)), players=seating,
                                                     reply_to=reply_to, mail_note=mail_note))

    def error(self, state: S, player: str, refusal: Refusal, applied: Sequence[AppliedLine] = (), *,
              game: str) -> str:
        """The reply to a refused message: the lines that stood (``applied``), the refused line, what is legal."""
        return plainmails.refusal(plainmails.Refusal(
            **vars(self._plain(state, game, player)), reason=refusal.reason, line_number=refusal.line_number,
            line=refusal.line or "", applied=tuple((a.line_number, a.line) for a in applied),
            not_applied=tuple(refusal.not_applied), legal=tuple(refusal.legal)))

    def game_end(self, state: S, player: str | None, events: Iterable[E], *, game: str) -> str:
        """The last mail: how the game ended and the final scores."""
        return plainmails.game_end(self._plain(state, game, player, [*self.narrate(state, events, viewer=player),
                                                                      *self.end_lines(state)]))

    def board_text(self, state: S, *, game: str) -> str:
        """The whole board as text (``BOARD``, ``pbem board``): where the game stands, for anyone."""
        return plainmails.standing(self._plain(state, game, None))

    def board_key(self, state: S) -> str:
        """The board's text without a game name: right for a game whose board text names no move (a game
        whose board has a move counter in it gives its own, or every mail would show the board again)."""
        return self.board_text(state, game="")

    def answer_query(self, state: S, player: str, query: Query, *, log: Sequence[LogEntry[A]] | None, game: str,
                     open_cash: bool = False, deadline: datetime | str | None = None) -> str:
        """The answer to a report request (``Query``) found in a message: where the game stands for ``player``."""
        return plainmails.standing(self._plain(state, game, player))

    # --- defaults: a game overrides those its rules need otherwise ----------------------------------

    def run_message(self, state: S, player: str, text: str, waiting: StoredLines) -> MessageOutcome:
        """Each order line read (``read_order``) and applied in turn, as the contract asks.

        The first refused line ends the reading; the lines before it stand and
        the refusal names the lines not applied and what is legal now (the
        engine's hint, else ``legal_orders``). No line ever waits.
        """
        lines = self.order_lines(text)
        applied: list[AppliedLine] = []
        entries: list[LogEntry[A]] = []
        queries: list[Query] = []
        events: list[E] = []
        refusal = None
        for index, line in enumerate(lines):
            try:
                order = self.read_order(state, line)
                if isinstance(order, Query):
                    queries.append(order)
                    continue
                new, done = self.apply(state, player, order)
            except IllegalAction as exc:
                refusal = Refusal(exc.reason, line.number, line.text, exc.legal or tuple(self.legal_orders(state, player)),
                                  not_applied=tuple((rest.number, rest.text) for rest in lines[index + 1:]))
                break
            entries.append(LogEntry(player, order, self.version(state)))
            applied.append(AppliedLine(line.number, line.text, (order,), tuple(done),
                                       tuple(self.narrate(new, done, viewer=player))))
            events.extend(done)
            state = new
        if refusal is None and not applied and not queries:
            refusal = Refusal("The message holds no orders.", legal=tuple(self.legal_orders(state, player)))
        return MessageOutcome(state, tuple(applied), tuple(entries), refusal, tuple(queries), {}, None, (),
                              self.pending(state), tuple(events))

    def order_lines(self, text: str) -> tuple[MessageLine, ...]:
        """Every line up to a signature, quotes and comments left out (``pbem.games.messagetext``).

        No line is set aside as a greeting: a game whose orders can be told
        from prose passes its own test to ``split_orders``, as both built-in
        games do.
        """
        return messagetext.split_orders(text, _every_line).orders

    def created(self, name: str, state: S, events: Sequence[E]) -> NewGame[S, E]:
        """The new game with what its setup did told to everyone and the decisions it waits for."""
        return NewGame(name, state, tuple(events), tuple(self.narrate(state, events)), self.pending(state))

    def still_waiting(self, state: S, player: str) -> bool:
        """No line of a message waits for another player's move (Imperial's held orders do)."""
        return False

    def is_side_action(self, action: A) -> bool:
        """Every action answers a decision (Imperial's donations may come at any time)."""
        return False

    def is_sealed_answer(self, action: A) -> bool:
        """Nothing is sealed: every answer restarts the clocks of the decisions it leads to."""
        return False

    def queries_only(self, text: str) -> bool:
        """The game reads no report requests from mail, so no message holds only those."""
        return False

    def default_order(self, state: S, decision: Pending) -> str | None:
        """No passive default: the game master decides what a late player does."""
        return None

    def tells(self, state: S, events: Sequence[E], player: str) -> bool:
        """Every event tells every seat something: nothing is sealed."""
        return True

    def decision_words(self, state: S, decision: Pending) -> str:
        """The decision's kind as its words ('bid'); a game says more ('choose a rondel space for Russia')."""
        return decision.kind

    def subject_name(self, subject: str | None) -> str | None:
        """A decision's subject is named as stored."""
        return subject

    def shown_move(self, state: S) -> int:
        """The log position; a game with a sealed round shows where the round opened instead."""
        return self.version(state)

    def status_words(self, state: S) -> str:
        """For a mail subject: 'game over' or the move shown."""
        return "game over" if self.finished(state) else f"move {self.shown_move(state)}"

    def holdings(self, state: S, player: str) -> tuple[str, ...]:
        """A seat holds nothing by name (Imperial's seats govern nations); see ``GameKind.holdings``."""
        return ()

    def holding_words(self, state: S, player: str) -> str:
        """What the seat holds, named in a phrase for a notice; "" when nothing."""
        return ", ".join(self.holdings(state, player))

    def picture(self, state: S, *, game: str) -> Scene:
        """No board to draw: one node with the game's status words."""
        return Scene(f"{game}: {self.info.title}", (320, 200),
                     (Node("status", self.status_words(state), (Point(160, 110),)),))

    def legal_orders(self, state: S, player: str) -> list[str]:
        """No list of orders to copy: the prompt says what to write."""
        return []

    def end_lines(self, state: S) -> list[str]:
        """The final scores in a sentence."""
        return _lines(plainmails.final_scores(self.final_scores(state)))

    def summary_lines(self, name: str, state: S) -> list[str]:
        """The move shown and where the game stands."""
        return _lines(f"Game {name}: {self.info.title}, move {self.shown_move(state)}.", self.turn_line(state))

    def pending_lines(self, state: S, *, options: bool = True) -> list[str]:
        """One line per decision waited for, with the legal orders under it when ``options``.

        A sealed decision is listed for every player of its round, answered or
        not: these lines must not tell who has answered.
        """
        lines = []
        for decision in self.pending(state):
            if decision.answered and not decision.sealed:
                continue
            lines += _lines(f"Waiting for {decision.player} ({decision.kind})" + ("; options:" if options else "."))
            if options:
                lines += [f"    {order}" for order in self.legal_orders(state, decision.player)]
        return lines or ["The game is over."]

    def state_json(self, name: str, state: S, viewer: str | None = None) -> dict[str, Any]:
        """The keys every game's state JSON has (docs/state-json.md); a game adds its own to these.

        ``pending`` lists what ``pending`` does, so a sealed round's decisions
        are all there, answered or not; ``version`` is the move shown.
        """
        return {"game": name, "kind": self.info.name, "version": self.shown_move(state),
                "finished": self.finished(state),
                "pending": [{"player": decision.player, "kind": decision.kind,
                             "options": self.legal_orders(state, decision.player),
                             "default": self.default_order(state, decision)} for decision in self.pending(state)]}

    def new_game_lines(self, created: NewGame[S, E]) -> list[str]:
        """The game, its seats and who decides first."""
        seating = [seat.name for seat in self.seats(self.setup_of(created.state))]
        return [*_lines(f"Game {created.name} created: {self.info.title}, {len(seating)} players.",
                        f"Seats: {', '.join(seating)}."), *self.pending_lines(created.state, options=False)]


def _lines(*texts: str) -> list[str]:
    """Lines for the CLI, each sentence wrapped to 78 columns like mail (continuations indented)."""
    return [line for text in texts for line in wrap(text, indent=2, first=0).splitlines()]


def _every_line(text: str) -> bool:
    """Every line is read as an order (none is a courtesy line to set aside)."""
    return True


# What a game must write: the abstract methods, its two attributes, and ``read_order`` or ``run_message``.
REQUIRED = (*sorted(BaseKind.__abstractmethods__), "info", "read_order", "rules")
