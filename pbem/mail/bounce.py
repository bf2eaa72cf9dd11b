"""Reading a bounce: which of our mails came back, for which address, and whether for good.

A bounce arrives in one of two shapes:

* a delivery status notification (RFC 3464): ``multipart/report;
  report-type=delivery-status`` with a ``message/delivery-status`` part of
  per-recipient blocks (``Final-Recipient``, ``Action``, ``Status``) and the
  original mail (``message/rfc822``) or its header (``text/rfc822-headers``)
  attached. Postfix, Exim 4.9x, Sendmail, Exchange and Gmail send these.
* the older, free-form kind (classic Exim, qmail, many hosted services): a mail
  from ``MAILER-DAEMON`` or ``postmaster`` that quotes the original mail, or
  attaches it, in plain text; Exim names the failed addresses in
  ``X-Failed-Recipients``.

What this module finds is what the moderator needs to pin a bounce to a seat
without trusting its sender (anybody can write a mail that looks like a
bounce): the Message-IDs of the original mails it quotes (``Message-ID:``
header lines only; the ``References`` of a quoted mail name other mails,
even other seats'), and the reply tokens of our own address that it quotes
(``moderator+TOKEN@host``: the Reply-To of every mail to a seat). The
moderator matches these against its outbox and its seats
(``pbem.moderator.inbound.bounces``). Nothing here raises: a report it
cannot read is simply no bounce.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from email.message import Message
from email.parser import HeaderParser
from email.policy import compat32
from email.utils import getaddresses

from pbem.mail.errors import InboundError

#: How much of a bounce's text is searched for quoted Message-IDs and tokens (a returned mail may be large).
SEARCH_CHARS = 200_000
_QUOTED_ID_RE = re.compile(r"^[ \t>]*Message-ID:[ \t]*(<[^<>\s]+>)", re.IGNORECASE | re.MULTILINE)
_STATUS_RE = re.compile(r"\b([245])\.\d{1,3}\.\d{1,3}\b")
_SMTP_CODE_RE = re.compile(r"(?<![\d.])([45])\d\d(?:[ -]|$)", re.MULTILINE)
_DELAYED_SUBJECT_RE = re.compile(r"delay|warning|will retry|still trying|not yet been delivered", re.IGNORECASE)
_DAEMONS = ("mailer-daemon", "postmaster")
_FAILED = "failed"
_DELAYED = "delayed"


@dataclass(frozen=True, slots=True)
class Failure:
    """One recipient a bounce reports on: its address (``''`` when not named) and whether it failed for good.

    ``hard``: the mail will never arrive (``Action: failed`` with a ``5.x.x``
    status, or a free-form bounce that does not say it is only delayed);
    otherwise it is soft (delayed, ``4.x.x``): the relay still tries.
    """

    address: str
    status: str
    action: str
    hard: bool


@dataclass(frozen=True, slots=True)
class Bounce:
    """What a bounce says: the failures it reports and the keys of the original mail it quotes."""

    failures: tuple[Failure, ...]
    message_ids: tuple[str, ...]  # Message-IDs of the original mails quoted or attached
    tokens: tuple[str, ...]  # reply tokens of the moderator's address quoted (as written)
    standard: bool  # an RFC 3464 report, not a free-form text

    @property
    def hard(self) -> bool:
        """Whether any recipient failed for good."""
        return any(failure.hard for failure in self.failures)

    def describe(self) -> str:
        """One line for the record and the log: each recipient with its status."""
        told = ", ".join(f"{f.address or '(no address)'} {f.status or f.action}".strip() for f in self.failures)
        return f"{'hard' if self.hard else 'soft'} bounce ({told or 'no recipient named'})"


def read_bounce(message: Message, moderator_address: str | None) -> Bounce | None:
    """The bounce ``message`` is, or None when it is none (an auto-reply, a list mail …).

    Only a delivery report, or a mail from a mail system's daemon address or
    with the null sender, or one that names ``X-Failed-Recipients``, is read as
    a bounce: an out-of-office notice quoting our mail is not one.
    """
    try:
        return _read(message, moderator_address)
    except (InboundError, LookupError, ValueError, TypeError, IndexError, AttributeError):
        return None  # a report too broken to read is set aside like any automatic mail


def _read(message: Message, moderator_address: str | None) -> Bounce | None:
    report = message.get_content_type() == "multipart/report" and (
        (message.get_param("report-type") or "") == "delivery-status")
    if not report and not _from_daemon(message):
        return None
    texts: list[str] = []
    failures: list[Failure] = []
    for part in message.walk():
        kind = part.get_content_type()
        if kind in ("message/delivery-status", "message/global-delivery-status"):
            failures += _status_blocks(part)
        elif kind in ("text/rfc822-headers", "message/rfc822-headers") or part.get_content_maintype() == "text":
            texts.append(_text_of(part))
        elif kind == "message/rfc822":
            texts += [_header_text(inner) for inner in _attached(part)]
    text = "\n".join(texts)[:SEARCH_CHARS]
    standard = report and bool(failures)
    if not standard:
        failures = _free_form_failures(message, text)
    ids = tuple(dict.fromkeys(_QUOTED_ID_RE.findall(text)))
    return Bounce(tuple(failures), ids, _quoted_tokens(text, moderator_address), standard)


def _from_daemon(message: Message) -> bool:
    """A mail system's own mail: the null sender, a daemon's address, or Exim's list of failed addresses."""
    if message.get("X-Failed-Recipients"):
        return True
    if "Return-Path" in message and str(message.get("Return-Path", "")).strip() in ("<>", ""):
        return True
    for _, address in getaddresses([str(value) for value in message.get_all("From", [])]):
        if address.split("@", 1)[0].lower().startswith(_DAEMONS):
            return True
    return False


def _status_blocks(part: Message) -> list[Failure]:
    """The per-recipient blocks of a ``message/delivery-status`` part (the first block is the MTA's own)."""
    payload = part.get_payload()
    if isinstance(payload, list):
        blocks = [block for block in payload if isinstance(block, Message)]
    else:  # some parsers leave it as text: split it at blank lines ourselves
        raw = payload if isinstance(payload, str) else ""
        blocks = [HeaderParser(policy=compat32).parsestr(chunk.strip() + "\n")
                  for chunk in re.split(r"\r?\n[ \t]*\r?\n", raw) if chunk.strip()]
    failures = []
    for block in blocks:
        recipient = str(block.get("Final-Recipient") or block.get("Original-Recipient") or "")
        action = str(block.get("Action", "")).strip().lower()
        if not recipient and not action:
            continue  # the per-message block
        status = _first_status(str(block.get("Status", "")))
        if action not in (_FAILED, _DELAYED) and not status.startswith(("4", "5")):
            continue  # delivered, relayed, expanded: no trouble
        hard = action == _FAILED and status.startswith("5")
        failures.append(Failure(_typed_address(recipient), status, action, hard))
    return failures


def _free_form_failures(message: Message, text: str) -> list[Failure]:
    """The failures of a bounce that is no RFC 3464 report: ``X-Failed-Recipients`` names them (Exim); else one
    failure without an address. It is hard unless its subject or codes say it is only delayed."""
    subject = str(message.get("Subject", ""))
    codes = {found.group(1) for found in _STATUS_RE.finditer(text)} | {
        found.group(1) for found in _SMTP_CODE_RE.finditer(text)}
    soft = bool(_DELAYED_SUBJECT_RE.search(subject)) or (codes == {"4"})
    status = next((found.group(0) for found in _STATUS_RE.finditer(text) if found.group(1) in "45"), "")
    action = _DELAYED if soft else _FAILED
    named = [address.strip().lower() for _, address in getaddresses(message.get_all("X-Failed-Recipients", []))
             if address.strip()]
    return [Failure(address, status, action, not soft) for address in named or [""]]


def _first_status(value: str) -> str:
    found = _STATUS_RE.search(value)
    return found.group(0) if found else value.strip()[:16]


def _typed_address(value: str) -> str:
    """``rfc822; ann@example.org`` -> ``ann@example.org`` (lowercased, angle brackets dropped)."""
    _, _, address = value.rpartition(";")
    return address.strip().strip("<>").strip().lower()


def _text_of(part: Message) -> str:
    payload = part.get_payload(decode=True)
    if isinstance(payload, bytes):
        charset = part.get_content_charset() or "utf-8"
        try:
            return payload.decode(charset, errors="replace")
        except LookupError:
            return payload.decode("utf-8", errors="replace")
    return payload if isinstance(payload, str) else ""


def _attached(part: Message) -> list[Message]:
    payload = part.get_payload()
    return [inner for inner in payload if isinstance(inner, Message)] if isinstance(payload, list) else []


def _header_text(message: Message) -> str:
    """The header of an attached mail as text: only it is searched (the body of our mail is the game's)."""
    return "\n".join(f"{name}: {value}" for name, value in message.items())


def _quoted_tokens(text: str, moderator_address: str | None) -> tuple[str, ...]:
    """Tokens of ``moderator+TOKEN@host`` addresses in the text (the quoted Reply-To of our mail)."""
    if not moderator_address or "@" not in moderator_address:
        return ()
    local, _, host = moderator_address.strip().rpartition("@")
    pattern = re.compile(rf"(?<![\w.+-]){re.escape(local)}\+([A-Za-z0-9][A-Za-z0-9_-]{{3,63}})@{re.escape(host)}\b",
                         re.IGNORECASE)
    return tuple(dict.fromkeys(found.group(1) for found in pattern.finditer(text)))
