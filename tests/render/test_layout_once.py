"""What every seat's mail of one move shares is laid out once (issue 13: "render what is common to all seats
once per order"), and a later move still shows its own board.

The board, the nations and the rondel read the same in every seat's report;
they used to be laid out again for each seat. ``pbem.render.identitycache.same_objects``
keeps the answers for the state objects asked about last.
"""
from __future__ import annotations

import random
import threading
from typing import Any

import pytest

from engine.core.seats import Seat
from engine.eight_minute_empire import game as eme
from engine.eight_minute_empire.model import Setup as EmeSetup
from engine.eight_minute_empire.randomplay import random_move as eme_random_move
from engine.eight_minute_empire.scoring import final_scores
from engine.imperial2030.game import apply
from engine.imperial2030.mapfile import default_board
from engine.imperial2030.model import GameSetup
from engine.imperial2030.randomplay import random_move
from engine.imperial2030.setup import new_game
from pbem.games.eight_minute_empire import views as eme_views
from pbem.games.eight_minute_empire.kind import EightMinuteEmpire
from pbem.games.imperial2030.kind import Imperial2030
from pbem.render import identitycache
from pbem.render.art import fill_panel
from pbem.render.env import environment
from pbem.render.identitycache import same_objects

IMPERIAL = Imperial2030()
EME = EightMinuteEmpire()


def imperial_states(moves: int, seed: int = 3) -> list[Any]:
    state = new_game(default_board(), GameSetup(tuple(Seat(f"p{i}") for i in range(4)), seed))[0]
    rng, states = random.Random(seed), [state]
    for _ in range(moves):
        state = apply(state, *random_move(state, rng))[0]
        states.append(state)
    return states


def eme_states(moves: int, seed: int = 3) -> list[Any]:
    board = EME.board
    state = eme.new_game(board, EmeSetup(tuple(Seat(f"p{n}", f"p{n}@x.org") for n in range(3)), seed))[0]
    rng, states = random.Random(seed), [state]
    for _ in range(moves):
        state = eme.apply(board, state, *eme_random_move(board, state, rng))[0]
        states.append(state)
    return states


SHARED_PARTS = ("imperial2030/_nations.j2", "imperial2030/_rondel.j2", "imperial2030/_board.j2")


def count_layouts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every time one of Imperial's parts that read the same for every seat is taken to be laid out (by a
    report's own call or by an include)."""
    env = environment()
    taken: list[str] = []
    original = env.get_template

    def counting(name: Any, *args: Any, **kwargs: Any) -> Any:
        if name in SHARED_PARTS:
            taken.append(name)
        return original(name, *args, **kwargs)

    monkeypatch.setattr(env, "get_template", counting)
    return taken


def test_imperial_every_seats_report_of_a_move_lays_the_shared_parts_out_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The nations, the rondel and the board read the same for every seat; the players' part does not (only
    the reader's own cash is shown, unless the game's cash is open)."""
    state = imperial_states(60)[-1]
    taken = count_layouts(monkeypatch)
    reports = [IMPERIAL.report(state, player, [], game="g") for player in state.players]
    assert sorted(taken) == sorted(SHARED_PARTS)
    assert all("THE WORLD BOARD" in report and "THE RONDEL" in report for report in reports)


def laid_out_anew(monkeypatch: pytest.MonkeyPatch, kind: Any, state: Any, player: str) -> str:
    """The report with nothing kept: every answer worked out from nothing, as before the memory."""
    with monkeypatch.context() as patched:
        patched.setattr(identitycache._SameObjects, "__call__", lambda self, *args, **kwargs: self._compute(*args, **kwargs))
        return str(kind.report(state, player, [], game="g"))


def test_imperial_the_next_move_shows_its_own_board(monkeypatch: pytest.MonkeyPatch) -> None:
    states = imperial_states(100)[40:]
    player = next(iter(states[0].players))
    for before, after in zip(states, states[1:], strict=False):
        IMPERIAL.report(before, player, [], game="g")
        shown = IMPERIAL.report(after, player, [], game="g")
        assert shown == laid_out_anew(monkeypatch, IMPERIAL, after, player), after.version


def test_eme_every_seats_report_of_a_move_draws_the_map_and_scores_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The map and the points each player would score now (R8-SCORE-1 to 4; public, R8-PIECE-3) read the same
    for every seat."""
    state = eme_states(12)[-1]
    filled: list[Any] = []
    scored: list[Any] = []

    def filling(*args: Any) -> Any:
        filled.append(args)
        return fill_panel(*args)

    def scoring(*args: Any) -> Any:
        scored.append(args)
        return final_scores(*args)

    monkeypatch.setattr(eme_views, "fill_panel", filling)
    monkeypatch.setattr(eme_views, "final_scores", scoring)
    reports = [EME.report(state, player, [], game="g") for player in state.seating]
    assert len(filled) == len(eme_views.map_art().panels)
    assert len(scored) == 1
    assert all("THE MAP" in report and "points now" in report for report in reports)


def test_eme_the_next_move_shows_its_own_map(monkeypatch: pytest.MonkeyPatch) -> None:
    states = eme_states(30)
    for before, after in zip(states, states[1:], strict=False):
        EME.report(before, after.seating[0], [], game="g")
        shown = EME.report(after, after.seating[0], [], game="g")
        assert shown == laid_out_anew(monkeypatch, EME, after, after.seating[0])


# --- the memory itself --------------------------------------------------------------------------------------


def test_the_same_objects_are_answered_once() -> None:
    calls: list[object] = []

    @same_objects
    def layout(state: object) -> str:
        calls.append(state)
        return f"board of {id(state)}"

    state = object()
    assert layout(state) == layout(state) == f"board of {id(state)}"
    assert calls == [state]


def test_equal_but_other_objects_are_worked_out_again() -> None:
    """Identity, not equality: two equal lists are two objects (a state changed in place would not be
    caught by equality either; states are not changed once made)."""
    calls: list[object] = []

    @same_objects
    def length(items: list[int]) -> int:
        calls.append(items)
        return len(items)

    one, two = [1, 2], [1, 2]
    assert length(one) == length(two) == 2
    assert len(calls) == 2


def test_a_few_answers_are_kept_for_workers_laying_out_moves_of_several_games() -> None:
    calls: list[object] = []

    @same_objects
    def layout(state: object) -> object:
        calls.append(state)
        return state

    states = [object() for _ in range(identitycache.KEPT)]
    for _ in range(3):
        for state in states:
            layout(state)
    assert calls == states
    newest = object()
    layout(newest)
    layout(states[0])  # the oldest went to make room
    assert calls == [*states, newest, states[0]]


def test_keyword_arguments_are_worked_out_each_time() -> None:
    calls: list[str] = []

    @same_objects
    def layout(state: object, game: str = "") -> str:
        calls.append(game)
        return game

    state = object()
    assert layout(state, game="a") == layout(state, game="a") == "a"
    assert calls == ["a", "a"]


def test_threads_asking_at_once_get_their_own_answers() -> None:
    @same_objects
    def layout(state: list[int]) -> int:
        return sum(state)

    states = [[n] * 3 for n in range(16)]
    wrong: list[tuple[int, int]] = []

    def ask() -> None:
        for _ in range(300):
            for state in states:
                if layout(state) != sum(state):
                    wrong.append((layout(state), sum(state)))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []
