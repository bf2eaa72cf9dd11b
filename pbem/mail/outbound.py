"""Building outgoing mail: one :class:`OutgoingMail` in, one ``EmailMessage`` out, nothing else.

:func:`build_message` is a pure function of its argument (no clock, no random
Message-ID, no host name lookup), so that the moderator can compute a mail
inside the database transaction, store it in the outbox, and the sender can
rebuild or resend exactly the same bytes after a crash. Stable Message-IDs
(:func:`message_id_for`) make a resent mail a duplicate that the player's
mail system collapses, not a second message.

Every mail is text/plain UTF-8 (a mail that carries the board also has an
HTML alternative showing it as a picture: :mod:`pbem.mail.picture`; the
plain text is the same either way), ``From`` the moderator, ``Reply-To`` the
seat's token address (:func:`token_address`), threaded per game
(:func:`game_thread_id`, :func:`thread_headers`, :func:`reply_threading`),
with ``Auto-Submitted`` (RFC 3834: auto-responders must not answer it) and,
when the reader has to decide something, ``X-PBEM-Decision: <kind>``, so
players can filter on it.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime
from typing import NamedTuple

from pbem.mail.errors import OutboundError
from pbem.mail.inbound import LOOP_HEADER, TOKEN_PATTERN, InboundMessage
from pbem.mail.picture import InlinePicture, add_picture, boundary
from pbem.mail.wire import OUR_POLICY, WireMail, set_header, to_wire, transfer_encoding
from pbem.mail.wrap import wrap_text

DECISION_HEADER = "X-PBEM-Decision"
PURPOSE_HEADER = "X-PBEM-Mail"  # what the mail is: report, prompt, error, game_end, welcome ... (the outbox's purpose)
MOVE_HEADER = "X-PBEM-Move"  # the move of its game the mail is about (a mail of a game only)
_TOKEN_RE = re.compile(rf"^{TOKEN_PATTERN}$")
_MSGID_RE = re.compile(r"^<[^<>\s@]+@[^<>\s@]+>$")
_DECISION_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_SLUG_RE = re.compile(r"[^A-Za-z0-9_-]+")
_NOT_IN_ADDRESS = re.compile(r'[\s<>,;"]')  # \s: what str.isspace() calls a space
_AUTO_SUBMITTED = ("auto-generated", "auto-replied")
MIXED_BOUNDARY = "=_pbem-mixed"  # the text and its attachment; no other boundary of ours begins so


@dataclass(frozen=True, slots=True)
class OutgoingMail:
    """Everything one outgoing mail says; ``build_message`` turns it into MIME.

    ``date`` must be timezone-aware (the caller's clock, not ours: the
    function stays pure). ``decision`` is the kind of decision the reader is
    asked for (``rondel``, ``investment``, …) and sets ``X-PBEM-Decision``.
    ``auto_submitted`` is ``auto-generated`` for reports and prompts,
    ``auto-replied`` for a direct answer to a player's mail (RFC 3834).
    ``picture`` (the board as a PNG) makes the mail multipart/alternative
    with an HTML part that shows it (:mod:`pbem.mail.picture`). ``purpose``
    and ``move`` say what the mail is and which move of its game it is about
    (``X-PBEM-Mail``, ``X-PBEM-Move``): a program that plays by mail (our
    bots, anyone's) sorts the mail by them, whatever game and language its
    text is in.
    """

    to: str
    subject: str
    body: str
    from_address: str
    message_id: str
    date: datetime
    from_name: str = ""
    to_name: str = ""
    reply_to: str | None = None
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    list_id: str | None = None
    decision: str | None = None
    purpose: str = ""
    move: int | None = None
    auto_submitted: str = "auto-generated"
    picture: InlinePicture | None = None
    attachment: tuple[str, str] | None = None  # (file name, text): a long answer attached as a text file


class Threading(NamedTuple):
    """The ``In-Reply-To`` and ``References`` values of one mail."""

    in_reply_to: str | None
    references: tuple[str, ...]


def build_message(mail: OutgoingMail) -> EmailMessage:
    """The MIME message for ``mail``: text/plain UTF-8 with the headers listed in the module docstring
    (multipart/alternative with the picture in an HTML part when ``mail.picture`` is set).

    Raises :class:`OutboundError` for an invalid address or Message-ID, a line
    break in a header value (header injection), a naive ``date`` or an
    unknown ``auto_submitted`` value.
    """
    message = _compose(mail)
    try:
        message.as_bytes()  # surface any serialisation problem here, not in the SMTP sender
    except (ValueError, TypeError, UnicodeError) as exc:
        raise OutboundError(f"cannot build the mail to {mail.to!r}: {exc}") from exc
    return message


def wire_mail(mail: OutgoingMail) -> WireMail:
    """``mail`` as the relay receives it: ``build_message(mail)`` with its envelope, as smtplib would send it.

    What the outbox sends: the message is serialised once, here (errors as
    :func:`build_message` raises them), and not again by smtplib
    (:mod:`pbem.mail.wire`).
    """
    message = _compose(mail)
    try:
        return to_wire(message)
    except (ValueError, TypeError, UnicodeError) as exc:
        raise OutboundError(f"cannot build the mail to {mail.to!r}: {exc}") from exc


def _compose(mail: OutgoingMail) -> EmailMessage:
    """The message of :func:`build_message`, not yet serialised."""
    if mail.date.tzinfo is None or mail.date.utcoffset() is None:
        raise OutboundError("the Date of an outgoing mail must be timezone-aware")
    if mail.auto_submitted not in _AUTO_SUBMITTED:
        raise OutboundError(f"Auto-Submitted must be one of {', '.join(_AUTO_SUBMITTED)}, not {mail.auto_submitted!r}")
    if mail.decision is not None and not _DECISION_RE.match(mail.decision):
        raise OutboundError(f"a decision kind must be a short word (letters, digits, _.-), not {mail.decision!r}")
    if mail.purpose and not _DECISION_RE.match(mail.purpose):
        raise OutboundError(f"a mail's purpose must be a short word (letters, digits, _.-), not {mail.purpose!r}")
    for label, value in (("Message-ID", mail.message_id), ("In-Reply-To", mail.in_reply_to),
                         *(("References", ref) for ref in mail.references)):
        if value is not None and not _MSGID_RE.match(value):
            raise OutboundError(f"{label} must look like <left@right>, not {value!r}")

    message = EmailMessage(policy=OUR_POLICY)
    try:
        message["From"] = _address(mail.from_address, mail.from_name, "From")
        message["To"] = _address(mail.to, mail.to_name, "To")
        if mail.reply_to:
            message["Reply-To"] = _address(mail.reply_to, mail.from_name, "Reply-To")
        set_header(message, "Subject", _one_line(mail.subject, "Subject"))
        message["Date"] = format_datetime(mail.date)  # a date, kept as an object (remembered: a move's mails share it)
        set_header(message, "Message-ID", mail.message_id)
        if mail.in_reply_to:
            set_header(message, "In-Reply-To", mail.in_reply_to)
        if mail.references:
            set_header(message, "References", " ".join(mail.references))
        if mail.list_id:
            set_header(message, "List-Id", _one_line(mail.list_id, "List-Id"))
        set_header(message, "Auto-Submitted", mail.auto_submitted)
        # Exchange/Outlook: send no out-of-office or read receipt back to us (one less loop to guard).
        set_header(message, "X-Auto-Response-Suppress", "All")
        set_header(message, LOOP_HEADER, mail.from_address)  # ours: never answered by a moderator (pbem.mail.inbound)
        if mail.decision:
            set_header(message, DECISION_HEADER, mail.decision)
        if mail.purpose:
            set_header(message, PURPOSE_HEADER, mail.purpose)
        if mail.move is not None:
            set_header(message, MOVE_HEADER, str(mail.move))
        text = mail.body.replace("\r\n", "\n").replace("\r", "\n")
        wrapped = wrap_text(text)  # at most 78 columns
        body = wrapped if wrapped.endswith("\n") else wrapped + "\n"
        message.set_content(body, charset="utf-8", cte=transfer_encoding(body))
        if mail.picture is not None:
            add_picture(message, text, mail.picture, mail.message_id, mail.subject, wrapped=wrapped)
        if mail.attachment is not None:
            filename, attached = mail.attachment
            message.add_attachment(attached, subtype="plain", charset="utf-8", filename=_one_line(filename, "file"))
            # A fixed boundary, as the picture's (pbem.mail.picture): left to the email package it is random,
            # and the same outbox row would give other bytes at every build.
            parts = b"\n".join(part.as_bytes() for part in message.iter_parts()).decode("ascii", "replace")
            message.set_boundary(boundary(MIXED_BOUNDARY, parts))
    except (ValueError, TypeError, UnicodeError) as exc:
        raise OutboundError(f"cannot build the mail to {mail.to!r}: {exc}") from exc
    return message


def message_id_for(game: str, version: int, recipient: str, purpose: str, *, domain: str) -> str:
    """The stable Message-ID of the mail about ``game`` at state ``version`` to ``recipient`` for ``purpose``.

    ``<pbem.{game}.{version}.{hash}@{domain}>``: the same four values always
    give the same id (a resend after a crash is recognised as the same mail),
    different values never collide in practice (the hash covers them all, the
    readable game part is only a slug of the name). ``purpose`` must tell
    apart two mails to one recipient at one version, e.g. ``report``,
    ``prompt``, ``reminder:2``, ``error:<the inbound Message-ID>``.
    """
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise OutboundError(f"a state version is a number >= 0, not {version!r}")
    digest = _digest(game, str(version), recipient.strip().lower(), purpose)
    return f"<pbem.{_slug(game)}.{version}.{digest}@{_domain(domain)}>"


def move_of_message_id(message_id: str, game: str, *, domain: str) -> int | None:
    """The state version (move) of one of our Message-IDs about ``game`` (:func:`message_id_for`), else None.

    Read back from a player's ``In-Reply-To``/``References``: it tells which
    move the mail they answer was written at. An id of another game, another
    domain or not of our making gives None.
    """
    match = re.fullmatch(r"<pbem\.([A-Za-z0-9_-]+)\.(\d+)\.[0-9a-f]{16}@([^<>@\s]+)>", message_id.strip())
    if match is None or match.group(1) != _slug(game) or match.group(3).lower() != _domain(domain):
        return None
    return int(match.group(2))


def game_thread_id(game: str, *, domain: str) -> str:
    """The id every mail of ``game`` refers to, so that mail clients thread a game's mail together.

    No mail carries it as its own Message-ID (each mail has its own, see
    :func:`message_id_for`); clients thread on the shared reference, and so a
    player who joins later lands in the same thread.
    """
    return f"<pbem.{_slug(game)}.thread.{_digest(game, 'thread')}@{_domain(domain)}>"


def thread_headers(root: str, parent: str | None = None) -> Threading:
    """Threading for a mail of a game: a reply to ``parent`` (if any) within the thread of ``root``."""
    references = (root,) if parent is None or parent == root else (root, parent)
    return Threading(in_reply_to=parent or root, references=references)


@dataclass(frozen=True)
class ReplyTo:
    """The player's mail an answer replies to, as much of it as the answer's threading needs.

    Why not the whole ``InboundMessage``: a move's mail is written after the
    move has committed, from what the move's record kept of the player's mail
    (``pbem.store.moves``), which is this.
    """

    message_id: str | None
    references: tuple[str, ...] = ()

    @classmethod
    def of(cls, message: InboundMessage) -> ReplyTo:
        return cls(message.message_id, tuple(message.references))


def reply_threading(message: InboundMessage | ReplyTo, root: str | None = None) -> Threading:
    """Threading for our answer to a player's mail (RFC 5322 §3.6.4): their references plus their id.

    ``root`` (the game's thread id) is put first when the player's mail did
    not carry it, so an answer to a fresh mail still joins the game's thread.
    """
    references = list(message.references)
    if root and root not in references:
        references.insert(0, root)
    if message.message_id and message.message_id not in references:
        references.append(message.message_id)
    return Threading(in_reply_to=message.message_id or root, references=tuple(references))


def list_id_for(game: str, *, domain: str, name: str = "Imperial 2030") -> str:
    """The ``List-Id`` of ``game`` (RFC 2919): ``{name} game {game} <{slug}.pbem.{domain}>``.

    Players filter a game's mail on it, and auto-responders that honour it stay quiet.
    """
    description = _one_line(f"{name} game {game}", "List-Id")
    if re.search(r'[()<>\[\]:;@\\,."]', description):  # RFC 5322 specials: make it a quoted string
        description = '"' + description.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return f"{description} <{_slug(game).lower()}.pbem.{_domain(domain)}>"


def token_address(moderator_address: str, token: str) -> str:
    """``local+TOKEN@host`` for ``moderator_address`` ``local@host``: the Reply-To of a seat's mail.

    The token must be what the inbound parser recognises (letters, digits,
    ``_`` and ``-``, 4 to 64 characters). Some mail servers lowercase the
    local part on delivery, so tokens should be compared case-insensitively
    (or made of lowercase characters only).
    """
    if not _TOKEN_RE.match(token):
        raise OutboundError("a reply token must be 4-64 letters, digits, '_' or '-'")  # the token itself is secret
    local, at, host = moderator_address.strip().rpartition("@")
    if not at or not local or not host or "+" in local:
        raise OutboundError(f"the moderator address must be local@host without a '+', not {moderator_address!r}")
    return f"{local}+{token}@{host}"


def domain_of(address: str) -> str:
    """The host part of ``address``, lowercased: the right-hand side of our Message-IDs and List-Ids."""
    local, at, host = address.strip().rpartition("@")
    if not at or not local or not host:
        raise OutboundError(f"not an e-mail address: {address!r}")
    return _domain(host)


def _address(address: str, name: str, label: str) -> Address:
    """A header address; the domain IDNA-encoded; a non-ASCII local part refused (it would need SMTPUTF8)."""
    _one_line(name, label)
    local, at, host = _one_line(address, label).strip().rpartition("@")
    if not at or not local or not host or _NOT_IN_ADDRESS.search(address.strip()):
        raise OutboundError(f"{label}: not an e-mail address: {address!r}")
    if not local.isascii():
        raise OutboundError(f"{label}: a non-ASCII local part cannot be sent without SMTPUTF8: {address!r}")
    try:
        host = host.encode("idna").decode("ascii") if not host.isascii() else host
        return Address(display_name=name, username=local, domain=host)
    except (UnicodeError, ValueError, IndexError) as exc:
        raise OutboundError(f"{label}: not an e-mail address: {address!r} ({exc})") from exc


def _one_line(value: str, label: str) -> str:
    if "\r" in value or "\n" in value:
        raise OutboundError(f"{label} must be one line (a line break in a header would inject headers)")
    return value


def _slug(game: str) -> str:
    slug = _SLUG_RE.sub("-", game).strip("-")[:40]
    return slug or "game"


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:16]


def _domain(domain: str) -> str:
    value = domain.strip().lower()
    if not value.isascii():
        try:
            value = value.encode("idna").decode("ascii")
        except UnicodeError as exc:
            raise OutboundError(f"not a domain name: {domain!r}") from exc
    if not value or not re.fullmatch(r"[a-z0-9]([a-z0-9.-]*[a-z0-9])?", value) or ".." in value:
        raise OutboundError(f"not a domain name: {domain!r}")
    return value
