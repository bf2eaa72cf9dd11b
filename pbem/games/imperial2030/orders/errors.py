"""Why an order was refused: one exception hierarchy for the order layer.

A player reads the refusal in an email, far from the game, so every error
carries everything a useful answer needs: which line of the message, what it
said, why it was refused, what is legal now and, for typos, what was probably
meant. The classes are told apart the way python-chess tells apart invalid,
illegal and ambiguous moves, because the moderator answers each differently
(a typo gets suggestions, an illegal order gets the legal alternatives, an
order out of turn names whom the game waits for).
"""
from __future__ import annotations

from collections.abc import Iterable

from engine.imperial2030.errors import IllegalAction, NotYourDecision
from pbem.games.imperial2030.orders.reasons import Why


class OrderError(Exception):
    """Base of every refusal of the order layer.

    ``line_number`` (1-based, as the player counts the lines of the message)
    and ``line`` are None while the error is raised for a lone order text;
    ``apply_message`` fills them in with :meth:`at_line`. The order layer
    refuses with a ``Why`` (a typed reason, said by ``templates/imperial2030/_refusals.j2``), kept as ``why``;
    ``reason`` is its text. A text comes in as it is only from the engine (its own words, see ``IllegalOrder``).
    """

    def __init__(
        self,
        reason: Why | str,
        *,
        legal: Iterable[str] = (),
        suggestions: Iterable[str] = (),
        line_number: int | None = None,
        line: str | None = None,
    ) -> None:
        self.why = reason if isinstance(reason, Why) else None
        self.reason = reason.text if isinstance(reason, Why) else reason
        self.legal: tuple[str, ...] = tuple(legal)
        self.suggestions: tuple[str, ...] = tuple(suggestions)
        self.line_number = line_number
        self.line = line
        super().__init__(self.reason)

    def at_line(self, line_number: int, line: str) -> OrderError:
        """Attach where the order stood in the message (returns ``self`` for ``raise ... from``)."""
        self.line_number = line_number
        self.line = line
        return self

    def __str__(self) -> str:
        parts = []
        if self.line_number is not None:
            parts.append(f"line {self.line_number}")
        if self.line is not None:
            parts.append(repr(self.line))
        text = (": ".join(parts) + ": " if parts else "") + self.reason
        if self.suggestions:
            text += f" Did you mean: {', '.join(self.suggestions)}?"
        if self.legal:
            text += f" Legal now: {'; '.join(self.legal)}."
        return text

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(reason={self.reason!r}, line_number={self.line_number!r}, "
                f"line={self.line!r}, legal={self.legal!r}, suggestions={self.suggestions!r})")


class OrderSyntaxError(OrderError):
    """The text cannot be read as an order at all (unknown keyword, missing or extra words)."""


class UnsupportedOrder(OrderError):
    """An order of the language that this engine cannot carry out yet (maneuver, battles, standing orders)."""


class IllegalOrder(OrderError):
    """A readable order that the rules refuse now; wraps the engine's ``IllegalAction``.

    The engine's reason and legal list are kept word for word: the engine knows
    the rules, this layer only knows the words. ``orders`` gives the same
    alternatives as canonical order text (``BUILD Moscow`` rather than the
    engine's "build a factory in Moscow").
    """

    def __init__(self, reason: str, *, legal: Iterable[str] = (), orders: Iterable[str] = (),
                 cause: IllegalAction | None = None, line_number: int | None = None, line: str | None = None) -> None:
        super().__init__(reason, legal=legal, line_number=line_number, line=line)
        self.orders: tuple[str, ...] = tuple(orders)
        self.cause = cause

    @classmethod
    def from_engine(cls, exc: IllegalAction, orders: Iterable[str] = (), *, said: str | None = None) -> IllegalOrder:
        """``orders``: the alternatives as canonical order text, for a reply the player can copy from; ``said``:
        the engine's reason in the player's language (``enginewords``), else its English."""
        return cls(exc.reason if said is None else said, legal=exc.legal, orders=orders, cause=exc)


class NotYourTurn(IllegalOrder):
    """The player has nothing to decide now; wraps the engine's ``NotYourDecision``.

    ``waiting_for`` names the players the game waits for, so that the reply
    (and the moderator's reminder logic) need not parse the reason.
    """

    def __init__(self, reason: str, *, waiting_for: Iterable[str] = (), legal: Iterable[str] = (),
                 cause: IllegalAction | None = None, line_number: int | None = None,
                 line: str | None = None) -> None:
        legal = tuple(legal)  # the orders legal for this player (often only DONATE) are also its ``orders``
        super().__init__(reason, legal=legal, orders=legal, cause=cause, line_number=line_number, line=line)
        self.waiting_for: tuple[str, ...] = tuple(waiting_for)

    @classmethod
    def from_decision_error(cls, exc: NotYourDecision, waiting_for: Iterable[str],
                            legal: Iterable[str] = (), *, said: str | None = None) -> NotYourTurn:
        """``said``: the engine's reason in the player's language (``enginewords``), else its English."""
        return cls(exc.reason if said is None else said, waiting_for=waiting_for, legal=tuple(legal) or exc.legal,
                   cause=exc)


class BadName(OrderError):
    """Common base of the two ways a typed name can fail to name one thing.

    ``candidates`` are names (what the text could stand for here), while
    ``legal`` is filled by the parser with the orders legal now, like every
    other order error.
    """

    def __init__(self, reason: Why | str, *, text: str, candidates: Iterable[str] = (), suggestions: Iterable[str] = (),
                 line_number: int | None = None, line: str | None = None) -> None:
        super().__init__(reason, suggestions=suggestions, line_number=line_number, line=line)
        self.text = text
        self.candidates: tuple[str, ...] = tuple(candidates)


class AmbiguousName(BadName):
    """A prefix that fits several names allowed here; ``candidates`` lists them."""

    def __init__(self, reason: Why | str, *, text: str, candidates: Iterable[str],
                 line_number: int | None = None, line: str | None = None) -> None:
        candidates = tuple(candidates)
        super().__init__(reason, text=text, candidates=candidates, suggestions=candidates,
                         line_number=line_number, line=line)


class UnknownName(BadName):
    """A name that fits nothing allowed here; ``suggestions`` holds close spellings, ``candidates`` what is allowed."""
