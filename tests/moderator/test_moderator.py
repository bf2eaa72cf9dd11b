"""The moderator: creating games, applying order messages in one transaction, telling the state.

The order text goes through the real order layer (``pbem.games.imperial2030.orders``); what the
moderator adds is the log, the narration, the refusal with what was not
applied, and "whom the game waits for".
"""
from __future__ import annotations

import random
import threading
from pathlib import Path

import pytest

from engine.imperial2030.actions import BuyBond, ChooseSpace, Donate
from engine.imperial2030.decisions import DecisionKind, pending
from engine.imperial2030.events import (
    BANK,
    BondBought,
    GameEnded,
    GovernmentChanged,
    MoneyMoved,
    PowerGained,
    Reason,
    RondelMoved,
    TaxCollected,
    cash,
    treasury,
)
from engine.imperial2030.game import replay, waiting_for
from engine.imperial2030.mapfile import default_board
from engine.imperial2030.model import Variant
from engine.imperial2030.randomplay import random_move
from engine.imperial2030.serialize import state_to_json
from pbem import store
from pbem.errors import BadSetup, GameExists, GameNotFound, UnknownPlayer
from pbem.games.imperial2030.narrate import narrate
from pbem.games.imperial2030.orders import format_action
from pbem.games.imperial2030.statejson import state_json
from pbem.moderator import Moderator
from pbem.store import Database
from tests.imperialpositions import SUEZ_MOVE
from tests.moderatorkit import PLAYERS, suez_game, two_player_game

BOARD = default_board()


@pytest.fixture
def mod(tmp_path: Path) -> Moderator:
    return Moderator(Database(f"sqlite:///{tmp_path / 'pbem.db'}"))


def logged(mod: Moderator, name: str):  # type: ignore[no-untyped-def]
    with mod.db.transaction() as session:
        return store.load_log(session, store.find_game(session, name))


# --- creating games ----------------------------------------------------------------------------


@pytest.mark.parametrize("count", [2, 3, 4, 5, 6])
def test_create_game_for_every_player_count(mod: Moderator, count: int) -> None:
    game = mod.create_game(f"g{count}", PLAYERS[:count], seed=42)
    state = game.state
    assert state.seating == tuple(p for p, _ in PLAYERS[:count])
    assert all(p.cash == 2 for p in state.players.values())  # R-SETUP-4: 2 left each
    for player, nations in game.flag_cards.items():
        assert nations and all(state.nations[n].government == player for n in nations)
    assert state.investor_card in state.seating
    first = next(n for n in BOARD.nation_ids if state.nations[n].government)
    (decision,) = game.pending
    assert decision.kind == DecisionKind.RONDEL and decision.subject == first  # the game's Pending, typed
    assert game.narration[-1] == f"Round 1: {BOARD.name(first)}'s turn."
    # stored: the same position comes back, from the database
    assert state_to_json(mod.state(f"g{count}")) == state_to_json(state)
    assert mod.seats(f"g{count}") == PLAYERS[:count]


def test_seed_is_drawn_when_not_given_and_stored(mod: Moderator) -> None:
    game = mod.create_game("random", PLAYERS[:4])
    seed = game.state.setup.seed
    with mod.db.transaction() as session:
        assert store.game_setup(store.find_game(session, "random")).seed == seed
    again = mod.create_game("same", PLAYERS[:4], seed=seed)
    assert state_to_json(again.state)["nations"] == state_to_json(game.state)["nations"]


def test_fixed_deal_by_nation_names_and_aliases(mod: Moderator) -> None:
    game = mod.create_game("deal", PLAYERS[:6], deal=[("Russia", "fay"), ("usa", "ANN")], seed=3)
    assert game.state.nations["russia"].government == "fay"
    assert game.state.nations["usa"].government == "ann"
    assert game.flag_cards["fay"] == ("russia",)


def test_variants_and_expert_start_player(mod: Moderator) -> None:
    game = mod.create_game("x", PLAYERS[:3], seed=5, variants=["expert", Variant.TAX_INCREASE_BONUS],
                           start_player="bob")
    assert game.state.setup.variants == {Variant.EXPERT, Variant.TAX_INCREASE_BONUS}
    (decision,) = game.pending
    assert decision.kind == DecisionKind.SETUP_BOND and decision.player == "bob"
    assert game.flag_cards == {"ann": (), "bob": (), "cy": ()}
    no_card = mod.create_game("y", PLAYERS[:3], seed=5, variants=["no_investor_card"])
    assert no_card.state.investor_card is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "bad name"}, "bad game name"),
        ({"players": PLAYERS[:1]}, "2 to 6 players"),
        ({"players": PLAYERS + [("gus", "gus@example.org")]}, "2 to 6 players"),
        ({"players": [("ann", "a@x.org"), ("ANN", "b@x.org")]}, "names must differ"),
        ({"players": [("ann", "a@x.org"), ("bob", "A@x.org")]}, "own email"),
        ({"players": [("ann", "not-an-email"), ("bob", "b@x.org")]}, "bad email"),
        ({"players": [("a n", "a@x.org"), ("bob", "b@x.org")]}, "bad player name"),
        ({"deal": [("atlantis", "ann")]}, "unknown nation 'atlantis'"),
        ({"deal": [("russia", "zed")]}, "'zed' is not a player"),
        ({"deal": [("russia", "ann"), ("russia", "bob")]}, "dealt twice"),
        ({"deal": [("russia", "ann"), ("china", "ann")], "players": PLAYERS[:6]}, "more than one card"),
        ({"variants": ["turbo"]}, "unknown variant"),
        ({"start_player": "ann"}, "only applies to the expert variant"),
        ({"variants": ["expert"], "start_player": "zed"}, "'zed' is not a player"),
        ({"variants": ["expert"], "deal": [("russia", "ann")]}, "deals no flag cards"),
    ],
)
def test_bad_setups_are_refused_and_store_nothing(mod: Moderator, kwargs: dict, message: str) -> None:
    args = {"name": "g", "players": PLAYERS[:3], "seed": 1} | kwargs
    with pytest.raises(BadSetup, match=message):
        mod.create_game(**args)
    assert mod.list_games() == []


def test_game_names_are_unique(mod: Moderator) -> None:
    two_player_game(mod)
    with pytest.raises(GameExists):
        two_player_game(mod)


def test_unknown_game(mod: Moderator) -> None:
    with pytest.raises(GameNotFound):
        mod.state("nope")
    with pytest.raises(GameNotFound):
        mod.submit("nope", "ann", "RONDEL investor")


# --- orders -------------------------------------------------------------------------------------


def test_submit_applies_lines_in_order_and_logs_them(mod: Moderator) -> None:
    two_player_game(mod)
    result = mod.submit("demo", "ann", "RONDEL investor")
    assert result.ok and result.version_before == 0 and result.version == 1
    (line,) = result.applied
    assert line.line_number == 1 and line.actions == (ChooseSpace("investor"),)
    assert "Russia placed its marker on Investor." in line.narration
    assert "bob received 2 with the investor card." in line.narration
    (decision,) = result.pending
    assert (decision.player, decision.kind) == ("bob", DecisionKind.INVESTMENT)

    result = mod.submit("demo", "bob", "# my investment\nBUY china 4\n")
    assert result.ok and [a.line_number for a in result.applied] == [2]
    assert "bob bought China 4." in result.applied[0].narration
    assert [(e.player, e.action, e.version) for e in logged(mod, "demo")] == [
        ("ann", ChooseSpace("investor"), 0), ("bob", BuyBond("china", 4), 1)]
    assert result.pending[0].nation == "china"


def test_several_orders_in_one_message_one_transaction(mod: Moderator) -> None:
    two_player_game(mod)
    result = mod.submit("demo", "ann", "DONATE 1 TO russia; RONDEL investor\nDONATE 1 TO russia")
    assert result.ok and len(result.applied) == 3 and result.version == 3
    assert [e.version for e in logged(mod, "demo")] == [0, 1, 2]
    assert "ann donated 1 to Russia." in result.applied[0].narration


def test_a_refused_line_stops_the_message_earlier_lines_stand(mod: Moderator) -> None:
    two_player_game(mod)
    result = mod.submit("demo", "ann", "DONATE 1 TO russia\nRONDEL nowhere\nRONDEL investor")
    assert not result.ok
    assert [a.line for a in result.applied] == ["DONATE 1 TO russia"]
    refusal = result.refusal
    assert refusal.line_number == 2 and refusal.line == "RONDEL nowhere"
    assert refusal.reason
    assert refusal.not_applied == ((2, "RONDEL nowhere"), (3, "RONDEL investor"))
    assert refusal.waiting_for == ()  # ann is the one the game waits for
    assert [e.action for e in logged(mod, "demo")] == [Donate("russia", 1)]
    assert result.version == 1 and mod.state("demo").version == 1


def test_an_illegal_order_names_what_is_legal(mod: Moderator) -> None:
    two_player_game(mod)
    mod.submit("demo", "ann", "RONDEL investor")
    result = mod.submit("demo", "bob", "BUY china 30")
    assert not result.ok and result.refusal.line_number == 1
    assert any("BUY" in text.upper() for text in result.refusal.legal)
    assert logged(mod, "demo")[-1].version == 0


def test_an_order_from_a_player_with_nothing_to_decide_names_whom_the_game_waits_for(mod: Moderator) -> None:
    two_player_game(mod)
    result = mod.submit("demo", "bob", "RONDEL investor")
    assert not result.ok
    assert result.refusal.waiting_for == ("ann (rondel for Russia)",)
    assert "ann" in result.refusal.reason
    assert result.version == 0 and logged(mod, "demo") == []


def test_players_are_matched_ignoring_case_and_unknown_players_refused(mod: Moderator) -> None:
    two_player_game(mod)
    assert mod.submit("demo", "ANN", "RONDEL investor").player == "ann"
    with pytest.raises(UnknownPlayer, match="'zed' is not a player"):
        mod.submit("demo", "zed", "PASS")


def test_a_message_without_orders_is_refused(mod: Moderator) -> None:
    two_player_game(mod)
    result = mod.submit("demo", "ann", "# nothing\n\n> quoted RONDEL investor\n")
    assert not result.ok and result.refusal.reason == "The message holds no orders."


def test_queries_are_reported_not_refused(mod: Moderator) -> None:
    two_player_game(mod)
    result = mod.submit("demo", "ann", "STATUS")
    assert result.ok and result.applied == () and [q.kind for q in result.queries] == ["status"]


def test_state_equals_replay_of_the_log(mod: Moderator) -> None:
    two_player_game(mod)
    mod.submit("demo", "ann", "RONDEL investor")
    mod.submit("demo", "bob", "PASS")
    state = mod.state("demo")
    with mod.db.transaction() as session:
        game = store.find_game(session, "demo")
        replayed = replay(BOARD, store.game_setup(game), store.load_log(session, game))
    assert state_to_json(state) == state_to_json(replayed) == state_to_json(mod.verify("demo"))


def test_a_whole_game_played_by_canonical_order_text(tmp_path: Path) -> None:
    """Random legal play, each answer written as canonical text and sent through the moderator."""
    mod = Moderator(Database(f"sqlite:///{tmp_path / 'pbem.db'}"))
    mod.create_game("long", PLAYERS[:4], seed=9)
    rng = random.Random(9)
    state = mod.state("long")
    for _ in range(120):
        if state.finished:
            break
        player, action = random_move(state, rng)
        result = mod.submit("long", player, format_action(BOARD, action))
        assert result.ok, (format_action(BOARD, action), result.refusal)
        assert result.applied[0].actions == (action,)
        state = result.state
    assert state_to_json(mod.verify("long")) == state_to_json(state)
    assert state_json("long", state)["version"] == state.version == len(logged(mod, "long"))


def test_game_list(mod: Moderator) -> None:
    two_player_game(mod, "b")
    two_player_game(mod, "a")
    mod.submit("b", "ann", "RONDEL taxation")
    assert [(g.name, g.status, g.version, g.players) for g in mod.list_games()] == [
        ("a", "active", 0, ("ann", "bob")), ("b", "active", 1, ("ann", "bob"))]


# --- two writers at once ------------------------------------------------------------------------


def test_concurrent_messages_are_all_applied_once(db_url: str) -> None:
    """Two players donating at the same time, each through its own connection: the loser of a race
    reads the new position and applies again; nothing is lost, nothing applied twice."""
    Moderator(Database(db_url)).create_game("race", PLAYERS[:2], deal=[("russia", "ann")], seed=1)
    nations = {"ann": "russia", "bob": "china"}
    errors: list[BaseException] = []
    barrier = threading.Barrier(2)

    def donate(player: str) -> None:
        mod = Moderator(Database(db_url), retries=50)
        try:
            barrier.wait()
            for _ in range(2):
                result = mod.submit("race", player, f"DONATE 1 TO {nations[player]}")
                assert result.ok, result.refusal
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)
        finally:
            mod.db.dispose()

    threads = [threading.Thread(target=donate, args=(p,)) for p in nations]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    mod = Moderator(Database(db_url))
    state = mod.verify("race")
    assert state.version == 4
    assert [e.version for e in logged(mod, "race")] == [0, 1, 2, 3]
    assert state.players["ann"].cash == 0 and state.players["bob"].cash == 0
    assert waiting_for(state) == ("ann",) and pending(state)[0].kind is DecisionKind.RONDEL
    mod.db.dispose()


def test_importing_nothing_is_told(mod: Moderator) -> None:
    two_player_game(mod)
    mod.submit("demo", "ann", "RONDEL import")
    result = mod.submit("demo", "ann", "IMPORT")
    assert result.ok
    assert result.applied[0].narration[0] == "Russia imported nothing."


# --- narration --------------------------------------------------------------------------------


def test_narration_folds_money_into_sentences() -> None:
    events = [
        MoneyMoved(cash("anton"), BANK, 1, Reason.RONDEL),
        RondelMoved("russia", "maneuver_1", "taxation", 4, 1),
        MoneyMoved(BANK, treasury("russia"), 10, Reason.TAX),
        MoneyMoved(treasury("russia"), BANK, 3, Reason.SOLDIERS_PAY),
        MoneyMoved(treasury("russia"), cash("anton"), 2, Reason.BONUS),
        TaxCollected("russia", 10, 2, 3, 3, 3, 2),
        PowerGained("russia", 3, 7),
        MoneyMoved(cash("anton"), treasury("china"), 9, Reason.BOND),
        BondBought("anton", "china", 9),
        GovernmentChanged("china", "anton", "bea"),
        GovernmentChanged("india", None, "bea"),
        MoneyMoved(treasury("india"), cash("anton"), 1, Reason.INTEREST),
        MoneyMoved(cash("bea"), cash("anton"), 2, Reason.INTEREST_SHORTFALL),
        MoneyMoved(treasury("india"), cash("bea"), 0 + 1, Reason.INTEREST),
        MoneyMoved(cash("bea"), treasury("india"), 2, Reason.DONATION),
        GameEnded("Russia reached 25 power points", (("anton", 60), ("bea", 41))),
    ]
    assert narrate(BOARD, events) == [
        "Russia moved to Taxation (4 spaces, anton paid 1).",
        "Russia collected 10 in taxes (2 factories, 3 flags), paid its soldiers 3 and paid anton a bonus of 2.",
        "Russia gained 3 power points (now 7).",
        "anton bought China 9.",
        "China's government passes from anton to bea.",
        "bea forms the government of India.",
        "India paid interest: 3 to anton, 1 to bea (bea made up 2 from own cash).",
        "bea donated 2 to India.",
        "The game is over: Russia reached 25 power points. Final scores: anton 60, bea 41. anton wins.",
    ]


def test_narration_of_a_new_game(mod: Moderator) -> None:
    game = mod.create_game("n", PLAYERS[:2], deal=[("russia", "ann")], seed=1)
    assert game.narration[0] == "Each player received 35 starting cash."
    assert "ann holds the flag card of Russia." in game.narration
    assert "ann forms the government of Russia." in game.narration


# --- the maneuver: waiting lines ---------------------------------------------------------------


def test_a_convoy_through_suez_waits_for_the_canal_answer_and_resumes(mod: Moderator) -> None:
    suez_game(mod)
    result = mod.submit("suez", "ann", SUEZ_MOVE)
    assert result.ok and result.refusal is None
    assert [a.line for a in result.applied] == ["FLEET Rome TO Mediterranean Sea",
                                                "FLEET Mediterranean Sea TO Indian Ocean"]
    waiting = result.waiting
    assert waiting is not None and waiting.asked == "bob"
    assert waiting.lines == ((3, "ARMY Paris TO Mumbai HOSTILE"),)
    assert waiting.text == ("waiting for bob (India: allow Europe's fleet through the Suez canal?) "
                            "\u2014 these lines will be applied once answered")
    assert mod.waiting("suez") == {"ann": ((3, "ARMY Paris TO Mumbai HOSTILE"),)}
    (decision,) = result.pending
    assert (decision.player, decision.kind) == ("bob", DecisionKind.CANAL)

    # the waiting lines survive a restart: they are in the database, not in memory
    mod = Moderator(Database(str(mod.db.url)))
    assert mod.waiting("suez") == {"ann": ((3, "ARMY Paris TO Mumbai HOSTILE"),)}

    # bob allows passage; India's fleet in the Indian Ocean is then asked whether it fights
    result = mod.submit("suez", "bob", "ALLOW")
    assert result.ok and result.resumed == ()
    assert "bob (India) allowed Europe passage through the Suez canal." in result.applied[0].narration
    (decision,) = result.pending
    assert (decision.player, decision.kind) == ("bob", DecisionKind.BATTLE)
    assert mod.waiting("suez") == {"ann": ((3, "ARMY Paris TO Mumbai HOSTILE"),)}

    # no fight: ann's army line goes on at once, and its convoy through Suez asks bob again
    result = mod.submit("suez", "bob", "NO FIGHT")
    (army,) = result.resumed
    assert army.player == "ann" and army.refusal is None
    assert [a.line for a in army.applied] == ["ARMY Paris TO Mumbai HOSTILE"]
    assert army.waiting is not None and army.waiting.lines == ()
    assert army.waiting.text == ("waiting for bob (India: allow Europe's army through the Suez canal?) "
                                 "\u2014 the maneuver ends once answered")
    assert mod.waiting("suez") == {"ann": ()}

    result = mod.submit("suez", "bob", "ALLOW")
    (end,) = result.resumed
    assert [(a.line, a.implicit) for a in end.applied] == [("DONE", True)]  # the end of ann's message
    assert ("Europe moved an army from Paris to Mumbai by convoy via Mediterranean Sea and Indian Ocean "
            "through the Suez canal, hostile.") in result.applied[0].narration
    assert mod.waiting("suez") == {}
    state = mod.state("suez")
    assert state.nations["europe"].hostile == {"mumbai": 1}
    assert state.turn is not None and state.turn.nation == "russia"
    log = logged(mod, "suez")
    assert [(e.player, type(e.action).__name__) for e in log[-7:]] == [
        ("ann", "FleetMove"), ("ann", "FleetMove"), ("bob", "Passage"), ("bob", "Fight"), ("ann", "ArmyMove"),
        ("bob", "Passage"), ("ann", "Done")]
    assert state_to_json(mod.verify("suez")) == state_to_json(state)


def test_one_answering_message_lets_the_waiting_lines_go_on_between_its_lines(mod: Moderator) -> None:
    suez_game(mod)
    mod.submit("suez", "ann", SUEZ_MOVE)
    result = mod.submit("suez", "bob", "ALLOW\nNO FIGHT\nALLOW")
    assert result.ok and [a.line for a in result.applied] == ["ALLOW", "NO FIGHT", "ALLOW"]
    assert [[a.line for a in part.applied] for part in result.resumed] == [["ARMY Paris TO Mumbai HOSTILE"], ["DONE"]]
    assert result.waiting is None and mod.waiting("suez") == {}
    assert [e.version for e in logged(mod, "suez")] == list(range(result.version))
    assert state_to_json(mod.verify("suez")) == state_to_json(result.state)


def test_a_waiting_line_made_illegal_by_the_answer_is_refused(mod: Moderator) -> None:
    suez_game(mod)
    mod.submit("suez", "ann", SUEZ_MOVE)
    result = mod.submit("suez", "bob", "DENY")
    assert result.ok  # bob's answer stands
    assert "bob (India) denied Europe passage through the Suez canal." in result.applied[0].narration
    (army,) = result.resumed
    assert army.applied == () and army.waiting is None
    refusal = army.refusal
    assert refusal is not None and refusal.line_number == 3 and refusal.line == "ARMY Paris TO Mumbai HOSTILE"
    assert "cannot reach Mumbai" in refusal.reason
    assert refusal.not_applied == ((3, "ARMY Paris TO Mumbai HOSTILE"),)
    assert "done" in refusal.legal  # what is legal instead, in the engine's words
    # ann is asked to continue her maneuver; nothing waits any more
    (decision,) = result.pending
    assert (decision.player, decision.kind) == ("ann", DecisionKind.MANEUVER)
    assert mod.waiting("suez") == {}
    result = mod.submit("suez", "ann", "ARMY Paris TO Near East")
    assert result.ok and [a.line for a in result.applied] == ["ARMY Paris TO Near East", "DONE"]
    assert result.applied[1].implicit
    assert state_to_json(mod.verify("suez")) == state_to_json(result.state)


def test_orders_of_a_waiting_player_are_refused_and_the_lines_kept(mod: Moderator) -> None:
    suez_game(mod)
    mod.submit("suez", "ann", SUEZ_MOVE)
    result = mod.submit("suez", "ann", "DONE")
    assert not result.ok and result.refusal.kind == "NotYourTurn"
    assert result.refusal.waiting_for == ("bob (canal for India)",)
    assert result.waiting is not None and result.waiting.lines == ((3, "ARMY Paris TO Mumbai HOSTILE"),)
    result = mod.submit("suez", "ann", "STANDING NO FIGHT\nSTATUS")  # at any time; changes nothing waiting
    assert result.ok and [q.kind for q in result.queries] == ["status"]
    assert mod.waiting("suez") == {"ann": ((3, "ARMY Paris TO Mumbai HOSTILE"),)}


def test_queries_in_the_middle_of_a_maneuver_do_not_end_it(mod: Moderator) -> None:
    suez_game(mod)
    result = mod.submit("suez", "ann", "OPTIONS\nSTATUS")
    assert result.ok and result.applied == ()
    assert pending(result.state)[0].kind is DecisionKind.MANEUVER
    result = mod.submit("suez", "ann", "FLEET Rome TO Mediterranean Sea\nDONE")
    assert [(a.line, a.implicit) for a in result.applied] == [("FLEET Rome TO Mediterranean Sea", False),
                                                               ("DONE", False)]


def test_standing_answers_are_used_without_waiting(mod: Moderator) -> None:
    suez_game(mod)
    assert mod.submit("suez", "bob", "STANDING ALLOW europe SUEZ\nSTANDING NO FIGHT europe").ok
    result = mod.submit("suez", "ann", SUEZ_MOVE)
    assert result.ok and result.waiting is None and mod.waiting("suez") == {}
    told = [s for a in result.applied for s in a.narration]
    assert "bob (India) allowed Europe passage through the Suez canal (standing order)." in told
    assert "bob (India) did not fight in Indian Ocean (standing order)." in told
    assert result.applied[-1].implicit and result.state.turn.nation == "russia"  # type: ignore[union-attr]


def test_waiting_lines_are_stored_on_every_database(db_url: str) -> None:
    mod = Moderator(Database(db_url))
    try:
        suez_game(mod)
        mod.submit("suez", "ann", SUEZ_MOVE)
        assert Moderator(Database(db_url)).waiting("suez") == {"ann": ((3, "ARMY Paris TO Mumbai HOSTILE"),)}
        mod.submit("suez", "bob", "ALLOW\nNO FIGHT")
        assert mod.waiting("suez") == {"ann": ()}  # only the end of ann's message waits now
        result = mod.submit("suez", "bob", "ALLOW")
        assert [a.line for part in result.resumed for a in part.applied] == ["DONE"]
        assert mod.waiting("suez") == {}
        assert state_to_json(mod.verify("suez")) == state_to_json(result.state)
    finally:
        mod.db.dispose()
