"""Imperial 2030's words as players read them, said by the macros of its templates.

Every sentence a player reads lives in ``templates/imperial2030/`` (marked for translation with ``_()``); the
Python code names what it means to say (a macro and its values) and this module has the template say it.
"""
from __future__ import annotations

from typing import Any

from pbem.render.macrowords import macro_words

PACKAGE = "imperial2030"


def say(template: str, macro: str, **values: Any) -> str:
    """The macro ``macro`` of ``templates/imperial2030/<template>.j2`` told ``values``: a sentence or a phrase
    (the same words for the same values kept a while: ``pbem.render.macrowords``)."""
    return macro_words(f"{PACKAGE}/{template}.j2", macro, values)
