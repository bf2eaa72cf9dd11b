"""The player's own words in a reply: format=flowed undone, quoted history cut off.

A game's order language (Imperial's ``split_message``) already skips ``>`` lines, stops at a ``-- ``
signature and at ``END``. What it cannot know about is the mail clients:

* *Top-posting* clients put the answer above an attribution line
  (``On Mon, 3 Jun 2030, Ann wrote:``) and the quoted original below it. The
  attribution line itself is not quoted, so it would be read as an order.
* Outlook quotes nothing at all: the original follows a
  ``-----Original Message-----`` line or a ``From: … Sent: …`` header block,
  unquoted, so our own report would be read back as orders.
* ``format=flowed`` (RFC 3676, Thunderbird's default) wraps long lines with a
  trailing space; an order line must be joined again before it is parsed.

Line numbers matter (a refusal names the line the player sees), so lines are
blanked rather than removed wherever text is kept below them.
"""
from __future__ import annotations

import re

_ATTRIBUTION_START = re.compile(r"^(on|am|le|el|op|il|den|på|em)\s", re.IGNORECASE)
_ATTRIBUTION = re.compile(
    r"^(on|am|le|el|op|il|den|på|em)\s.*\b("
    r"wrote|schrieb|a\s+écrit|escribió|schreef|ha\s+scritto|skrev|escreveu"
    r")(\s+[^:]{0,80})?\s*:\s*$",
    re.IGNORECASE,
)
_ORIGINAL_MESSAGE = re.compile(
    r"^-{2,}\s*(original message|ursprüngliche nachricht|message d'origine|mensaje original|"
    r"oorspronkelijk bericht|messaggio originale)\s*-{2,}\s*$",
    re.IGNORECASE,
)
_OUTLOOK_RULE = re.compile(r"^_{10,}\s*$")
_HEADER_FROM = re.compile(r"^\*?(from|von|de|van|da)\s*\*?\s*:", re.IGNORECASE)
_HEADER_SENT = re.compile(r"^\*?(sent|date|gesendet|datum|envoyé|enviado|verzonden|inviato)\s*\*?\s*:", re.IGNORECASE)
_HEADER_SUBJECT = re.compile(r"^\*?(subject|betreff|objet|asunto|onderwerp|oggetto)\s*\*?\s*:", re.IGNORECASE)

_MAX_ATTRIBUTION_LINES = 3  # clients wrap long attribution lines ("On …, Ann <ann@…>\nwrote:")


def strip_reply_history(text: str) -> str:
    """``text`` without the quoted history that mail clients append.

    * An Outlook original-message block (separator line, or a ``From:`` line
      followed by ``Sent:``/``Date:`` and ``Subject:`` lines) ends the text.
    * An attribution line (``On … wrote:``, also wrapped over up to three
      lines and in a few languages) followed only by quoted or blank lines
      ends the text (top-posting). Followed by the player's own lines
      (bottom-posting, interleaved answers), only the attribution is blanked:
      the quoted lines are skipped later anyway and the player's lines stay
      where they were.
    """
    lines = text.split("\n")
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped.startswith(">"):
            continue
        if _ORIGINAL_MESSAGE.match(stripped) or _starts_outlook_header(lines, index):
            return _join(lines[:index])
        span = _attribution_span(lines, index)
        if span:
            rest = lines[index + span:]
            if all(not later.strip() or later.lstrip().startswith(">") for later in rest):
                return _join(lines[:index])
            lines[index:index + span] = [""] * span
            return _join(lines)
    return _join(lines)


def unflow(text: str, delsp: bool = False) -> str:
    """Undo RFC 3676 ``format=flowed``: join soft-broken lines, remove space-stuffing.

    A line ending in a space continues on the next line of the same quote
    depth; ``-- `` (the signature separator) never does. With ``delsp=yes``
    the trailing space was inserted by the wrapper and is dropped.
    """
    out: list[str] = []
    pending: str | None = None
    pending_depth = 0
    for line in text.split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):
            content = content[1:]  # space-stuffing (or the space after the quote marks)
        if pending is not None and depth != pending_depth:
            out.append(_quoted(pending, pending_depth))
            pending = None
        flowed = content.endswith(" ") and content != "-- "
        if flowed and delsp:
            content = content[:-1]
        joined = content if pending is None else pending + content
        if flowed:
            pending, pending_depth = joined, depth
        else:
            out.append(_quoted(joined, depth))
            pending = None
    if pending is not None:
        out.append(_quoted(pending, pending_depth))
    return "\n".join(out)


def _quoted(content: str, depth: int) -> str:
    return (">" * depth + " " + content) if depth else content


def _attribution_span(lines: list[str], index: int) -> int:
    """How many lines (1–3) the attribution starting at ``index`` takes; 0 if there is none."""
    if not _ATTRIBUTION_START.match(lines[index].strip()):
        return 0
    joined = ""
    for span in range(1, _MAX_ATTRIBUTION_LINES + 1):
        if index + span > len(lines):
            break
        piece = lines[index + span - 1].strip()
        if span > 1 and (not piece or piece.startswith(">")):
            break
        joined = f"{joined} {piece}".strip()
        if _ATTRIBUTION.match(joined):
            return span
    return 0


def _starts_outlook_header(lines: list[str], index: int) -> bool:
    """An Outlook header block (``From:``, then ``Sent:``/``Date:`` and ``Subject:``) or its ``____`` rule."""
    stripped = lines[index].strip()
    if _OUTLOOK_RULE.match(stripped):
        following = [line.strip() for line in lines[index + 1:index + 4] if line.strip()]
        return bool(following) and bool(_HEADER_FROM.match(following[0]))
    if not _HEADER_FROM.match(stripped):
        return False
    window = [line.strip() for line in lines[index + 1:index + 7]]
    return any(_HEADER_SENT.match(line) for line in window) and any(_HEADER_SUBJECT.match(line) for line in window)


def _join(lines: list[str]) -> str:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return "\n".join(lines) + ("\n" if lines else "")
