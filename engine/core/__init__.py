"""What every game's rules share: the rules protocol, pending decisions, errors, the log, seeded randomness.

A game's engine package (``engine.imperial2030``, ...) implements ``Rules``
(``engine.core.protocol``); the moderator drives every game through it and
never learns a game's own types beyond what the protocol lets it hold.
"""
from engine.core.decisions import Pending
from engine.core.errors import EngineError, GameFinished, IllegalAction, NotYourDecision
from engine.core.log import LogEntry
from engine.core.protocol import Rules
from engine.core.seats import Seat

__all__ = ["EngineError", "GameFinished", "IllegalAction", "LogEntry", "NotYourDecision", "Pending", "Rules",
           "Seat"]
