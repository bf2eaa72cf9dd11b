"""The order language of a maneuver (shared/design/ORDERS.md): fleets, armies, convoys, attacks, canal and
battle answers, standing orders; split from test_orders.py, whose docstring says what drives its property tests.
"""
from __future__ import annotations

import random

import pytest

from engine.imperial2030.actions import (
    ArmyMove,
    Attack,
    ChooseSpace,
    ClearStanding,
    DestroyFactory,
    Done,
    Fight,
    FleetMove,
    Passage,
    SetStanding,
)
from engine.imperial2030.decisions import DecisionKind, pending
from engine.imperial2030.game import apply
from engine.imperial2030.mapfile import default_board
from engine.imperial2030.model import (
    GameSetup,
    GameState,
    ManeuverStep,
    Seat,
    Stance,
    StandingKind,
    StandingOrder,
    UnitKind,
)
from engine.imperial2030.movement import army_routes
from engine.imperial2030.randomplay import random_move
from engine.imperial2030.setup import new_game
from pbem.games.imperial2030.orders import (
    AmbiguousName,
    IllegalOrder,
    MessageLine,
    NotYourTurn,
    OrderSyntaxError,
    Query,
    QueryKind,
    UnknownName,
    apply_exchange,
    apply_message,
    format_action,
    legal_orders,
    parse_line,
    parse_order,
    split_message,
)
from tests.games.imperial2030.orderkit import assert_round_trip, play, random_game
from tests.imperialpositions import (
    SUEZ_DEAL,
    SUEZ_MOVE,
    SUEZ_OPENING,
    battle_question,
    canal_question,
    suez_position,
)

BOARD = default_board()
ARMY, FLEET = UnitKind.ARMY, UnitKind.FLEET


# --------------------------------------------------------------------------- the maneuver

# Two players, seed 1: ann governs China, Brazil and Europe, bob Russia, India and USA. In two rounds
# India's army reaches North Africa (its flag controls Suez) and its fleet the Indian Ocean, Europe's
# fleets wait in Rome and the Mediterranean, its army in Paris; round 3 ends on Europe's Maneuver.
@pytest.fixture(scope="module")
def suez() -> GameState:
    return suez_position()


class TestManeuverParse:
    @pytest.mark.parametrize(("text", "action"), [
        ("FLEET Rome TO Mediterranean Sea", FleetMove("rome", "mediterraneansea")),
        ("fleet rom to med", FleetMove("rome", "mediterraneansea")),  # prefix among own fleets, alias
        ("FLEET Med TO Ind", FleetMove("mediterraneansea", "indianocean")),  # Indochina, Indonesia: unreachable
        ("Fleet Mediterranean -> Indian Ocean attack India", FleetMove("mediterraneansea", "indianocean", "india")),
        ("FLEET Mediterranean Sea TO Indian Ocean ATTACK India fleet",
         FleetMove("mediterraneansea", "indianocean", "india")),
        ("ARMY Paris TO Mumbai HOSTILE", ArmyMove("paris", "mumbai", Stance.HOSTILE)),
        ("army par to mum friendly", ArmyMove("paris", "mumbai", Stance.FRIENDLY)),
        ("ARMY Paris TO Mumbai HOSTILE ATTACK India", ArmyMove("paris", "mumbai", Stance.HOSTILE, "india")),
        ("ARMY Paris TO Mumbai HOSTILE ATTACK Bharat army VIA Mediterranean Sea, Indian Ocean",
         ArmyMove("paris", "mumbai", Stance.HOSTILE, "india", ARMY, ("mediterraneansea", "indianocean"))),
        ("army paris to mumbai via med, io hostile", ArmyMove("paris", "mumbai", Stance.HOSTILE, None, None,
                                                              ("mediterraneansea", "indianocean"))),
        ("ARMY Paris TO London", ArmyMove("paris", "london")),
        ("ATTACK India fleet IN Indian Ocean", Attack("indianocean", "india", FLEET)),
        ("attack india in med", Attack("mediterraneansea", "india", None)),
        ("DESTROY FACTORY Mumbai", DestroyFactory("mumbai")),
        ("destroy mumbai", DestroyFactory("mumbai")),
        ("DONE", Done()),
        ("end maneuver", Done()),
        ("PASS", Done()),  # the passive answer in one's own maneuver
        ("STATUS", Query(QueryKind.STATUS)),
    ])
    def test_orders_of_the_government(self, suez: GameState, text: str, action: object) -> None:
        assert parse_line(suez, "ann", text) == action

    @pytest.mark.parametrize(("text", "error", "words"), [
        ("FLEET Rome", OrderSyntaxError, "Where from and where to?"),
        ("FLEET TO Mediterranean Sea", OrderSyntaxError, "From where?"),
        ("FLEET Rome TO", OrderSyntaxError, "To where?"),
        ("FLEET Rome TO Med ATTACK", OrderSyntaxError, "Attack which nation?"),
        ("FLEET Rome TO Med ATTACK India army", OrderSyntaxError, "fleets only"),
        ("ARMY Paris TO Mumbai HOSTILE FRIENDLY", OrderSyntaxError, "not both"),
        ("ARMY Paris TO Mumbai HOSTILE please", OrderSyntaxError, "HOSTILE takes nothing after it"),
        ("ARMY Paris TO Mumbai VIA", OrderSyntaxError, "VIA which seas?"),
        ("ARMY Paris TO Mumbai ATTACK India ATTACK China", OrderSyntaxError, "written twice"),
        ("ATTACK India", OrderSyntaxError, "Attack whom, and where?"),
        ("ATTACK India IN", OrderSyntaxError, "In which region?"),
        ("DESTROY FACTORY", OrderSyntaxError, "Which factory?"),
        ("DONE now", OrderSyntaxError, "DONE takes nothing after it"),
        ("FLEET Xanadu TO Med", UnknownName, "names no region with a fleet of Europe (Mediterranean Sea, Rome)"),
        ("ARMY Paris TO Narnia", UnknownName, "names no region"),
        ("ARMY Paris TO Mumbai VIA Med, Atlantis", UnknownName, "names no sea"),
        ("ARMY Paris TO Mumbai ATTACK Atlantis", UnknownName, "names no nation"),
    ])
    def test_unreadable_maneuver_orders(self, suez: GameState, text: str, error: type, words: str) -> None:
        with pytest.raises(error) as caught:
            parse_order(suez, "ann", text)
        assert words in caught.value.reason
        assert "DONE" in caught.value.legal and "FLEET Rome TO Mediterranean Sea" in caught.value.legal

    def test_an_ambiguous_destination_lists_the_reachable_candidates(self, suez: GameState) -> None:
        with pytest.raises(AmbiguousName) as caught:
            parse_order(suez, "ann", "ARMY Paris TO N")  # North Africa, Near East, Nigeria, New York …
        assert set(caught.value.candidates) == {"North Africa", "Near East"}  # … where the army can go

    def test_an_exact_name_is_read_anywhere_and_refused_by_the_engine(self, suez: GameState) -> None:
        assert parse_order(suez, "ann", "FLEET Shanghai TO China Sea") == FleetMove("shanghai", "chinasea")
        result = apply_message(suez, "ann", "FLEET Shanghai TO China Sea")
        assert isinstance(result.error, IllegalOrder)
        assert "no fleet in Shanghai" in result.error.reason
        assert "FLEET Rome TO Mediterranean Sea" in result.error.orders

    def test_maneuver_orders_out_of_turn(self, suez: GameState) -> None:
        with pytest.raises(NotYourTurn) as caught:
            parse_order(suez, "bob", "FLEET Mumbai TO Indian Ocean")
        assert caught.value.waiting_for == ("ann",)

    def test_answers_to_a_canal_question(self, suez: GameState) -> None:
        state = canal_question(suez)
        for text, action in [("ALLOW", Passage(True)), ("permit", Passage(True)), ("DENY", Passage(False)),
                             ("refuse", Passage(False)), ("PASS", Passage(True))]:
            assert parse_order(state, "bob", text) == action, text
        with pytest.raises(NotYourTurn) as caught:
            parse_order(state, "ann", "DONE")  # the mover waits for the answer
        assert caught.value.waiting_for == ("bob",)
        with pytest.raises(OrderSyntaxError):
            parse_order(state, "bob", "ALLOW Europe")

    def test_answers_to_a_battle_question(self, suez: GameState) -> None:
        state = battle_question(suez)
        for text, action in [("FIGHT", Fight(True)), ("FIGHT India fleet", Fight(True, "india", FLEET)),
                             ("fight fleet", Fight(True, None, FLEET)), ("FIGHT india", Fight(True, "india")),
                             ("battle", Fight(True)), ("NO FIGHT", Fight(False)), ("don't fight", Fight(False)),
                             ("PASS", Fight(False))]:
            assert parse_order(state, "bob", text) == action, text
        assert legal_orders(state, "bob")[:2] == ("FIGHT India fleet", "NO FIGHT")

    @pytest.mark.parametrize(("text", "order"), [
        ("STANDING ALLOW europe SUEZ", StandingOrder(StandingKind.ALLOW, "europe", "suez")),
        ("STANDING DENY usa PANAMA", StandingOrder(StandingKind.DENY, "usa", "panama")),
        ("standing deny eu su", StandingOrder(StandingKind.DENY, "europe", "suez")),  # prefixes
        ("STANDING ALLOW Suez Canal", StandingOrder(StandingKind.ALLOW, None, "suez")),
        ("STANDING ALLOW", StandingOrder(StandingKind.ALLOW)),
        ("STANDING DENY United States", StandingOrder(StandingKind.DENY, "usa")),
        ("STANDING FIGHT usa", StandingOrder(StandingKind.FIGHT, "usa")),
        ("STANDING NO FIGHT", StandingOrder(StandingKind.NO_FIGHT)),
        ("STANDING NO FIGHT usa", StandingOrder(StandingKind.NO_FIGHT, "usa")),
        ("standing dont fight china", StandingOrder(StandingKind.NO_FIGHT, "china")),
        ("STANDING FORCE", StandingOrder(StandingKind.FORCE)),
        ("STANDING NO FORCE russia", StandingOrder(StandingKind.NO_FORCE, "russia")),
    ])
    def test_standing_orders_at_any_time(self, start: GameState, text: str, order: StandingOrder) -> None:
        assert parse_order(start, "bob", text) == SetStanding(order)  # bob has nothing to decide: still fine
        assert parse_order(start, "ann", text) == SetStanding(order)

    def test_standing_clear_and_errors(self, start: GameState) -> None:
        assert parse_order(start, "cat", "STANDING CLEAR") == ClearStanding()
        for text, error in [("STANDING", OrderSyntaxError), ("STANDING PASS", OrderSyntaxError),
                            ("STANDING CLEAR all", OrderSyntaxError), ("STANDING ALLOW Narnia", UnknownName),
                            ("STANDING FIGHT usa suez", UnknownName)]:  # canals only narrow ALLOW and DENY
            with pytest.raises(error):
                parse_order(start, "bob", text)
        result = apply_message(start, "bob", "STANDING ALLOW europe SUEZ\nSTANDING NO FIGHT")
        assert result.ok and result.state.standing["bob"] == (StandingOrder(StandingKind.ALLOW, "europe", "suez"),
                                                              StandingOrder(StandingKind.NO_FIGHT))


class TestManeuverFormat:
    @pytest.mark.parametrize(("action", "text"), [
        (FleetMove("rome", "mediterraneansea"), "FLEET Rome TO Mediterranean Sea"),
        (FleetMove("mediterraneansea", "indianocean", "india"), "FLEET Mediterranean Sea TO Indian Ocean ATTACK India"),
        (ArmyMove("paris", "mumbai", Stance.HOSTILE), "ARMY Paris TO Mumbai HOSTILE"),
        (ArmyMove("paris", "london"), "ARMY Paris TO London"),
        (ArmyMove("paris", "mumbai", Stance.FRIENDLY, "india", ARMY, ("mediterraneansea", "indianocean")),
         "ARMY Paris TO Mumbai FRIENDLY ATTACK India army VIA Mediterranean Sea, Indian Ocean"),
        (ArmyMove("chicago", "colombia", None, "brazil"), "ARMY Chicago TO Colombia ATTACK Brazil"),
        (Attack("mongolia", "china", ARMY), "ATTACK China army IN Mongolia"),
        (Attack("caribbeansea", "usa", None), "ATTACK USA IN Caribbean Sea"),
        (DestroyFactory("murmansk"), "DESTROY FACTORY Murmansk"),
        (Done(), "DONE"),
        (Fight(True), "FIGHT"),
        (Fight(True, "china", FLEET), "FIGHT China fleet"),
        (Fight(False), "NO FIGHT"),
        (Passage(True), "ALLOW"),
        (Passage(False), "DENY"),
        (SetStanding(StandingOrder(StandingKind.ALLOW, "europe", "suez")), "STANDING ALLOW Europe Suez"),
        (SetStanding(StandingOrder(StandingKind.DENY, None, "panama")), "STANDING DENY Panama"),
        (SetStanding(StandingOrder(StandingKind.NO_FIGHT)), "STANDING NO FIGHT"),
        (SetStanding(StandingOrder(StandingKind.NO_FORCE, "russia")), "STANDING NO FORCE Russia"),
        (ClearStanding(), "STANDING CLEAR"),
    ])
    def test_canonical_text(self, action: object, text: str) -> None:
        assert format_action(BOARD, action) == text  # type: ignore[arg-type]

    def test_every_standing_order_reads_back(self, start: GameState) -> None:
        for kind in StandingKind:
            for nation in (None, *BOARD.nation_ids):
                canals = (None, *BOARD.canals) if kind in (StandingKind.ALLOW, StandingKind.DENY) else (None,)
                for canal in canals:
                    assert_round_trip(start, "bob", SetStanding(StandingOrder(kind, nation, canal)))
        assert_round_trip(start, "bob", ClearStanding())


@pytest.mark.slow
def test_maneuver_canal_and_battle_options_read_back() -> None:
    """Random games until maneuver, canal and battle questions were all met: every option reads back,
    and so does every convoy forced with VIA and every move with an attack."""
    seen: set[DecisionKind] = set()
    for seed in range(1, 41):
        state = random_game(seed, 3 + seed % 4, frozenset())
        rng = random.Random(seed)
        for _ in range(1500):
            if state.finished:
                break
            for decision in pending(state):
                if decision.kind in (DecisionKind.MANEUVER, DecisionKind.CANAL, DecisionKind.BATTLE):
                    seen.add(decision.kind)
                    routes: dict[str, dict] = {}
                    for option in decision.options:
                        assert_round_trip(state, decision.player, option.action)
                        move = option.action
                        if isinstance(move, ArmyMove):
                            if move.origin not in routes:
                                routes[move.origin] = army_routes(state, state.turn.nation, state.step,  # type: ignore[union-attr, arg-type]
                                                                  move.origin)
                            seas = routes[move.origin][move.dest].seas
                            if seas:
                                assert_round_trip(state, decision.player,
                                                  ArmyMove(move.origin, move.dest, move.stance, via=seas))
            if seen == {DecisionKind.MANEUVER, DecisionKind.CANAL, DecisionKind.BATTLE}:
                return
            player, action = random_move(state, rng)
            assert_round_trip(state, player, action)
            state, _ = apply(state, player, action)
    pytest.fail(f"random play met only {sorted(seen)}")


class TestWaitingLines:
    def test_a_move_that_raises_a_question_makes_the_rest_wait(self, suez: GameState) -> None:
        result = apply_message(suez, "ann", SUEZ_MOVE, end_maneuver=True)
        assert result.ok and result.error is None
        assert [a.action for a in result.applied] == [FleetMove("rome", "mediterraneansea"),
                                                      FleetMove("mediterraneansea", "indianocean")]
        assert result.question is not None
        assert (result.question.player, result.question.kind) == ("bob", DecisionKind.CANAL)
        assert result.waiting == (MessageLine(3, "ARMY Paris TO Mumbai HOSTILE"),)
        assert not result.not_applied

    def test_the_answer_resumes_the_waiting_lines(self, suez: GameState) -> None:
        first = apply_exchange(suez, "ann", split_message(SUEZ_MOVE), end_maneuver=True)
        assert first.waiting == {"ann": (MessageLine(3, "ARMY Paris TO Mumbai HOSTILE"),)}
        # one message of bob answers three questions: passage, battle (India's fleet), and the army's passage
        second = apply_exchange(first.state, "bob", split_message("ALLOW\nNO FIGHT\nALLOW"), first.waiting,
                                end_maneuver=True)
        assert second.message.ok and [a.action for a in second.message.applied] == [
            Passage(True), Fight(False), Passage(True)]
        army, end = second.resumed
        assert army.player == "ann" and army.resumed
        assert [a.action for a in army.applied] == [ArmyMove("paris", "mumbai", Stance.HOSTILE)]
        assert army.question is not None and army.question.kind is DecisionKind.CANAL and army.waiting == ()
        assert [(a.action, a.implicit) for a in end.applied] == [(Done(), True)]  # the end of ann's message
        assert second.waiting == {}
        europe = second.state.nations["europe"]
        assert europe.armies == {"mumbai": 1} and europe.hostile == {"mumbai": 1}
        assert [a.version for a in second.applied] == list(range(first.state.version, second.state.version))
        assert [a.player for a in second.applied] == ["bob", "bob", "ann", "bob", "ann"]
        assert second.state.turn.nation == "russia"  # type: ignore[union-attr]

    def test_a_waiting_line_the_answer_made_illegal_is_refused(self, suez: GameState) -> None:
        first = apply_exchange(suez, "ann", split_message(SUEZ_MOVE), end_maneuver=True)
        second = apply_exchange(first.state, "bob", split_message("DENY"), first.waiting, end_maneuver=True)
        (army,) = second.resumed
        assert isinstance(army.error, IllegalOrder) and army.error.line_number == 3
        assert "cannot reach Mumbai" in army.error.reason
        assert army.not_applied == (MessageLine(3, "ARMY Paris TO Mumbai HOSTILE"),)
        assert second.waiting == {}
        (decision,) = pending(second.state)
        assert (decision.player, decision.kind) == ("ann", DecisionKind.MANEUVER)  # asked to continue: no DONE
        assert "DONE" in army.error.orders

    def test_without_end_maneuver_only_the_written_lines_apply(self, suez: GameState) -> None:
        result = apply_message(suez, "ann", "FLEET Rome TO Mediterranean Sea")
        assert [a.action for a in result.applied] == [FleetMove("rome", "mediterraneansea")]
        assert isinstance(result.state.step, ManeuverStep)

    @pytest.mark.parametrize(("text", "ends"), [
        ("FLEET Rome TO Mediterranean Sea", True),
        ("FLEET Rome TO Mediterranean Sea\nSTATUS", True),
        ("STATUS\nOPTIONS", False),  # queries only: the maneuver goes on
        ("STANDING NO FIGHT\nDONATE 1 TO Europe", False),  # orders at any time are no maneuver orders
        ("FLEET Rome TO Mediterranean Sea\nARMY Paris TO Nowhere", False),  # a refused line: ann must go on
        ("FLEET Rome TO Mediterranean Sea\nDONE", True),  # ended by hand, not twice
    ])
    def test_the_end_of_a_message_ends_the_maneuver(self, suez: GameState, text: str, ends: bool) -> None:
        result = apply_message(suez, "ann", text, end_maneuver=True)
        dones = [a for a in result.applied if isinstance(a.action, Done)]
        assert (len(dones) == 1) is ends
        assert all(a.implicit for a in dones) is ("DONE" not in text)
        assert isinstance(result.state.step, ManeuverStep) is not ends

    def test_choosing_the_maneuver_space_alone_ends_nothing(self) -> None:
        state, _ = new_game(BOARD, GameSetup((Seat("ann"), Seat("bob")), seed=1, deal=SUEZ_DEAL))
        for player, text in SUEZ_OPENING[:-1]:
            state = apply_message(state, player, text, end_maneuver=True).state
        result = apply_message(state, "ann", "RONDEL maneuver", end_maneuver=True)
        assert [a.action for a in result.applied] == [ChooseSpace("maneuver_1")]
        assert isinstance(result.state.step, ManeuverStep)

    def test_a_standing_answer_needs_no_waiting(self, suez: GameState) -> None:
        state = play(suez, ("bob", SetStanding(StandingOrder(StandingKind.ALLOW, "europe", "suez"))),
                     ("bob", SetStanding(StandingOrder(StandingKind.NO_FIGHT, "europe"))))
        result = apply_message(state, "ann", SUEZ_MOVE, end_maneuver=True)
        assert result.ok and result.question is None and not result.waiting
        assert [a.line.number for a in result.applied] == [1, 2, 3, 3]
        assert result.applied[-1].implicit


def test_a_waiting_player_may_still_give_orders_at_any_time(suez: GameState) -> None:
    first = apply_exchange(suez, "ann", split_message(SUEZ_MOVE), end_maneuver=True)
    again = apply_exchange(first.state, "ann", split_message("STANDING NO FIGHT\nSTATUS\nDONE"), first.waiting,
                           end_maneuver=True)
    assert [a.action for a in again.message.applied] == [SetStanding(StandingOrder(StandingKind.NO_FIGHT))]
    assert [q.query.kind for q in again.message.queries] == [QueryKind.STATUS]
    assert isinstance(again.message.error, NotYourTurn) and again.message.error.line == "DONE"
    assert again.message.question is None and again.resumed == ()
    assert again.waiting == first.waiting  # the lines that waited still wait, unchanged
