"""The small pieces of Eight-Minute Empire's text that every mail shares: a card, the row, an order.

A card's words and the row are laid out by ``templates/eight_minute_empire``
(``_words.j2``, ``_row.j2``). An order stays in Python (``order_text``): it
is the order language itself, the canonical form the parser reads back and
the bots copy from the options, not prose a player reads.
"""
from __future__ import annotations

from engine.eight_minute_empire.actions import Action, Bid, City, Destroy, Move, Place, PlaceNeutral, Take
from engine.eight_minute_empire.board import Board, Card
from engine.eight_minute_empire.model import CardInPlay, State
from pbem.games.eight_minute_empire.viewmodels import card_view, left_of, render_part, row_view, say


def card_words(card: Card) -> str:
    """'#13 carrot: move over land and water 3'; '... destroy 1 and place 1'; '... city or destroy 1'."""
    return say("_words", "card", card_view(card))


def action_text(board: Board, in_play: CardInPlay) -> str:
    """What is left of the card in play: 'place 2 and move 3'; 'nothing'."""
    return say("_words", "left", left_of(board, in_play), board.cards[in_play.card].join)


def order_text(action: Action) -> str:
    """The action as the order a player writes (the canonical form of the order language)."""
    match action:
        case Bid(coins):
            return f"BID {coins}"
        case Take(place):
            return f"TAKE {place}"
        case Place(items):
            return "PLACE " + ", ".join(f"{r}" + (f" x{n}" if n > 1 else "") for r, n in items)
        case Move(paths):
            return "MOVE " + ", ".join("-".join(str(r) for r in path) for path in paths)
        case City(region):
            return f"CITY {region}"
        case Destroy(items):
            return "DESTROY " + ", ".join(f"{p} {r}" for p, r in items)
        case PlaceNeutral(region):
            return f"NEUTRAL {region}"
    return "DONE"


def row_text(board: Board, state: State) -> str:
    """THE ROW: each place's cost and card, and the cards left in the deck."""
    return render_part("_row", row=row_view(board, state))


def row_lines(board: Board, state: State) -> list[str]:
    return row_text(board, state).split("\n")
