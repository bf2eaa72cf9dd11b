"""HELP for Eight-Minute Empire players: the orders with examples, and topics on the row, the map and scoring.

``HELP`` alone lists every order, so a player who knows nothing else can
play from it; ``HELP <topic>`` answers one question. A topic may be asked
for by any spelling the orders accept (``HELP build`` is ``HELP city``), and
the numbers in the map and scoring topics come from the game's own data
(``BoardFacts``), so the help cannot drift from the rules the engine
applies. The texts are in ``templates/eight_minute_empire/_help_topics.j2``,
one macro a topic.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.eight_minute_empire.board import WILD, Board, default_board
from pbem.games.eight_minute_empire.keywords import ALIASES, SPELLINGS
from pbem.render.env import render

ORDERS = ("bid", "take", "place", "move", "city", "destroy", "done", "neutral", "status")
TOPICS = (*ORDERS, "row", "map", "scoring", "wild", "aliases", "long")
TOPIC_WORDS = {"regions": "map", "region": "map", "board": "map", "continents": "map", "score": "scoring",
               "points": "scoring", "end": "scoring", "wilds": "wild", "alias": "aliases", "cards": "row",
               "card": "row", "reports": "status", "options": "status", "history": "status", "help": "status",
               "variant": "long", "series": "long"}


@dataclass(frozen=True, slots=True)
class BoardFacts:
    """The numbers of the board the help quotes, so that it says what the engine plays."""

    row_costs: tuple[int, ...]
    regions: int
    continents: tuple[tuple[str, tuple[tuple[int, ...], ...]], ...]  # name, runs of consecutive regions
    start: int
    cards_at_end: tuple[tuple[int, int], ...]  # players, cards each, by players
    goods_points: tuple[int, ...]
    goods: tuple[tuple[str, tuple[int, ...]], ...]  # good, symbols needed for each step of the points
    wild_cards: tuple[int, ...]
    aliases: tuple[tuple[str, tuple[str, ...]], ...]  # keyword, its other spellings


@dataclass(frozen=True, slots=True)
class HelpView:
    """One HELP answer: a topic's text, or the list of orders (with a note when the topic asked is unknown)."""

    topic: str | None
    unknown: str | None  # the word asked for, quoted as the player wrote it
    orders: tuple[str, ...]
    more: tuple[str, ...]
    facts: BoardFacts


def _runs(regions: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """(1, 2, 3, 4, 5, 6, 17) -> ((1, ..., 6), (17,)): the template writes a run of three or more as '1-6'."""
    runs: list[list[int]] = []
    for region in sorted(regions):
        if runs and region == runs[-1][-1] + 1:
            runs[-1].append(region)
        else:
            runs.append([region])
    return tuple(tuple(run) for run in runs)


def board_facts(board: Board) -> BoardFacts:
    return BoardFacts(
        board.row_costs, len(board.regions),
        tuple((name, _runs(regions)) for name, regions in board.continents.items()), board.start,
        tuple(sorted(board.cards_at_end.items())), board.goods_points,
        tuple((good, tuple(need)) for good, need in board.goods.items()),
        tuple(c.id for c in board.cards.values() if c.good == WILD),
        tuple((keyword, aliases) for keyword, aliases in ALIASES.items() if aliases))


def topics() -> tuple[str, ...]:
    """Every topic's name, the orders first."""
    return TOPICS


def topic_of(word: str) -> str | None:
    """The topic a word asks for: its name, an order's alias (``build``), or a near word (``regions``)."""
    key = word.strip().lower()
    if key not in TOPICS:
        key = TOPIC_WORDS.get(key, SPELLINGS.get(key, key))
    return key if key in TOPICS else None


def help_text(topic: str | None, board: Board | None = None) -> str:
    key = topic_of(topic) if topic else None
    view = HelpView(key, repr(topic) if topic and key is None else None, ORDERS,
                    tuple(t for t in TOPICS if t not in ORDERS), board_facts(board or default_board()))
    return render("eight_minute_empire/help.j2", help=view)
