"""HELP for Eight-Minute Empire players: the orders with examples, and topics on the row, the map and scoring.

``HELP`` alone lists every order, so a player who knows nothing else can
play from it; ``HELP <topic>`` answers one question. A topic may be asked
for by any spelling the orders accept (``HELP build`` is ``HELP city``), and
the numbers in the map and scoring topics come from the game's own data, so
the help cannot drift from the rules the engine applies.
"""
from __future__ import annotations

from engine.eight_minute_empire.board import WILD, Board, default_board
from pbem.games.eight_minute_empire.vocabulary import ALIASES, SPELLINGS
from pbem.render.text import finish, join_words, wrap

ORDERS = {
    "bid": "BID 3 - your sealed bid for the first turn, 0 to all your coins (also BID 3 coins, BID three). "
           "Send it again to change it until the last bid is in. The highest bid pays and starts; among equal "
           "bids the youngest player.",
    "take": "TAKE 2 - take the card at place 2 of the row and pay its cost (HELP row). Also TAKE second, "
            "TAKE place 2, or by the card's number: TAKE card 37. Give its action in the same reply.",
    "place": "PLACE 12 x2, 5 - put armies from your supply in the start region (12) or where you have a city. "
             "Also PLACE 2 armies in 12, PLACE 12 12, PLACE 12 and 5.",
    "move": "MOVE 12-13-14, 12-9 - move one army along each path; each border crossed is one step. Also "
            "MOVE 12 to 13, MOVE 12->13, MOVE 2 armies 12-13 or MOVE 12-13 x2 (two armies, same path). On a "
            "card that moves over land and water a step may cross a sea line.",
    "city": "CITY 13 - build a city where you have an army (three at most). Also BUILD 13, BUILD a city in 13.",
    "destroy": "DESTROY red 13, ann 9 - remove one army of that player (name or colour) from that region. Also "
               "DESTROY 13 red, DESTROY the red army in 13, DESTROY red 13 x2 (two armies).",
    "done": "DONE - end your card's action; what is left of it is lost (also PASS, SKIP, DECLINE, END TURN). "
            "The end of your reply ends the action too, unless the reply only took the card.",
    "neutral": "NEUTRAL 5 - two-player variant: before the bid, place one neutral army in any region, in turn, "
               "until ten stand (also PLACE neutral 5). Neutral armies count against control and may be "
               "destroyed (DESTROY neutral 5).",
    "status": "STATUS, BOARD (or MAP), OPTIONS, HISTORY [n], HELP [topic] - reports, answered by mail; they "
              "change nothing.",
}
TOPIC_WORDS = {"regions": "map", "region": "map", "board": "map", "continents": "map", "score": "scoring",
               "points": "scoring", "end": "scoring", "wilds": "wild", "alias": "aliases", "cards": "row",
               "card": "row", "reports": "status", "options": "status", "history": "status", "help": "status",
               "variant": "long", "series": "long"}


def _row(board: Board) -> str:
    costs = join_words([str(c) for c in board.row_costs])
    return (f"The row is {len(board.row_costs)} face-up cards; places 1 to {len(board.row_costs)} cost {costs} "
            "coins, left to right. Each card shows its number (#37), its good and its action. TAKE names a place "
            "(TAKE 2) or a card (TAKE #37 or TAKE card 37). "
            "The cards right of the one taken slide left; once its action is done, the deck's next card fills the "
            "last place. With no coins you can take only the first card.")


def _map(board: Board) -> str:
    continents = "; ".join(f"{name} {_spans(regions)}" for name, regions in board.continents.items())
    return (f"Regions are numbered 1 to {len(board.regions)}; write 12, r12 or region 12. Continents: "
            f"{continents}. The start region is {board.start}. Armies move across land borders; a card that "
            "moves over land and water also crosses the sea lines (~ on the map). BOARD or MAP draws the map "
            "with every region's pieces.")


def _spans(regions: tuple[int, ...]) -> str:
    """'1-6, 17' for (1, 2, 3, 4, 5, 6, 17)."""
    runs: list[list[int]] = []
    for region in sorted(regions):
        if runs and region == runs[-1][-1] + 1:
            runs[-1].append(region)
        else:
            runs.append([region])
    return ", ".join(f"{run[0]}-{run[-1]}" if len(run) > 2 else ", ".join(map(str, run)) for run in runs)


def _scoring(board: Board) -> str:
    ends = join_words([f"{cards} with {players} players" for players, cards in sorted(board.cards_at_end.items())])
    points = "/".join(str(p) for p in board.goods_points)
    goods = "; ".join(f"{good} {'/'.join(map(str, need))}" for good, need in board.goods.items())
    return (f"The game ends when every player holds their cards: {ends}. Each region you control (more armies "
            "and cities there than anyone else) scores 1; each continent where you control the most regions "
            f"scores 1. Goods: the symbols of each good you need for {points} points are {goods}. Ties go to the most "
            "coins, then the most armies on the board, then the most regions.")


def _wild(board: Board) -> str:
    cards = join_words([f"#{c.id}" for c in board.cards.values() if c.good == WILD])
    return (f"The wild cards ({cards}) each count as one symbol of a good of your choice, also a good you hold "
            "no card of. You need not choose: "
            "at the end each wild card counts as the good that scores you most, and the final report says "
            "which.")


def _aliases() -> str:
    words = "; ".join(f"{', '.join(a.upper() for a in aliases)} for {keyword.upper()}"
                      for keyword, aliases in ALIASES.items() if aliases)
    return (f"Other words for the orders: {words}. Case never matters; numbers may be words (BID three, TAKE "
            "second); regions may be written 12, r12 or region 12. A misspelt order is refused with the closest "
            "one, never guessed.")


def topics(board: Board | None = None) -> dict[str, str]:
    """Every topic's text, the orders first."""
    board = board or default_board()
    long = ("The long game (variant long): three games in a row with the same players, each set up afresh; the "
            "most points over the three wins.")
    return {**ORDERS, "row": _row(board), "map": _map(board), "scoring": _scoring(board), "wild": _wild(board),
            "aliases": _aliases(), "long": long}


def topic_of(word: str) -> str | None:
    """The topic a word asks for: its name, an order's alias (``build``), or a near word (``regions``)."""
    key = word.strip().lower()
    if key not in topics():
        key = TOPIC_WORDS.get(key, SPELLINGS.get(key, key))
    return key if key in topics() else None


def help_text(topic: str | None) -> str:
    found = topics()
    key = topic_of(topic) if topic else None
    if key is not None:
        return finish(f"HELP {key.upper()}\n" + wrap(found[key]) + "\n")
    lines = ["HELP"]
    if topic:
        lines += [wrap(f"There is no help on {topic!r}; the orders and topics are below."), ""]
    lines += ["Orders, one per line (or several on a line with ';'; the items of one", "order with ','):"]
    lines += [wrap(text, indent=4, first=2) for text in ORDERS.values()]
    more = ", ".join(t for t in found if t not in ORDERS)
    lines += ["", wrap(f"More help: HELP and a topic ({more}) or an order (HELP take).")]
    return finish("\n".join(lines) + "\n")
