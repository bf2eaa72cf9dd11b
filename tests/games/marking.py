"""A catalogue that brackets every text it translates, for the tests that find English left unmarked in a
game's mails (tests/games/*/test_translation.py): with it installed, what is left outside the brackets is what
no translation reaches (the fixture ``marking`` in tests/games/conftest.py installs it)."""
from __future__ import annotations

import re

OPEN, CLOSE = "\x01", "\x02"  # what the marking catalogue puts around each text it translates
MARKED = re.compile(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}")
PLACEHOLDER = re.compile(r"(%\([a-zA-Z_]+\)[sd])")


def bracket(text: str) -> str:
    """``text`` as the marking catalogue translates it: each piece of its own words bracketed, its placeholders
    left outside, so that what a placeholder brings in (words from elsewhere) is checked too."""
    return "".join(part if PLACEHOLDER.fullmatch(part) else OPEN + part + CLOSE
                   for part in PLACEHOLDER.split(text) if part)
