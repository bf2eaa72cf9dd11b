"""The mail side of a player: read a mail from a Maildir file, build the reply a mail client would send.

Shared by the bots (``pbem bot``) and by ``pbem mail reply`` (a human in the
demo answering from the command line). A reply goes to the mail's
``Reply-To`` (the seat's token address ``moderator+TOKEN@host``), keeps the
subject with ``Re:``, and threads with ``In-Reply-To`` and ``References``,
exactly like hitting Reply in a mail client.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email import policy
from email.errors import HeaderParseError
from email.header import decode_header, make_header
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.policy import compat32
from email.utils import format_datetime, getaddresses, make_msgid, parsedate_to_datetime
from pathlib import Path

from pbem.mail.outbound import DECISION_HEADER, MOVE_HEADER, PURPOSE_HEADER


@dataclass(frozen=True)
class ReadMail:
    """What a player looks at in one mail."""

    message_id: str | None
    subject: str
    sender: str | None
    reply_to: str | None
    references: tuple[str, ...]
    decision: str | None
    body: str
    date: datetime | None = None
    purpose: str = ""  # what the mail is (X-PBEM-Mail): report, prompt, error, game_end ...
    move: int | None = None  # the move of its game it is about (X-PBEM-Move)

    @property
    def asks(self) -> bool:
        """Whether the mail asks its reader to decide (``X-PBEM-Decision``)."""
        return bool(self.decision)


def read_mail(raw: bytes) -> ReadMail:
    """The headers a player needs and the text/plain body of ``raw``.

    Read with the lenient ``compat32`` parser: the modern ``email.policy``
    header objects cost milliseconds per mail, and a bot reads every report.
    """
    message = BytesParser(policy=compat32).parsebytes(raw)
    body = _plain_text(message)
    reply_to = _first_address(message.get_all("Reply-To", []))
    sender = _first_address(message.get_all("From", []))
    references = tuple(_header(message, "References").split())
    date = None
    if message.get("Date"):
        try:
            date = parsedate_to_datetime(_header(message, "Date"))
        except (TypeError, ValueError):
            date = None
    decision = _header(message, DECISION_HEADER).strip()
    message_id = _header(message, "Message-ID").strip()
    move = _header(message, MOVE_HEADER).strip()
    return ReadMail(
        message_id=message_id or None,
        subject=_header(message, "Subject"),
        sender=sender,
        reply_to=reply_to,
        references=references,
        decision=decision or None,
        body=body,
        date=date,
        purpose=_header(message, PURPOSE_HEADER).strip(),
        move=int(move) if move.isdigit() else None,
    )


def _header(message: Message, name: str) -> str:
    """A header's value, RFC 2047 words decoded, folding undone; empty when missing."""
    value = message.get(name)
    if value is None:
        return ""
    text = str(value)
    if "=?" in text:
        try:
            text = str(make_header(decode_header(text)))
        except (LookupError, UnicodeError, ValueError, HeaderParseError):
            pass
    return " ".join(text.split())


def _plain_text(message: Message) -> str:
    """The first text/plain part (the whole body of a single-part mail), decoded from its charset."""
    part: Message | None = None
    for candidate in message.walk():
        if candidate.get_content_maintype() == "multipart":
            continue
        if candidate.get_content_type() == "text/plain":
            part = candidate
            break
        if part is None and candidate.get_content_maintype() == "text":
            part = candidate
    if part is None:
        return ""
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return str(part.get_payload())
    charset = part.get_content_charset() or "utf-8"
    try:
        text = payload.decode(charset, "replace")
    except LookupError:
        text = payload.decode("utf-8", "replace")
    return text.replace("\r\n", "\n")


def _first_address(values: Sequence[object]) -> str | None:
    found = [address for _, address in getaddresses([" ".join(str(v).split()) for v in values]) if address]
    return found[0].lower() if found else None


def reply_message(original: ReadMail, from_address: str, text: str, *, from_name: str = "",
                  now: datetime | None = None) -> EmailMessage:
    """The reply to ``original`` (to its Reply-To, else its sender) with ``text`` as the body."""
    recipient = original.reply_to or original.sender
    if not recipient:
        raise ValueError("the mail has neither Reply-To nor From: there is nowhere to reply")
    message = EmailMessage(policy=policy.SMTP)
    message["From"] = f"{from_name} <{from_address}>" if from_name else from_address
    message["To"] = recipient
    subject = " ".join(original.subject.split())
    message["Subject"] = subject if subject.lower().startswith("re:") else f"Re: {subject}"
    message["Date"] = format_datetime(now or datetime.now(UTC))
    domain = from_address.rpartition("@")[2] or "localhost"
    message["Message-ID"] = make_msgid(domain=domain)
    if original.message_id:
        message["In-Reply-To"] = original.message_id
        message["References"] = " ".join([*original.references, original.message_id])
    body = text if text.endswith("\n") else text + "\n"
    message.set_content(body, charset="utf-8")
    return message


def maildir_files(path: Path) -> list[Path]:
    """Every message file of a Maildir (``new/`` and ``cur/``), oldest delivery first."""
    files: list[tuple[int, str, Path]] = []
    for sub in ("new", "cur"):
        directory = path / sub
        if not directory.is_dir():
            continue
        for entry in os.scandir(directory):
            if entry.is_file() and not entry.name.startswith("."):
                try:
                    files.append((entry.stat().st_mtime_ns, entry.name, Path(entry.path)))
                except FileNotFoundError:
                    continue
    return [path for _, _, path in sorted(files)]


def latest_mail(path: Path, *, asking: bool = True, include_folders: bool = True) -> ReadMail | None:
    """The newest mail in the Maildir ``path`` (its ``.processed`` folder too) that asks to decide (or any)."""
    candidates = maildir_files(path)
    if include_folders and (path / ".processed").is_dir():
        candidates += maildir_files(path / ".processed")
    latest: tuple[int, ReadMail] | None = None
    for file in candidates:
        try:
            stamp = file.stat().st_mtime_ns
            mail = read_mail(file.read_bytes())
        except FileNotFoundError:
            continue
        if asking and not mail.asks:
            continue
        if latest is None or stamp >= latest[0]:
            latest = (stamp, mail)
    return latest[1] if latest else None
