"""A mail's text as HTML that reflows on a phone: paragraphs, headings, lists, and boxes for what has columns.

Why: in ``<pre>`` the 78-column text ran off a 412-pixel screen, and a
table lost its columns where the client wrapped it. Our mail text is written
by our own templates in a few fixed shapes (``pbem.render.text``), so it can
be read back into its structure without guessing much:

- a banner: a title between two ``====`` rules, or a title over one;
- a heading: a line over a ``----`` underline of its length, or a line
  in capitals alone (Eight-Minute Empire's);
- a rule: a long ``----`` line alone (the footer's);
- a bullet: ``- `` after the indent, its wrapped lines indented further;
- columns: a line with two spaces inside it (the nations table, the row,
  the options beside what they do): kept line for line in a box of its own
  that scrolls sideways on a narrow screen, so the columns stay columns;
- orders to copy: a line indented four or more (the examples of a prompt):
  kept as typed, in a fixed-width font, wrapped only if longer than the screen;
- art (the ASCII board, the rondel, the map: lines drawn with ``| + - / \\ ~``,
  and the wordless lines among them): left out when the mail carries the
  picture, which shows the same; else a sideways-scrolling box;
- anything else is prose: a line that filled the column is joined to the
  next (it was wrapped), a short one or one that ends a sentence ends its
  line.

The plain-text part stays the mail's text byte for byte; only the HTML
alternative is made here. Every character of the text is escaped.
"""
from __future__ import annotations

import html
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import Enum

from pbem.mail.wire import Recent

SEEN_NOTE = "(The picture shows this.)"  # said where art is left out, when the mail gives no note of its own
CACHED_PIECES = 256  # the pieces of the last few mails (to_html): what the seats of one move are told alike
RULE_MIN = 10  # a "====" or "----" line at least this long is a rule
WRAPPED = 55  # a prose line at least this long (indent aside) was wrapped: it goes on in the next line
ENDS = (".", ":", "!", "?")  # ... unless it ends a sentence: a list of sentences keeps its lines
# Art: "|-" "+-" "-|" "-+" "| " " |" "----" "~   " " / " " \ " (\s: any space). Grouped by the first character,
# so that the search tries one or two ways at each place of a line, not seven: half the time of a line.
ART = re.compile(r"\|[-\s]|\+-|-(?:[|+]|-{3})|\s(?:\||[/\\]\s)|~\s{3}")
BULLET = re.compile(r"^(\s*)- \S")
COLUMNS = re.compile(r"\S {2,}\S")
WORD = re.compile(r"[A-Za-z]{3,}")
CAPS = re.compile(r"^[A-Z][A-Z0-9 ,'&-]{3,}(?: \(.*\))?$")  # "THE ROW (place, cost, card)": a heading

FONT = "-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif"
MONO = "ui-monospace,Menlo,Consolas,'Liberation Mono',monospace"
STYLE = {
    "title": "font-size:17px;line-height:1.3;margin:18px 0 2px",
    "sub": "margin:0 0 10px;opacity:0.75",
    "heading": "font-size:15px;line-height:1.3;margin:16px 0 4px;letter-spacing:0.03em",
    "p": "margin:0 0 8px",
    "ul": "margin:0 0 8px;padding-left:20px",
    "box": "overflow-x:auto;margin:0 0 8px",
    "pre": f"margin:0;font-family:{MONO};font-size:13px;line-height:1.3",
    "orders": f"margin:0 0 8px 12px;font-family:{MONO};font-size:14px;line-height:1.35;white-space:pre-wrap",
    "hr": "border:0;border-top:1px solid currentColor;opacity:0.3;margin:16px 0 8px",
    "seen": "margin:0 0 8px;font-style:italic;opacity:0.75",
}


class Kind(Enum):
    """What one line of the text is (see the module docstring)."""

    BLANK = "blank"
    ART = "art"
    BULLET = "bullet"
    COLUMNS = "columns"
    ORDERS = "orders"
    PROSE = "prose"


@dataclass(frozen=True)
class Run:
    """Lines next to each other of one kind, as they become one HTML block."""

    kind: Kind
    lines: tuple[str, ...]


def to_html(text: str, *, picture: bool, note: str = SEEN_NOTE) -> str:
    """``text`` (a mail's wrapped text) as HTML blocks; art left out when the mail shows the picture, ``note``
    (in the reader's language: the composer writes it) said in its place.

    Made piece by piece, each piece's blocks remembered (:data:`_pieces`): the seats of one move are told
    mostly the same pieces (the nations, the rondel, the players, the board), each in a mail of its own.
    """
    blocks: list[str] = []
    art_left_out = False
    for piece in _pieces_of(text):
        made, art_left_out = _pieces.get((piece, picture, art_left_out, note))
        blocks.extend(made)
    return "\n".join(blocks)


def _pieces_of(text: str) -> Iterator[str]:
    """The pieces of ``text``: its lines between blank ones (a line of spaces is blank).

    Why a piece is made alone as it would be in the whole text: a blank line
    ends every kind of block (a banner's title, a paragraph), and a line is
    read with the next one only to tell a heading or a banner, which a blank
    next line is no more than the end of the text. What a piece passes on to
    the next is only whether it ended in art left out (:func:`_blocks`), which
    is part of the key.
    """
    piece: list[str] = []
    for line in text.split("\n"):
        if line.strip():
            piece.append(line)
        elif piece:
            yield "\n".join(piece)
            piece = []
    if piece:
        yield "\n".join(piece)


def _piece_html(key: tuple[str, bool, bool, str]) -> tuple[tuple[str, ...], bool]:
    piece, picture, art_left_out, note = key
    blocks: list[str] = []
    art_left_out = _blocks(piece.split("\n"), picture, blocks, art_left_out, note)
    return tuple(blocks), art_left_out


_pieces: Recent[tuple[str, bool, bool, str], tuple[tuple[str, ...], bool]] = Recent(CACHED_PIECES, _piece_html)
"""The blocks of the last few pieces: what they are is a function of the key alone (the piece's lines, whether
the mail shows the picture, whether the piece before ended in art left out, the picture's note in the reader's
language), so a miss only costs making them again. Bounded: a move's mail is some thirty pieces, of which its
seats' mails share most; thread-safe (:class:`pbem.mail.wire.Recent`)."""


def _blocks(lines: Sequence[str], picture: bool, out: list[str], art_left_out: bool = False,
            note: str = SEEN_NOTE) -> bool:
    """The HTML blocks of ``lines`` appended to ``out``; whether they end in art left out (the picture's note
    is written once for art in a row)."""
    index = 0
    while index < len(lines):
        line = lines[index]
        after = lines[index + 1] if index + 1 < len(lines) else ""
        if not line.strip():
            index += 1
        elif _rule(line, "="):
            title, index = _banner(lines, index + 1)
            out.extend(_banner_html(title))
        elif _rule(after, "=") and not _rule(line, "-"):
            out.extend(_banner_html([line]))
            index += 2
        elif _underline(line, after):
            out.append(f'<h3 style="{STYLE["heading"]}">{_text(line.strip())}</h3>')
            index += 2
        elif CAPS.match(line):
            out.append(f'<h3 style="{STYLE["heading"]}">{_text(line.strip())}</h3>')
            index += 1
        elif _rule(line, "-") and len(line.strip()) >= 40:
            out.append(f'<hr style="{STYLE["hr"]}">')
            index += 1
        else:
            end = index
            while end < len(lines) and lines[end].strip() and not _starts_block(lines, end):
                end += 1
            for run in runs(lines[index:end]):
                if run.kind is Kind.ART and picture:
                    if not art_left_out:
                        out.append(f'<p style="{STYLE["seen"]}">{_text(note)}</p>')
                    art_left_out = True
                    continue
                art_left_out = False
                out.append(_run_html(run))
            index = max(end, index + 1)
    return art_left_out


def _starts_block(lines: Sequence[str], index: int) -> bool:
    """Whether a banner, heading or rule begins at ``index`` (it ends the paragraph before it)."""
    line, after = lines[index], lines[index + 1] if index + 1 < len(lines) else ""
    if _rule(line, "=") or (_rule(after, "=") and line.strip()):
        return True
    if _underline(line, after) or CAPS.match(line):
        return True
    return _rule(line, "-") and len(line.strip()) >= 40


def _banner(lines: Sequence[str], index: int) -> tuple[list[str], int]:
    """The title lines after a banner's first rule, and the index after its second (or after the title)."""
    title: list[str] = []
    while index < len(lines) and lines[index].strip() and not _rule(lines[index], "="):
        title.append(lines[index])
        index += 1
    if index < len(lines) and _rule(lines[index], "="):
        index += 1
    return title, index


def _banner_html(title: Sequence[str]) -> Iterator[str]:
    if title:
        yield f'<h2 style="{STYLE["title"]}">{_text(title[0].strip())}</h2>'
    if len(title) > 1:
        yield f'<p style="{STYLE["sub"]}">{"<br>".join(_text(line.strip()) for line in title[1:])}</p>'


def runs(lines: Sequence[str]) -> list[Run]:
    """``lines`` (a paragraph: no blank line, no heading) cut into runs of one kind each."""
    found: list[tuple[Kind, list[str]]] = []  # each run's lines grow in a list, made a Run at the end
    bullet_indent: int | None = None
    for line in lines:
        kind = line_kind(line)
        indent = len(line) - len(line.lstrip())
        if kind is not Kind.ART and found and found[-1][0] is Kind.ART and len(WORD.findall(line)) < 3:
            kind = Kind.ART  # a piece of the drawing without its lines ("22:"): no words, no prose
        if kind is Kind.BULLET:
            bullet_indent = indent
        elif bullet_indent is not None and kind in (Kind.PROSE, Kind.ORDERS) and indent > bullet_indent:
            kind = Kind.BULLET  # a bullet's wrapped line
        else:
            bullet_indent = None
        if found and found[-1][0] is kind:
            found[-1][1].append(line)
        else:
            found.append((kind, [line]))
    return [Run(kind, tuple(kept)) for kind, kept in found]


def line_kind(line: str) -> Kind:
    """The kind of one line (see the module docstring)."""
    stripped = line.strip()
    if not stripped:
        return Kind.BLANK
    if ART.search(line):
        return Kind.ART
    if BULLET.match(line):
        return Kind.BULLET
    if COLUMNS.search(stripped):
        return Kind.COLUMNS
    if len(line) - len(line.lstrip()) >= 4:
        return Kind.ORDERS
    return Kind.PROSE


def _run_html(run: Run) -> str:
    if run.kind in (Kind.ART, Kind.COLUMNS):
        body = "\n".join(_text(line.rstrip()) for line in _dedent(run.lines))
        return f'<div style="{STYLE["box"]}"><pre style="{STYLE["pre"]}">{body}</pre></div>'
    if run.kind is Kind.ORDERS:
        return f'<pre style="{STYLE["orders"]}">' + "\n".join(_text(line.strip()) for line in run.lines) + "</pre>"
    if run.kind is Kind.BULLET:
        items: list[list[str]] = []
        for line in run.lines:
            if BULLET.match(line):
                items.append([line.strip()[2:]])
            else:
                items[-1].append(line.strip())
        return (f'<ul style="{STYLE["ul"]}">'
                + "".join(f"<li>{_prose(item)}</li>" for item in items) + "</ul>")
    return f'<p style="{STYLE["p"]}">{_prose([line.strip() for line in run.lines])}</p>'


def _prose(parts: Sequence[str]) -> str:
    """Lines of prose (stripped): a line that filled the column goes on in the next (it was wrapped), a short
    one ends its line."""
    out = ""
    for number, part in enumerate(parts):
        if number:
            previous = parts[number - 1]
            out += " " if len(previous) >= WRAPPED and not previous.endswith(ENDS) else "<br>"
        out += _text(part)
    return out


def _dedent(lines: Sequence[str]) -> list[str]:
    indent = min(len(line) - len(line.lstrip()) for line in lines if line.strip())
    return [line[indent:] for line in lines]


def _underline(line: str, after: str) -> bool:
    """Whether ``after`` underlines ``line`` with dashes: a heading."""
    if "-" not in after:
        return False
    under = after.strip()
    return bool(under) and not under.strip("-") and len(under) == len(line.strip()) and not line.startswith(" ")


def _rule(line: str, char: str) -> bool:
    """Whether ``line`` is ``char`` alone, at least ``RULE_MIN`` of it (``strip``: no set of every character)."""
    if char not in line:  # most lines: one scan in C, nothing copied
        return False
    stripped = line.strip()
    return len(stripped) >= RULE_MIN and not stripped.strip(char)


def _text(text: str) -> str:
    return html.escape(text, quote=True)
