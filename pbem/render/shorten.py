"""A name shortened to fit a space on a board: its words cut as a map abbreviates them (``ВОСТ. АФРИКА``).

A translated name is often longer than the English the board's art or
picture was drawn around (``East Africa``, ``Восточная Африка``). Rather than
show the English, the name is shortened the way printed maps do: a word is
cut after a consonant and marked with a full stop (``ВОСТ.``, ``Wsch.``,
``Orient.``), the first words before the last, since the last word of a
place name usually carries it; the first of two words may come down to its
initial (``Н. ЗЕЛАНДИЯ``; of more words, initials would leave a riddle). The last word keeps at least ``KEPT`` letters, and one of
at most ``KEPT + 1`` letters is not cut but to an initial: a name that still
does not fit is not guessed at, and the caller keeps what it had.

Whether a text fits is the caller's question (``fits``): columns for the
ASCII board, pixels of a font for the picture.
"""
from __future__ import annotations

from collections.abc import Callable

KEPT = 3  # letters a cut word keeps at least
MARK = "."
# Where a cut word must not end: vowels, and the letters that cannot end an abbreviation (Russian й, ь, ъ).
_NOT_LAST = frozenset("aeiouyàáâäèéêìíîòóôöùúûüąęаеёиоуыэюяйьъ")


def _cuts(word: str, initial: bool) -> list[str]:
    """The shortened forms of ``word``, longest first; ``initial``: down to its first letter."""
    if len(word) < 2 or word.endswith(MARK) or not word[-1].isalpha():
        return []
    cuts = [word[:size] + MARK for size in range(len(word) - 2, KEPT - 1, -1)
            if len(word) > KEPT + 1 and word[size - 1].isalpha() and word[size - 1].lower() not in _NOT_LAST]
    return cuts + ([word[0] + MARK] if initial and word[0].isalpha() else [])


def shortened(name: str, fits: Callable[[str], bool]) -> str | None:
    """``name`` itself if it fits, else it with the fewest words cut, each as little as it needs; None when
    no cut makes it fit (see the module docstring)."""
    if fits(name):
        return name
    words = name.split(" ")
    order = list(range(len(words) - 1)) + [len(words) - 1]  # the first words first, the last one at the end
    for index in order:
        cuts = _cuts(words[index], initial=index == 0 and len(words) == 2)
        for cut in cuts:
            words[index] = cut
            if fits(" ".join(words)):
                return " ".join(words)
        if cuts:
            words[index] = cuts[-1]  # as short as it goes; the next word is cut too
    return None
