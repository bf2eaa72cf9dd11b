"""HTML mail to plain text, with the standard library's ``html.parser``.

Players' clients send HTML-only mail (phones, webmail); orders are lines, so
what matters is that every visual line break survives: ``<br>``, paragraphs,
``<div>`` (Gmail wraps every line in one), list items, table rows and
headings each end a line. Quoted history (``<blockquote>``) becomes ``> ``
lines, so that the order splitter skips it exactly as in plain-text replies.
Scripts, styles and the head are dropped; entities are decoded; runs of
whitespace collapse as a browser would, except inside ``<pre>``.
"""
from __future__ import annotations

import re
from html.parser import HTMLParser

_BLOCK_TAGS = frozenset({
    "address", "article", "aside", "blockquote", "center", "dd", "div", "dl", "dt", "fieldset",
    "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main",
    "nav", "ol", "p", "pre", "section", "table", "tbody", "thead", "tfoot", "tr", "ul",
})
_SKIP_TAGS = frozenset({"head", "script", "style", "template", "title"})
_CELL_TAGS = frozenset({"td", "th"})
_COLLAPSIBLE = re.compile(r"[ \t\n\r\f]+")


class _TextCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self._current: list[str] = []
        self._quote_depth = 0
        self._line_depth = 0  # the quote depth of the line being built (set by its first text)
        self._skip_depth = 0
        self._pre_depth = 0

    # line handling -------------------------------------------------------------------------

    def _end_line(self, force: bool = False) -> None:
        """Finish the current line; without ``force`` an empty line is not emitted (block edges)."""
        text = "".join(self._current).strip(" ")
        if text or force:
            depth = self._line_depth if text else self._quote_depth
            self.lines.append(("> " * depth) + text if depth else text)
        self._current = []
        self._line_depth = self._quote_depth

    def _add(self, text: str) -> None:
        if not self._current or not "".join(self._current).strip(" "):
            self._line_depth = self._quote_depth
        self._current.append(text)

    # parser callbacks ----------------------------------------------------------------------

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":
            self._skip_depth = 0  # a head without its end tag must not swallow the body
            return
        if tag in _SKIP_TAGS:
            self._skip_depth += 1
            return
        if self._skip_depth:
            return
        if tag == "br":
            self._end_line(force=True)
        elif tag in _BLOCK_TAGS:
            self._end_line()
            if tag == "blockquote":
                self._quote_depth += 1
            elif tag == "pre":
                self._pre_depth += 1
        elif tag in _CELL_TAGS and self._current:
            self._add(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP_TAGS:
            self._skip_depth = max(0, self._skip_depth - 1)
            return
        if self._skip_depth:
            return
        if tag in _BLOCK_TAGS:
            self._end_line()
            if tag == "blockquote":
                self._quote_depth = max(0, self._quote_depth - 1)
            elif tag == "pre":
                self._pre_depth = max(0, self._pre_depth - 1)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)  # <br/>, <hr/>: no end tag to pair with

    def handle_data(self, data: str) -> None:
        if self._skip_depth:
            return
        if self._pre_depth:
            first, *rest = data.replace("\r\n", "\n").split("\n")
            self._add(first)
            for line in rest:
                self._end_line(force=True)
                self._add(line)
            return
        self._add(_COLLAPSIBLE.sub(" ", data))

    def text(self) -> str:
        self._end_line()
        lines = [line.replace("\xa0", " ").rstrip() for line in self.lines]
        out: list[str] = []
        for line in lines:  # at most one blank line in a row, none at the start
            if not line and (not out or not out[-1]):
                continue
            out.append(line)
        while out and not out[-1]:
            out.pop()
        return "\n".join(out) + ("\n" if out else "")


def html_to_text(html: str) -> str:
    """The text of an HTML document, one visual line per line, quoted parts prefixed ``> ``.

    Never raises on bad HTML: ``html.parser`` is lenient, and whatever it
    cannot make sense of is kept as text or dropped, never an error.
    """
    collector = _TextCollector()
    collector.feed(html)
    collector.close()
    return collector.text()
