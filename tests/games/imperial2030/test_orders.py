"""The order language (shared/design/ORDERS.md): names, message splitting, parsing, formatting, applying.

The central property: every option the engine offers, written in canonical
text, reads back as the very same action in the same position. Random legal
games (engine.imperial2030.randomplay) drive it, so new engine options are covered without
new tests.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.imperial2030.actions import (
    BuildFactory,
    BuyBond,
    ChooseSpace,
    Donate,
    FleetMove,
    ForceStop,
    Import,
    ImportUnit,
    Pass,
    Produce,
    UpgradeBond,
)
from engine.imperial2030.decisions import DecisionKind, pending
from engine.imperial2030.errors import IllegalAction
from engine.imperial2030.game import apply
from engine.imperial2030.mapfile import default_board
from engine.imperial2030.model import (
    FinishedStep,
    ForceStopStep,
    GameState,
    InvestStep,
    UnitKind,
    Variant,
)
from engine.imperial2030.randomplay import random_move
from pbem.games.imperial2030.orders import (
    AmbiguousName,
    IllegalOrder,
    MessageLine,
    NotYourTurn,
    OrderError,
    OrderSyntaxError,
    Query,
    QueryKind,
    UnknownName,
    apply_message,
    format_action,
    legal_orders,
    normalise,
    parse_line,
    parse_order,
    resolve_nation,
    resolve_region,
    resolve_space,
    split_message,
)
from pbem.games.imperial2030.orders.keywords import SPECS, Role
from pbem.games.imperial2030.orders.reasons import Among, Noun
from tests.games.imperial2030.orderkit import assert_round_trip, play, random_game

BOARD = default_board()
ARMY, FLEET = UnitKind.ARMY, UnitKind.FLEET


def with_marker(state: GameState, nation: str, space: str | None) -> GameState:
    """The same position with the nation's rondel marker elsewhere (for "production"/"production far")."""
    moved = state.clone()
    moved.nations[nation].rondel = space
    return moved


# --------------------------------------------------------------------------- names


class TestNames:
    @pytest.mark.parametrize("text", ["New York", "newyork", "new-york", "NY", "N.Y.", "new york city", "NEW YORK"])
    def test_spellings_of_new_york(self, text: str) -> None:
        assert resolve_region(BOARD, text) == "newyork"

    def test_normalise_drops_case_spaces_hyphens_dots_apostrophes_and_accents(self) -> None:
        assert normalise("St. Peter's-burg") == "stpetersburg"
        assert normalise("Brasília") == normalise("Brasilia") == "brasilia"
        assert normalise("Ürümqi") == "urumqi"

    @pytest.mark.parametrize(("text", "nation"), [
        ("russia", "russia"), ("RU", "russia"), ("Russian Federation", "russia"), ("united states", "usa"),
        ("America", "usa"), ("EU", "europe"), ("Brasil", "brazil"), ("PRC", "china"),
    ])
    def test_nation_aliases(self, text: str, nation: str) -> None:
        assert resolve_nation(BOARD, text) == nation

    def test_every_id_and_name_and_alias_resolves_to_itself(self) -> None:
        for region in BOARD.regions.values():
            for text in (region.id, region.name, *region.aliases):
                assert resolve_region(BOARD, text) == region.id
        for nation in BOARD.nations:
            for text in (nation.id, nation.name, *nation.aliases):
                assert resolve_nation(BOARD, text) == nation.id

    def test_unique_prefix_in_context(self) -> None:
        assert resolve_nation(BOARD, "ind") == "india"  # exact alias IND
        assert resolve_nation(BOARD, "bra") == "brazil"  # prefix of Brazil/Brasil/Brazilian
        assert resolve_region(BOARD, "vla", among=BOARD.homes["russia"]) == "vladivostok"
        assert resolve_region(BOARD, "mu", among=BOARD.homes["russia"]) == "murmansk"

    def test_prefix_only_within_context(self) -> None:
        # "mu" would also be Mumbai on the whole map; among Russia's homes it is Murmansk only
        with pytest.raises(AmbiguousName):
            resolve_region(BOARD, "mu")

    def test_exact_name_outside_context_is_accepted_so_the_engine_can_explain(self) -> None:
        assert resolve_region(BOARD, "Paris", among=BOARD.homes["russia"]) == "paris"

    def test_ambiguous_prefix_lists_candidates(self) -> None:
        with pytest.raises(AmbiguousName) as caught:
            resolve_region(BOARD, "new", among=BOARD.homes["usa"])
        assert set(caught.value.candidates) == {"New Orleans", "New York"}
        assert "New Orleans" in str(caught.value) and "New York" in str(caught.value)

    def test_unknown_name_suggests_close_spellings(self) -> None:
        with pytest.raises(UnknownName) as caught:
            resolve_region(BOARD, "Moskow", among=BOARD.homes["russia"], what=Noun(Among.HOME_PROVINCE, "Russia"))
        error = caught.value
        assert error.reason == "'Moskow' names no home province of Russia (Moscow, Novosibirsk, Murmansk, Vladivostok)."
        assert "Moscow" in error.suggestions
        assert "Did you mean: Moscow" in str(error)
        assert error.candidates == ("Moscow", "Novosibirsk", "Murmansk", "Vladivostok")

    def test_unknown_nation(self) -> None:
        with pytest.raises(UnknownName) as caught:
            resolve_nation(BOARD, "Chnia")
        assert caught.value.suggestions[0] == "China"


class TestRondelSpaces:
    @pytest.mark.parametrize(("text", "space"), [
        ("investor", "investor"), ("import", "import"), ("taxation", "taxation"), ("tax", "taxation"),
        ("factory", "factory"), ("Production", "production_1"), ("production far", "production_2"),
        ("maneuver", "maneuver_1"), ("manoeuvre far", "maneuver_2"), ("production_2", "production_2"),
        ("production 2", "production_2"), ("MANEUVER_1", "maneuver_1"), ("prod", "production_1"), ("inv", "investor"),
    ])
    def test_first_placement_takes_spaces_in_map_order(self, text: str, space: str) -> None:
        assert resolve_space(BOARD, text, None) == space

    @pytest.mark.parametrize(("marker", "near", "far"), [
        ("production_1", "production_2", "production_1"),
        ("taxation", "production_1", "production_2"),
        ("import", "production_2", "production_1"),
        ("production_2", "production_1", "production_2"),
    ])
    def test_production_means_the_nearer_one_clockwise(self, marker: str, near: str, far: str) -> None:
        assert resolve_space(BOARD, "production", marker) == near
        assert resolve_space(BOARD, "production far", marker) == far

    def test_maneuver_from_the_first_maneuver_is_the_second(self) -> None:
        assert resolve_space(BOARD, "maneuver", "maneuver_1") == "maneuver_2"
        assert resolve_space(BOARD, "maneuver", "investor") == "maneuver_2"
        assert resolve_space(BOARD, "maneuver far", "investor") == "maneuver_1"

    def test_ambiguous_and_unknown_spaces(self) -> None:
        with pytest.raises(AmbiguousName) as caught:
            resolve_space(BOARD, "i", None)
        assert set(caught.value.candidates) == {"Investor", "Import"}
        with pytest.raises(UnknownName) as unknown:
            resolve_space(BOARD, "taxtion", None)
        assert "Taxation" in unknown.value.suggestions

    def test_far_only_for_doubled_spaces(self) -> None:
        with pytest.raises(OrderSyntaxError):
            resolve_space(BOARD, "investor far", None)

    def test_rondel_order_uses_the_nations_marker(self, start: GameState) -> None:
        assert parse_order(with_marker(start, "russia", "production_1"), "ann", "RONDEL production") == \
            ChooseSpace("production_2")
        assert parse_order(start, "ann", "RONDEL production") == ChooseSpace("production_1")


# --------------------------------------------------------------------------- split_message


class TestSplitMessage:
    def test_lines_comments_quotes_and_separators(self) -> None:
        text = ("Hi all,\n"  # a greeting: set aside, not refused (tests/games/imperial2030/test_courtesy_lines.py)
                "\n"
                "# my plan\n"
                "> RONDEL taxation\n"
                "  >> older quote\n"
                "RONDEL import; IMPORT army Moscow ;\n"
                "BUY China 9   # the cheap one\n")
        assert split_message(text) == [
            MessageLine(6, "RONDEL import"),
            MessageLine(6, "IMPORT army Moscow"),
            MessageLine(7, "BUY China 9"),
        ]

    @pytest.mark.parametrize("marker", ["-- ", "--", "END", "end", "  End  "])
    def test_everything_after_signature_or_end_is_ignored(self, marker: str) -> None:
        text = f"PASS\n{marker}\nRONDEL taxation\nJohn\n"
        assert split_message(text) == [MessageLine(1, "PASS")]

    def test_dashes_inside_a_line_are_not_a_signature(self) -> None:
        assert split_message("BUILD new-york\n--- \nPASS") == [
            MessageLine(1, "BUILD new-york"), MessageLine(2, "---"), MessageLine(3, "PASS")]

    def test_windows_line_ends_and_empty_message(self) -> None:
        assert split_message("PASS\r\nNO FORCE\r\n") == [MessageLine(1, "PASS"), MessageLine(2, "NO FORCE")]
        assert split_message("") == []
        assert split_message("\n\n# nothing\n") == []


# --------------------------------------------------------------------------- parsing


class TestParse:
    """Each canonical form of ORDERS.md, in Russia's turn (ann) unless noted."""

    def test_rondel(self, start: GameState) -> None:
        assert parse_order(start, "ann", "RONDEL taxation") == ChooseSpace("taxation")
        assert parse_order(start, "ann", "rondel Production far") == ChooseSpace("production_2")
        assert parse_order(start, "ann", "ROND investor") == ChooseSpace("investor")

    def test_build_resolves_in_the_nations_home_cities(self, start: GameState) -> None:
        assert parse_order(start, "ann", "BUILD Vladivostok") == BuildFactory("vladivostok")
        assert parse_order(start, "ann", "build vlad") == BuildFactory("vladivostok")
        assert parse_order(start, "ann", "BUILD Moskva") == BuildFactory("moscow")
        with pytest.raises(AmbiguousName) as caught:
            parse_order(start, "ann", "BUILD m")  # Moscow, Murmansk
        assert set(caught.value.candidates) == {"Moscow", "Murmansk"}

    def test_produce(self, start: GameState) -> None:
        assert parse_order(start, "ann", "PRODUCE") == Produce(None)
        assert parse_order(start, "ann", "produce all") == Produce(None)
        assert parse_order(start, "ann", "PRODUCE Moscow, Vladivostok") == Produce(("moscow", "vladivostok"))
        assert parse_order(start, "ann", "PRODUCE vlad and mos") == Produce(("vladivostok", "moscow"))
        assert parse_order(start, "ann", "PRODUCE nothing") == Produce(())

    def test_import(self, start: GameState) -> None:
        assert parse_order(start, "ann", "IMPORT") == Import(())
        assert parse_order(start, "ann", "import nothing") == Import(())
        assert parse_order(start, "ann", "IMPORT army Moscow, army moscow, fleet vladivostok") == Import((
            ImportUnit(ARMY, "moscow"), ImportUnit(ARMY, "moscow"), ImportUnit(FLEET, "vladivostok")))
        assert parse_order(start, "ann", "IMPORT 2 army moscow, fleet vlad") == Import((
            ImportUnit(ARMY, "moscow"), ImportUnit(ARMY, "moscow"), ImportUnit(FLEET, "vladivostok")))
        assert parse_order(start, "ann", "import 2 armies novosibirsk fleet murmansk") == Import((
            ImportUnit(ARMY, "novosibirsk"), ImportUnit(ARMY, "novosibirsk"), ImportUnit(FLEET, "murmansk")))

    def test_import_names_the_nation_whose_turn_it_is(self, start: GameState) -> None:
        china = play(start, ("ann", ChooseSpace("taxation")))
        assert parse_order(china, "bob", "IMPORT fleet Sh") == Import((ImportUnit(FLEET, "shanghai"),))

    def test_buy_and_upgrade(self, start: GameState) -> None:
        invest = play(start, ("ann", ChooseSpace("investor")))
        player = pending(invest)[0].player
        assert parse_order(invest, player, "BUY China 9") == BuyBond("china", 9)
        assert parse_order(invest, player, "buy 9 china") == BuyBond("china", 9)
        assert parse_order(invest, player, "BUY united states 2") == BuyBond("usa", 2)
        assert parse_order(invest, player, "UPGRADE China 4 TO 12") == UpgradeBond("china", 4, 12)
        assert parse_order(invest, player, "upgrade cn 4 -> 12") == UpgradeBond("china", 4, 12)

    def test_pass_force_no_force(self, start: GameState) -> None:
        state = start.clone()
        state.step = ForceStopStep("taxation", ("ann",))
        assert parse_order(state, "ann", "PASS") == Pass()
        assert parse_order(state, "ann", "FORCE") == ForceStop(True)
        assert parse_order(state, "ann", "NO FORCE") == ForceStop(False)
        assert parse_order(state, "ann", "no-force") == ForceStop(False)
        assert parse_order(state, "ann", "Don't force") == ForceStop(False)

    def test_donate_at_any_time(self, start: GameState) -> None:
        assert parse_order(start, "bob", "DONATE 3 TO China") == Donate("china", 3)
        assert parse_order(start, "ann", "donate 1 to RU") == Donate("russia", 1)

    def test_unknown_keyword_suggests_and_lists_legal_orders(self, start: GameState) -> None:
        with pytest.raises(OrderSyntaxError) as caught:
            parse_order(start, "ann", "RONDLE taxation")
        error = caught.value
        assert "RONDEL" in error.suggestions
        assert "RONDEL taxation" in error.legal and "RONDEL production_2" in error.legal

    @pytest.mark.parametrize("text", ["RONDEL", "BUY", "BUY China", "BUY China nine", "UPGRADE China 4",
                                      "PASS now", "FORCE please", "IMPORT 12 army Moscow", "IMPORT army",
                                      "IMPORT 2", "PRODUCE Moscow,", "DONATE", "DONATE lots TO Russia",
                                      "BUY China 99999999999"])
    def test_unreadable_orders(self, start: GameState, text: str) -> None:
        with pytest.raises(OrderSyntaxError) as caught:
            parse_order(start, "ann", text)
        assert caught.value.legal  # names what ann may write now
        assert "RONDEL taxation" in caught.value.legal

    def test_names_are_checked_in_context(self, start: GameState) -> None:
        with pytest.raises(UnknownName) as caught:
            parse_order(start, "ann", "IMPORT army Pekin")
        assert "Russia" in caught.value.reason
        with pytest.raises(UnknownName):
            parse_order(start, "ann", "BUY Narnia 2")

    def test_parsing_does_not_change_the_state(self, start: GameState) -> None:
        before = start.clone()
        parse_order(start, "ann", "RONDEL taxation")
        assert start == before

    def test_queries_and_unsupported_orders(self, start: GameState) -> None:
        assert parse_line(start, "bob", "STATUS") == Query(QueryKind.STATUS)
        assert parse_line(start, "ann", "history 5") == Query(QueryKind.HISTORY, count=5)
        assert parse_line(start, "ann", "HELP import") == Query(QueryKind.HELP, topic="import")
        with pytest.raises(OrderSyntaxError):
            parse_order(start, "ann", "STATUS")  # a report request is no action
        # the maneuver orders are supported now: read here, refused by the engine (Russia chooses a space)
        assert parse_order(start, "ann", "FLEET Rome TO Mediterranean Sea") == FleetMove("rome", "mediterraneansea")
        assert [s.keyword for s in SPECS if s.role is Role.UNSUPPORTED] == []  # no UnsupportedOrder any more
        result = apply_message(start, "ann", "FLEET Rome TO Mediterranean Sea")
        assert isinstance(result.error, IllegalOrder) and "RONDEL taxation" in result.error.orders

    def test_out_of_turn_order_is_refused_before_its_names(self, start: GameState) -> None:
        with pytest.raises(NotYourTurn) as caught:
            parse_order(start, "bob", "IMPORT army Bei")  # a prefix that would fail in Russia's context
        assert caught.value.waiting_for == ("ann",)


# --------------------------------------------------------------------------- formatting


class TestFormat:
    @pytest.mark.parametrize(("action", "text"), [
        (ChooseSpace("taxation"), "RONDEL taxation"),
        (ChooseSpace("production_2"), "RONDEL production_2"),
        (BuildFactory("berlin"), "BUILD Berlin"),
        (BuildFactory("newyork"), "BUILD New York"),
        (Import((ImportUnit(ARMY, "moscow"), ImportUnit(FLEET, "vladivostok"))), "IMPORT army Moscow, fleet Vladivostok"),
        (Import(()), "IMPORT"),
        (BuyBond("china", 9), "BUY China 9"),
        (UpgradeBond("china", 4, 12), "UPGRADE China 4 TO 12"),
        (ForceStop(True), "FORCE"),
        (ForceStop(False), "NO FORCE"),
        (Pass(), "PASS"),
        (Donate("russia", 3), "DONATE 3 TO Russia"),
        (Produce(None), "PRODUCE"),
        (Produce(("paris", "london")), "PRODUCE Paris, London"),
        (Produce(()), "PRODUCE nothing"),
    ])
    def test_canonical_text(self, action: object, text: str) -> None:
        assert format_action(BOARD, action) == text  # type: ignore[arg-type]


VARIANTS = st.frozensets(st.sampled_from(list(Variant)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), players=st.integers(2, 6), variants=VARIANTS, moves=st.integers(0, 400))
@pytest.mark.slow
def test_every_option_of_every_pending_decision_reads_back(seed: int, players: int, variants: frozenset[Variant],
                                                           moves: int) -> None:
    """parse(format(a)) == a for each single option offered, at every step of a random legal game."""
    state = random_game(seed, players, variants)
    rng = random.Random(seed)
    for _ in range(moves):
        if state.finished:
            break
        for decision in pending(state):
            for option in decision.options:
                assert_round_trip(state, decision.player, option.action)
        player, action = random_move(state, rng)
        assert_round_trip(state, player, action)  # composed imports and productions, donations
        state, _ = apply(state, player, action)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), players=st.integers(2, 6), variants=VARIANTS)
@pytest.mark.slow
def test_a_game_played_by_text_equals_the_game_played_by_actions(seed: int, players: int,
                                                                 variants: frozenset[Variant]) -> None:
    state = random_game(seed, players, variants)
    rng = random.Random(seed)
    for _ in range(300):
        if state.finished:
            break
        player, action = random_move(state, rng)
        expected, events = apply(state, player, action)
        result = apply_message(state, player, format_action(BOARD, action) + "\n-- \nsent from my phone")
        assert result.ok, result.error
        assert [a.action for a in result.applied] == [action]
        assert list(result.applied[0].events) == events
        assert result.state == expected
        state = expected


# --------------------------------------------------------------------------- applying messages


class TestApplyMessage:
    def test_all_lines_applied(self, start: GameState) -> None:
        result = apply_message(start, "ann", "RONDEL import\nIMPORT army Moscow\n")
        assert result.ok and not result.not_applied
        assert [a.action for a in result.applied] == [ChooseSpace("import"), Import((ImportUnit(ARMY, "moscow"),))]
        assert result.applied[1].line == MessageLine(2, "IMPORT army Moscow")
        assert result.state.nations["russia"].armies == {"moscow": 1}
        assert start.nations["russia"].armies == {}  # the given state is untouched

    def test_failing_middle_line_keeps_what_came_before(self, start: GameState) -> None:
        text = ("# Russia's turn\n"
                "RONDEL import\n"
                "IMPORT army Paris\n"
                "PASS\n"
                "BUY China 9\n")
        result = apply_message(start, "ann", text)
        assert not result.ok
        assert [a.action for a in result.applied] == [ChooseSpace("import")]
        assert result.state.nations["russia"].rondel == "import"
        assert result.state.version == start.version + 1
        error = result.error
        assert isinstance(error, IllegalOrder)
        assert error.line_number == 3 and error.line == "IMPORT army Paris"
        assert "Paris is not a home province of Russia" in error.reason
        assert isinstance(error.cause, IllegalAction) and error.legal == error.cause.legal
        assert error.legal  # what is legal instead, in the engine's words
        assert "IMPORT army Moscow" in error.orders  # and as orders to copy
        assert str(error).startswith("line 3: 'IMPORT army Paris': Paris is not a home province of Russia")
        assert result.not_applied == (MessageLine(3, "IMPORT army Paris"), MessageLine(4, "PASS"),
                                      MessageLine(5, "BUY China 9"))

    def test_syntax_error_names_line_and_legal_orders(self, start: GameState) -> None:
        result = apply_message(start, "ann", "\n\nRONDLE taxation\nPASS")
        assert isinstance(result.error, OrderSyntaxError)
        assert result.error.line_number == 3
        assert "RONDEL" in result.error.suggestions
        assert "RONDEL taxation" in result.error.legal
        assert result.state is start and not result.applied
        assert len(result.not_applied) == 2

    def test_order_from_a_player_with_nothing_to_decide(self, start: GameState) -> None:
        result = apply_message(start, "bob", "RONDEL taxation")
        error = result.error
        assert isinstance(error, NotYourTurn)
        assert error.waiting_for == ("ann",)
        assert "ann" in error.reason and "Russia" in error.reason
        assert error.line_number == 1
        assert any(order.startswith("DONATE") for order in error.legal)  # bob can still donate to China
        assert result.state is start

    def test_orders_after_the_turn_passes_are_out_of_turn(self, start: GameState) -> None:
        result = apply_message(start, "ann", "RONDEL taxation; RONDEL import")
        assert [a.action for a in result.applied] == [ChooseSpace("taxation")]
        assert isinstance(result.error, NotYourTurn) and result.error.line_number == 1
        assert result.error.waiting_for == ("bob",)

    def test_ambiguous_name_stops_the_message(self, start: GameState) -> None:
        result = apply_message(start, "ann", "RONDEL factory\nBUILD m\nPASS")
        assert [a.action for a in result.applied] == [ChooseSpace("factory")]
        error = result.error
        assert isinstance(error, AmbiguousName)
        assert error.line_number == 2 and set(error.candidates) == {"Moscow", "Murmansk"}
        assert "BUILD Murmansk" in error.legal and "PASS" in error.legal
        assert [line.number for line in result.not_applied] == [2, 3]

    def test_queries_are_collected_not_applied(self, start: GameState) -> None:
        result = apply_message(start, "bob", "STATUS\nOPTIONS\nDONATE 1 TO China")
        assert result.ok
        assert [q.query.kind for q in result.queries] == [QueryKind.STATUS, QueryKind.OPTIONS]
        assert [a.action for a in result.applied] == [Donate("china", 1)]

    def test_no_exception_escapes_for_garbage(self, start: GameState) -> None:
        for text in ("\x00\x01", "BUY " + "9" * 5000, "IMPORT 999999 army Moscow", "UPGRADE", "RONDEL ;;;",
                     "DONATE 0 TO Russia", "DONATE 99 TO Russia", "DONATE 1 TO China", "héllo wörld",
                     "RONDEL production far far", "no", "\u2019\u2019"):
            result = apply_message(start, "ann", text)
            assert result.error is None or isinstance(result.error, OrderError)
            assert result.error is not None, text

    def test_game_over_is_refused(self, start: GameState) -> None:
        over = start.clone()
        over.step = FinishedStep("test")
        result = apply_message(over, "ann", "RONDEL taxation")
        assert isinstance(result.error, IllegalOrder)
        assert "over" in result.error.reason


def test_legal_orders_name_every_option(start: GameState) -> None:
    orders = legal_orders(start, "ann")
    assert orders[:8] == tuple(f"RONDEL {space}" for space in BOARD.rondel_ids)
    imports = play(start, ("ann", ChooseSpace("import")))
    decision = pending(imports)[0]
    assert decision.kind is DecisionKind.IMPORT
    orders = legal_orders(imports, "ann")
    assert "IMPORT army Moscow" in orders and "IMPORT" in orders
    assert legal_orders(imports, "nobody") == ()


def test_investment_without_nation_uses_the_open_round() -> None:
    state = random_game(3, 3, frozenset({Variant.NO_INVESTOR_CARD}))
    rng = random.Random(3)
    for _ in range(200):
        step = state.step
        if isinstance(step, InvestStep) and step.queue[0].nation is not None:
            decision = pending(state)[0]
            for option in decision.options:
                match option.action:
                    case BuyBond(_, value):
                        assert parse_order(state, decision.player, f"BUY {value}") == option.action
                    case UpgradeBond(_, old, new):
                        assert parse_order(state, decision.player, f"UPGRADE {old} TO {new}") == option.action
            return
        player, action = random_move(state, rng)
        state, _ = apply(state, player, action)
    pytest.skip("no nation-bound investment round reached")
