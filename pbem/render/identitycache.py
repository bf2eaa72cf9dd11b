"""What a move's mails share, worked out once: the answer for the same objects, asked again, is the last one.

A move's report goes to every seat, each with the same board: the board's
text (and the grid it is drawn from) is the same for all of them, and
was laid out anew for each seat. ``same_objects`` keeps the last few answers
of a function by the identity of its arguments (game states are not
hashable, and comparing two by value would cost what it saves): the second
seat's report asks with the very state object the first one did.

Why identity is enough: a state is never changed once a move has made it
(the engine makes a new one for the next move), and the answer kept also
holds its arguments, so no other object can take their place in memory.
Why a few answers, not one: the appliers' threads (``pbem run --workers N``)
lay out different games' mails at the same time, and one function may keep
several parts of one move (Imperial's nations, rondel and board).
Why the language too: the parts hold words, and seats of one move may read
different languages (``pbem.languages.spoken``); an answer is kept for the
language it was written in.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Generic, ParamSpec, TypeVar

from pbem.languages import spoken

P = ParamSpec("P")
V = TypeVar("V")

KEPT = 8  # answers kept per function: enough for a few applier threads, each laying out a move's mails


class _SameObjects(Generic[P, V]):
    """``compute`` with its last ``KEPT`` answers kept by the identity of all its (positional) arguments."""

    def __init__(self, compute: Callable[P, V]) -> None:
        self._compute = compute
        self._kept: tuple[tuple[tuple[object, ...], V], ...] = ()
        self.__doc__ = compute.__doc__

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> V:
        if kwargs:
            return self._compute(*args, **kwargs)
        kept = self._kept  # read once: another thread may replace it (a whole tuple, so never half written)
        language = spoken()
        for asked, answer in kept:
            if (len(asked) == len(args) + 1 and asked[0] is language
                    and all(a is b for a, b in zip(asked[1:], args, strict=True))):
                return answer
        answer = self._compute(*args, **kwargs)
        self._kept = (((language, *args), answer), *kept[:KEPT - 1])
        return answer


def same_objects(compute: Callable[P, V]) -> Callable[P, V]:
    """Decorator: ``compute`` with its last few answers kept (see the module docstring)."""
    return _SameObjects(compute)
