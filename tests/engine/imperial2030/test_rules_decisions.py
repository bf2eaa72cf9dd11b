"""Rules section 8: decisions (R-DECIDE-1, R-DECIDE-2) and how the engine refuses.

R-DECIDE-3 (standing orders) is not implemented yet and not tested here.
Contract checked throughout: an illegal action raises ``IllegalAction`` with a reason and
a non-empty ``legal`` list; an action by a player with nothing to decide raises
``NotYourDecision`` naming whom the game waits for; ``engine.imperial2030.decisions.pending`` lists the
decider, the kind, every option and the default.
"""
from __future__ import annotations

import random

import pytest

from engine.imperial2030.actions import (
    BuildFactory,
    BuyBond,
    ChooseSpace,
    ForceStop,
    Import,
    ImportUnit,
    Pass,
    Produce,
    UpgradeBond,
)
from engine.imperial2030.decisions import DecisionKind, decisions_for, pending
from engine.imperial2030.errors import IllegalAction, NotYourDecision
from engine.imperial2030.game import apply, waiting_for
from engine.imperial2030.model import UnitKind, Variant
from engine.imperial2030.randomplay import random_move
from tests.helpers import (
    BOARD,
    FACTORY,
    IMPORT,
    INVESTOR,
    MANEUVER_1,
    NAMES,
    NATIONS,
    PRODUCTION_1,
    decision,
    move_to,
    new,
    options,
    play,
    refused,
    standard_game,
    turn_of,
    with_cash,
)
from tests.imperialpositions import force_question, investment_question


def test_r_decide_1_pending_names_the_decider_the_kind_the_options_and_the_default():
    """R-DECIDE-1: "at every moment the engine knows exactly which players it waits for and
    what each may decide, with every legal option"."""
    state = standard_game()
    [d] = pending(state)
    assert (d.player, d.nation, d.kind, d.default) == ("Anna", "russia", DecisionKind.RONDEL, None)
    assert [o.action for o in d.options] == [ChooseSpace(s) for s in BOARD.rondel_ids]
    assert all(o.cost == 0 and o.steps == 0 for o in d.options)
    assert waiting_for(state) == ("Anna",)
    assert decisions_for(state, "Anna") == (d,) and decisions_for(state, "Ben") == ()


def test_r_decide_1_rondel_options_are_exactly_the_legal_spaces_with_steps_and_cost():
    """R-DECIDE-1 with R-RONDEL-3: every listed space is accepted, every other refused;
    each option states its steps and its cost."""
    state = with_cash(turn_of(standard_game(), "russia", rondel=FACTORY, power=5), Anna=4)
    listed = {o.action.space: (o.steps, o.cost) for o in decision(state).options}
    assert listed == {"production_1": (1, 0), "maneuver_1": (2, 0), "investor": (3, 0),
                      "import": (4, 2), "production_2": (5, 4)}
    for space in BOARD.rondel_ids:
        if space in listed:
            play(state, ChooseSpace(space))
        else:
            refused(state, ChooseSpace(space))


def test_r_decide_1_investment_options_are_exactly_the_legal_investments():
    """R-DECIDE-1 with R-INVEST-5: every bond purchase or upgrade is accepted iff listed,
    and each option costs its price."""
    state = investment_question()
    d = decision(state)
    listed = {o.action for o in d.options}
    for o in d.options:
        if isinstance(o.action, BuyBond):
            assert o.cost == o.action.value
        elif isinstance(o.action, UpgradeBond):
            assert o.cost == o.action.new - o.action.old
    values = [t.value for t in BOARD.tables.bonds]
    candidates = [BuyBond(n, v) for n in NATIONS for v in values]
    candidates += [UpgradeBond(n, old, new) for n in NATIONS for old in values for new in values]
    for action in candidates:
        if action in listed:
            play(state, action)
        else:
            with pytest.raises(IllegalAction):
                play(state, action)


def test_r_decide_1_factory_production_import_options():
    """R-DECIDE-1: Factory lists each site at 5 plus PASS; Production lists "all" and each
    factory, combinable up to their number; Import lists each single unit at 1, up to 3."""
    state = turn_of(standard_game(), "europe")
    factory, _ = move_to(state, FACTORY)
    d = decision(factory)
    assert {(o.action, o.cost) for o in d.options} == {
        (BuildFactory("berlin"), 5), (BuildFactory("rome"), 5), (Pass(), 0)}
    production, _ = move_to(state, PRODUCTION_1)
    d = decision(production)
    assert [o.action for o in d.options] == [Produce(None), Produce(("paris",)), Produce(("london",))]
    assert (d.limit, d.default) == (2, Produce(None))
    imports, _ = move_to(state, IMPORT)
    d = decision(imports)
    assert d.kind is DecisionKind.IMPORT and d.limit == 3 and d.default is None
    singles = {o.action.units[0] for o in d.options if o.action.units}
    assert singles == {ImportUnit(UnitKind.ARMY, h) for h in BOARD.homes["europe"]} | {
        ImportUnit(UnitKind.FLEET, "london"), ImportUnit(UnitKind.FLEET, "rome")}
    assert all(o.cost == 1 for o in d.options if o.action.units)


@pytest.mark.parametrize(("players", "seed", "variants"), [
    (2, 11, ()), (4, 12, (Variant.NO_INVESTOR_CARD,)), (6, 13, (Variant.TAX_INCREASE_BONUS,)),
    (3, 14, (Variant.EXPERT,)),
])
def test_r_decide_1_every_listed_option_is_legal_during_random_play(players, seed, variants):
    """R-DECIDE-1: along random legal play, the players waited for are those with a pending
    decision, and every option listed is accepted by the engine."""
    state, _ = new(NAMES[:players], deal={}, variants=variants, seed=seed)
    rng = random.Random(seed)
    for _ in range(150):
        if state.finished:
            break
        decisions = pending(state)
        assert tuple(d.player for d in decisions) == waiting_for(state)
        for d in decisions:
            assert d.options, d
            for option in d.options:
                apply(state, d.player, option.action)
        player, action = random_move(state, rng)
        state, _ = apply(state, player, action)


# =========================================================================== R-DECIDE-2


def test_r_decide_2_the_force_question_goes_to_the_holder_only_default_no_force():
    """R-DECIDE-2: out-of-turn questions -- here the Swiss-bank force-stop (R-RONDEL-5) -- go
    to the deciding player only; the passive default is "no force-stop"."""
    state = force_question()
    d = decision(state)
    assert (d.player, d.nation, d.kind) == ("Dan", "russia", DecisionKind.FORCE_STOP)
    assert [o.action for o in d.options] == [ForceStop(True), ForceStop(False)]
    assert d.default == ForceStop(False) and d.out_of_turn
    after, _ = play(state, d.default)  # nobody else to ask: Russia goes to Import
    assert decision(after).kind is DecisionKind.IMPORT and decision(after).player == "Anna"


def test_r_decide_2_the_investment_question_default_is_no_investment():
    """R-DECIDE-2: investments (R-INVEST-3/4) go to the investor only; default: no investment."""
    state = investment_question()
    d = decision(state)
    assert (d.player, d.kind, d.default, d.out_of_turn) == ("Ben", DecisionKind.INVESTMENT, Pass(), True)
    assert Pass() in options(state)
    with pytest.raises(NotYourDecision):
        play(state, BuyBond("india", 4), "Anna")


def test_r_decide_2_defaults_are_legal_answers():
    """R-DECIDE-2: the passive default is always one of the accepted answers."""
    for state in (force_question(), investment_question()):
        d = decision(state)
        play(state, d.default)
    production, _ = move_to(standard_game(), PRODUCTION_1)
    play(production, decision(production).default)


def test_r_decide_2_expert_setup_bond_question_default_pass():
    """R-DECIDE-2 with R-SETUP-7: the bond offer goes to one player; passing is the default."""
    state, _ = new(NAMES[:3], variants=[Variant.EXPERT], start_player="Cleo")
    d = decision(state)
    assert (d.player, d.nation, d.kind, d.default) == ("Cleo", "russia", DecisionKind.SETUP_BOND, Pass())
    assert Pass() in options(state)


# =========================================================================== refusals


def test_not_your_decision_names_whom_the_game_waits_for():
    """R-DECIDE-1/2: "the game waits for" the force-stop answer of Dan: Anna, the government,
    cannot answer it, and is told whom the game waits for."""
    state = force_question()
    with pytest.raises(NotYourDecision) as info:
        play(state, ForceStop(False), "Anna")
    message = str(info.value)
    assert "Anna" in message and "Dan" in message and "waits for" in message
    assert "Russia" in message


def test_not_your_decision_in_turn_names_the_government():
    """R-TURN-2 / R-DECIDE-1: Ben cannot move Russia's marker; the game waits for Anna."""
    with pytest.raises(NotYourDecision) as info:
        play(standard_game(), ChooseSpace(FACTORY), "Ben")
    assert "Anna" in str(info.value) and "rondel" in str(info.value)


def test_not_your_decision_for_a_stranger():
    """R-DECIDE-1: somebody who is not at the table has nothing to decide."""
    with pytest.raises(NotYourDecision) as info:
        play(standard_game(), ChooseSpace(FACTORY), "Zoe")
    assert "Zoe" in str(info.value)


def test_not_your_decision_is_an_illegal_action():
    """The refusal hierarchy: NotYourDecision is an IllegalAction (one except clause suffices)."""
    assert issubclass(NotYourDecision, IllegalAction)


@pytest.mark.parametrize(("situation", "action"), [
    ("rondel", BuyBond("russia", 4)),
    ("rondel", Pass()),
    ("force", ChooseSpace(INVESTOR)),
    ("force", BuyBond("russia", 4)),
    ("investment", ChooseSpace(FACTORY)),
    ("investment", ForceStop(True)),
    ("factory", Produce(None)),
    ("factory", BuildFactory("moscow")),
    ("production", BuildFactory("rome")),
    ("production", Produce(("berlin",))),
    ("import", Produce(None)),
    ("import", Import((ImportUnit(UnitKind.FLEET, "paris"),))),
])
def test_illegal_actions_give_a_reason_and_what_is_legal(situation, action):
    """R-DECIDE-1: every refusal says why and lists what is legal now."""
    states = {
        "rondel": lambda: standard_game(),
        "force": force_question,
        "investment": investment_question,
        "factory": lambda: move_to(turn_of(standard_game(), "europe"), FACTORY)[0],
        "production": lambda: move_to(turn_of(standard_game(), "europe"), PRODUCTION_1)[0],
        "import": lambda: move_to(turn_of(standard_game(), "europe"), IMPORT)[0],
    }
    refused(states[situation](), action)


def test_a_refused_action_changes_nothing():
    """``apply`` never changes the state it is given; a refusal leaves it as it was."""
    state = standard_game()
    before = state.clone()
    with pytest.raises(IllegalAction):
        play(state, ChooseSpace("nowhere"))
    assert state == before
    after, _ = play(state, ChooseSpace(FACTORY))
    assert state == before and after.version == state.version + 1


# =========================================================================== unknown names


def europe_on(space: str):
    state, _ = move_to(turn_of(standard_game(), "europe"), space)
    return state


@pytest.mark.parametrize(("space", "action"), [
    (PRODUCTION_1, Produce(("atlantis",))),
    (PRODUCTION_1, Produce(("moscow",))),
    (FACTORY, BuildFactory("moscow")),
    (IMPORT, Import((ImportUnit(UnitKind.ARMY, "moscow"),))),
])
def test_refusals_name_a_region_that_is_not_ones_own(space, action):
    """R-FACTORY-1 / R-PROD-1 / R-IMPORT-1 with R-DECIDE-1: a region that is not the nation's
    own is refused with a reason and the legal choices."""
    refused(europe_on(space), action)


@pytest.mark.parametrize(("space", "action"), [
    (FACTORY, BuildFactory("atlantis")),
    (IMPORT, Import((ImportUnit(UnitKind.ARMY, "atlantis"),))),
])
def test_refusals_of_an_unknown_region_are_illegal_actions(space, action):
    """R-FACTORY-1 / R-IMPORT-1 with R-DECIDE-1: a city or province that does not exist is an
    illegal action like any other (reason + legal list), never a crash."""
    error = refused(europe_on(space), action)
    assert "atlantis" in error.reason


def test_refusal_of_a_bond_of_an_unknown_nation_says_so():
    """R-INVEST-5 with R-DECIDE-1: the reason must be the true one (no such nation), not a
    price the player can in fact pay."""
    state = with_cash(turn_of(standard_game(), "russia", rondel=MANEUVER_1), Ben=2)
    state, _ = move_to(state, INVESTOR)  # Ben has 4
    error = refused(state, BuyBond("atlantis", 4))
    assert "atlantis" in error.reason.lower()
