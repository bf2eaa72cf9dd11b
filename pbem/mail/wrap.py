"""Plain text at most 78 columns wide, as RFC 5322 asks of a line and as a reader's window shows it.

Reports and prompts are laid out to fit already (their templates are tested
for it); replies built from sentences, or quoting a player's long line, are
not. Every text part goes through :func:`wrap_text` when the mail is built.

Decision: hard line breaks, not ``format=flowed``. Every client shows them
the same way; flowed text is rejoined by some clients and shown with trailing
spaces by others, and the ASCII board must never be reflowed. A long line is
broken at spaces; its continuation keeps the indentation, the quote marks
(``> ``) and the room of a list marker (``- ``, ``1. ``), so lists and quotes
still read as such. A single word longer than the width (an address, a URL)
stays whole on its own line.
"""
from __future__ import annotations

import re
import textwrap

WIDTH = 78

# Leading spaces and quote marks, then a list marker: what a continuation line repeats or makes room for.
_LEAD = re.compile(r"^(?P<quote>[ \t]*(?:>[ \t]?)*)(?P<marker>(?:[-*+]|\d{1,3}[.)])[ \t]+)?")


def wrap_text(text: str, width: int = WIDTH) -> str:
    """``text`` with every line longer than ``width`` broken at spaces (see the module docstring).

    Most mails have no such line (they are written to fit): then the text is returned as it is, after one
    look at its longest line, not rebuilt line by line."""
    lines = text.split("\n")
    if max(map(len, lines)) <= width:
        return text
    return "\n".join(_wrap_line(line, width) for line in lines)


def _wrap_line(line: str, width: int) -> str:
    if len(line) <= width:
        return line
    lead = _LEAD.match(line)
    assert lead is not None  # the pattern matches every line (all its parts are optional)
    quote, marker = lead.group("quote"), lead.group("marker") or ""
    first = quote + marker
    rest = quote + " " * len(marker)
    if len(first) >= width // 2:  # an odd indentation: no room to keep it
        first = rest = ""
    pieces = textwrap.wrap(line[len(first):] if first else line, width=width, initial_indent=first,
                           subsequent_indent=rest, break_long_words=False, break_on_hyphens=False)
    return "\n".join(piece.rstrip() for piece in pieces) if pieces else line
