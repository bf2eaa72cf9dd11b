"""HELP for Eight-Minute Empire players: the orders with examples, one topic per order."""
from __future__ import annotations

from pbem.render.text import finish

TOPICS = {
    "bid": "BID n - your sealed bid for the first turn, 0 to all your coins. You may send it again to change it "
           "until the last bid is in. The highest bid pays and starts; among equal bids the youngest.",
    "take": "TAKE n - take the card at place n of the row (1 is leftmost, costs 0; then 1, 1, 2, 2, 3 coins). "
            "Use its action in the same reply, then DONE.",
    "place": "PLACE 12 x2, 5 - put armies from your supply into the start region or a region with your city.",
    "move": "MOVE 12-13-14, 12-9 - move one army along each path; each border crossed is one step. On a card "
            "that moves over land and water a step may cross a sea line.",
    "city": "CITY 13 - build a city where you have an army (at most three).",
    "destroy": "DESTROY red 13, ann 9 - remove an army of that player (name or colour) from that region.",
    "neutral": "NEUTRAL 5 - two-player variant: before the bid, place one neutral army in any region, in turn, "
               "until ten stand. Neutral armies count against control and may be destroyed (DESTROY neutral 5).",
    "long": "The long game (variant long): three games in a row with the same players, each set up afresh; "
            "the most points over the three wins.",
    "done": "DONE - end your card's action; what is left is lost. The end of your reply ends it too, unless "
            "the reply only took the card.",
    "status": "STATUS, BOARD, OPTIONS, HISTORY, HELP [order] - reports, answered by mail.",
}


def help_text(topic: str | None) -> str:
    if topic and topic.lower() in TOPICS:
        return finish("HELP " + topic.upper() + "\n" + TOPICS[topic.lower()] + "\n")
    lines = ["HELP", "Orders, one per line (several on a line with ';'):"]
    lines += [f"  {text}" for text in TOPICS.values()]
    return finish("\n".join(lines) + "\n")
