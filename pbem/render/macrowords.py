"""A template macro's words, said once for the same values: ``macro_words``.

Why: the games' Python names what it means to say (a macro of a template and its values) and the macro says
it (``pbem.games.imperial2030.sayings``). A move's mails ask the same macros the same things again and again:
the nation whose turn it is and what it does, in every seat's report; what a decision asks, in the report's
waiting list and in the prompt; a rondel option's cost, in every prompt of that nation; the roles of the
players, the rondel's costs, a nation's details that did not change since the last move. Calling a Jinja
macro costs some 20 microseconds (a new frame of variables, every value checked, the catalogue asked for each
phrase); finding its answer kept costs about one.

Why it is safe (what the key covers): a macro's words depend on its template, its values and nothing else
(templates only format: no clock, no state; the filters and the gettext functions are those of the
template's environment). The key is the template as the environment holds it, the macro's name and the
values:

- the template object, not its name: each language has its own environment (``pbem.render.env``), so its
  own template objects, and an environment whose catalogue is replaced has its template cache cleared, which
  makes new template objects (the marking catalogue of ``tests/games/conftest.py`` does so); a kept key holds
  its template, so no other object can take its place in memory;
- only values that are plain data are kept: strings (``str`` itself, not a subclass such as ``Markup``),
  integers, None, booleans, and tuples and lists of them. A list is told from a tuple and a boolean from an
  integer in the key (``True == 1``, but a template writes them differently). Any other value (a function, an
  enum, an object) is said anew each time, as before.

Bound and threads: at most ``KEPT`` answers, the least recently used forgotten first; one lock around each
read and write (the appliers' threads write mail at once). The words are said outside the lock: two threads
may both say the same words, and the second simply replaces the first, which is the same.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Mapping
from typing import Any

from pbem.render.env import environment

KEPT = 4096  # answers kept: a few moves' worth of every game being written at once (each well under 1 kB)


class _Unkept(Exception):
    """A value that is not plain data (see the module docstring): the words are said without the memory."""


_LIST = object()  # marks a list in a key: ["a"] and ("a",) read differently ("['a']" and "('a',)")
_TRUE = object()  # booleans in a key: True == 1 and False == 0, but "True" is not "1"
_FALSE = object()


def _frozen(value: Any) -> Hashable:
    """``value`` as part of a key, or :class:`_Unkept` when it is not plain data."""
    kind = type(value)
    if kind is str or kind is int or value is None:
        plain: Hashable = value
        return plain
    if kind is bool:
        return _TRUE if value else _FALSE
    if kind is tuple:
        return tuple(_frozen(item) for item in value)
    if kind is list:
        return (_LIST, *(_frozen(item) for item in value))
    raise _Unkept


_lock = threading.Lock()
_kept: OrderedDict[Hashable, str] = OrderedDict()


def macro_words(template: str, macro: str, values: Mapping[str, Any]) -> str:
    """The macro ``macro`` of ``template`` (in the environment of the language being written) told ``values``:
    kept from the last time it was told the same values (see the module docstring)."""
    found = environment().get_template(template)
    try:
        key = (found, macro, *((name, _frozen(value)) for name, value in values.items()))
    except _Unkept:
        return str(getattr(found.module, macro)(**values))
    with _lock:
        said = _kept.get(key)
        if said is not None:
            _kept.move_to_end(key)
            return said
    said = str(getattr(found.module, macro)(**values))
    with _lock:
        _kept[key] = said
        if len(_kept) > KEPT:
            _kept.popitem(last=False)
    return said


def forget() -> None:
    """Every kept answer forgotten (tests that count the macros' calls)."""
    with _lock:
        _kept.clear()
