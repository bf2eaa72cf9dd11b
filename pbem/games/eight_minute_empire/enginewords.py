"""The engine's refusals said in the player's language (issue 30).

The engine words a refusal in English and names it with a code and its values (``IllegalAction.code``,
``engine.eight_minute_empire.refusals``); here the code picks the macro of
``templates/eight_minute_empire/_engine_reasons.j2`` that says the same in the language the templates are
rendered in (``pbem.languages.speaking``). A refusal without a code keeps the engine's English.
"""
from __future__ import annotations

from engine.core.errors import IllegalAction
from pbem.games.eight_minute_empire.viewmodels import PACKAGE
from pbem.render.env import environment

TEMPLATE = "_engine_reasons"


def engine_reason(exc: IllegalAction) -> str:
    """The sentence of ``exc`` as the player reads it: the template's for its code, else the engine's English."""
    if exc.code is None:
        return exc.reason
    macros = environment().get_template(f"{PACKAGE}/{TEMPLATE}.j2").module
    return str(getattr(macros, exc.code)(**exc.values))
