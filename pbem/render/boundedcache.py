"""A bounded, thread-safe memory of answers for the board picture's caches.

Why one class and not ``functools.lru_cache``: the picture's caches hold
images and byte strings of very different sizes, so they are bounded by an
estimate of their bytes, not only a count; and several applier threads may
draw at once, so every read and write holds a lock (the work done on a miss
runs outside it: two threads may both compute an answer, and the second
simply replaces the first, which is the same).

A hit only stamps the answer with the time of its use (one lookup: keys
here are large, a whole scene or a place's tokens, and cost to compare);
when the memory is full, the least recently used quarter goes at once.

An answer drawn in another language than English is remembered under that
language too (:func:`_stored`): its words and its font differ, so a place
or a panel drawn for a Polish seat is never handed to an English one, even
where their texts are the same (a player's name, a number).
"""
from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from pbem.languages import SOURCE, spoken

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


@dataclass(slots=True)
class _Entry(Generic[V]):
    value: V
    size: int  # bytes, as estimated
    used: int  # when last used, by the memory's clock


@dataclass
class Remembered(Generic[K, V]):
    """Least recently used answers, at most ``budget`` bytes as ``weigh(key, answer)`` estimates them (and at
    most ``entries`` answers)."""

    name: str
    budget: int
    weigh: Callable[[K, V], int]
    entries: int = 100_000
    _items: dict[Hashable, _Entry[V]] = field(default_factory=dict)
    _used: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _clock: itertools.count[int] = field(default_factory=itertools.count)
    hits: int = 0
    misses: int = 0

    def get(self, key: K) -> V | None:
        stored = _stored(key)
        with self._lock:
            found = self._items.get(stored)
            if found is None:
                self.misses += 1
                return None
            found.used = next(self._clock)
            self.hits += 1
            return found.value

    def put(self, key: K, value: V) -> V:
        size = self.weigh(key, value) + 200  # the key, the entry and the dict's slot, roughly
        stored = _stored(key)
        with self._lock:
            old = self._items.pop(stored, None)
            if old is not None:
                self._used -= old.size
            if size > self.budget:
                return value
            self._items[stored] = _Entry(value, size, next(self._clock))
            self._used += size
            if self._used > self.budget or len(self._items) > self.entries:
                self._forget()
        return value

    def _forget(self) -> None:
        """Down to three quarters of the bounds, least recently used first (the lock is held)."""
        by_use = sorted(self._items.items(), key=lambda item: item[1].used)
        for key, entry in by_use:
            if self._used <= self.budget * 3 // 4 and len(self._items) <= self.entries * 3 // 4:
                break
            del self._items[key]
            self._used -= entry.size

    @property
    def used(self) -> int:
        """Bytes held, as estimated: what the bound is checked against."""
        return self._used

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._used = 0


def _stored(key: Hashable) -> Hashable:
    """The key an answer is kept under: itself in English, with the language drawn in otherwise (module doc)."""
    language = spoken()
    return key if language is SOURCE else (language, key)
