"""What a player may write now, as canonical order text.

Every refusal ends with what is legal instead. The engine lists every legal
option of the open decisions; here they become orders the player can copy
back into a reply. The hints' few words are ``_refusals.j2``'s (``*_hint``).
"""
from __future__ import annotations

from engine.imperial2030.decisions import DecisionKind, decisions_for
from engine.imperial2030.errors import EngineError, IllegalAction, NotYourDecision
from engine.imperial2030.game import waiting_for
from engine.imperial2030.model import GameState
from pbem.games.imperial2030.enginewords import engine_reason
from pbem.games.imperial2030.orders.errors import IllegalOrder, NotYourTurn, OrderError
from pbem.games.imperial2030.orders.format import format_action
from pbem.games.imperial2030.orders.keywords import Keyword, shown
from pbem.games.imperial2030.orders.lexicon import current, name, word
from pbem.games.imperial2030.orders.reasons import TEMPLATE
from pbem.games.imperial2030.sayings import say
from pbem.languages import SOURCE, spoken


def legal_orders(state: GameState, player: str) -> tuple[str, ...]:
    """The orders ``player`` could give now: each option of their open decisions, then DONATE."""
    if player not in state.players or state.finished:
        return ()
    board = state.board
    found: list[str] = []
    for decision in decisions_for(state, player):
        for option in decision.options:
            text = format_action(board, option.action)
            if text not in found:
                found.append(text)
        if decision.limit > 1 and decision.kind is DecisionKind.IMPORT:
            units = f"{word('army')}|{word('fleet')}"
            found.append(say(TEMPLATE, "import_hint", order=f"{shown(Keyword.IMPORT)} <{units}> <province>, ...",
                             limit=decision.limit))
        elif decision.limit > 1 and decision.kind is DecisionKind.PRODUCTION:
            found.append(say(TEMPLATE, "produce_hint", order=f"{shown(Keyword.PRODUCE)} <province>, ..."))
        elif decision.kind is DecisionKind.MANEUVER:
            found.append(say(TEMPLATE, "maneuver_hint",
                             order=f"{shown(Keyword.FLEET)}|{shown(Keyword.ARMY)} <from> {word('TO')} <to> "
                                   f"{shown(Keyword.ATTACK)} <nation>",
                             kinds=f"{word('army')}|{word('fleet')}".upper(), via=f"{word('VIA')} <sea>, ..."))
    governed = state.governed_by(player)
    money = state.players[player].cash
    if governed and money > 0:
        nations = " | ".join(name(board.name(n)) for n in governed)
        span = f"1 to {money}" if current() is None else f"1-{money}"  # no English "to" in another language's mail
        found.append(f"{shown(Keyword.DONATE)} <{span}> {word('TO')} {nations}")
    return tuple(found)


def refusal(state: GameState, player: str, exc: EngineError) -> OrderError:
    """The order error for an engine refusal of ``player``'s action in ``state``.

    The engine's reason and legal list are kept; where the engine lists
    nothing (an order out of turn), the orders legal for the player are given.
    The engine's list is English prose ("build a factory in Berlin"): a seat
    that reads another language gets the orders legal for it instead, in its
    words, ready to copy.
    """
    english = spoken() is SOURCE
    if isinstance(exc, NotYourDecision):
        own = legal_orders(state, player)
        return NotYourTurn.from_decision_error(exc, waiting_for(state), (exc.legal if english else ()) or own,
                                               said=engine_reason(state.board, exc, name))
    orders = legal_orders(state, player)
    if isinstance(exc, IllegalAction):
        error = IllegalOrder.from_engine(exc, orders, said=engine_reason(state.board, exc, name))
        return error if english or not orders else IllegalOrder(error.reason, legal=orders, orders=orders, cause=exc)
    return IllegalOrder(str(exc), legal=orders, orders=orders)
