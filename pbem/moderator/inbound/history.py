"""``HISTORY ALL`` and ``HISTORY FROM <move>`` by mail: the whole story as this seat may read it, for any game.

The game's own ``HISTORY`` answers the last moves; these two replay the log
from the setup and narrate every move for the reader (``kind.narrate`` with
the reader as viewer, and only moves whose events ``kind.tells`` the reader),
so a sealed answer of another player never shows. Moves of a sealed round
still open carry no number: their log positions would count the others'
hidden answers. The game's sentences are laid out by ``templates/core/history.j2``.
"""
from __future__ import annotations

from typing import Any

from sqlmodel import Session

from pbem.games import kind_of
from pbem.render.env import render
from pbem.store import GameRow, game_setup, load_log

HISTORY_INLINE_LINES = 120  # a longer history goes as a text file attached to the reply


def history_text(session: Session, game: GameRow, viewer: str, state: Any, since: int = 0) -> str:
    """Every move from move ``since`` on, numbered as the mails number them, with what the reader was told."""
    kind = kind_of(game.kind)
    current, _ = kind.new_game(game_setup(game))
    shown = kind.shown_move(state)
    moves: list[tuple[int, list[str]]] = []
    sealed: list[str] = []
    for entry in load_log(session, game):
        current, events = kind.apply(current, entry.player, entry.action)
        if not kind.tells(current, events, viewer):
            continue
        sentences = kind.narrate(current, events, viewer)
        if entry.version >= shown:  # an open sealed round: the reader's own answers, unnumbered
            sealed += sentences
        elif entry.version + 1 >= since and sentences:
            moves.append((entry.version + 1, list(sentences)))
    return render("core/history.j2", strict=True, since=since, moves=moves, sealed=sealed)
