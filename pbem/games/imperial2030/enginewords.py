"""The engine's refusals said in the player's language (issue 30).

The engine words a refusal in English and names it with a code and its values (``IllegalAction.code``,
``engine.imperial2030.refusals``): ids and numbers, never names. Here the code picks the macro of
``templates/imperial2030/_engine_reasons.j2`` that says the same in the language the templates are rendered in
(``pbem.languages.speaking``), and the ids become the names the game's views print (``Board.name`` in the
seat's words, ``orders.lexicon.name``). A refusal
without a code keeps the engine's English.
"""
from __future__ import annotations

from collections.abc import Callable

from engine.imperial2030.board import Board
from engine.imperial2030.errors import IllegalAction
from pbem.games.imperial2030.sayings import say

TEMPLATE = "_engine_reasons"


def engine_reason(board: Board, exc: IllegalAction, local: Callable[[str], str] = str) -> str:
    """The sentence of ``exc`` as the player reads it: the template's for its code, else the engine's English;
    ``local`` turns an English name into the reader's (``orders.lexicon.name``, which imports this module's
    callers: so it is handed in)."""
    if exc.code is None:
        return exc.reason
    return say(TEMPLATE, exc.code, name=lambda ident: local(board.name(ident)), **exc.values)
