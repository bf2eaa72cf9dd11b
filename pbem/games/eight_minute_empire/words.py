"""The small pieces of Eight-Minute Empire's text that every mail shares: a card, an order, the row, a banner."""
from __future__ import annotations

from engine.eight_minute_empire.actions import Action, Bid, City, Destroy, Move, Place, PlaceNeutral, Take
from engine.eight_minute_empire.board import ActionKind, Board, Card
from engine.eight_minute_empire.model import CardInPlay, State
from pbem.render.text import plural

TITLE = "EIGHT-MINUTE EMPIRE"
VERB = {ActionKind.PLACE: "place", ActionKind.MOVE: "move", ActionKind.WATER: "move over land and water",
        ActionKind.CITY: "city", ActionKind.DESTROY: "destroy"}


def card_words(card: Card) -> str:
    """'#13 carrot: move over land and water 3'; '... destroy 1 and place 1'; '... city or destroy 1'."""
    parts = [VERB[a.kind] + ("" if a.kind is ActionKind.CITY else f" {a.amount}") for a in card.actions]
    good = card.good + (" x2" if card.symbols == 2 else "")
    return f"#{card.id} {good}: " + {"/": " or ", "+": " and "}.get(card.join, "").join(parts)


def action_text(board: Board, in_play: CardInPlay) -> str:
    """What is left of the card in play: 'place 2 and move 3'; 'nothing'."""
    card = board.cards[in_play.card]
    left = [f"{VERB[a.kind]}" + ("" if a.kind is ActionKind.CITY else f" {n}")
            for index, (a, n) in enumerate(zip(card.actions, in_play.left, strict=True))
            if n > 0 and in_play.chosen in (None, index)]
    return {"/": " or ", "+": " and "}.get(card.join, "").join(left) or "nothing"


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


def banner(game: str, what: str) -> str:
    return f"{TITLE} - {game} - {what}\n" + "=" * min(78, len(TITLE) + len(game) + len(what) + 6)


def row_lines(board: Board, state: State) -> list[str]:
    lines = ["THE ROW (place, cost, card)"]
    for place, card_id in enumerate(state.row, start=1):
        lines.append(f"  {place}  cost {board.row_costs[place - 1]}  {card_words(board.cards[card_id])}")
    lines.append(f"  ({plural(len(state.deck), 'card')} left in the deck)")
    return lines
