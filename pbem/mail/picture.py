"""A picture beside a mail's text: the HTML alternative that shows the board as an image.

Why: the ASCII board reads well in a fixed-width font, but phones and most
webmail show mail in a proportional one; a picture of the board reads
everywhere. The plain text stays what it is (the orders are answered from it,
quotes are made of it, text-only clients show it), so a mail with a picture is

    multipart/alternative
      text/plain         the text, byte for byte as a text-only mail has it
      multipart/related
        text/html        the same text as HTML that reflows (pbem.mail.htmlbody), the picture in it
        image/png        the picture, inline, with a Content-ID the HTML refers to

Clients that show HTML show the page; the others show the text. The page is
minimal and safe: every character of the text is escaped, nothing is loaded
from anywhere (the image travels in the mail), no script, no form.

Where the picture goes: :class:`InlinePicture` ``line`` names the line of
the (unwrapped) text where the part that carries the board begins (a report
after the news and answers); the picture follows that part's banner (its
leading lines up to the last ``====`` rule before the first blank line), or
stands at that line when it has none.

Everything here is a pure function of its input, as :func:`build_message`
is, so the same outbox row always gives the same bytes: the Content-ID is
derived from the Message-ID, and the MIME boundaries are fixed words, each
taken with a number when the text holds it (a boundary inside a part would
let a player's quoted line break the mail apart). Fixed, not random nor a
hash of the content, so that two mails that say the same have the same
headers: nothing in them varies with what the reader may not see.
"""
from __future__ import annotations

import binascii
import hashlib
import html
import struct
from dataclasses import dataclass
from email.message import EmailMessage
from urllib.parse import quote

from pbem.mail.errors import OutboundError
from pbem.mail.htmlbody import FONT, SEEN_NOTE, to_html
from pbem.mail.wire import CACHED_BODIES, Recent, transfer_encoding
from pbem.mail.wrap import wrap_text

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_PICTURE_BYTES = 150_000  # a board picture is 12-45 KB; a mail must stay small (base64 adds a third)
RULE_CHARS = frozenset("=")
RULE_MIN = 10  # an "=" line at least this long is a banner's rule
PICTURE_NAME = "board.png"
ALTERNATIVE_BOUNDARY = "=_pbem-alternative"  # neither is the beginning of the other
RELATED_BOUNDARY = "=_pbem-related"


@dataclass(frozen=True, slots=True)
class InlinePicture:
    """A PNG to show inline in the mail's HTML part, with its alt text and place (see the module docstring)."""

    png: bytes
    alt: str
    line: int = 0  # the body line where the part that carries the picture begins
    note: str = SEEN_NOTE  # said in the HTML where the text's drawing is left out (the reader's language)


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's header; :class:`OutboundError` when ``data`` is no PNG."""
    if len(data) < 24 or not data.startswith(PNG_SIGNATURE) or data[12:16] != b"IHDR":
        raise OutboundError("the picture of a mail must be a PNG")
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def content_id(message_id: str) -> str:
    """The picture's Content-ID (without angle brackets): stable per mail, unique, safe in a ``cid:`` URL."""
    domain = message_id.strip("<>").rpartition("@")[2] or "pbem.invalid"
    return f"board.{_digest(message_id.encode('utf-8'))}@{domain}"


def picture_line(lines: list[str], start: int) -> int:
    """The index of the line the picture stands before: after the banner of the part starting at ``start``."""
    start = max(0, min(start, len(lines)))
    index = start
    while index < len(lines) and not lines[index].strip():
        index += 1
    after = start
    while index < len(lines) and lines[index].strip():  # the part's leading block, up to a blank line
        if _is_rule(lines[index]):
            after = index + 1
        index += 1
    return after


def html_page(text: str, picture: InlinePicture, cid: str, *, title: str = "") -> str:
    """The HTML part: ``text`` (already wrapped, as the plain part has it) as reflowing HTML
    (``pbem.mail.htmlbody``: the ASCII art left out, the picture shows it), the picture inside.

    ``picture.line`` is a line of ``text`` here (see :func:`add_picture`). No colour is set on the page, so
    that a client's dark mode stays readable; the picture brings its own light background.

    The picture is shown at its own size, in a box as wide as the screen that slides sideways when the
    picture is wider: shrunk to a phone's 400 pixels a whole board's labels would be 3 pixels tall, at its
    own size they are 10 or more and the reader pans to the part they need (the page itself never scrolls
    sideways). A screen as wide as the picture shows it whole, as before.
    """
    width, height = png_size(picture.png)
    lines = text.split("\n")
    at = picture_line(lines, picture.line)
    before, after = "\n".join(lines[:at]), "\n".join(lines[at:])
    image = (f'<div style="margin:10px 0;max-width:100%;overflow-x:auto">'
             f'<img src="cid:{quote(cid, safe="@.-_")}" alt="{html.escape(picture.alt)}" width="{width}" '
             f'height="{height}" style="display:block;width:{width}px;max-width:none;height:auto;border:0"></div>')
    parts = [_column(to_html(before, picture=True, note=picture.note)) if before.strip() else "", image,
             _column(to_html(after, picture=True, note=picture.note)) if after.strip() else ""]
    return ("<!DOCTYPE html>\n"
            "<html><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<meta name=\"color-scheme\" content=\"light dark\">"
            f"<title>{html.escape(title)}</title></head>\n"
            "<body style=\"margin:0;padding:8px\">\n"
            + "\n".join(part for part in parts if part) + "\n</body></html>\n")


def _column(blocks: str) -> str:
    """Text in a column as wide as reads well (the picture beside it may be wider, up to the screen)."""
    return f'<div style="max-width:42em;font-family:{FONT};font-size:15px;line-height:1.4">\n{blocks}\n</div>'


def add_picture(message: EmailMessage, body: str, picture: InlinePicture, message_id: str, title: str, *,
                wrapped: str | None = None) -> None:
    """Turn ``message`` (text/plain, its content set from ``body``) into the shape of the module docstring.

    ``body`` is the mail's text before wrapping, with ``\\n`` line ends;
    ``picture.line`` counts its lines; ``wrapped`` is ``wrap_text(body)`` when the caller has made it already.
    The boundaries are fixed (see the module docstring), so that building the same mail twice gives the same
    bytes.
    """
    if len(picture.png) > MAX_PICTURE_BYTES:
        raise OutboundError(f"the picture is {len(picture.png)} bytes, more than a mail carries "
                            f"({MAX_PICTURE_BYTES})")
    lines = body.split("\n")
    head = lines[:max(0, picture.line)]
    wrapped_start = len(wrap_text("\n".join(head)).split("\n")) if head else 0  # wrapping works line by line
    text = wrap_text(body) if wrapped is None else wrapped
    cid = content_id(message_id)
    page = html_page(text, InlinePicture(picture.png, picture.alt, wrapped_start, picture.note), cid, title=title)
    message.add_alternative(page, subtype="html", charset="utf-8", cte=transfer_encoding(page))
    html_part = list(message.iter_parts())[1]  # the text/html just added, after the text/plain
    # The part is made empty and given the picture's base64 afterwards: the same part add_related makes from
    # the bytes, but encoded once for every mail that carries this picture (see base64_lines).
    html_part.add_related(b"", maintype="image", subtype="png", cid=f"<{cid}>", disposition="inline",
                          filename=PICTURE_NAME)
    list(html_part.iter_parts())[-1].set_payload(base64_lines(picture.png, message.policy.max_line_length))
    for part in message.walk():
        if part is not message:
            del part["MIME-Version"]  # the email package repeats it on the parts it makes; only the top needs it
    written = f"{text}\n{page}"  # every text the parts hold (base64 and quoted-printable never hold "=_")
    message.set_boundary(boundary(ALTERNATIVE_BOUNDARY, written))
    html_part.set_boundary(boundary(RELATED_BOUNDARY, written))


def base64_lines(data: bytes, max_line_length: int | None) -> str:
    """``data`` in base64, each line as long as the policy lets a line be, as the email package writes it.

    Remembered for the last few pictures (:class:`pbem.mail.wire.Recent`):
    the mails of one order carry the same board.
    """
    return _encoded.get((data, max_line_length or 78))


def _base64(key: tuple[bytes, int]) -> str:
    """The email package's lines: each of ``max_line_length // 4 * 3`` bytes encoded alone. Encoded at once
    and cut into lines of their length in characters, the same (a whole number of three-byte groups encodes
    with no padding), with one call to the encoder instead of one per line."""
    data, max_line_length = key
    width = max_line_length // 4 * 4
    encoded = binascii.b2a_base64(data, newline=False).decode("ascii")
    return "".join([f"{encoded[at:at + width]}\n" for at in range(0, len(encoded), width)])


_encoded: Recent[tuple[bytes, int], str] = Recent(CACHED_BODIES, _base64)


def boundary(word: str, text: str) -> str:
    """``word``, or ``word-N`` for the first N that ``text`` does not hold (RFC 2046: a boundary must not
    occur in the parts it separates)."""
    found, number = word, 0
    while f"--{found}" in text:
        number += 1
        found = f"{word}-{number}"
    return found


def _is_rule(line: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= RULE_MIN and set(stripped) <= RULE_CHARS


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:24]
