"""A second game kind, tiny, kept in the tests: it proves the seam with what Imperial never does.

"Sealed guess" (kind ``sealed-guess``), 2 to 4 players:

- SG-1  Each round the game draws a secret number from 1 to 10 from its seed. No event, view or mail
        shows it before the round is over (hidden information).
- SG-2  Every player answers ``GUESS n`` (1 to 10) at the same time: a sealed decision. Nobody learns
        another's guess, nor whether it was given, before all are in.
- SG-3  A guess may be changed until the last player has guessed; the last one counts.
- SG-4  When all have guessed, the round resolves: the guesses and the number are shown, and each
        player nearest to the number scores a point (ties all score).
- SG-5  After three rounds the game ends; most points wins (ties share).
- SG-6  A player who does not answer by the deadline guesses 5.

Engine part (``SealedRules``: pure, no I/O) and the moderator's part (``SealedGuess``: order
language, words, views) sit in one module because the game is tiny; a real kind splits them into
``engine/<kind>/`` and ``pbem/games/<kind>/``.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from engine.core.decisions import Pending
from engine.core.errors import GameFinished, IllegalAction, NotYourDecision
from engine.core.log import LogEntry
from engine.core.protocol import Rules
from engine.core.rng import seeded
from engine.core.seats import Seat
from pbem.errors import BadSetup
from pbem.games.kind import GameKind, NewGame, Race, SetupChoices
from pbem.games.results import AppliedLine, MessageLine, MessageOutcome, Query, Refusal, StoredLines

KIND = "sealed-guess"
ROUNDS = 3
DEFAULT_GUESS = 5
LEGAL = tuple(f"GUESS {n}" for n in range(1, 11))

# --- the rules (pure) ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Setup:
    players: tuple[Seat, ...]
    seed: int


@dataclass(frozen=True)
class Guess:
    number: int


@dataclass(frozen=True)
class Guessed:
    """A player gave (or changed) their sealed guess: only that player may hear of it."""

    player: str
    number: int


@dataclass(frozen=True)
class RoundResolved:
    round: int
    target: int
    guesses: tuple[tuple[str, int], ...]
    scorers: tuple[str, ...]


@dataclass(frozen=True)
class State:
    setup: Setup
    version: int = 0
    round: int = 1
    guesses: tuple[tuple[str, int], ...] = ()  # the open round's sealed answers
    points: tuple[tuple[str, int], ...] = ()
    resolved: tuple[RoundResolved, ...] = field(default=())

    @property
    def seating(self) -> tuple[str, ...]:
        return tuple(seat.name for seat in self.setup.players)

    @property
    def finished(self) -> bool:
        return self.round > ROUNDS

    def guess_of(self, player: str) -> int | None:
        return dict(self.guesses).get(player)

    def points_of(self, player: str) -> int:
        return dict(self.points).get(player, 0)


def secret(setup: Setup, round_number: int) -> int:
    """SG-1: the round's number, drawn from the seed alone (so replay draws it again)."""
    return seeded(setup.seed, f"round {round_number}").randint(1, 10)


class SealedRules:
    """``engine.core.Rules`` for the sealed guess."""

    def new_game(self, setup: Setup) -> tuple[State, list[Any]]:
        return State(setup, points=tuple((s.name, 0) for s in setup.players)), []

    def apply(self, state: State, player: str, action: Guess) -> tuple[State, list[Any]]:
        if state.finished:
            raise GameFinished("The game is over.")
        if player not in state.seating:
            raise NotYourDecision(f"{player!r} is not a player of this game.")
        if not isinstance(action, Guess) or not 1 <= action.number <= 10:
            raise IllegalAction("A guess is a whole number from 1 to 10.", LEGAL)
        guesses = tuple((p, n) for p, n in state.guesses if p != player) + ((player, action.number),)
        events: list[Any] = [Guessed(player, action.number)]
        new = replace(state, version=state.version + 1, guesses=guesses)
        if len(guesses) == len(state.seating):
            new = self._resolve(new, events)
        return new, events

    def _resolve(self, state: State, events: list[Any]) -> State:
        """SG-4: everybody's guess is in."""
        target = secret(state.setup, state.round)
        ordered = tuple((p, dict(state.guesses)[p]) for p in state.seating)
        best = min(abs(n - target) for _, n in ordered)
        scorers = tuple(p for p, n in ordered if abs(n - target) == best)
        resolved = RoundResolved(state.round, target, ordered, scorers)
        events.append(resolved)
        points = tuple((p, state.points_of(p) + (p in scorers)) for p in state.seating)
        return replace(state, round=state.round + 1, guesses=(), points=points,
                       resolved=state.resolved + (resolved,))

    def pending(self, state: State) -> tuple[Pending, ...]:
        """SG-2: one sealed decision per player; ``answered`` for those whose guess is in."""
        if state.finished:
            return ()
        return tuple(Pending(p, "guess", None, has_default=True, sealed=True,
                             answered=state.guess_of(p) is not None, detail=p) for p in state.seating)

    def version(self, state: State) -> int:
        return state.version

    def finished(self, state: State) -> bool:
        return state.finished

    def setup_of(self, state: State) -> Setup:
        return state.setup

    def renamed(self, setup: Setup, old: str, new: str, email: str) -> Setup:
        return replace(setup, players=tuple(Seat(new, email) if s.name == old else s for s in setup.players))

    def seats(self, setup: Setup) -> tuple[Seat, ...]:
        return setup.players

    def setup_to_json(self, setup: Setup) -> dict[str, Any]:
        return {"players": [[s.name, s.email] for s in setup.players], "seed": setup.seed}

    def setup_from_json(self, data: dict[str, Any]) -> Setup:
        return Setup(tuple(Seat(n, e) for n, e in data["players"]), int(data["seed"]))

    def action_to_json(self, action: Guess) -> dict[str, Any]:
        return {"type": "guess", "number": action.number}

    def action_from_json(self, data: dict[str, Any]) -> Guess:
        if data.get("type") != "guess":
            raise ValueError(f"not a guess: {data!r}")
        return Guess(int(data["number"]))

    def state_to_json(self, state: State) -> dict[str, Any]:
        return {"setup": self.setup_to_json(state.setup), "version": state.version, "round": state.round,
                "guesses": [list(g) for g in state.guesses], "points": [list(p) for p in state.points],
                "resolved": [[r.round, r.target, [list(g) for g in r.guesses], list(r.scorers)]
                             for r in state.resolved]}

    def state_from_json(self, data: dict[str, Any]) -> State:
        return State(self.setup_from_json(data["setup"]), data["version"], data["round"],
                     tuple((p, n) for p, n in data["guesses"]), tuple((p, n) for p, n in data["points"]),
                     tuple(RoundResolved(r, t, tuple((p, n) for p, n in g), tuple(s))
                           for r, t, g, s in data["resolved"]))


# --- the moderator's part --------------------------------------------------------------------------------


_GUESS = re.compile(r"^guess\s+(\d+)$", re.IGNORECASE)


class NoBot:
    """The sealed guess needs no clever bot: it always guesses the middle."""

    strategies = ("random",)

    def game_over(self, text: str) -> bool:
        return "the game is over" in text

    def prompt_of(self, text: str) -> tuple[str | None, int | None] | None:
        return (None, None) if "GUESS n" in text else None

    def is_error(self, text: str) -> bool:
        return "REFUSED" in text

    def error_moved_on(self, text: str) -> bool:
        return False

    def banner(self, text: str) -> tuple[str | None, int | None]:
        return None, None

    def is_report(self, text: str) -> bool:
        return False

    def answer(self, prompt: str, strategy: str, seed: int | str, report: str | None) -> str | None:
        return f"GUESS {DEFAULT_GUESS}"

    def answer_refusal(self, error: str, prompt: str | None, strategy: str, seed: int | str, report: str | None,
                       avoid: Sequence[str], attempt: int) -> str | None:
        return None


class SealedGuess:
    """The ``GameKind`` of the sealed guess."""

    name = KIND
    title = "Sealed guess"
    min_players = 2
    max_players = 4
    variants: tuple[str, ...] = ()
    holding_verb = "holds"

    def __init__(self) -> None:
        self.rules = SealedRules()
        self.bot = NoBot()

    # --- setup and orders --------------------------------------------------------------------------

    def make_setup(self, choices: SetupChoices) -> Setup:
        if choices.options or choices.variants:
            given = sorted([*choices.options, *choices.variants])
            raise BadSetup(f"{self.title} has no options or variants: {', '.join(given)} does not apply")
        return Setup(choices.players, choices.seed)

    def created(self, name: str, state: State, events: Sequence[Any]) -> NewGame:
        return NewGame(name, state, tuple(events), (), self.rules.pending(state))

    def run_message(self, state: State, player: str, text: str, waiting: StoredLines) -> MessageOutcome:
        applied: list[AppliedLine] = []
        entries: list[LogEntry[Any]] = []
        queries: list[Query] = []
        events: list[Any] = []
        refusal = None
        lines = self.order_lines(text)
        for index, line in enumerate(lines):
            if line.text.upper() == "STATUS":
                queries.append(Query(line.number, line.text, "status"))
                continue
            match = _GUESS.match(line.text)
            try:
                if match is None:
                    raise IllegalAction("Write GUESS and a number from 1 to 10, or STATUS.", LEGAL)
                action = Guess(int(match.group(1)))
                new, done = self.rules.apply(state, player, action)
            except IllegalAction as exc:
                refusal = Refusal(exc.reason, line.number, line.text, exc.legal,
                                  not_applied=tuple((x.number, x.text) for x in lines[index + 1:]))
                break
            entries.append(LogEntry(player, action, state.version))
            applied.append(AppliedLine(line.number, line.text, (action,), tuple(done),
                                       tuple(self.narrate(new, done, viewer=player))))
            events.extend(done)
            state = new
        if refusal is None and not applied and not queries:
            refusal = Refusal("The message holds no orders.", legal=LEGAL)
        return MessageOutcome(state, tuple(applied), tuple(entries), refusal, tuple(queries), {}, None, (),
                              self.rules.pending(state), tuple(events))

    def still_waiting(self, state: State, player: str) -> bool:
        return False

    def is_side_action(self, action: Any) -> bool:
        return False

    def queries_only(self, text: str) -> bool:
        lines = self.order_lines(text)
        return bool(lines) and all(line.text.upper() == "STATUS" for line in lines)

    def order_lines(self, text: str) -> tuple[MessageLine, ...]:
        lines = []
        for number, raw in enumerate(text.replace("\r\n", "\n").split("\n"), start=1):
            if raw.rstrip() == "--":
                break
            if raw.strip() and not raw.lstrip().startswith(">"):
                lines.append(MessageLine(number, raw.strip()))
        return tuple(lines)

    def format_action(self, state: State, action: Guess) -> str:
        return f"GUESS {action.number}"

    def default_order(self, state: State, decision: Pending) -> str | None:
        return f"GUESS {DEFAULT_GUESS}"  # SG-6

    # --- words and views: each reader sees their own guess only -------------------------------------

    def tells(self, state: State, events: Sequence[Any], player: str) -> bool:
        return any(not isinstance(e, Guessed) or e.player == player for e in events)

    def narrate(self, state: State, events: Iterable[Any], viewer: str | None = None) -> list[str]:
        told = []
        for event in events:
            if isinstance(event, Guessed) and event.player == viewer:
                told.append(f"You guessed {event.number}.")
            elif isinstance(event, RoundResolved):
                guesses = ", ".join(f"{p} {n}" for p, n in event.guesses)
                told.append(f"Round {event.round}: the number was {event.target} ({guesses}); "
                            f"{' and '.join(event.scorers)} scored.")
        return told

    def decision_words(self, state: State, decision: Pending) -> str:
        return "guess a number from 1 to 10"

    def subject_name(self, subject: str | None) -> str | None:
        return subject

    def shown_move(self, state: State) -> int:
        """SG-2: the move the open round began at; the guesses given in it are not counted."""
        return state.version - len(state.guesses)

    def status_words(self, state: State) -> str:
        return "game over" if state.finished else f"round {state.round} of {ROUNDS}"

    def turn_line(self, state: State) -> str:
        if state.finished:
            return "The game is over."
        return f"Round {state.round} of {ROUNDS}: waiting for every player's sealed guess."

    def holdings(self, state: State, player: str) -> tuple[str, ...]:
        return ()

    def holding_words(self, state: State, player: str) -> str:
        return ""

    def _standing(self, state: State, player: str) -> list[str]:
        lines = [self.turn_line(state), "Points: " + ", ".join(f"{p} {state.points_of(p)}" for p in state.seating)]
        own = state.guess_of(player)
        if not state.finished:
            lines.append(f"Your guess: {own} (you may change it until every guess is in)." if own is not None
                         else "You have not guessed yet this round.")
        return lines

    def report(self, state: State, player: str, events: Iterable[Any], *, game: str, open_cash: bool = False,
               board: bool = True) -> str:
        lines = [f"SEALED GUESS - {game} - report for {player}", ""]
        lines += self.narrate(state, events, viewer=player) or ["Nothing you may see happened."]
        return "\n".join([*lines, "", *self._standing(state, player)]) + "\n"

    def prompt(self, state: State, player: str, *, game: str, deadline: datetime | str | None = None) -> str | None:
        if state.finished or player not in state.seating:
            return None
        due = f" by {deadline}" if deadline is not None else ""
        return (f"SEALED GUESS - {game} - {player}, your guess\n\nRound {state.round} of {ROUNDS}: reply with "
                f"GUESS n (n from 1 to 10){due}. Nobody sees your guess before all are in.\n")

    def welcome(self, state: State, player: str, *, game: str, reply_to: str | None = None,
                open_cash: bool = False) -> str:
        return (f"SEALED GUESS - {game} - welcome, {player}\n\nPlayers: {', '.join(state.seating)}. "
                f"Three rounds; guess the secret number from 1 to 10.\n")

    def error(self, state: State, player: str, refusal: Refusal, applied: Sequence[AppliedLine] = (), *,
              game: str) -> str:
        legal = "; ".join(refusal.legal)
        return (f"SEALED GUESS - {game} - {player}, an order was refused\n\nREFUSED\n-------\n"
                f"line {refusal.line_number}: {refusal.line}\n{refusal.reason}\nLegal now: {legal}\n")

    def game_end(self, state: State, player: str | None, events: Iterable[Any], *, game: str) -> str:
        told = self.narrate(state, events, viewer=player)
        scores = ", ".join(f"{p} {n}" for p, n in self.final_scores(state))
        return f"SEALED GUESS - {game} - the game is over\n\n" + "\n".join([*told, f"Final points: {scores}"]) + "\n"

    def board_text(self, state: State, *, game: str) -> str:
        return self.turn_line(state) + "\n"

    def answer_query(self, state: State, player: str, query: Query, *, log: Sequence[LogEntry[Any]] | None,
                     game: str, open_cash: bool = False, deadline: datetime | str | None = None) -> str:
        return "STATUS\n------\n" + "\n".join(self._standing(state, player)) + "\n"

    def state_json(self, name: str, state: State, viewer: str | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {
            "game": name, "kind": KIND, "version": state.version, "finished": state.finished,
            "round": state.round, "points": dict(state.points),
            "rounds": [{"round": r.round, "number": r.target, "guesses": dict(r.guesses), "scored": list(r.scorers)}
                       for r in state.resolved],
        }
        if viewer is not None:
            data["your_guess"] = state.guess_of(viewer)
        return data

    def summary_lines(self, name: str, state: State) -> list[str]:
        return [f"Game {name}: move {state.version}.", self.turn_line(state)]

    def pending_lines(self, state: State, *, options: bool = True) -> list[str]:
        return [] if state.finished else ["Waiting for every player's sealed guess (GUESS 1 to GUESS 10)."]

    def legal_orders(self, state: State, player: str) -> list[str]:
        return [] if state.finished else list(LEGAL)

    def new_game_lines(self, created: NewGame) -> list[str]:
        return [f"Game {created.name} created: {self.title}, {len(created.state.seating)} players."]

    def race(self, state: State) -> Race:
        leader = max(state.seating, key=state.points_of)
        return Race(min(state.round, ROUNDS), leader, state.points_of(leader), ROUNDS, "points")

    def final_scores(self, state: State) -> tuple[tuple[str, int], ...]:
        return tuple(sorted(state.points, key=lambda item: -item[1])) if state.finished else ()

    def end_lines(self, state: State) -> list[str]:
        return [f"{self.race(state).leader} guessed best."]


def _keeps_the_interface(kind: SealedGuess, rules: SealedRules) -> tuple[GameKind, Rules[Any, Any, Any, Any]]:
    """Never called: mypy proves here that the test kind offers everything the moderator asks of a game."""
    return kind, rules
