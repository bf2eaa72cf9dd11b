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

import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from engine.core.decisions import Pending
from engine.core.errors import GameFinished, IllegalAction, NotYourDecision
from engine.core.log import LogEntry
from engine.core.protocol import JsonObject, Rules, State
from engine.core.rng import seeded
from engine.core.seats import Seat
from pbem.errors import BadSetup
from pbem.games.basekind import BaseKind
from pbem.games.kind import Bot, GameKind, KindInfo, Race, SetupChoices
from pbem.games.results import AppliedLine, MessageLine, Query, Refusal
from pbem.render.text import finish, join_words, wrap

KIND = "guess-test"
TITLE = "Guess the Number (test kind)"
ROUNDS = 3
LOW, HIGH = 1, 10
DEFAULT = 5  # G-7
DECISION = "guess"
LEGAL = tuple(f"GUESS {n}" for n in range(LOW, HIGH + 1))
BANNER = "GUESS THE NUMBER"

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


# --- the bot ----------------------------------------------------------------------------------------------

_BANNER = re.compile(rf"^{BANNER} - (?P<game>\S+) - move (?P<move>\d+)", re.MULTILINE)


class GuessBot:
    """Reads this kind's mails by their first line; ``random`` guesses from its seed, ``middle`` the default."""

    strategies = ("random", "middle")

    def is_report(self, text: str) -> bool:
        return " REPORT " in text.split("\n", 1)[0] + " "

    def answer(self, prompt: str, strategy: str, seed: int | str, report: str | None) -> str | None:
        if strategy == "middle":
            return f"GUESS {DEFAULT}"
        return f"GUESS {random.Random(f'{seed}:{prompt}').randint(LOW, HIGH)}"

    def answer_refusal(self, error: str, prompt: str | None, strategy: str, seed: int | str, report: str | None,
                       avoid: Sequence[str], attempt: int) -> str | None:
        return next((order for order in LEGAL if order not in avoid), None)


# --- the moderator's part: order language, words, views (on ``BaseKind``'s defaults) ------------------------

_GUESS = re.compile(r"^guess\s*:?\s*(\S+)$", re.IGNORECASE)


def _mail(*paragraphs: str) -> str:
    """Mail text: ASCII, each paragraph wrapped to 78 columns (lines starting with blanks kept as they are)."""
    return finish("\n\n".join(p if p.startswith(" ") or "\n" in p else wrap(p) for p in paragraphs if p))


class GuessKind(BaseKind[GuessState, Guess, Event]):
    """The ``GameKind`` of Guess the Number: only what ``BaseKind`` cannot know."""

    info = KindInfo(KIND, TITLE, 2, 4, decisions=(DECISION,))  # the tests set the hours they need
    rules = GuessRules()
    bot: Bot = GuessBot()

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

    def _mail(self, game: str, state: GuessState, what: str, *paragraphs: str) -> str:
        return _mail(f"{BANNER} - {game} - move {self.shown_move(state)} - {what}", *paragraphs)

    def _standing(self, state: GuessState, player: str | None) -> list[str]:
        lines = [self.turn_line(state), "Points: " + ", ".join(f"{p} {n}" for p, n in ranked(state)) + "."]
        if player is not None and not state.finished:
            own = state.guess_of(player)
            lines.append("You have sent no guess yet this round." if own is None else
                         f"Your guess this round: {own}. You may change it until every guess is in.")
        return lines

    def report(self, state: GuessState, player: str, events: Iterable[Event], *, game: str, open_cash: bool = False,
               board: bool = True, with_prompt: bool = False) -> str:
        told = self.narrate(state, events, viewer=player) or ["Nothing you may see has happened."]
        return self._mail(game, state, f"REPORT for {player}", *told, *self._standing(state, player))

    def prompt(self, state: GuessState, player: str, *, game: str,
               deadline: datetime | str | None = None) -> str | None:
        if not self.legal_orders(state, player):
            return None
        due = f" by {deadline:%Y-%m-%d %H:%M} UTC" if isinstance(deadline, datetime) else f" by {deadline}" * bool(deadline)
        return self._mail(game, state, f"YOUR SEALED GUESS, {player}",
                          f"Round {state.round} of {ROUNDS}: reply{due} with one line, GUESS and a whole number "
                          f"from {LOW} to {HIGH}. Nobody sees your guess, or that you sent one, before every guess "
                          "is in; you may change it until then.",
                          f"Without an answer by the deadline, the game takes GUESS {DEFAULT} for you.")

    def welcome(self, state: GuessState, player: str, *, game: str, reply_to: str | None = None,
                open_cash: bool = False, mail_note: str = "") -> str:
        return self._mail(game, state, f"WELCOME, {player}", f"Players: {', '.join(state.seating)}. In each of "
                          f"{ROUNDS} rounds the game hides a number from {LOW} to {HIGH}; everyone sends a sealed "
                          "guess, and the closest guess scores a point.",
                          f"Reply to this mail (it goes to {reply_to}) to play." * bool(reply_to), mail_note)

    def error(self, state: GuessState, player: str, refusal: Refusal, applied: Sequence[AppliedLine] = (), *,
              game: str) -> str:
        stood = "; ".join(f"line {a.line_number}: {a.line}" for a in applied)
        where = f"line {refusal.line_number}: {refusal.line}" if refusal.line_number is not None else "your message"
        rest = "; ".join(f"line {n}: {t}" for n, t in refusal.not_applied)
        return self._mail(game, state, f"REFUSED, {player}", f"Applied before the refusal: {stood}" * bool(stood),
                          f"REFUSED {where}", refusal.reason, f"Not applied: {rest}" * bool(rest),
                          f"Legal now: GUESS {LOW} to GUESS {HIGH}, or STATUS." * bool(refusal.legal))

    def game_end(self, state: GuessState, player: str | None, events: Iterable[Event], *, game: str) -> str:
        return self._mail(game, state, "THE GAME IS OVER", *self.narrate(state, events, viewer=player),
                          *self.end_lines(state))

    def board_text(self, state: GuessState, *, game: str) -> str:
        return self._mail(game, state, "BOARD", *self._standing(state, None), *self.narrate(state, state.history))

    def board_key(self, state: GuessState) -> str:
        return "\n".join([*self._standing(state, None), *self.narrate(state, state.history)])

    def answer_query(self, state: GuessState, player: str, query: Query, *, log: Sequence[LogEntry[Guess]] | None,
                     game: str, open_cash: bool = False, deadline: datetime | str | None = None) -> str:
        return self._mail(game, state, f"STATUS for {player}", *self._standing(state, player),
                          *self.narrate(state, state.history))

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
