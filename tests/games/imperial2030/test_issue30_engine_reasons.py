"""Issue 30: the engine's refusals of Imperial 2030 reach the player in the player's language.

The engine words each refusal in English and names it with a code and ids (``engine.imperial2030.refusals``); the
moderator says it from the code, naming the ids as its views do (``enginewords``, ``_engine_reasons.j2``). So the
English the template says must be the engine's own sentence, byte for byte, over real positions: those the
engine's rule tests play, and a few made here for the codes they do not raise.
"""
from __future__ import annotations

import re

import pytest

from engine.core.log import LogEntry
from engine.imperial2030.actions import BuildFactory, Fight, FleetMove, Passage
from engine.imperial2030.errors import IllegalAction
from engine.imperial2030.game import replay, waiting_for
from engine.imperial2030.model import GameState, UnitKind
from engine.imperial2030.refusals import Refused
from pbem.games import kind_named
from pbem.games.imperial2030.enginewords import engine_reason
from pbem.languages import Language, speaking
from tests.games.issue30_harvest import harvest, raise_sites, refusal_of
from tests.helpers import FACTORY, maneuver_turn, move_to, play, standard_game, turn_of, with_flags, with_units

# The rule tests that refuse (test_option_lists and the order tests raise no refusal of their own and take long).
ENGINE_TESTS = ("test_rules_decisions", "test_rules_economy", "test_rules_end", "test_rules_investor",
                "test_rules_maneuver", "test_rules_maneuver_battles", "test_rules_maneuver_occupation",
                "test_rules_maneuver_phases", "test_rules_rondel", "test_rules_setup", "test_rules_variants")


def on_space(nation: str, space: str) -> GameState:
    """``nation`` has just moved onto ``space`` (its first placement, free) and its government is asked."""
    state, _ = move_to(turn_of(standard_game(), nation, rondel=None), space)
    return state


def caribbean_example() -> GameState:
    """The rulebook's fleet battle: Brazilian and US fleets in the Caribbean, Europe's about to enter."""
    state = with_units(standard_game(), "brazil", fleets={"caribbeansea": 1})
    state = with_units(state, "usa", fleets={"caribbeansea": 1})
    return maneuver_turn(with_units(state, "europe", fleets={"northatlantic": 1}), "europe")


def suez_example() -> GameState:
    """The rulebook's canal example: the USA controls Suez, Europe's fleet waits in the Mediterranean."""
    state = with_flags(standard_game(), "usa", "northafrica")
    state = with_units(state, "europe", armies={"paris": 1}, fleets={"mediterraneansea": 1, "rome": 1})
    return maneuver_turn(state, "europe")


def _made_here() -> list[IllegalAction]:
    """The refusals the rule and order tests leave out, each raised by a position made for it."""
    asked, _ = play(caribbean_example(), FleetMove("northatlantic", "caribbeansea"))  # Brazil (Dan) is asked
    at_canal, _ = play(suez_example(), FleetMove("mediterraneansea", "indianocean"))  # the USA (Eva) is asked
    poor = on_space("europe", FACTORY).fork()
    poor.nation_w("europe").treasury = 0
    return [refusal_of(call) for call in (
        lambda: play(asked, Fight(True, "usa"), "Dan"),
        lambda: play(asked, Fight(True, "brazil", UnitKind.ARMY), "Dan"),
        lambda: play(at_canal, Fight(True), "Eva"),
        lambda: play(poor, BuildFactory("rome")),
        lambda: replay(asked.board, asked.setup, [LogEntry("Dan", Passage(True), 99)]),
    )]


@pytest.fixture(scope="module")
def refusals() -> list[IllegalAction]:
    return harvest(tuple(f"tests.engine.imperial2030.{m}" for m in ENGINE_TESTS)) + _made_here()


def test_issue30_every_code_is_raised_and_said_in_english_as_the_engine_words_it(refusals: list[IllegalAction]) -> None:
    board = caribbean_example().board
    wrong = [(exc.code, exc.reason, said) for exc in refusals if (said := engine_reason(board, exc)) != exc.reason]
    assert not wrong
    assert {str(c) for c in Refused} <= {exc.code for exc in refusals}


def test_issue30_every_refusal_the_engine_raises_names_a_code() -> None:
    sites = raise_sites("imperial2030")
    assert len(sites) > 20 and [site for site in sites if not site[2]] == []


def test_issue30_a_russian_refusal_of_a_factory_order_has_no_english_sentence_left() -> None:
    kind = kind_named("imperial2030")
    position = on_space("europe", FACTORY)
    player = waiting_for(position)[0]
    english = kind.run_message(position, player, "BUILD Paris", {}).refusal
    with speaking(Language.RU):
        russian = kind.run_message(position, player, "BUILD Paris", {}).refusal
    assert english is not None and russian is not None
    assert english.reason == "Paris already has a factory."
    assert russian.reason != english.reason and set(re.findall(r"[A-Za-z]{3,}", russian.reason)) <= {"Paris"}


@pytest.mark.parametrize("language", [Language.RU, Language.PL, Language.ES, Language.IT])
def test_issue30_every_refusal_is_said_in_every_language(refusals: list[IllegalAction], language: Language) -> None:
    board = caribbean_example().board
    one_each = {exc.code: exc for exc in refusals}
    with speaking(language):
        same = [code for code, exc in one_each.items() if engine_reason(board, exc) == exc.reason]
    assert same == []


def test_issue30_an_engine_refusal_in_russian_names_places_in_russian_and_lists_orders_to_copy() -> None:
    """The engine's reason names ids in the seat's words; its 'Legal now', English prose in the engine, becomes
    the orders legal for the seat in its words, ready to copy."""
    kind = kind_named("imperial2030")
    state = on_space("europe", FACTORY)
    player = waiting_for(state)[0]
    with speaking(Language.RU):
        outcome = kind.run_message(state, player, "СТРОИТЬ Москва", {})
        assert outcome.refusal is not None
        text = kind.error(state, player, outcome.refusal, outcome.applied, game="g")
    assert "Москва" in text.split("Сейчас можно:")[0] and "Moscow" not in text
    assert "СТРОИТЬ" in text.split("Сейчас можно:")[1] and "build a factory" not in text
