"""A built message as the SMTP relay receives it: the envelope and the bytes of DATA, made once.

Why not ``smtplib.SMTP.send_message``: it copies the message and runs the
email package's generator over it again (``build_message`` has serialised it
once already to surface errors), then scans the result with a regular
expression for lines starting with a dot. For a mail with the board's
picture (an Imperial 2030 report is ~70 KB, three quarters of it the picture
in base64; it was ~110 KB before issue 29) that was most of what sending a
mail cost. Here the message is serialised once, by :func:`flatten`, which
writes what smtplib's ``email.generator.BytesGenerator`` writes for the
shapes ``build_message`` makes (headers folded by the same policy call,
bodies with their line ends made CRLF and ``From`` lines guarded as smtplib
guards them) and hands anything else to that generator itself;
a long body (the picture) is turned into bytes once, however many mails
carry it (:func:`body_bytes`). The tests compare the two over many mails.

:func:`to_wire` takes the envelope from the headers exactly as
``send_message`` does (the first address of ``From``, every address of
``To`` and ``Cc``), so a mail sent either way is the same mail.
"""
from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from email import policy as email_policy
from email.generator import BytesGenerator
from email.headerregistry import Address, BaseHeader, HeaderRegistry, MessageIDHeader, UnstructuredHeader
from email.message import EmailMessage, Message
from email.policy import Policy
from email.utils import getaddresses
from io import BytesIO
from typing import Any, Generic, TypeVar

CRLF = "\r\n"
CACHED_BODY_MIN = 16_384  # bodies at least this long (the picture) are kept in bytes for the next mail
CACHED_BODIES = 8  # a handful of boards at a time: the mails of one order share one
CACHED_HEADERS = 512  # header values of the last few mails
_LINE_END = re.compile(r"\r\n|\r|\n")
_FROM_LINE = re.compile(r"^From ", re.MULTILINE)
K = TypeVar("K")
V = TypeVar("V")
_NOT_OURS = ("bcc", "resent-bcc", "resent-date")  # send_message treats these specially; we never set them


@dataclass(frozen=True, slots=True)
class WireMail:
    """One mail ready for the relay: ``data`` is the whole message, CRLF line ends, not dot-stuffed."""

    sender: str
    recipients: tuple[str, ...]
    data: bytes


class _Unusual(Exception):
    """A message shape :func:`flatten` leaves to the email package's generator."""


def to_wire(message: EmailMessage, sender: str | None = None, recipients: tuple[str, ...] | None = None) -> WireMail:
    """``message`` for the relay, the envelope from its headers unless given (``send_message``'s rules).

    Raises ``ValueError`` for a message whose envelope or headers ask for
    more than plain SMTP (non-ASCII addresses need SMTPUTF8, Bcc must be
    dropped from the copy sent): :meth:`pbem.mail.SmtpSender.send` sends
    such a message the generic way.
    """
    present = {name.lower() for name in message.keys()}
    if not present.isdisjoint(_NOT_OURS):
        raise ValueError("a message with Bcc or Resent headers")
    if sender is None:
        sender = _envelopes.get((str(message["Sender"] if "sender" in present else message["From"]),))[0]
    if recipients is None:
        recipients = _envelopes.get(tuple(str(message[name]) for name in ("To", "Cc") if message[name] is not None))
    if not (sender + "".join(recipients)).isascii():
        raise ValueError("non-ASCII envelope addresses need SMTPUTF8")
    return WireMail(sender, recipients, flatten(message))


def flatten(message: EmailMessage) -> bytes:
    """The bytes ``smtplib.SMTP.send_message`` sends for ``message``; see the module docstring.

    That is ``message.as_bytes()`` with CRLF line ends and, in the bodies,
    ``>From `` for a line that starts with ``From `` (smtplib's generator
    guards mbox readers so): what our relays have always received.
    """
    if message.policy.linesep == CRLF:
        try:
            out: list[bytes] = []
            _write(message, message, out)
            return b"".join(out)
        except _Unusual:
            pass
    buffer = BytesIO()
    BytesGenerator(buffer, mangle_from_=True).flatten(message, linesep=CRLF)
    return buffer.getvalue()


def _write(top: Message, part: Message, out: list[bytes]) -> None:
    """Headers then body of ``part``, as the generator writes them with ``top``'s policy."""
    policy = top.policy
    for name, value in part.raw_items():
        out.append(_folds.get(policy, name, value) if isinstance(value, BaseHeader) else policy.fold_binary(name, value))
    out.append(b"\r\n")
    payload = part.get_payload()  # the text as stored (ASCII here): the same object every mail of a picture holds
    if part.get_content_maintype() == "multipart":
        _write_multipart(top, part, payload, out)
    elif part.get_content_maintype() == "message" or isinstance(payload, list):
        raise _Unusual
    elif payload is not None:
        if not isinstance(payload, str) or not payload.isascii():  # 8bit or surrogate-escaped: the generator knows
            raise _Unusual
        if "From " in payload:
            payload = _FROM_LINE.sub(">From ", payload)
        out.append(body_bytes(payload))


def _write_multipart(top: Message, part: Message, payload: object, out: list[bytes]) -> None:
    boundary = part.get_boundary()
    if not isinstance(payload, list) or not boundary or part.preamble is not None or part.epilogue is not None:
        raise _Unusual
    if not boundary.isascii():
        raise _Unusual
    delimiter = f"--{boundary}".encode("ascii")
    for index, child in enumerate(payload):
        out.append(delimiter + b"\r\n" if index == 0 else b"\r\n" + delimiter + b"\r\n")
        _write(top, child, out)
    if not payload:
        out.append(delimiter + b"\r\n")
    out.append(b"\r\n" + delimiter + b"--\r\n")


class Recent(Generic[K, V]):
    """The last ``size`` values made from their keys; thread-safe (the sender and the workers build mail).

    Why bounded and small: it holds what the mails of one order share (the
    board's picture), not a history; a value is a pure function of its key,
    so a miss only costs the time to make it again.
    """

    def __init__(self, size: int, make: Callable[[K], V]) -> None:
        self.size = size
        self._make = make
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                return found
        made = self._make(key)
        with self._lock:
            self._items[key] = made
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return made


class _Folds:
    """The folded lines of the last few header objects, by identity.

    Why: most header objects of a mail are the same objects as the last
    mail's (:class:`_Headers` remembers them), and folding is what the email
    package spends most on writing a header. By identity, not by value: two
    headers that read the same may have been made differently; an entry
    holds its header object, so its id cannot be another's meanwhile.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[int, tuple[BaseHeader, Policy, bytes]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, policy: Policy, name: str, value: BaseHeader) -> bytes:
        key = id(value)
        with self._lock:
            found = self._items.get(key)
            if found is not None and found[0] is value and found[1] is policy:
                self._items.move_to_end(key)
                return found[2]
        folded = policy.fold_binary(name, value)
        with self._lock:
            self._items[key] = (value, policy, folded)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return folded


_PLAIN = re.compile(r"[!-~]+(?: [!-~]+)*")  # printable ASCII words, one space between: nothing to encode
_DOT_ATOMS = r"[A-Za-z0-9_+-]+(?:\.[A-Za-z0-9_+-]+)*"
_PLAIN_ID = re.compile(rf"<{_DOT_ATOMS}@{_DOT_ATOMS}>")  # ours (pbem.outbound.message_id_for) and most others


def set_header(message: Message, name: str, value: str) -> None:
    """``message[name] = value``, though kept as the text itself when the header object would write the same.

    Why: the header objects of a mail's own values (its Message-ID, Subject, In-Reply-To ...) are made for one
    mail, parsed and then folded for it alone, which was a third of what building a text mail cost. A header
    kept as text (``set_raw``: the email package's own way for the headers of a mail it reads) is written as
    ``Name: value`` when that fits on a line, and otherwise folded by the header object the policy makes of
    it then, the very object ``message[name] = value`` stores. So the text is kept only when the object would
    write ``Name: value`` too: an unstructured header (or a Message-ID of dot atoms) of printable ASCII words
    one space apart, which its parser keeps character for character, and no ``=?`` (which it would decode as
    an encoded word). Anything else, and a second header of a name that may appear once (which
    ``message[name] = value`` refuses), goes the usual way. Reading the header back gives an equal object.
    """
    policy = message.policy
    factory = policy.header_factory if isinstance(policy, email_policy.EmailPolicy) else None
    fits = not policy.max_line_length or len(name) + len(value) + 2 <= policy.max_line_length
    if isinstance(factory, HeaderRegistry) and fits and _PLAIN.fullmatch(value) and "=?" not in value:
        kind = factory[name]
        plain = issubclass(kind, UnstructuredHeader) or (issubclass(kind, MessageIDHeader)
                                                          and _PLAIN_ID.fullmatch(value) is not None)
        if plain and (kind.max_count is None or name not in message):
            message.set_raw(name, value)
            return
    message[name] = value


_HIGH = bytes(range(128, 256))
_MAX_LINE = 998  # RFC 5322's line limit: a longer line cannot travel as 7bit


def transfer_encoding(text: str) -> str:
    """How a text part travels: as it is (``7bit``) when it is ASCII in lines a relay takes, else the shorter
    of quoted-printable and base64.

    Why the shorter: quoted-printable keeps a Latin-script language readable in the raw mail and costs three
    bytes for each of its few accented letters' bytes; a Cyrillic letter is two bytes of UTF-8, six in
    quoted-printable, and a Russian report grew to 2.7 times its text (a seat's game to 4 MB where the same
    game in English is 2.4 MB); base64 costs a third more for any text. Counted, not encoded twice: both
    sizes follow from the bytes above 127 and the equals signs.
    """
    if text.isascii() and (len(text) <= _MAX_LINE or max(map(len, text.split("\n"))) <= _MAX_LINE):
        return "7bit"
    data = text.encode("utf-8")
    escaped = len(data) - len(data.translate(None, _HIGH)) + data.count(b"=")
    quoted = len(data) + 2 * escaped + 3 * (len(data) + 2 * escaped) // 75  # "=XX" each, a soft break per line
    base64 = (len(data) + 56) // 57 * 77  # 76 characters and a line end for every 57 bytes
    return "base64" if base64 < quoted else "quoted-printable"


def body_bytes(text: str) -> bytes:
    """An ASCII body with every line end CRLF (the generator's rule: ``\\r\\n``, ``\\r`` and ``\\n`` each
    end a line), a long one from the cache."""
    return _bodies.get(text) if len(text) >= CACHED_BODY_MIN else _crlf(text)


def _crlf(text: str) -> bytes:
    if "\r" in text:
        text = _LINE_END.sub("\n", text)
    return text.replace("\n", CRLF).encode("ascii")


def _addresses(fields: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(address for _, address in getaddresses(list(fields)))


_bodies: Recent[str, bytes] = Recent(CACHED_BODIES, _crlf)
_envelopes: Recent[tuple[str, ...], tuple[str, ...]] = Recent(CACHED_HEADERS, _addresses)
"""The envelope addresses of the last few From and To values: ``getaddresses`` (a parser) is a pure function of
the header texts it reads, which are the key; the same moderator and players write mail after mail."""
_folds = _Folds(CACHED_HEADERS)


class _Headers(HeaderRegistry):
    """The email package's header registry, remembering what it made.

    Why: building one mail makes some sixty header objects (setting a
    Content-Type parameter makes the header anew), and the stock registry
    creates a new class for every one and parses every value again, though
    most values (Content-Type, Auto-Submitted, From's name …) repeat from
    mail to mail. The classes and objects are the same as the stock
    registry's: a header object is never changed once made. A value is
    remembered by what makes it: a text by the text, an ``Address`` (From,
    To and Reply-To, each parsed again from its text by the stock registry:
    the most costly of a mail's headers) by its three parts, which are all an
    ``Address`` holds; the header's name as given, since the object keeps it.
    """

    def __init__(self) -> None:
        super().__init__()
        self._classes: dict[str, type[BaseHeader]] = {}
        self._recent: Recent[tuple[str, str | tuple[str, str, str]], BaseHeader] = Recent(CACHED_HEADERS, self._make)

    def __getitem__(self, name: str) -> type[BaseHeader]:
        key = name.lower()
        found = self._classes.get(key)
        if found is None:
            found = self._classes[key] = super().__getitem__(name)
        return found

    def __call__(self, name: str, value: Any) -> BaseHeader:
        if isinstance(value, str):
            return self._recent.get((name, value))
        if type(value) is Address:  # From, To, Reply-To: the same few addresses mail after mail
            return self._recent.get((name, (value.display_name, value.username, value.domain)))
        return self[name](name, value)

    def _make(self, key: tuple[str, str | tuple[str, str, str]]) -> BaseHeader:
        name, value = key
        if isinstance(value, tuple):
            display_name, username, domain = value
            return self[name](name, Address(display_name, username, domain))
        return self[name](name, value)


OUR_POLICY = email_policy.SMTP.clone(header_factory=_Headers())
"""``email.policy.SMTP`` with a remembering header registry: what our messages are built with."""
