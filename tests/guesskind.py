"""Guess the Number (kind ``guess-test``): a tiny second game, kept in the tests, to prove the seam.

Imperial 2030 answers one decision at a time and hides nothing, so it never
tests the two promises the seam makes for other games: sealed answers given
at once, and hidden information. This game does nothing else.

Rules (the tests cite these ids):

- G-1  2 to 4 players, seated as given. The kind has no options or variants.
- G-2  Each round has a hidden target, a number from 1 to 10 drawn from the
       setup's seed (``engine.core.rng.seeded``). It is in no event, view or
       mail before its round resolves.
- G-3  Each round every player secretly answers ``GUESS n`` (n from 1 to 10):
       a sealed decision. ``pending`` lists one per player, ``answered`` for
       those whose guess is in; nobody but its player learns a guess, or
       whether it was given, before all are in.
- G-4  A player may change their guess until all are in; the last one counts.
- G-5  The last guess resolves the round in the same action: the closest
       guess (or guesses, on a tie) scores a point; the resolving event
       reveals the target and every guess.
- G-6  The game ends after 3 rounds; final scores are the points, best first.
- G-7  A player without a guess at the deadline guesses 5 (passive default).
- G-8  Views per reader: a player sees their own current guess only; the
       public view shows no guess of the open round. ``STATUS`` answers it.

Engine (``GuessRules``, pure) and moderator part (``GuessKind``) share one
module because the game is tiny; it imports nothing of the moderator core,
only the seam (``pbem.games``), the text tools and ``pbem.errors``.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.core.decisions import Pending
from engine.core.errors import GameFinished, IllegalAction, NotYourDecision
from engine.core.protocol import JsonObject, Rules, State
from engine.core.rng import seeded
from engine.core.seats import Seat
from pbem.errors import BadSetup
from pbem.games.basekind import BaseKind
from pbem.games.kind import GameKind, KindInfo, Race, SetupChoices
from pbem.games.results import MessageLine, Query
from pbem.render.text import join_words

KIND = "guess-test"
TITLE = "Guess the Number (test kind)"
ROUNDS = 3
LOW, HIGH = 1, 10
DEFAULT = 5  # G-7
DECISION = "guess"
LEGAL = tuple(f"GUESS {n}" for n in range(LOW, HIGH + 1))

# --- the engine: pure, no I/O --------------------------------------------------------------------------


@dataclass(frozen=True)
class GuessSetup:
    players: tuple[Seat, ...]
    seed: int


@dataclass(frozen=True)
class Guess:
    number: int


@dataclass(frozen=True)
class GuessSealed:
    """G-3: a guess given or changed; only its player may hear of it before the round resolves."""

    player: str
    number: int
    changed: bool


@dataclass(frozen=True)
class RoundResolved:
    """G-5: the target and every guess, revealed together once all are in."""

    round: int
    target: int
    guesses: tuple[tuple[str, int], ...]
    scorers: tuple[str, ...]


@dataclass(frozen=True)
class GameOver:
    scores: tuple[tuple[str, int], ...]


Event = GuessSealed | RoundResolved | GameOver


@dataclass(frozen=True)
class GuessState:
    """Immutable in use: ``apply`` returns a new one. ``sealed`` holds the open round's guesses, ``opened``
    the version the round opened at (a changed guess adds a version but no guess, G-4)."""

    setup: GuessSetup
    version: int = 0
    round: int = 1
    opened: int = 0
    sealed: tuple[tuple[str, int], ...] = ()
    points: tuple[int, ...] = ()
    history: tuple[RoundResolved, ...] = ()

    @property
    def seating(self) -> tuple[str, ...]:
        return tuple(seat.name for seat in self.setup.players)

    @property
    def finished(self) -> bool:
        return self.round > ROUNDS

    def guess_of(self, player: str) -> int | None:
        return dict(self.sealed).get(player)

    def points_of(self, player: str) -> int:
        return self.points[self.seating.index(player)]


def target(setup: GuessSetup, round_number: int) -> int:
    """G-2: drawn from the seed alone, so replay draws it again; never stored in an event before G-5."""
    return seeded(setup.seed, f"{KIND}:target:{round_number}").randint(LOW, HIGH)


class GuessRules:
    """``engine.core.Rules`` of the guessing game."""

    def new_game(self, setup: GuessSetup) -> tuple[GuessState, list[Event]]:
        return GuessState(setup, points=tuple(0 for _ in setup.players)), []

    def apply(self, state: GuessState, player: str, action: Guess) -> tuple[GuessState, list[Event]]:
        if state.finished:
            raise GameFinished("The game is over.")
        if player not in state.seating:
            raise NotYourDecision(f"{player!r} has no seat in this game.")
        if not isinstance(action, Guess) or not LOW <= action.number <= HIGH:
            raise IllegalAction(f"A guess is a whole number from {LOW} to {HIGH}.", LEGAL)
        changed = state.guess_of(player) is not None
        mine = {**dict(state.sealed), player: action.number}  # G-4: the last guess counts
        sealed = tuple((p, mine[p]) for p in state.seating if p in mine)
        events: list[Event] = [GuessSealed(player, action.number, changed)]
        new = replace(state, version=state.version + 1, sealed=sealed)
        if len(sealed) == len(state.seating):
            new = self._resolve(new, events)
        return new, events

    def _resolve(self, state: GuessState, events: list[Event]) -> GuessState:
        """G-5 and G-6."""
        goal = target(state.setup, state.round)
        best = min(abs(n - goal) for _, n in state.sealed)
        scorers = tuple(p for p, n in state.sealed if abs(n - goal) == best)
        resolved = RoundResolved(state.round, goal, state.sealed, scorers)
        points = tuple(n + (p in scorers) for p, n in zip(state.seating, state.points, strict=True))
        new = replace(state, round=state.round + 1, opened=state.version, sealed=(), points=points,
                      history=(*state.history, resolved))
        events.append(resolved)
        if new.finished:
            events.append(GameOver(ranked(new)))
        return new

    def pending(self, state: GuessState) -> tuple[Pending, ...]:
        """G-3: one sealed decision per player; the detail is the player's own guess (or None)."""
        if state.finished:
            return ()
        return tuple(Pending(p, DECISION, None, has_default=True, sealed=True,
                             answered=state.guess_of(p) is not None, detail=state.guess_of(p))
                     for p in state.seating)

    def version(self, state: GuessState) -> int:
        return state.version

    def finished(self, state: GuessState) -> bool:
        return state.finished

    def setup_of(self, state: GuessState) -> GuessSetup:
        return state.setup

    def renamed(self, setup: GuessSetup, old: str, new: str, email: str) -> GuessSetup:
        return replace(setup, players=tuple(Seat(new, email) if s.name == old else s for s in setup.players))

    def seats(self, setup: GuessSetup) -> tuple[Seat, ...]:
        return setup.players

    def setup_to_json(self, setup: GuessSetup) -> JsonObject:
        return {"players": [{"name": s.name, "email": s.email} for s in setup.players], "seed": setup.seed}

    def setup_from_json(self, data: JsonObject) -> GuessSetup:
        return GuessSetup(tuple(Seat(p["name"], p["email"]) for p in data["players"]), int(data["seed"]))

    def action_to_json(self, action: Guess) -> JsonObject:
        return {"type": "guess", "number": action.number}

    def action_from_json(self, data: JsonObject) -> Guess:
        if data.get("type") != "guess" or not isinstance(data.get("number"), int):
            raise ValueError(f"not a guess: {data!r}")
        return Guess(data["number"])

    def state_to_json(self, state: GuessState) -> JsonObject:
        return {"setup": self.setup_to_json(state.setup), "version": state.version, "round": state.round,
                "opened": state.opened, "sealed": [[p, n] for p, n in state.sealed], "points": list(state.points),
                "history": [{"round": r.round, "target": r.target, "guesses": [[p, n] for p, n in r.guesses],
                             "scorers": list(r.scorers)} for r in state.history]}

    def state_from_json(self, data: JsonObject) -> GuessState:
        history = tuple(RoundResolved(r["round"], r["target"], tuple((p, n) for p, n in r["guesses"]),
                                      tuple(r["scorers"])) for r in data["history"])
        return GuessState(self.setup_from_json(data["setup"]), data["version"], data["round"], data["opened"],
                          tuple((p, n) for p, n in data["sealed"]), tuple(data["points"]), history)


def ranked(state: GuessState) -> tuple[tuple[str, int], ...]:
    """G-6: (player, points), best first; ties in seating order."""
    return tuple(sorted(zip(state.seating, state.points, strict=True), key=lambda item: -item[1]))


# --- the moderator's part: order language and words, on ``BaseKind``'s defaults and plain mails --------------

_GUESS = re.compile(r"^guess\s*:?\s*(\S+)$", re.IGNORECASE)


class GuessKind(BaseKind[GuessState, Guess, Event]):
    """The ``GameKind`` of Guess the Number: only what ``BaseKind`` cannot know. Its mails are the plain ones
    (``pbem.games.plainmails``) and its bot the generic one (``pbem.games.optionsbot``)."""

    info = KindInfo(KIND, TITLE, 2, 4, decisions=(DECISION,))  # the tests set the hours they need
    rules = GuessRules()

    def make_setup(self, choices: SetupChoices) -> GuessSetup:
        """G-1: another kind's options (Imperial's ``deal``) are refused, not ignored."""
        given = sorted([*choices.options, *choices.variants])
        if given:  # the player count is the core's to check, by ``info``
            raise BadSetup(f"{TITLE} has no options or variants; {', '.join(given)} does not apply")
        return GuessSetup(tuple(choices.players), choices.seed)

    def read_order(self, state: GuessState, line: MessageLine) -> Guess | Query:
        found = _GUESS.match(line.text)
        if line.text.upper() == "STATUS":
            return Query(line.number, line.text, "status")
        if found is None:
            raise IllegalAction(f"Unknown order {line.text!r}: write GUESS and a number from {LOW} to {HIGH}, "
                                "or STATUS.", LEGAL)
        if not found.group(1).isdigit():
            raise IllegalAction(f"Write the number of a guess in digits, not {found.group(1)!r}.", LEGAL)
        return Guess(int(found.group(1)))

    def queries_only(self, text: str) -> bool:
        lines = self.order_lines(text)
        return bool(lines) and all(line.text.upper() == "STATUS" for line in lines)

    def format_action(self, state: GuessState, action: Guess) -> str:
        return f"GUESS {action.number}"

    def default_order(self, state: GuessState, decision: Pending) -> str | None:
        return f"GUESS {DEFAULT}"  # G-7

    def is_sealed_answer(self, action: Guess) -> bool:
        return True  # G-3: every guess

    def tells(self, state: GuessState, events: Sequence[Event], player: str) -> bool:
        """Another player's sealed guess tells this seat nothing: no report at all (G-3)."""
        return any(not isinstance(e, GuessSealed) or e.player == player for e in events)

    def narrate(self, state: GuessState, events: Iterable[Event], viewer: str | None = None) -> list[str]:
        told = []
        for event in events:
            if isinstance(event, GuessSealed) and event.player == viewer:
                told.append(f"You {'changed your guess to' if event.changed else 'guessed'} {event.number}.")
            elif isinstance(event, RoundResolved):
                guesses = ", ".join(f"{p} {n}" for p, n in event.guesses)
                told.append(f"Round {event.round}: the number was {event.target} (guesses: {guesses}); "
                            f"a point to {join_words(event.scorers)}.")
            elif isinstance(event, GameOver):
                told.append("The game is over. Final points: " + ", ".join(f"{p} {n}" for p, n in event.scores) + ".")
        return told

    def shown_move(self, state: GuessState) -> int:
        """G-3: the move the open round began at, so no move number counts the guesses given."""
        return state.opened

    def turn_line(self, state: GuessState) -> str:
        return "The game is over." if state.finished else \
            f"Round {state.round} of {ROUNDS}: waiting for every player's sealed guess."

    def standing(self, state: GuessState, player: str | None) -> list[str]:
        """G-8: the points, and the reader's own guess of the open round (nobody else's)."""
        lines = [self.turn_line(state), "Points: " + ", ".join(f"{p} {n}" for p, n in ranked(state)) + "."]
        if player is not None and player in state.seating and not state.finished:
            own = state.guess_of(player)
            lines.append("You have sent no guess yet this round." if own is None else
                         f"Your guess this round: {own}. You may change it until every guess is in.")
        return lines if player is not None else [*lines, *self.narrate(state, state.history)]

    def decision_about(self, state: GuessState, decision: Pending) -> list[str]:
        return [f"Round {state.round} of {ROUNDS}: reply with one line, GUESS and a whole number from {LOW} to "
                f"{HIGH}. Nobody sees your guess, or that you sent one, before every guess is in; you may change "
                "it until then."]

    def state_json(self, name: str, state: GuessState, viewer: str | None = None) -> dict[str, Any]:
        """G-8: the open round's guesses are left out; a ``viewer`` gets their own as ``your_guess``."""
        return {**super().state_json(name, state, viewer), "round": min(state.round, ROUNDS),
                "points": dict(zip(state.seating, state.points, strict=True)),
                "rounds": [{"round": r.round, "target": r.target, "guesses": dict(r.guesses),
                            "scorers": list(r.scorers)} for r in state.history],
                **({"your_guess": state.guess_of(viewer)} if viewer is not None else {})}

    def race(self, state: GuessState) -> Race:
        leader, score = ranked(state)[0]
        return Race(min(state.round, ROUNDS), leader, score, ROUNDS, "points")

    def final_scores(self, state: GuessState) -> tuple[tuple[str, int], ...]:
        return ranked(state) if state.finished else ()

    def legal_orders(self, state: GuessState, player: str) -> list[str]:
        return [] if state.finished or player not in state.seating else list(LEGAL)


def _keeps_the_interface(kind: GuessKind, rules: GuessRules, state: GuessState) \
        -> tuple[GameKind[GuessState, Guess, Event], Rules[GuessSetup, GuessState, Guess, Event]]:
    """Never called: mypy proves here that the kind, its rules and its state meet the protocols."""
    _: State = state
    return kind, rules
