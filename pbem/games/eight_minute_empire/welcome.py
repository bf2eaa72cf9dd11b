"""Eight-Minute Empire's welcome mail: the seat, how a reply is read, deadlines, and what happens first.

A new player's first mail from the moderator, so it says what Imperial 2030's
welcome says of play by email (the reply address and its token, one order a
line, what is skipped, what a refusal does, deadlines and their defaults),
then the game's own start: the bid, or the neutral armies before it. The
words are in ``templates/eight_minute_empire/welcome.j2``; this module only
gathers the facts they tell into a ``WelcomeView``.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.eight_minute_empire.board import Board
from engine.eight_minute_empire.model import NEUTRAL_ARMIES, SERIES_GAMES, Phase, State, Variant
from pbem.games.eight_minute_empire.orders import colour_of
from pbem.render.env import render


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat in the seating order, as the reader is told of it."""

    name: str
    colour: str
    you: bool


@dataclass(frozen=True, slots=True)
class WelcomeView:
    """What the welcome tells one player: their seat and pieces, the game's setup, and who acts first."""

    game: str
    player: str
    variants: tuple[str, ...]  # Variant values, in the enum's order
    series_games: int
    seats: tuple[SeatView, ...]
    seat: int  # 1-based
    colour: str
    on_map: int
    start: int
    armies_left: int
    cities: int
    coins: int
    ages: tuple[str, ...]
    reply_to: str | None
    neutral_first: bool
    placer: str | None
    neutral_armies: int
    mail_note: str = ""  # the core's items on the seat's mail (GameKind.welcome)


def welcome_view(board: Board, state: State, player: str, game: str, reply_to: str | None,
                 mail_note: str = "") -> WelcomeView:
    seats = tuple(SeatView(p, colour_of(state, p), p == player) for p in state.seating)
    on_map = state.armies_of(player)
    return WelcomeView(game, player, tuple(v.value for v in Variant if v in state.setup.variants), SERIES_GAMES,
                       seats, state.seating.index(player) + 1, colour_of(state, player), on_map, board.start,
                       board.armies - on_map, board.cities, state.coins[player], state.ages, reply_to,
                       state.phase is Phase.NEUTRAL, state.current, NEUTRAL_ARMIES, mail_note)


def welcome(board: Board, state: State, player: str, game: str, reply_to: str | None, mail_note: str = "") -> str:
    return render("eight_minute_empire/welcome.j2",
                  welcome=welcome_view(board, state, player, game, reply_to, mail_note))
