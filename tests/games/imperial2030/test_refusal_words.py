"""Imperial 2030's refusal reasons are said by templates/imperial2030/_refusals.j2, one macro a reason.

Each reason is told sample values here and must read as the order layer wrote it when its sentences were
Python f-strings (issue 28 moved them, byte for byte); a reason without its macro, or a noun the template
lacks, fails here rather than in a player's mail.
"""
from __future__ import annotations

import pytest
from jinja2 import UndefinedError

from pbem.games.imperial2030.orders.reasons import Among, Noun, Reason, Why, why
from pbem.games.imperial2030.sayings import say
from pbem.render.env import environment

USAGE = "BUY <nation> <value>"
SAID: list[tuple[Why, str]] = [
    (why(Reason.WHICH_SPACE), "Which space?"),
    (why(Reason.WHICH_CITY), "In which city?"),
    (why(Reason.IMPORT_COUNT, count=12), "12 is not a number of units to import."),
    (why(Reason.ARMY_OR_FLEET), "Army or fleet, and where?"),
    (why(Reason.WHERE_UNIT, unit="army"), "Where should the army go?"),
    (why(Reason.WHERE_UNIT, unit="fleet"), "Where should the fleet go?"),
    (why(Reason.LIST_ENDS, end=","), "The list ends with ',': is the rest of the order on the next line? An order "
                                     "must stay on one line."),
    (why(Reason.EMPTY_ITEM, text="army Moscow,, fleet x"), "An empty item in the list 'army Moscow,, fleet x'."),
    (why(Reason.WHICH_NATION), "Which nation?"),
    (why(Reason.BUY_PARTS), "A nation and a bond value are needed."),
    (why(Reason.UPGRADE_PARTS), "A nation, the bond handed back and the bond taken are needed."),
    (why(Reason.DONATE_PARTS), "An amount and a nation are needed."),
    (why(Reason.FROM_AND_TO), "Where from and where to?"),
    (why(Reason.FROM_WHERE), "From where?"),
    (why(Reason.TO_WHERE), "To where?"),
    (why(Reason.NOT_A_WORD, word="HOSTIL", near="HOSTILE"), "'HOSTIL' is not a word of the order; did you mean "
                                                            "HOSTILE?"),
    (why(Reason.WRITTEN_TWICE, keyword="VIA"), "VIA is written twice."),
    (why(Reason.ATTACK_WHICH), "Attack which nation?"),
    (why(Reason.FLEET_ATTACKS_FLEETS), "A fleet attacks fleets only."),
    (why(Reason.ONE_STANCE, hostile="HOSTILE", friendly="FRIENDLY"), "HOSTILE or FRIENDLY, not both."),
    (why(Reason.TAKES_NOTHING, keyword="PASS", rest="now"), "PASS takes nothing after it, not 'now'."),
    (why(Reason.VIA_WHICH, keyword="VIA"), "VIA which seas?"),
    (why(Reason.ATTACK_WHOM), "Attack whom, and where?"),
    (why(Reason.WHICH_REGION), "In which region?"),
    (why(Reason.WHICH_FACTORY), "Which factory?"),
    (why(Reason.WHICH_STANDING), "Which standing order?"),
    (why(Reason.NOT_STANDING, text="zz"), "'zz' is not a standing order."),
    (why(Reason.HISTORY_COUNT, keyword="HISTORY", text="x"), "HISTORY takes a number of events, not 'x'."),
    (why(Reason.NOT_YET, keyword="FLEET"), "FLEET is not available yet in this version of the game."),
    (why(Reason.ASKS_REPORT, keyword="STATUS"), "STATUS asks for a report; it is not an order."),
    (why(Reason.NAME_MISSING, what=Among.RONDEL_SPACE, of=""), "A rondel space is missing."),
    (why(Reason.SAME_SPELLING, text="sao", names=["Sao", "São"]), "'sao' could be Sao or São."),
    (why(Reason.WRITE_MORE, text="in", names=["India", "Indian Ocean", "Indochina"]),
     "'in' could be India, Indian Ocean or Indochina; write more of the name."),
    (why(Reason.WRITE_MORE, text="x", names=["X"]), "'x' could be X; write more of the name."),
    (why(Reason.NAMES_NO, text="zz", what=Among.NATION, of="", listed=("Russia", "China")),
     "'zz' names no nation (Russia, China)."),
    (why(Reason.NAMES_NO, text="zz", what=Among.REGION, of="", listed=()), "'zz' names no region."),
    (why(Reason.ONE_SPACE, space="investor", which="far"), "investor is one space; 'far' applies to Production or "
                                                           "Maneuver."),
    (why(Reason.ONLY_ONE_SPACE, name="Taxation", far="far"), "There is only one Taxation space; 'far' applies to "
                                                             "spaces that come twice."),
    (why(Reason.EMPTY_ORDER), "The order is empty."),
    (why(Reason.KEYWORD_COULD_BE, word="no", keywords=["NO FORCE", "NO FIGHT"]), "'no' could be NO FORCE, NO FIGHT."),
    (why(Reason.NOT_AN_ORDER, word="FOOBAR"), "'FOOBAR' is not an order."),
    (why(Reason.NO_ORDERS), "The message holds no orders."),
    (Why(Reason.BUY_PARTS, {}, USAGE), "A nation and a bond value are needed. Write: BUY <nation> <value>."),
]
NOUNS = [
    (Noun(Among.NATION), "nation"), (Noun(Among.REGION), "region"), (Noun(Among.SEA), "sea"),
    (Noun(Among.CANAL), "canal"), (Noun(Among.UNIT_KIND), "unit kind"), (Noun(Among.RONDEL_SPACE), "rondel space"),
    (Noun(Among.HOME_CITY, "Russia"), "home city of Russia"),
    (Noun(Among.HOME_PROVINCE, "Russia"), "home province of Russia"),
    (Noun(Among.OWN_ARMY, "Europe"), "region with an army of Europe"),
    (Noun(Among.OWN_FLEET, "Europe"), "region with a fleet of Europe"),
    (Noun(Among.OWN_UNIT, "Europe"), "region with a unit of Europe"),
    (Noun(Among.OWN_SEA, "Europe"), "sea with a fleet of Europe"),
    (Noun(Among.FLEET_REACH, "Rome"), "region a fleet in Rome can reach"),
    (Noun(Among.ARMY_REACH, "Paris"), "region an army in Paris can reach"),
]


@pytest.mark.parametrize(("reason", "text"), SAID, ids=[f"{w.reason.value}-{i}" for i, (w, _) in enumerate(SAID)])
def test_each_reason_reads_as_before(reason: Why, text: str) -> None:
    assert reason.text == text


def test_every_reason_has_its_macro_and_a_sample() -> None:
    module = environment().get_template("imperial2030/_refusals.j2").module
    assert [r for r in Reason if not hasattr(module, r.value)] == []
    assert {w.reason for w, _ in SAID} == set(Reason)


@pytest.mark.parametrize(("noun", "text"), NOUNS, ids=[n.kind.value for n, _ in NOUNS])
def test_each_noun_reads_as_before(noun: Noun, text: str) -> None:
    said = why(Reason.NAMES_NO, text="zz", what=noun.kind, of=noun.of, listed=()).text
    assert said == f"'zz' names no {text}."
    assert {n.kind for n, _ in NOUNS} == set(Among)


def test_a_noun_the_template_lacks_fails_loudly() -> None:
    with pytest.raises(UndefinedError):
        _ = why(Reason.NAME_MISSING, what="planet", of="").text


@pytest.mark.parametrize(("macro", "values", "text"), [
    ("decision", {"player": "bob", "kind": "investment", "nation": None}, "bob (investment)"),
    ("decision", {"player": "ann", "kind": "setup_bond", "nation": "Russia"}, "ann (setup bond for Russia)"),
    ("canal", {"asked": "India", "mover": "Europe", "unit": "fleet", "canal": "Suez"},
     "India: allow Europe's fleet through the Suez canal?"),
    ("battle", {"asked": "India", "mover": "Indies", "unit": "army", "dest": "Mumbai"},
     "India: fight Indies' army entering Mumbai?"),
    ("nobody", {}, "nobody"),
    ("game_over", {}, "the game is over"),
    ("imported_nothing", {"who": None}, "The nation imported nothing."),
    ("produced_nothing", {"who": "USA"}, "USA produced nothing."),
    ("sets_out", {"who": None, "unit": "army", "origin": "Paris", "dest": "Mumbai"},
     "The nation's army sets out from Paris to Mumbai, waiting for an answer."),
    ("unchanged", {"order": "RONDEL investor"}, "RONDEL investor: nothing changed."),
])
def test_what_a_message_waits_for_reads_as_before(macro: str, values: dict[str, object], text: str) -> None:
    """runmessage.py's few words (the game waits for ..., quiet actions) are said by _waiting.j2."""
    assert say("_waiting", macro, **values) == text


@pytest.mark.parametrize(("macro", "values", "text"), [
    ("import_hint", {"order": "IMPORT <army|fleet> <province>, ...", "limit": 3},
     "IMPORT <army|fleet> <province>, ... (up to 3 of the above in one order)"),
    ("produce_hint", {"order": "PRODUCE <province>, ..."},
     "PRODUCE <province>, ... (any of the factories above in one order)"),
    ("maneuver_hint", {"order": "FLEET|ARMY <from> TO <to> ATTACK <nation>", "kinds": "ARMY|FLEET",
                       "via": "VIA <sea>, ..."},
     "FLEET|ARMY <from> TO <to> ATTACK <nation> (attack a unit where it arrives; an army may add ARMY|FLEET, and "
     "VIA <sea>, ... to choose its convoy)"),
])
def test_the_hints_of_what_is_legal_read_as_before(macro: str, values: dict[str, object], text: str) -> None:
    """orders/legal.py's hints after the options (Legal now) are _refusals.j2's, the order forms as values."""
    assert say("_refusals", macro, **values) == text
