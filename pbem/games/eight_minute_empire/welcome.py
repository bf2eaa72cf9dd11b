"""Eight-Minute Empire's welcome mail: the seat, how a reply is read, deadlines, and what happens first.

A new player's first mail from the moderator, so it says what Imperial 2030's
welcome says of play by email (the reply address and its token, one order a
line, what is skipped, what a refusal does, deadlines and their defaults),
then the game's own start: the bid, or the neutral armies before it.
"""
from __future__ import annotations

from engine.eight_minute_empire.board import Board
from engine.eight_minute_empire.model import NEUTRAL_ARMIES, SERIES_GAMES, Phase, State, Variant
from pbem.games.eight_minute_empire.orders import colour_of
from pbem.games.eight_minute_empire.words import banner
from pbem.render.text import bullet, finish, join_words, plural, wrap

VARIANT_WORDS = {Variant.NEUTRAL: "neutral armies", Variant.LONG: f"the long game: a series of {SERIES_GAMES}"}


def _heading(title: str) -> list[str]:
    return [title, "-" * len(title)]


def welcome(board: Board, state: State, player: str, game: str, reply_to: str | None) -> str:
    seats = state.seating
    variants = join_words([VARIANT_WORDS[v] for v in Variant if v in state.setup.variants]) or "the standard rules"
    order = ", ".join(f"{n} {p} ({'you, ' if p == player else ''}{colour_of(state, p)})"
                      for n, p in enumerate(seats, start=1))
    on_map = state.armies_of(player)
    parts = [banner(game, f"welcome, {player}"), "",
             wrap(f"You have a seat in {game}, a game of Eight-Minute Empire played by email by "
                  f"{len(seats)} players ({variants}). The moderator is a program: it reads your orders, checks "
                  "them against the rules and mails every player a report after each move."),
             "", *_heading("YOUR SEAT"),
             wrap(f"Seat {seats.index(player) + 1} of {len(seats)}. Seating order (the order of play): "
                  f"{order}.", 2),
             wrap(f"You play {colour_of(state, player)}: {plural(on_map, 'army', 'armies')} in the start region "
                  f"({board.start}); {plural(board.armies - on_map, 'army', 'armies')} and "
                  f"{plural(board.cities, 'city', 'cities')} in your supply.", 2),
             wrap(f"Your coins: {state.coins[player]}. Every player's coins, cards and pieces are open to all; "
                  "only a bid is sealed until every bid is in.", 2),
             wrap(f"Youngest first, for ties: {', '.join(state.ages)}.", 2),
             "", *_heading("HOW TO PLAY BY EMAIL"), *_how(reply_to),
             "", "A reply on your turn could read:", "    TAKE 3", "    MOVE 12-13-14, 12-9",
             "", *_heading("WHAT HAPPENS NOW"), *_now(state, player)]
    return finish("\n".join(parts) + "\n")


def _how(reply_to: str | None) -> list[str]:
    where = f"; replies go to {reply_to}. That" if reply_to else "; the reply"
    return [
        bullet(f"Reply to the moderator's mails{where} address carries your secret token: do not forward it or "
               "give it away."),
        bullet("Write one order per line; several orders on one line are separated by ';', the items of one "
               "order by ','. Case does not matter."),
        bullet("Lines starting with '#', quoted text ('>' lines) and your signature are ignored; a line END "
               "ends the orders."),
        bullet("Orders are applied in order. If one is refused, the lines before it stand; you get the reason, "
               "what is legal now and the lines that were not applied."),
        bullet("A decision's deadline is given in the mail that asks for it, and a reminder may come before "
               "it. Without an answer by then the game answers for you: a bid of 0, or the leftmost card with "
               "its action skipped."),
        bullet("You get a report after every move, and a prompt listing your options whenever a decision is "
               "yours."),
        bullet("HELP lists every order with examples, HELP <order> explains one; STATUS, BOARD (or MAP) and "
               "OPTIONS show where the game stands, HISTORY the last moves."),
    ]


def _now(state: State, player: str) -> list[str]:
    if state.phase is Phase.NEUTRAL:
        placer = "you place" if state.current == player else f"{state.current} places"
        return [wrap(f"First the two players place {NEUTRAL_ARMIES} neutral armies, one at a time, in any "
                     f"regions: NEUTRAL and a region. Now {placer} one. Then every player bids for the first "
                     "turn.", 2)]
    return [wrap(f"Every player bids for the first turn, sealed: BID and a number of coins, 0 to "
                 f"{state.coins[player]}. Nobody sees your bid, or whether you have bid, before every bid is in. "
                 "A prompt with your options follows.", 2)]
