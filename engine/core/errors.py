"""The exception hierarchy every game's engine raises.

Every refusal carries a plain-words reason and, where it makes sense, what is
legal instead, so that the order layer can answer a player without knowing the
rules itself. A game adds its own subclasses (a board fault, a bad log).
"""
from __future__ import annotations


class EngineError(Exception):
    """Base of every error an engine raises."""


class IllegalAction(EngineError):
    """An action the rules do not allow now.

    ``reason`` says why in plain words; ``legal`` lists, in the same plain
    words, what the player could do instead (may be empty).
    """

    def __init__(self, reason: str, legal: tuple[str, ...] | list[str] = ()) -> None:
        self.reason = reason
        self.legal = tuple(legal)
        text = reason if not self.legal else f"{reason} Legal now: {'; '.join(self.legal)}."
        super().__init__(text)


class NotYourDecision(IllegalAction):
    """The player has nothing to decide now; the message names whom the game waits for."""


class GameFinished(IllegalAction):
    """The game is over; nothing more can be done."""
