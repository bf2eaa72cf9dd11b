"""The exception hierarchy every game's engine raises.

Every refusal carries a plain-words reason and, where it makes sense, what is
legal instead, so that the order layer can answer a player without knowing the
rules itself. A game adds its own subclasses (a board fault, a bad log).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


class EngineError(Exception):
    """Base of every error an engine raises."""


@dataclass(frozen=True, slots=True)
class Cause:
    """A refusal's sentence with its code and values, as a helper that words several refusals returns it:
    the raise site passes it whole, so a sentence never travels without the code that names it."""

    reason: str
    code: str
    values: Mapping[str, object] = field(default_factory=dict)


class IllegalAction(EngineError):
    """An action the rules do not allow now.

    ``reason`` says why in plain words; ``legal`` lists, in the same plain
    words, what the player could do instead (may be empty). ``code`` names the
    sentence (one code a sentence, each game's ``refusals.Refused``) and
    ``values`` what it names (ids and numbers, never words), so that the
    moderator can say the same refusal in the player's language while the
    engine stays English and knows nothing of languages (issue 30).
    """

    def __init__(self, reason: str | Cause, legal: tuple[str, ...] | list[str] = (), *, code: str | None = None,
                 values: Mapping[str, object] | None = None) -> None:
        if isinstance(reason, Cause):
            code, values = reason.code, reason.values
        self.reason = reason.reason if isinstance(reason, Cause) else reason
        self.legal = tuple(legal)
        self.code = code
        self.values: dict[str, object] = dict(values or {})
        text = self.reason if not self.legal else f"{self.reason} Legal now: {'; '.join(self.legal)}."
        super().__init__(text)


class NotYourDecision(IllegalAction):
    """The player has nothing to decide now; the message names whom the game waits for."""


class GameFinished(IllegalAction):
    """The game is over; nothing more can be done."""
