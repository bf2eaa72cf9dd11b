"""Named positions of Imperial 2030 that tests of several packages start from: the engine's, the mail's, the
moderator's and the bots'. Each is reached by the engine's own moves from a known deal (or, for ``busy``, by
editing a standard game as tests/helpers.py does), and says in its docstring where it stands."""
from __future__ import annotations

from pathlib import Path

from engine.imperial2030.actions import ChooseSpace, FleetMove, Passage
from engine.imperial2030.decisions import DecisionKind, pending
from engine.imperial2030.game import apply
from engine.imperial2030.model import GameSetup, GameState, ManeuverStep, Seat
from engine.imperial2030.setup import new_game
from pbem.games.imperial2030.orders import apply_message
from tests.helpers import (
    BOARD,
    FACTORY,
    IMPORT,
    INVESTOR,
    MANEUVER_1,
    NAMES,
    move_to,
    new,
    play,
    standard_game,
    swiss_bank,
    turn_of,
    with_bonds,
    with_cash,
)

GOLDEN = Path(__file__).resolve().parent / "golden"  # the golden mails (tests/games/imperial2030/test_render.py)


def played(state: GameState, *moves: tuple[str, object]) -> GameState:
    """``state`` after each (player, action) of ``moves``."""
    for player, action in moves:
        state, _ = apply(state, player, action)  # type: ignore[arg-type]
    return state


# --- three players, two players at the Suez canal -----------------------------------------------------------


def three_players() -> GameState:
    """Russia (ann) is to choose its first rondel space; bob holds China, cat India."""
    state, _ = new_game(BOARD, GameSetup((Seat("ann"), Seat("bob"), Seat("cat")), seed=1,
                                         deal=(("russia", "ann"), ("china", "bob"), ("india", "cat"))))
    return state


# Two players, seed 1: ann governs China, Brazil and Europe, bob Russia, India and USA. In two rounds
# India's army reaches North Africa (its flag controls Suez) and its fleet the Indian Ocean, Europe's
# fleets wait in Rome and the Mediterranean, its army in Paris; round 3 ends on Europe's Maneuver.
SUEZ_OPENING: tuple[tuple[str, str], ...] = (
    ("bob", "RONDEL taxation"), ("ann", "RONDEL taxation"),
    ("bob", "RONDEL import\nIMPORT fleet Mumbai, army Mumbai"),
    ("ann", "RONDEL taxation"), ("bob", "RONDEL taxation"),
    ("ann", "RONDEL import\nIMPORT fleet Rome, fleet Rome, army Paris"),
    ("bob", "RONDEL factory\nPASS"), ("ann", "RONDEL factory\nPASS"),
    ("bob", "RONDEL maneuver\nFLEET Mumbai TO Indian Ocean\nARMY Mumbai TO North Africa"),
    ("ann", "RONDEL factory\nPASS"), ("bob", "RONDEL factory\nPASS"),
    ("ann", "RONDEL maneuver\nFLEET Rome TO Mediterranean Sea"),
    ("bob", "RONDEL production\nPRODUCE"), ("ann", "RONDEL production\nPRODUCE"), ("bob", "RONDEL taxation"),
    ("ann", "RONDEL production\nPRODUCE"), ("bob", "RONDEL production\nPRODUCE"),
    ("ann", "RONDEL maneuver"),
)


SUEZ_DEAL = (("europe", "ann"), ("india", "bob"))


SUEZ_MOVE = "FLEET Rome TO Mediterranean Sea\nFLEET Mediterranean Sea TO Indian Ocean\nARMY Paris TO Mumbai HOSTILE"


def suez_position() -> GameState:
    """Europe (ann) to maneuver: fleets in Rome and the Mediterranean, an army in Paris; India (bob) holds Suez."""
    state, _ = new_game(BOARD, GameSetup((Seat("ann"), Seat("bob")), seed=1, deal=SUEZ_DEAL))
    for player, text in SUEZ_OPENING:
        result = apply_message(state, player, text, end_maneuver=True)
        assert result.ok and result.question is None, (text, result.error)
        state = result.state
    assert state.governed_by("ann") == ("china", "brazil", "europe")
    assert isinstance(state.step, ManeuverStep) and state.turn is not None and state.turn.nation == "europe"
    assert state.nations["india"].flags == ["indianocean", "northafrica"]
    assert state.nations["europe"].fleets == {"rome": 1, "mediterraneansea": 1}
    return state


def canal_question(state: GameState) -> GameState:
    """Europe's fleet on its way from the Mediterranean through Suez: bob (India) is asked."""
    state = played(state, ("ann", FleetMove("mediterraneansea", "indianocean")))
    (decision,) = pending(state)
    assert (decision.player, decision.kind) == ("bob", DecisionKind.CANAL)
    return state


def battle_question(state: GameState) -> GameState:
    """Passage allowed: the fleet enters the Indian Ocean, where India's fleet is asked whether it fights."""
    state = played(canal_question(state), ("bob", Passage(True)))
    (decision,) = pending(state)
    assert (decision.player, decision.kind) == ("bob", DecisionKind.BATTLE)
    return state


# --- a crowded board, six players ---------------------------------------------------------------------------


def busy() -> GameState:
    """A crowded mid-game board (round 4, Europe to play), set up by editing a standard game.

    Armies, fleets, flags and hostile armies stand in many regions; every
    nation has moved on the rondel, gained power and spent money; bonds and
    cash differ from the start. Seats and deal as in tests/helpers.py.
    """
    state = standard_game().clone()
    n = state.nations

    def put(nation: str, armies=None, fleets=None, hostile=None, flags=(), **fields) -> None:  # type: ignore[no-untyped-def]
        ns = n[nation]
        ns.armies.update(armies or {})
        ns.fleets.update(fleets or {})
        ns.hostile.update(hostile or {})
        ns.flags.extend(flags)
        for key, value in fields.items():
            setattr(ns, key, value)

    put("russia", {"moscow": 2, "ukraine": 2, "kazakhstan": 1, "beijing": 1}, {"northatlantic": 1, "seaofjapan": 2},
        {"beijing": 1}, ["ukraine", "kazakhstan", "seaofjapan", "mongolia"],
        treasury=7, power=12, rondel="maneuver_2")
    put("china", {"mongolia": 1, "korea": 2, "indochina": 1, "beijing": 2}, {"chinasea": 2, "shanghai": 1}, {},
        ["korea", "indochina", "chinasea"], treasury=4, power=9, rondel="taxation",
        factories=["beijing", "shanghai", "chongqing"])
    put("india", {"afghanistan": 1, "iran": 1, "mumbai": 1, "indonesia": 1}, {"indianocean": 2}, {},
        ["afghanistan", "iran", "indianocean", "indonesia"], treasury=12, power=6, rondel="production_1")
    put("brazil", {"argentina": 2, "peru": 1, "manaus": 1}, {"southatlantic": 2, "caribbeansea": 1}, {},
        ["argentina", "peru", "southatlantic", "caribbeansea"], treasury=3, power=14, rondel="import")
    put("usa", {"mexico": 1, "canada": 1, "colombia": 1, "ukraine": 1}, {"northpacific": 2, "caribbeansea": 1,
                                                                        "neworleans": 1},
        {}, ["mexico", "canada", "colombia", "northpacific"], treasury=9, power=5, rondel="investor")
    put("europe", {"northafrica": 2, "ukraine": 1, "paris": 1, "turkey": 1, "mumbai": 1},
        {"mediterraneansea": 2, "northatlantic": 1, "indianocean": 1}, {"mumbai": 1},
        ["northafrica", "mediterraneansea", "turkey", "guinea"], treasury=15, power=17, rondel="factory",
        factories=["paris", "london", "berlin"])
    for player, cash in zip(NAMES, (6, 1, 11, 0, 4, 8), strict=True):
        state.players[player].cash = cash
    state = with_bonds(state, "Anna", ("russia", 9), ("russia", 4), ("europe", 2), ("china", 6))
    state = with_bonds(state, "Ben", ("china", 9), ("usa", 2), ("brazil", 4))
    state = with_bonds(state, "Cleo", ("india", 9), ("brazil", 2), ("europe", 6))
    state = with_bonds(state, "Dan", ("china", 2), ("brazil", 9), ("india", 4))
    state = with_bonds(state, "Eva", ("russia", 2), ("usa", 9), ("usa", 6))
    state = with_bonds(state, "Finn", ("india", 2), ("europe", 9), ("europe", 4))
    state.investor_card = "Cleo"
    state = turn_of(state, "europe")
    state.round = 4
    state.version = 37
    return state


def start() -> tuple[GameState, list]:
    """The standard six-player start and its setup events; Russia (Anna) chooses first."""
    return new()


def russia_maneuvers() -> GameState:
    """The busy board with Russia to play, its marker on Factory, having chosen Maneuver."""
    state = turn_of(busy(), "russia", rondel="factory")
    state, _ = play(state, ChooseSpace("maneuver_1"))
    return state


def finished(tie: bool = False) -> tuple[GameState, list]:
    """The busy board after Europe's taxation takes it to 25 power points."""
    state = busy()
    state.nations["europe"].power = 23
    state.nations["europe"].rondel = "maneuver_2"
    if tie:  # Anna and Ben end level; Ben holds more Europe bonds (the most powerful nation)
        state = with_bonds(state, "Anna", ("russia", 9), ("europe", 2))
        state = with_bonds(state, "Ben", ("china", 9), ("europe", 4))
        state = with_bonds(state, "Finn", ("india", 2), ("europe", 9), ("europe", 12))
        state.players["Anna"].cash = 1
        state.players["Ben"].cash = 0
    state, events = play(state, ChooseSpace("taxation"))
    assert state.finished
    return state, events


# --- art --------------------------------------------------------------------------------------------


# --- questions to other players than the one whose turn it is ------------------------------------------------


def force_question():
    """Russia (Anna) moves Factory -> Import past Investor; Dan, a Swiss bank, is asked."""
    state = swiss_bank(turn_of(standard_game(), "russia", rondel=FACTORY), "Dan", "Cleo")
    state, _ = move_to(state, IMPORT)
    return state


def investment_question():
    """Russia stops on Investor; Ben, the card holder, is asked to invest."""
    state = with_cash(turn_of(standard_game(), "russia", rondel=MANEUVER_1), Ben=10)
    state, _ = move_to(state, INVESTOR)
    return state
