"""Eight-Minute Empire's mails, byte for byte: golden files of whole seeded games played through the kind.

Every text a player of Eight-Minute Empire reads - reports for every seat
with and without the map, prompts for every kind of decision, refusals,
the welcome, every help topic, the queries, the narration of each move and
the end of the game with its score sheet - is written for several seeded
games driven only through the kind's public interface (``run_message`` with
the bot's answers and some wrong orders). The files were made from the
f-string views before those moved into templates, so any change of wording
or layout shows here as a diff. Regenerate with ``PBEM_REGEN_GOLDEN=1`` only
for a wording change that is meant, and read the diff.
"""
from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.core.seats import Seat
from engine.eight_minute_empire.model import State
from pbem.errors import BadSetup
from pbem.games import kind_named
from pbem.games.eight_minute_empire.help import topics
from pbem.games.eight_minute_empire.kind import EightMinuteEmpire
from pbem.games.kind import SetupChoices
from pbem.games.results import Query

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "eight_minute_empire"
REGENERATE = os.environ.get("PBEM_REGEN_GOLDEN") == "1"
KIND = kind_named("eight-minute-empire")
assert isinstance(KIND, EightMinuteEmpire)
NAMES = ("ann", "bob", "cy", "dee", "eve")
DEADLINE = datetime(2030, 5, 3, 18, 0, tzinfo=UTC)

# wrong orders tried at every few moves: each is refused (or, after a good line, refused with lines applied)
WRONG = ("FOO 3", "BID 99", "TAKE 9", "PLACE 2 12", "PLACE 12 13 14", "MOVE 1-25", "MOVE 12 13-14",
         "MOVE 2 armies 12-13 x2", "DESTROY 2 red 13", "DESTROY 13", "CITY 99", "NEUTRAL 3", "DONE",
         "MOVE twelve armies 3-4", "PLACE x2 x3 12", "r0", "Thanks!")
HELP_ASKED = (None, "build", "regions", "nothing-like-it", *topics())
GAMES = (  # name, players, seed, variants, options
    ("three", 3, 1, (), {}),
    ("pair", 2, 2, ("neutral",), {}),
    ("series", 3, 3, ("long",), {"age_order": ("cy", "ann", "bob")}),
    ("four", 4, 4, (), {}),
    ("five", 5, 5, (), {}),
)


class Record:
    """The texts of one game in the order they were made, each under a heading that says what it is."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def add(self, label: str, text: str | list[str] | tuple[str, ...] | None) -> None:
        if text is None:
            body = "(none)\n"
        elif isinstance(text, str):
            body = text
        else:
            body = "".join(f"{line}\n" for line in text)
        self.parts.append(f"##### {label}\n{body}")

    def text(self) -> str:
        return "".join(self.parts)


def wrong_orders(record: Record, state: State, game: str, move: int) -> None:
    """Each seat sends one wrong order (the seat on turn also a good line before one), the refusal recorded."""
    for index, player in enumerate(state.seating):
        wrong = WRONG[(move + index) % len(WRONG)]
        outcome = KIND.run_message(state, player, wrong, {})
        if outcome.refusal is not None:
            record.add(f"error {player} {wrong!r}", KIND.error(state, player, outcome.refusal, outcome.applied,
                                                               game=game))
        good = KIND.legal_orders(state, player)
        if good:
            text = f"{good[0]}\n{WRONG[(move + index + 5) % len(WRONG)]}\nSTATUS"
            outcome = KIND.run_message(state, player, text, {})
            if outcome.refusal is not None:
                record.add(f"error after a good line {player} {text!r}",
                           KIND.error(state, player, outcome.refusal, outcome.applied, game=game))


def queries(record: Record, state: State, game: str, log: list) -> None:  # type: ignore[type-arg]
    for player in state.seating:
        for kind in ("status", "options", "board", "history"):
            asked = Query(1, kind.upper(), kind, None, 3 if kind == "history" else None)
            record.add(f"query {kind} {player}", KIND.answer_query(state, player, asked, log=log, game=game))


def play(name: str, players: int, seed: int, variants: tuple[str, ...], options: dict[str, object]) -> str:
    record = Record()
    seats = tuple(Seat(n, f"{n}@example.org") for n in NAMES[:players])
    setup = KIND.make_setup(SetupChoices(seats, seed, variants, options))
    state, events = KIND.rules.new_game(setup)
    created = KIND.created(name, state, events)
    record.add("new game lines", KIND.new_game_lines(created))
    for player in state.seating:
        record.add(f"welcome {player}", KIND.welcome(state, player, game=name, reply_to=f"{name}@pbem.example"))
    record.add(f"welcome {state.seating[0]} without reply address", KIND.welcome(state, state.seating[0], game=name))
    for asked in HELP_ASKED:
        record.add(f"help {asked}", KIND.answer_query(state, state.seating[0], Query(1, "HELP", "help", asked),
                                                      log=[], game=name))
    log: list = []  # type: ignore[type-arg]
    strategies = KIND.bot.strategies
    move = 0
    while not state.finished and move < 400:
        pending = [p for p in KIND.rules.pending(state) if not p.answered]
        if move % 9 == 0:
            wrong_orders(record, state, name, move)
        if move % 17 == 0:
            queries(record, state, name, log)
            record.add("summary lines", KIND.summary_lines(name, state))
        record.add("pending lines", KIND.pending_lines(state, options=move % 17 == 0))
        decision = pending[move % len(pending)]
        player = decision.player
        deadline = DEADLINE if move % 2 else "2030-05-04 12:00 UTC"
        prompt = KIND.prompt(state, player, game=name, deadline=deadline if move % 3 else None)
        assert prompt is not None
        record.add(f"prompt {player}", prompt)
        other = state.seating[move % len(state.seating)]
        if other != player and move % 3 == 0:
            record.add(f"prompt {other}", KIND.prompt(state, other, game=name, deadline=deadline))
        answer = KIND.bot.answer(prompt, strategies[move % len(strategies)], seed, None)
        assert answer is not None
        if answer.startswith("TAKE") and move % 2:
            answer = answer.split(";")[0]  # the card alone: its action is then asked for step by step
        outcome = KIND.run_message(state, player, answer, {})
        assert outcome.refusal is None, (answer, outcome.refusal)
        log.extend(outcome.entries)
        move += 1
        state = outcome.state
        record.add(f"move {move}: {player} {answer!r}", [line for a in outcome.applied for line in a.narration])
        for viewer in (*state.seating, None):
            record.add(f"narration for {viewer}", KIND.narrate(state, outcome.events, viewer))
        if state.finished:
            break
        seat = state.seating[move % len(state.seating)]
        board = move % 5 == 0
        record.add(f"report {seat} map {board}", KIND.report(state, seat, outcome.events, game=name, board=board))
    assert state.finished
    for viewer in (*state.seating, None):
        record.add(f"game end for {viewer}", KIND.game_end(state, viewer, outcome.events, game=name))
    record.add("end lines", KIND.end_lines(state))
    record.add("summary lines", KIND.summary_lines(name, state))
    record.add("pending lines", KIND.pending_lines(state))
    queries(record, state, name, log)
    wrong_orders(record, state, name, move)
    record.add("board text", KIND.board_text(state, game=name))
    return record.text()


@pytest.mark.parametrize(("name", "players", "seed", "variants", "options"), GAMES, ids=[g[0] for g in GAMES])
def test_every_mail_of_a_seeded_game_is_unchanged(name: str, players: int, seed: int, variants: tuple[str, ...],
                                                  options: dict[str, object]) -> None:
    text = play(name, players, seed, variants, options)
    path = GOLDEN / f"game_{name}.txt"
    if REGENERATE:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="ascii")
        return
    if not path.exists():
        pytest.fail(f"no golden file {path.name}; create it with PBEM_REGEN_GOLDEN=1 and read it by eye")
    expected = path.read_text(encoding="ascii")
    if text != expected:
        got, want = text.split("\n"), expected.split("\n")
        first = next((i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), min(len(got), len(want)))
        pytest.fail(f"{path.name} differs from line {first + 1}: got {got[first:first + 3]!r}, "
                    f"want {want[first:first + 3]!r}")


SETUP_REFUSALS = (  # as the f-strings wrote them before they moved into _refusals.j2
    ((), {"foo": 1, "bar": 2}, "Eight-Minute Empire has no option --bar, --foo; its options: --age-order"),
    (("x", "y"), {}, "Eight-Minute Empire has no variant x, y; its variants: neutral, long"),
    (("neutral",), {}, "the neutral armies are a two-player variant"),
    ((), {"age_order": ("ann",)}, "--age-order must name every player once, youngest first: ann, bob, cy"),
)


@pytest.mark.parametrize(("variants", "options", "reason"), SETUP_REFUSALS)
def test_a_refused_setup_tells_the_game_master_the_same_words(variants: tuple[str, ...], options: dict[str, object],
                                                               reason: str) -> None:
    seats = tuple(Seat(n) for n in NAMES[:3])
    with pytest.raises(BadSetup) as refused:
        KIND.make_setup(SetupChoices(seats, 1, variants, options))
    assert str(refused.value) == reason
