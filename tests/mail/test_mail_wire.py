"""The bytes the outbox sends (``pbem.mail.wire``) are the bytes the generic email path gives, mail for mail.

``wire_mail`` builds a message with a remembering header registry and a picture encoded once, serialises it
with its own writer, and ``SmtpSender.send_wire`` dot-stuffs it without smtplib's regular expression. Over
many varied mails (names and subjects in any script, long and dotted lines, CR and LF, attachments, pictures
shared or not) the result must equal what the email package and ``smtplib.send_message`` make of the same
mail built the stock way (``email.policy.SMTP``, the picture encoded by ``add_related``).
"""
from __future__ import annotations

import copy
import io
import random
import smtplib
import struct
import zlib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from email import policy
from email.generator import BytesGenerator
from email.headerregistry import Address, BaseHeader
from email.message import EmailMessage
from email.utils import getaddresses
from typing import Any

import pytest

from pbem.mail import InlinePicture, OutgoingMail, SmtpSender, build_message, message_id_for, outbound, picture, wire, wire_mail
from pbem.mail.wire import body_bytes, flatten, to_wire
from tests.smtpservers import SmtpServer

WORDS = ["From", "move", "Wien", "army", "fleet", "Österreich", "Zürich", "日本", "ßtraße", "=?utf-8?q?x?=", "a.b",
         "\"quoted\"", "(paren)", "<angle>", "semi;colon", "comma,", "émoji😀", "x" * 90, ".", "From", "--"]
NAMES = ["", "Ann", "Ann Example", "Ann, the \"Great\"", "Zoë Ünïcode", "Imperial 2030 moderator",
         "O'Brien (GM)", "Name " * 12, "日本語の名前"]
HOSTS = ["example.org", "games.example", "bücher.example", "mail.sub.example.net"]


def png(size: int, seed: int) -> bytes:
    """A valid PNG header and ``size`` random bytes of IDAT: what matters here is the base64, not the image."""
    noise = random.Random(seed).randbytes(size)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 640, 480, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", noise) + chunk(b"IEND", b""))


PICTURES = [png(size, seed) for seed, size in enumerate((100, 4_000, 17_000, 60_000))]


def text(rng: random.Random, lines: int) -> str:
    ends = ["\n", "\n", "\n", "\r\n", "\r"]
    out = []
    for _ in range(lines):
        line = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 14)))
        if rng.random() < 0.1:
            line = "." + line
        if rng.random() < 0.05:
            line = "x" * rng.randint(900, 1200)  # longer than SMTP allows: quoted-printable
        if rng.random() < 0.1:
            line = "=" * 40  # a banner's rule
        out.append(line + rng.choice(ends))
    body = "".join(out)
    return body if rng.random() < 0.8 else body.rstrip("\r\n")


def varied_mail(seed: int) -> OutgoingMail:
    rng = random.Random(seed)
    to = f"p{seed}.{rng.choice(['x', 'y+z', 'a_b'])}@{rng.choice(HOSTS)}"
    ids = [f"<m{seed}.{n}@{rng.choice(['clients.example', 'games.example'])}>" for n in range(rng.randint(0, 6))]
    return OutgoingMail(
        to=to,
        to_name=rng.choice(NAMES),
        subject=" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 20))),
        body=text(rng, rng.randint(0, 60)),
        from_address="pbem@games.example",
        from_name=rng.choice(NAMES),
        message_id=message_id_for(f"game {seed % 7}", seed, to, rng.choice(["report", "prompt", "error:<x@y>"]),
                                  domain="games.example"),
        date=datetime(2030, 6, 3, 8, 0, tzinfo=timezone(timedelta(hours=rng.randint(-12, 12)))) + timedelta(
            seconds=rng.randint(0, 10**7)),
        reply_to=rng.choice([None, f"pbem+tok{seed:04d}@games.example"]),
        in_reply_to=ids[-1] if ids else None,
        references=tuple(ids),
        list_id=rng.choice([None, f"Imperial 2030 game {seed % 7} <g{seed % 7}.pbem.games.example>",
                            "\"Game, with specials\" <x.pbem.games.example>"]),
        decision=rng.choice([None, "rondel", "investment", "bid.2"]),
        auto_submitted=rng.choice(["auto-generated", "auto-replied"]),
        picture=InlinePicture(rng.choice(PICTURES), rng.choice(["The board", "Die Karte — Runde 3", "a \"b\" <c>"]),
                              rng.randint(0, 40)) if rng.random() < 0.6 else None,
        attachment=(rng.choice(["history.txt", "Verlauf für Zoë.txt"]), text(rng, rng.randint(1, 30)))
        if rng.random() < 0.2 else None,
    )


MAILS = [varied_mail(seed) for seed in range(160)]


@pytest.fixture
def stock(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Build messages the stock way: ``email.policy.SMTP``, every header an object, the picture's part made by
    ``add_related``."""

    def encoded_by_the_email_package(data: bytes, max_line_length: int | None) -> str:
        part = EmailMessage(policy=policy.SMTP)
        part.set_content(data, maintype="image", subtype="png")
        payload = part.get_payload()
        assert isinstance(payload, str)
        return payload

    def stored_as_header_object(message: EmailMessage, name: str, value: str) -> None:
        message[name] = value

    monkeypatch.setattr(outbound, "OUR_POLICY", policy.SMTP)
    monkeypatch.setattr(picture, "base64_lines", encoded_by_the_email_package)
    monkeypatch.setattr(outbound, "set_header", stored_as_header_object)
    yield


def smtplib_bytes(message: EmailMessage) -> tuple[str, list[str], bytes]:
    """The envelope and the bytes ``smtplib.SMTP.send_message`` hands to ``sendmail`` for ``message``."""
    sender = getaddresses([str(message["From"])])[0][1]
    recipients = [address for _, address in getaddresses([str(message[h]) for h in ("To", "Cc") if message[h]])]
    buffer = io.BytesIO()
    BytesGenerator(buffer).flatten(copy.copy(message), linesep="\r\n")
    return sender, recipients, buffer.getvalue()


@pytest.mark.slow
def test_the_wire_bytes_are_the_generic_bytes_for_many_varied_mails(request: pytest.FixtureRequest) -> None:
    fast = [wire_mail(mail) for mail in MAILS]
    built = [build_message(mail).as_bytes() for mail in MAILS]
    request.getfixturevalue("stock")
    for mail, ours, ours_built in zip(MAILS, fast, built, strict=True):
        reference = build_message(mail)
        sender, recipients, data = smtplib_bytes(reference)
        assert ours.data == data  # what smtplib's send_message sent for the stock message
        assert ours_built == reference.as_bytes()  # and build_message's message is the stock one
        assert (ours.sender, list(ours.recipients)) == (sender, recipients)
    assert any(b"quoted-printable" in w.data for w in fast) and any(b"image/png" in w.data for w in fast)
    assert any(b"=?utf-8?" in w.data for w in fast) and any(b"\r\n." in w.data for w in fast)


def test_a_message_of_another_shape_is_written_by_the_email_package() -> None:
    """A preamble, an 8bit part, an enclosed message: the writer hands them to the generator."""
    outer = EmailMessage(policy=policy.SMTP)
    outer["Subject"] = "shapes"
    outer.set_content("plain\n")
    outer.add_attachment("grüße aus Zürich\n" * 3, cte="8bit")
    enclosed = EmailMessage(policy=policy.SMTP)
    enclosed["Subject"] = "inner"
    enclosed.set_content("inner text\n")
    outer.add_attachment(enclosed)
    outer.preamble = "This is a MIME message.\n"
    with_lf = EmailMessage(policy=policy.default)  # a policy with LF line ends: SMTP wants CRLF all the same
    with_lf["From"] = "a@example.org"
    with_lf.set_content("one\nFrom two\n")
    for message in (outer, enclosed, with_lf):
        assert flatten(message) == smtplib_bytes(message)[2]


def test_an_envelope_smtp_cannot_carry_plainly_is_refused() -> None:
    message = build_message(MAILS[0])
    message["Bcc"] = "hidden@example.org"
    with pytest.raises(ValueError, match="Bcc"):
        to_wire(message)
    with pytest.raises(ValueError, match="SMTPUTF8"):
        to_wire(build_message(MAILS[0]), recipients=("zoë@example.org",))


def test_a_picture_is_encoded_once_for_every_mail_that_carries_it(monkeypatch: pytest.MonkeyPatch) -> None:
    encoded: list[int] = []
    real = picture._base64  # counted, not replaced

    def counting(key: tuple[bytes, int]) -> str:
        encoded.append(len(key[0]))
        return real(key)

    monkeypatch.setattr(picture, "_encoded", wire.Recent(wire.CACHED_BODIES, counting))
    board = png(50_000, 99)
    mails = [OutgoingMail(to=f"p{n}@example.org", subject="s", body="b\n", from_address="pbem@games.example",
                          message_id=f"<m{n}@games.example>", date=datetime(2030, 1, 1, tzinfo=UTC),
                          picture=InlinePicture(bytes(board), "The board")) for n in range(3)]  # equal, not the same
    parts = [wire_mail(mail).data for mail in mails]
    assert encoded == [len(board)]
    assert len({p.split(b"image/png")[1].split(b"\r\n\r\n", 1)[1] for p in parts}) == 1


def test_the_caches_stay_small_and_give_what_they_would_make() -> None:
    made: list[str] = []

    def make(key: str) -> str:
        made.append(key)
        return key.upper()

    cache: wire.Recent[str, str] = wire.Recent(3, make)
    for key in "abcabcdaeb":
        assert cache.get(key) == key.upper()
    assert made == ["a", "b", "c", "d", "a", "e", "b"]  # the least recently used goes first
    long = "line\r\nother\rthird\n" * 2000
    assert body_bytes(long) is body_bytes(long)
    assert body_bytes(long) == long.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\r\n").encode()


def test_sent_over_smtp_the_relay_gets_what_send_message_would_give(smtpd: SmtpServer) -> None:
    """Dot-stuffing included: lines starting with a dot arrive as they were written."""
    mails = MAILS[:60]
    with SmtpSender(smtpd.settings()) as sender:
        for mail in mails:
            sender.send_wire(wire_mail(mail))
    client = smtplib.SMTP(smtpd.host, smtpd.port, local_hostname="pbem.test")
    try:
        for mail in mails:
            client.send_message(build_message(mail))
    finally:
        client.quit()
    ours, theirs = smtpd.received[:len(mails)], smtpd.received[len(mails):]
    assert [(r.mail_from, r.rcpt_tos, r.data) for r in ours] == [(r.mail_from, r.rcpt_tos, r.data) for r in theirs]
    assert any(b"\r\n." in r.data for r in ours)


def dotted(**changes: Any) -> OutgoingMail:
    values: dict[str, Any] = dict(to="ann@example.org", subject="dots", body=".\n..\n. a\n.end",
                                  from_address="pbem@games.example",
                                  message_id="<dots@games.example>", date=datetime(2030, 1, 1, tzinfo=UTC))
    values.update(changes)
    return OutgoingMail(**values)


def test_a_body_of_dots_arrives_intact(smtpd: SmtpServer) -> None:
    with SmtpSender(smtpd.settings()) as sender:
        sender.send_wire(wire_mail(dotted()))
    [received] = smtpd.received
    assert received.data == wire_mail(dotted()).data
    assert received.message.get_content().replace("\r\n", "\n") == ".\n..\n. a\n.end\n"


@pytest.mark.slow
def test_building_a_mail_twice_gives_the_same_bytes() -> None:
    """Attachments included: their multipart/mixed boundary is fixed, as the picture's are."""
    with_attachment = [mail for mail in MAILS if mail.attachment is not None]
    assert with_attachment
    for mail in MAILS:
        assert build_message(mail).as_bytes() == build_message(mail).as_bytes()
        assert wire_mail(mail) == wire_mail(mail)
    assert all(b"boundary=\"=_pbem-mixed" in wire_mail(mail).data for mail in with_attachment)


def test_an_address_header_is_remembered_by_its_parts() -> None:
    make = wire.OUR_POLICY.header_factory
    first = make("To", Address("Ann", "ann", "example.org"))
    assert make("To", Address("Ann", "ann", "example.org")) is first  # parsed once
    assert first == policy.SMTP.header_factory("To", Address("Ann", "ann", "example.org"))
    assert first.addresses == (Address("Ann", "ann", "example.org"),)
    for other in (Address("Ann B", "ann", "example.org"), Address("Ann", "anne", "example.org"),
                  Address("Ann", "ann", "example.com")):
        assert make("To", other) is not first and make("To", other).addresses == (other,)
    assert make("Reply-To", Address("Ann", "ann", "example.org")).name == "Reply-To"


def written(message: EmailMessage) -> tuple[bytes | str, bytes | str]:
    """``message.as_bytes()`` and ``flatten(message)``, or the name of the error either raises."""
    def flattened() -> bytes:
        return flatten(message)

    out: list[bytes | str] = []
    for write in (message.as_bytes, flattened):
        try:
            out.append(write())
        except (ValueError, UnicodeError) as exc:
            out.append(type(exc).__name__)
    return out[0], out[1]


@pytest.mark.parametrize("name", ["Subject", "Message-ID", "In-Reply-To", "References", "X-PBEM-Move", "Date"])
def test_a_header_kept_as_text_is_written_as_its_object_would_be(name: str) -> None:
    rng = random.Random(name)
    pieces = ["a", "Move", "12:", "<m.1@x.example>", "<a-b_c+d@e.f-g>", "(c)", "\"q\"", "a\\b", "=?utf-8?q?x?=",
              "=", "?", "x" * 70, "Zoë", "日本", "\t", "", " ", "a..b", "<a@b", "[t01]", ",;:"]
    values = [" ".join(rng.choice(pieces) for _ in range(rng.randint(1, 6))) for _ in range(300)]
    values += ["x" * n for n in range(60, 80)] + ["<" + "y" * n + "@z>" for n in range(60, 70)]
    values += ["Mon, 07 Dec 2026 10:31:42 +0000", "", " lead", "trail ", "two  spaces", "<a@b> <c@d>"]
    values += [message_id_for(f"game {n}", n, "a@b.example", "report", domain="games.example") for n in range(60)]
    kept = 0
    for value in values:
        if "\t" in value or (name == "Date" and not value.strip()):
            continue
        ours, stock = EmailMessage(policy=wire.OUR_POLICY), EmailMessage(policy=policy.SMTP)
        wire.set_header(ours, name, value)
        stock[name] = value
        kept += not isinstance(next(iter(ours.raw_items()))[1], BaseHeader)
        assert written(ours) == written(stock), value
        assert ours[name] == stock[name] and type(ours[name]).__bases__ == type(stock[name]).__bases__
    assert kept > 50 or name == "Date"


def test_a_header_that_may_appear_once_is_refused_twice_as_before() -> None:
    message = EmailMessage(policy=wire.OUR_POLICY)
    wire.set_header(message, "Subject", "one")
    with pytest.raises(ValueError):
        wire.set_header(message, "Subject", "two")
    wire.set_header(message, "References", "<a@b>")
    wire.set_header(message, "References", "<c@d>")  # may repeat, as message[name] = value lets it
    assert message.get_all("References") == ["<a@b>", "<c@d>"]


def test_a_picture_is_encoded_in_the_lines_the_email_package_writes() -> None:
    data = random.Random(3).randbytes(400)
    for length in (78, 76, 80, 1000):
        for size in [*range(0, 120), 399, 400]:
            part = EmailMessage(policy=policy.SMTP.clone(max_line_length=length))
            part.set_content(data[:size], maintype="image", subtype="png")
            assert picture._base64((data[:size], length)) == part.get_payload(), (length, size)
