"""Starting a game: the standard deal (R-SETUP-1..6) and the expert bond selection (R-SETUP-7)."""
from __future__ import annotations

from engine.core.rng import seeded
from engine.imperial2030.actions import Action, BuyBond, Pass
from engine.imperial2030.board import Board, CityKind
from engine.imperial2030.errors import EngineError, IllegalAction
from engine.imperial2030.events import (
    BANK,
    BondBought,
    Event,
    FlagCardDealt,
    GovernmentChanged,
    InvestmentPassed,
    Reason,
    cash,
    treasury,
)
from engine.imperial2030.flow import begin_next_turn
from engine.imperial2030.investing import settle_governments
from engine.imperial2030.ledger import transfer
from engine.imperial2030.model import (
    Bond,
    GameSetup,
    GameState,
    NationState,
    PlayerState,
    SetupBondsStep,
    Variant,
)
from engine.imperial2030.refusals import Refused


class SetupError(EngineError):
    """The game cannot be set up as asked (player count, names, a fixed deal)."""


def new_game(board: Board, setup: GameSetup) -> tuple[GameState, list[Event]]:
    _check_players(board, setup)
    state = GameState(
        board=board,
        setup=setup,
        nations={n: _starting_nation(board, n) for n in board.nation_ids},
        players={s.name: PlayerState(s.name, s.email) for s in setup.players},
    )
    events: list[Event] = []
    count = len(setup.players)
    tables = board.tables
    money = (tables.starting_cash_expert if setup.has(Variant.EXPERT) else tables.starting_cash_standard)[count]
    for seat in setup.players:
        transfer(state, events, BANK, cash(seat.name), money, Reason.STARTING_CASH)
    if setup.has(Variant.EXPERT):
        start = setup.start_player or seeded(setup.seed).choice(setup.player_names)
        if start not in state.players:
            raise SetupError(f"start player {start!r} is not at the table")
        _offer_setup_bonds(state, 0, start, events)
    else:
        _deal_flag_cards(state, events)
        _finish_setup(state, events)
    return state, events


def _check_players(board: Board, setup: GameSetup) -> None:
    names = setup.player_names
    if not 2 <= len(names) <= len(board.nation_ids):
        raise SetupError(f"Imperial 2030 needs 2 to {len(board.nation_ids)} players, not {len(names)}")
    if len(set(n.lower() for n in names)) != len(names):
        raise SetupError(f"player names must differ: {', '.join(names)}")
    for nation, player in setup.deal:
        if nation not in board.nation_by_id:
            raise SetupError(f"deal: unknown nation {nation!r}")
        if player not in names:
            raise SetupError(f"deal: {player!r} is not at the table")


def _starting_nation(board: Board, nation: str) -> NationState:
    """R-SETUP-1: one armaments and one shipyard factory on the marked cities."""
    homes = [board.regions[h] for h in board.homes[nation]]
    factories = [h.id for kind in CityKind for h in homes if h.city is kind and h.starting_factory]
    return NationState(factories=factories)


# --- standard deal ---------------------------------------------------------------------


def _card_groups(state: GameState) -> tuple[tuple[str, ...], ...]:
    """R-SETUP-2: with 2 or 3 players cards go in fixed groups; otherwise one card each."""
    count = len(state.seating)
    groups = state.board.tables.flag_card_groups.get(count)
    return groups if groups else tuple((n,) for n in state.board.nation_ids)


def deal_cards(state: GameState) -> dict[str, tuple[str, ...]]:
    """Which card groups each player holds: the fixed deal first, the rest from the seed."""
    groups = _card_groups(state)
    dealt: dict[str, tuple[str, ...]] = {}
    for nation, player in state.setup.deal:
        group = next(g for g in groups if nation in g)
        owner = next((p for p, g in dealt.items() if g == group), None)
        if owner not in (None, player):
            raise SetupError(f"deal: {state.board.name(nation)} goes with a card already given to {owner}")
        if player in dealt and dealt[player] != group:
            raise SetupError(f"deal: {player} would hold more than one card (group)")
        dealt[player] = group
    rng = seeded(state.setup.seed)
    free = [g for g in groups if g not in dealt.values()]
    rng.shuffle(free)
    for player in state.seating:
        if player not in dealt:
            dealt[player] = free.pop()
    return dealt


def _deal_flag_cards(state: GameState, events: list[Event]) -> None:
    """R-SETUP-3/4: each card buys its two bonds; undealt cards follow the 2 bond."""
    dealt = deal_cards(state)
    for player in state.seating:
        for nation in dealt[player]:
            events.append(FlagCardDealt(nation, player))
            for bond_nation, value in state.board.tables.flag_card_bonds[nation]:
                transfer(state, events, cash(player), treasury(bond_nation), value, Reason.BOND)
                state.player_w(player).bonds.append(Bond(bond_nation, value))
                events.append(BondBought(player, bond_nation, value))
            state.player_w(player).bonds.sort()
            state.nation_w(nation).government = player
            events.append(GovernmentChanged(nation, None, player))
    for nation in state.board.nation_ids:
        holders = state.bonds_held(nation)
        if state.nations[nation].government is None and holders:
            owner = holders[0][0]
            state.nation_w(nation).government = owner
            events.append(FlagCardDealt(nation, owner))
            events.append(GovernmentChanged(nation, None, owner))


def _finish_setup(state: GameState, events: list[Event]) -> None:
    """R-SETUP-5: the investor card goes left of Russia's government, else China's, else the next."""
    if not state.setup.has(Variant.NO_INVESTOR_CARD):
        governed = [n for n in state.board.nation_ids if state.nations[n].government]
        if governed:
            state.investor_card = state.next_seat(state.governor(governed[0]))
        else:
            state.investor_card = state.seating[0]
    begin_next_turn(state, events, None)


# --- expert variant ------------------------------------------------------------------


def _offer_setup_bonds(state: GameState, index: int, start: str, events: list[Event]) -> None:
    """R-SETUP-7: for each nation in turn, players from one seat further left may buy one bond."""
    order = state.board.nation_ids
    while index < len(order):
        nation = order[index]
        seats = state.seating
        first = seats[(seats.index(start) + index) % len(seats)]
        queue = tuple(p for p in state.seats_from(first) if setup_bond_options(state, p, nation))
        if queue:
            state.step = SetupBondsStep(nation, queue)
            state.turn = None
            return
        index += 1
    _finish_setup(state, events)


def setup_bond_options(state: GameState, player: str, nation: str) -> tuple[BuyBond, ...]:
    money = state.players[player].cash
    return tuple(BuyBond(nation, v) for v in state.bonds_available(nation) if v <= money)


def answer_setup_bond(state: GameState, player: str, action: Action, events: list[Event]) -> None:
    step = state.step
    assert isinstance(step, SetupBondsStep)
    options = setup_bond_options(state, player, step.nation)
    if isinstance(action, Pass):
        events.append(InvestmentPassed(player))
    elif action in options:
        assert isinstance(action, BuyBond)
        transfer(state, events, cash(player), treasury(action.nation), action.value, Reason.BOND)
        state.player_w(player).bonds.append(Bond(action.nation, action.value))
        state.player_w(player).bonds.sort()
        events.append(BondBought(player, action.nation, action.value))
    else:
        raise IllegalAction(
            f"Now each player may buy one {state.board.name(step.nation)} bond they can pay for, or pass.",
            [f"buy {state.board.name(step.nation)} {o.value}" for o in options] + ["pass"],
            code=Refused.SETUP_BOND, values={"nation": step.nation},
        )
    queue = tuple(p for p in step.queue[1:] if setup_bond_options(state, p, step.nation))
    if queue:
        state.step = SetupBondsStep(step.nation, queue)
        return
    # Decision: ties in the selection go to the first buyer, i.e. seat order from the first offer.
    order = state.board.nation_ids
    index = order.index(step.nation)
    seats = state.seating
    start = _start_player(state)
    first = seats[(seats.index(start) + index) % len(seats)]
    settle_governments(state, first, events)
    _offer_setup_bonds(state, index + 1, start, events)


def _start_player(state: GameState) -> str:
    return state.setup.start_player or seeded(state.setup.seed).choice(state.setup.player_names)
