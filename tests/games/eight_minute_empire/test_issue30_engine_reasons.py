"""Issue 30: the engine's refusals of Eight-Minute Empire reach the player in the player's language.

The engine words each refusal in English and names it with a code (``engine.eight_minute_empire.refusals``); the
moderator says it from the code (``_engine_reasons.j2``). So the English the template says must be the engine's
own sentence, byte for byte, over real positions: those the engine's and the order tests play, and a few made
here for the codes they do not raise.
"""
from __future__ import annotations

import random
import re
from dataclasses import replace

import pytest

from engine.core.errors import IllegalAction
from engine.core.log import LogEntry, replay
from engine.core.seats import Seat
from engine.eight_minute_empire.actions import Bid, City, Destroy, Done, Move, Place, PlaceNeutral, Take
from engine.eight_minute_empire.board import default_board
from engine.eight_minute_empire.game import apply, new_game
from engine.eight_minute_empire.model import CardInPlay, Phase, Setup, State, Variant
from engine.eight_minute_empire.randomplay import random_move
from engine.eight_minute_empire.refusals import Refused
from engine.eight_minute_empire.rules import EightMinuteRules
from pbem.games import kind_named
from pbem.games.eight_minute_empire.enginewords import engine_reason
from pbem.languages import Language, speaking
from tests.games.issue30_harvest import harvest, raise_sites, refusal_of

BOARD = default_board()
NAMES = ("ann", "bob", "cy", "dee", "eve")


def start(players: int = 3, seed: int = 1) -> State:
    state, _ = new_game(BOARD, Setup(tuple(Seat(n) for n in NAMES[:players]), seed))
    return state


def on_turn(card: int, player: str = "ann") -> State:
    """A position where ``player`` has taken ``card`` and uses its action."""
    left = tuple(a.amount for a in BOARD.cards[card].actions)
    return replace(start(), phase=Phase.ACTION, current=player, in_play=CardInPlay(card, left))


def card_with(kind: str) -> int:
    """A card of one action, of ``kind``."""
    return next(c.id for c in BOARD.cards.values() if c.join == "" and c.actions[0].kind.value == kind)


def _made_here() -> list[IllegalAction]:
    """The refusals the rule and order tests leave out, each raised by a position made for it."""
    seats = tuple(Seat(n) for n in ("ann", "bob", "cy"))
    mover = card_with("move")
    over = replace(start(), phase=Phase.OVER)
    neutral = new_game(BOARD, Setup(seats[:2], 1, (), frozenset({Variant.NEUTRAL})))[0]
    two_actions = next(c.id for c in BOARD.cards.values() if c.join == "+")
    kinds = BOARD.cards[two_actions].actions
    spent = replace(on_turn(two_actions), in_play=replace(on_turn(two_actions).in_play, left=(0, kinds[1].amount)))
    spent_order = {"place": Place(((12, 1),)), "move": Move(((12, 13),)), "water": Move(((12, 13),)),
                   "city": City(12), "destroy": Destroy((("bob", 12),))}[kinds[0].kind.value]
    rules = EightMinuteRules()
    destroyer = next(c.id for c in BOARD.cards.values() if any(a.kind.value == "destroy" for a in c.actions))
    calls = [
        lambda: new_game(BOARD, Setup(seats[:1], 1)),
        lambda: new_game(BOARD, Setup(seats, 1, ("ann", "bob"))),
        lambda: apply(BOARD, over, "ann", Done()),
        lambda: apply(BOARD, start(), "zed", Bid(1)),
        lambda: apply(BOARD, neutral, "ann", Bid(1)),
        lambda: apply(BOARD, neutral, "ann", PlaceNeutral(30)),
        lambda: apply(BOARD, start(), "ann", Take(1)),
        lambda: apply(BOARD, replace(start(), phase=Phase.TAKE, current="ann"), "ann", Take(9)),
        lambda: apply(BOARD, spent, "ann", spent_order),
        lambda: apply(BOARD, on_turn(mover), "ann", Place(((12, 1),))),
        lambda: apply(BOARD, on_turn(mover), "ann", City(12)),
        lambda: apply(BOARD, on_turn(mover), "ann", Destroy((("bob", 12),))),
        lambda: apply(BOARD, on_turn(card_with("place")), "ann", Move(((12, 13),))),
        lambda: apply(BOARD, on_turn(mover), "ann", Move(((12,),))),
        lambda: apply(BOARD, on_turn(mover), "ann", Move(((12, 13, 12, 13, 12, 13, 12, 13),))),
        lambda: apply(BOARD, on_turn(destroyer), "ann", Destroy((("bob", 12), ("cy", 12)))),
        lambda: replay(rules, Setup(seats, 1), [LogEntry("ann", Bid(0), 7)]),
    ]
    return [refusal_of(call) for call in calls]


def _random_refusals() -> list[IllegalAction]:
    """Refusals of random orders in random positions of random games (the regions and counts vary)."""
    rng = random.Random(30)
    found = []
    for game in range(12):
        state = start(2 + game % 4, seed=game)
        for _ in range(60):
            if state.phase is Phase.OVER:
                break
            who, action = random_move(BOARD, state, rng)
            wrong = rng.choice([Take(rng.randint(1, 8)), Place(((rng.randint(1, 25), rng.randint(1, 4)),)),
                                Move(((12, rng.randint(1, 25)),)), City(rng.randint(1, 25)), Bid(rng.randint(0, 20)),
                                Destroy(((rng.choice(state.seating), rng.randint(1, 25)),))])
            try:
                apply(BOARD, state, who, wrong)
            except IllegalAction as exc:
                found.append(exc)
            state, _ = apply(BOARD, state, who, action)
    return found


@pytest.fixture(scope="module")
def refusals() -> list[IllegalAction]:
    return (harvest(("tests.engine.eight_minute_empire.test_rules", "tests.games.eight_minute_empire.test_orders"))
            + _made_here() + _random_refusals())


def test_issue30_every_code_is_raised_and_said_in_english_as_the_engine_words_it(refusals: list[IllegalAction]) -> None:
    wrong = [(exc.code, exc.reason, engine_reason(exc)) for exc in refusals if engine_reason(exc) != exc.reason]
    assert not wrong
    assert {str(c) for c in Refused} | {"log_version"} <= {exc.code for exc in refusals}


def test_issue30_every_refusal_the_engine_raises_names_a_code() -> None:
    sites = raise_sites("eight_minute_empire") + raise_sites("core")
    assert len(sites) > 20 and [site for site in sites if not site[2]] == []


def test_issue30_a_russian_refusal_of_a_card_order_has_no_english_sentence_left() -> None:
    kind = kind_named("eight_minute_empire")
    position = on_turn(card_with("move"))
    english = kind.run_message(position, "ann", "CITY 12", waiting={}).refusal
    with speaking(Language.RU):
        russian = kind.run_message(position, "ann", "CITY 12", waiting={}).refusal
    assert english is not None and russian is not None
    assert english.reason == "This card does not build a city."
    assert russian.reason != english.reason and not set(re.findall(r"[A-Za-z]{3,}", russian.reason))


@pytest.mark.parametrize("language", [Language.RU, Language.PL, Language.ES, Language.IT])
def test_issue30_every_refusal_is_said_in_every_language(refusals: list[IllegalAction], language: Language) -> None:
    one_each = {exc.code: exc for exc in refusals}
    with speaking(language):
        same = [code for code, exc in one_each.items() if engine_reason(exc) == exc.reason]
    assert same == []
