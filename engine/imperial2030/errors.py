"""Imperial 2030's errors: the shared hierarchy (``engine.core.errors``) and a board fault."""
from __future__ import annotations

from engine.core.errors import Cause, EngineError, GameFinished, IllegalAction, NotYourDecision

__all__ = ["BoardError", "Cause", "EngineError", "GameFinished", "IllegalAction", "NotYourDecision"]


class BoardError(EngineError):
    """The board data is wrong: the message names the file, the entry and the fault."""
