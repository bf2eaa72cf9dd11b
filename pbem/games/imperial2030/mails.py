"""Imperial 2030's mails: view models built from the game state, laid out by ``templates/imperial2030``.

Every function returns plain text fit for mail: pure ASCII, no line wider
than 78 columns. ``game`` is the game's name, shown in headings. With
``strict=True`` a template that breaks those limits raises ``RenderError``
instead of being wrapped (tests use it).

    render_board(state, game=...)                        the ASCII world board with its legend
    render_rondel(state)                                 the rondel with the nations' markers
    render_report(state, player, events, game=..., open_cash=False, board=True)
    render_prompt(state, player, game=..., deadline=None)   None when the player decides nothing
    render_welcome(state, player, game=..., reply_to=None, open_cash=False)
    render_error(state, player, refusal, game=...)
    render_game_end(state, player=None, events=(), game=...)

The ``*_view`` functions of ``pbem.games.imperial2030.viewmodels`` and ``pbem.games.imperial2030.prompts``
build what the templates get; ``pbem.games.imperial2030.board`` draws the board and the rondel from the art in
``maps/`` and ``templates/imperial2030``.
"""
from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from engine.imperial2030.events import Event
from engine.imperial2030.model import GameState
from pbem.games.imperial2030.board import (
    check_board_art,
    check_rondel_art,
    draw_board,
    draw_rondel,
    region_tokens,
)
from pbem.games.imperial2030.prompts import prompt_view
from pbem.games.imperial2030.viewmodels import (
    board_view,
    error_view,
    game_end_view,
    report_view,
    rondel_view,
    welcome_view,
)
from pbem.render.art import ArtError
from pbem.render.env import RenderError, environment, render
from pbem.render.identitycache import same_objects
from pbem.render.text import MAX_WIDTH, asciify, problems

__all__ = [
    "ArtError", "MAX_WIDTH", "RenderError", "asciify", "board_view", "check_board_art", "check_rondel_art",
    "draw_board", "draw_rondel", "error_view", "game_end_view", "problems", "prompt_view", "region_tokens",
    "render_board", "render_error", "render_game_end", "render_prompt", "render_report", "render_rondel",
    "render_welcome", "report_view", "rondel_view", "welcome_view",
]


def render_board(state: GameState, *, game: str = "", strict: bool = False) -> str:
    """The world board in three panels (Americas, Europe-Africa, Asia-Pacific) with its legend."""
    view = board_view(state, game)
    return render("imperial2030/board.j2", strict=strict, board=view, board_text=_part("board", view))


def board_key(state: GameState) -> str:
    """What the world board shows, without the round and move its banner names: the same text for the same
    pieces (``GameKind.board_key``)."""
    drawn = draw_board(state)
    return "\n".join([*(line for panel in drawn.panels for line in (panel.title, *panel.lines)), *drawn.notes()])


def render_rondel(state: GameState, *, strict: bool = False) -> str:
    return render("imperial2030/rondel.j2", strict=strict, rondel_text=_part("rondel", rondel_view(state)))


@same_objects
def _part(name: str, view: object) -> str:
    """A part that reads the same in every seat's report (``_nations.j2``, ``_rondel.j2``, ``_board.j2`` with
    ``view``), laid out once per view, not once per seat; ``render`` finishes it with the text around it."""
    return environment().get_template(f"imperial2030/_{name}.j2").render({name: view})


def render_report(
    state: GameState,
    player: str,
    events: Iterable[Event] = (),
    *,
    game: str = "",
    open_cash: bool = False,
    board: bool = True,
    strict: bool = False,
) -> str:
    """The turn report for ``player``: ``events`` are what happened since their last report."""
    view = report_view(state, player, events, game=game, open_cash=open_cash, board=board)
    return render("imperial2030/report.j2", strict=strict, report=view, nations_text=_part("nations", view.nations),
                  rondel_text=_part("rondel", view.rondel),
                  board_text="" if view.board is None else _part("board", view.board))


def render_prompt(
    state: GameState,
    player: str,
    *,
    game: str = "",
    deadline: datetime | str | None = None,
    strict: bool = False,
) -> str | None:
    """What ``player`` must decide now, with every legal option; None when nothing is asked of them."""
    view = prompt_view(state, player, game=game, deadline=deadline)
    return None if view is None else render("imperial2030/prompt.j2", strict=strict, prompt=view)


def render_welcome(
    state: GameState,
    player: str,
    *,
    game: str = "",
    reply_to: str | None = None,
    open_cash: bool = False,
    mail_note: str = "",
    strict: bool = False,
) -> str:
    view = welcome_view(state, player, game=game, reply_to=reply_to, open_cash=open_cash, mail_note=mail_note)
    return render("imperial2030/welcome.j2", strict=strict, welcome=view)


def render_error(state: GameState, player: str, refusal: Any, *, game: str = "", strict: bool = False) -> str:
    """The reply to a message with a refused line (see ``viewmodels.error_view`` for ``refusal``)."""
    return render("imperial2030/error.j2", strict=strict, error=error_view(state, player, refusal, game=game))


def render_game_end(
    state: GameState,
    player: str | None = None,
    events: Iterable[Event] = (),
    *,
    game: str = "",
    strict: bool = False,
) -> str:
    """Final scores and how they were computed; ``player`` marks the reader in the ranking."""
    view = game_end_view(state, player, events, game=game)
    return render("imperial2030/game_end.j2", strict=strict, end=view)
