"""Reading real-world inbound mail: one table of messages, each with the exact fields expected.

The messages imitate what clients and servers really send: Gmail, Outlook,
Thunderbird (format=flowed), Apple Mail, phones sending HTML only, vacation
responders, bounces, and broken MIME.
"""
from __future__ import annotations

import base64
import quopri
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from pbem.games.imperial2030.orders.split import split_message
from pbem.mail import InboundError, InboundMessage, parse_message, token_of_address

MODERATOR = "pbem@games.example"
TOKEN = "k7dq2m9x"


def raw(headers: str, body: bytes | str = b"RONDEL investor\n") -> bytes:
    """A message from header lines (``\\n``-separated) and a body, with CRLF line ends as on the wire."""
    head = headers.strip("\n").replace("\n", "\r\n").encode("utf-8")
    data = body.encode("utf-8") if isinstance(body, str) else body
    return head + b"\r\n\r\n" + data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


STD = f"""From: Ann Example <Ann@Example.ORG>
To: Imperial 2030 <pbem+{TOKEN}@games.example>
Subject: Re: [demo] Your turn
Date: Mon, 3 Jun 2030 10:15:00 +0200
Message-ID: <CAann-1@mail.example.org>"""
PLAIN = STD + "\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit"
DATE = datetime(2030, 6, 3, 10, 15, tzinfo=timezone(timedelta(hours=2)))
ORDERS = "RONDEL investor\nBUILD factory in Moscow\n"


def multipart(kind: str, *parts: tuple[str, bytes | str], boundary: str = "b0undary", preamble: str = "") -> str:
    """A multipart body and its Content-Type line: ``parts`` are (header lines, body)."""
    chunks = [preamble] if preamble else []
    for headers, body in parts:
        text = body.decode("latin-1") if isinstance(body, bytes) else body
        chunks.append(f"--{boundary}\n{headers}\n\n{text}")
    chunks.append(f"--{boundary}--\n")
    return "\n".join(chunks)


GMAIL_HTML = (
    '<div dir="ltr">RONDEL investor<div>BUILD factory in&nbsp;Moscow</div><div><br></div>'
    '<div>Cheers,<br>Ann</div></div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">'
    'On Mon, Jun 3, 2030 at 9:00 AM Imperial 2030 &lt;<a href="mailto:pbem@games.example">'
    'pbem@games.example</a>&gt; wrote:<br></div><blockquote class="gmail_quote" style="margin:0px">'
    'Your turn, Russia.<br>RONDEL taxation<br></blockquote></div>\n'
)

BOUNCE = multipart(
    "report",
    ("Content-Type: text/plain; charset=us-ascii",
     "This is the mail system at host mx.example.org.\n\nI'm sorry to have to inform you that your message\n"
     "could not be delivered to one or more recipients.\n\n<bob@nowhere.example>: host not found\n"),
    ("Content-Type: message/delivery-status",
     "Reporting-MTA: dns; mx.example.org\n\nFinal-Recipient: rfc822; bob@nowhere.example\nAction: failed\n"
     "Status: 5.4.4\n"),
    ("Content-Type: message/rfc822",
     "From: pbem@games.example\nTo: bob@nowhere.example\nSubject: [demo] Report\n\nRONDEL taxation\n"),
)

CASES: list[Any] = [
    pytest.param(raw(PLAIN, ORDERS), dict(
        message_id="<CAann-1@mail.example.org>", sender="ann@example.org", sender_name="Ann Example",
        subject="Re: [demo] Your turn", date=DATE, recipients=(f"pbem+{TOKEN}@games.example",),
        address_token=TOKEN, body_token=None, body=ORDERS, body_type="text/plain",
    ), id="plain"),
    pytest.param(raw(STD + "\nContent-Type: multipart/alternative; boundary=b0undary", multipart(
        "alternative",
        ("Content-Type: text/plain; charset=UTF-8", ORDERS),
        ("Content-Type: text/html; charset=UTF-8", "<div>IGNORED because plain text exists</div>"),
    )), dict(body=ORDERS, body_type="text/plain", address_token=TOKEN), id="multipart-alternative"),
    pytest.param(raw(STD + "\nContent-Type: multipart/alternative; boundary=b0undary", multipart(
        "alternative",
        ("Content-Type: text/plain; charset=UTF-8", "\n"),
        ("Content-Type: text/html; charset=UTF-8", "<p>RONDEL investor</p><p>BUILD factory in Moscow</p>"),
    )), dict(body=ORDERS, body_type="text/html"), id="alternative-with-blank-plain-part"),
    pytest.param(raw(STD + "\nContent-Type: text/html; charset=UTF-8", GMAIL_HTML), dict(
        body="RONDEL investor\nBUILD factory in Moscow\n\nCheers,\nAnn\n", body_type="text/html",
    ), id="html-only-gmail-with-quote"),
    pytest.param(raw(STD + "\nContent-Type: text/html; charset=UTF-8",
                     "<html><head><style>p {margin:0}</style><title>x</title></head><body>"
                     "<p class=MsoNormal>RONDEL investor<o:p></o:p></p><ul><li>BUILD factory in Moscow</li></ul>"
                     "<script>alert(1)</script></body></html>"),
         dict(body=ORDERS, body_type="text/html"), id="html-only-outlook-list"),
    pytest.param(raw(STD + "\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable",
                     quopri.encodestring("RONDEL investor\nDONATE 1 TO Österreich — thanks, Jürgen\n".encode())
                     .replace(b"thanks,", b"tha=\nnks,")),
         dict(body="RONDEL investor\nDONATE 1 TO Österreich — thanks, Jürgen\n"), id="quoted-printable-utf8"),
    pytest.param(raw(STD + "\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64",
                     base64.encodebytes("BUILD factory in Zürich\nRONDEL investor\n".encode())),
         dict(body="BUILD factory in Zürich\nRONDEL investor\n"), id="base64-utf8"),
    pytest.param(raw(STD + "\nContent-Type: text/plain; charset=ISO-8859-1\nContent-Transfer-Encoding: 8bit",
                     "RONDEL investor\nGrüße aus Köln, café\n".encode("latin-1")),
         dict(body="RONDEL investor\nGrüße aus Köln, café\n"), id="latin-1"),
    pytest.param(raw(STD + "\nContent-Type: text/plain; charset=windows-1252\nContent-Transfer-Encoding: 8bit",
                     "RONDEL investor\n“Quoted” – 5€\n".encode("cp1252")),
         dict(body="RONDEL investor\n“Quoted” – 5€\n"), id="windows-1252"),
    pytest.param(raw(STD + "\nContent-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: 8bit",
                     "RONDEL investor\n“Outlook quotes”\n".encode("cp1252")),
         dict(body="RONDEL investor\n“Outlook quotes”\n"), id="latin-1-label-on-windows-1252-text"),
    pytest.param(raw(STD, "RONDEL investor\nGrüße\n".encode()),
         dict(body="RONDEL investor\nGrüße\n"), id="undeclared-8bit-utf8"),
    pytest.param(raw(PLAIN, "RONDEL investor\n\nOn Mon, 3 Jun 2030 at 09:00, Imperial 2030 <pbem@games.example> wrote:\n"
                            "> Your turn, Russia.\n> RONDEL taxation\n>\n"),
         dict(body="RONDEL investor\n"), id="top-posted-reply"),
    pytest.param(raw(PLAIN, "RONDEL investor\n\nOn Mon, Jun 3, 2030 at 9:00 AM Imperial 2030 <\npbem@games.example> "
                            "wrote:\n\n> Your turn, Russia.\n"),
         dict(body="RONDEL investor\n"), id="top-posted-wrapped-attribution"),
    pytest.param(raw(PLAIN, "Am Mo., 3. Juni 2030 um 09:00 Uhr schrieb Imperial 2030 <pbem@games.example>:\n"
                            "> Your turn, Russia.\n\nRONDEL investor\n"),
         dict(body="\n> Your turn, Russia.\n\nRONDEL investor\n"), id="bottom-posted-german-attribution"),
    pytest.param(raw(PLAIN, "On 03/06/2030 09:00, Imperial 2030 wrote:\n> Which rondel space?\nRONDEL investor\n"
                            "> And the factory?\nBUILD factory in Moscow\n"),
         dict(body="\n> Which rondel space?\nRONDEL investor\n> And the factory?\nBUILD factory in Moscow\n"),
         id="interleaved-answers"),
    pytest.param(raw(PLAIN, "RONDEL investor\n\n-----Original Message-----\nFrom: Imperial 2030 <pbem@games.example>\n"
                            "Sent: Monday, June 3, 2030 9:00 AM\nTo: Ann\nSubject: [demo] Your turn\n\nRONDEL taxation\n"),
         dict(body="RONDEL investor\n"), id="outlook-original-message"),
    pytest.param(raw(PLAIN, "RONDEL investor\n\n________________________________\nFrom: Imperial 2030 "
                            "<pbem@games.example>\nSent: Monday, June 3, 2030 9:00 AM\nTo: Ann Example\n"
                            "Subject: [demo] Your turn\n\nIMPORT 2 armies\n"),
         dict(body="RONDEL investor\n"), id="outlook-web-header-block"),
    pytest.param(raw(PLAIN, "BUILD factory in \nMoscow\n"),
         dict(body="BUILD factory in \nMoscow\n"), id="trailing-space-without-format-flowed-not-joined"),
    pytest.param(raw(STD + "\nContent-Type: text/plain; charset=utf-8; format=flowed; delsp=no",
                     "RONDEL investor; BUILD factory in \nMoscow; IMPORT 1 army to \nMoscow\n-- \nAnn\n"),
         dict(body="RONDEL investor; BUILD factory in Moscow; IMPORT 1 army to Moscow\n-- \nAnn\n"),
         id="format-flowed"),
    pytest.param(raw(PLAIN, f"RONDEL investor\nTOKEN {TOKEN}\n-- \nAnn\n").replace(f"pbem+{TOKEN}@".encode(), b"pbem@"),
         dict(address_token=None, body_token=TOKEN, recipients=("pbem@games.example",),
              body="RONDEL investor\n\n-- \nAnn\n"), id="token-in-body"),
    pytest.param(raw(PLAIN, "> TOKEN quotedtok1\nToken: abcd1234\nRONDEL investor\n")
                 .replace(f"pbem+{TOKEN}@".encode(), b"pbem@"),
         dict(address_token=None, body_token="abcd1234", body="> TOKEN quotedtok1\n\nRONDEL investor\n"),
         id="token-line-case-insensitive-quoted-ignored"),
    pytest.param(raw(PLAIN.replace(f"To: Imperial 2030 <pbem+{TOKEN}@games.example>",
                                   f"To: pbem@games.example\nCc: Ann <ann+games@example.org>, pbem+{TOKEN}@games.example")),
         dict(address_token=TOKEN, recipients=("pbem@games.example", "ann+games@example.org",
                                                f"pbem+{TOKEN}@games.example")), id="token-in-cc"),
    pytest.param(raw(PLAIN.replace(f"To: Imperial 2030 <pbem+{TOKEN}@games.example>",
                                   f"To: undisclosed-recipients:;\nDelivered-To: pbem+{TOKEN}@games.example")),
         dict(address_token=TOKEN, recipients=()), id="token-in-delivered-to"),
    pytest.param(raw(PLAIN.replace(f"pbem+{TOKEN}@games.example", "ann+games@example.org")),
         dict(address_token=None, recipients=("ann+games@example.org",)), id="plus-address-not-ours"),
    pytest.param(raw(PLAIN.replace(f"pbem+{TOKEN}", "PBEM+AbCd1234")),
         dict(address_token="AbCd1234", recipients=("pbem+abcd1234@games.example",)), id="token-case-kept"),
    pytest.param(raw(PLAIN + "\nAuto-Submitted: auto-replied (vacation)\nX-Autoreply: yes",
                     "I am away until June 10.\n"),
         dict(is_automatic=True, automatic_reason="Auto-Submitted: auto-replied (vacation)",
              body="I am away until June 10.\n"), id="auto-submitted-vacation"),
    pytest.param(raw(PLAIN + "\nAuto-Submitted: no"), dict(is_automatic=False, body="RONDEL investor\n"),
         id="auto-submitted-no"),
    pytest.param(raw(PLAIN + "\nX-Autoreply: yes", "Out of office\n"),
         dict(is_automatic=True, automatic_reason="X-Autoreply: yes", body="Out of office\n"), id="x-autoreply"),
    pytest.param(raw(PLAIN + "\nPrecedence: bulk", "Newsletter\n"),
         dict(is_automatic=True, automatic_reason="Precedence: bulk", body="Newsletter\n"), id="precedence-bulk"),
    pytest.param(raw(PLAIN + "\nPrecedence: junk"), dict(is_automatic=True, automatic_reason="Precedence: junk"),
         id="precedence-junk"),
    pytest.param(raw(PLAIN + "\nList-Id: Games <games.lists.example.org>"),
         dict(is_automatic=True, automatic_reason="mailing list (List-Id)"), id="mailing-list"),
    pytest.param(raw(PLAIN + "\nList-Unsubscribe: <mailto:leave@lists.example.org>"),
         dict(is_automatic=True, automatic_reason="mailing list (List-Unsubscribe)"), id="list-unsubscribe"),
    pytest.param(raw("""From: Mail Delivery System <MAILER-DAEMON@mx.example.org>
To: pbem@games.example
Subject: Undelivered Mail Returned to Sender
Date: Mon, 3 Jun 2030 10:20:00 +0000
Message-ID: <bounce-1@mx.example.org>
Return-Path: <>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="b0undary\"""", BOUNCE), dict(
        sender="mailer-daemon@mx.example.org", sender_name="Mail Delivery System", address_token=None,
        is_automatic=True, automatic_reason="delivery report (multipart/report; report-type=delivery-status)",
        body="This is the mail system at host mx.example.org.\n\nI'm sorry to have to inform you that your message\n"
             "could not be delivered to one or more recipients.\n\n<bob@nowhere.example>: host not found\n",
    ), id="bounce-multipart-report"),
    pytest.param(raw("""From: MAILER-DAEMON@mx.example.org
To: pbem@games.example
Subject: failure notice
Message-ID: <bounce-2@mx.example.org>""", "Sorry.\n"), dict(
        sender="mailer-daemon@mx.example.org", sender_name="", is_automatic=True,
        automatic_reason="sent by mailer-daemon@mx.example.org", date=None, body="Sorry.\n",
    ), id="bounce-from-mailer-daemon"),
    pytest.param(raw(PLAIN.replace("From: Ann Example <Ann@Example.ORG>", "From: postmaster@example.org")),
         dict(sender="postmaster@example.org", is_automatic=True, automatic_reason="sent by postmaster@example.org"),
         id="postmaster"),
    pytest.param(raw(PLAIN + "\nReturn-Path: <>"),
         dict(sender="ann@example.org", is_automatic=True, automatic_reason="null sender (Return-Path: <>)"),
         id="null-return-path"),
    pytest.param(raw(PLAIN.replace("From: Ann Example <Ann@Example.ORG>", "From: Imperial 2030 <PBEM@games.example>")),
         dict(sender="pbem@games.example", is_automatic=True, automatic_reason="sent by the moderator's own address"),
         id="our-own-mail"),
    pytest.param(raw(PLAIN.replace("From: Ann Example <Ann@Example.ORG>", "Sender: Ann <ann@example.org>")),
         dict(sender="ann@example.org", sender_name="Ann"), id="sender-header-fallback"),
    pytest.param(raw(PLAIN.replace("From: Ann Example <Ann@Example.ORG>", "Return-Path: <Ann@Example.org>")),
         dict(sender="ann@example.org", sender_name=""), id="return-path-fallback"),
    pytest.param(raw(PLAIN.replace("From: Ann Example <Ann@Example.ORG>\n", "")), dict(
        sender=None, sender_name="", is_automatic=True, automatic_reason="no sender address",
        defects=("no sender address (From, Sender, Return-Path)",),
    ), id="no-sender"),
    pytest.param(raw(PLAIN.replace("From: Ann Example <Ann@Example.ORG>",
                                   "From: =?utf-8?q?J=C3=B6rg_M=C3=BCller?= <joerg@example.de>")
                     .replace("Subject: Re: [demo] Your turn",
                              "Subject: =?iso-8859-1?q?Re=3A_Zug_f=FCr_?= =?utf-8?b?w5ZzdGVycmVpY2g=?=")),
         dict(sender="joerg@example.de", sender_name="Jörg Müller", subject="Re: Zug für Österreich"),
         id="rfc2047-headers"),
    pytest.param(raw(PLAIN.replace("Subject: Re: [demo] Your turn", "Subject: =?x-unknown-cs?q?caf=C3=A9?= ok")),
         dict(subject="café ok", defects=("unknown charset 'x-unknown-cs' in a header; read as UTF-8",)),
         id="header-with-unknown-charset"),
    pytest.param(raw(PLAIN.replace("Subject: Re: [demo] Your turn", "Subject: Gr\u00fc\u00dfe raw")),
         dict(subject="Grüße raw"), id="raw-utf8-header"),
    pytest.param(raw(STD + "\nMIME-Version: 1.0\nContent-Type: multipart/alternative", multipart(
        "alternative",
        ("Content-Type: text/plain; charset=utf-8", ORDERS),
        ("Content-Type: text/html; charset=utf-8", "<p>RONDEL investor</p>"),
        boundary="=_lost_1",
    )), dict(body=ORDERS, defects=(
        "multipart without boundary; boundary '=_lost_1' guessed from the body",
        "multipart without boundary",
        "multipart content type but no parts",
    )), id="missing-boundary-recovered"),
    pytest.param(raw(STD + "\nMIME-Version: 1.0\nContent-Type: multipart/mixed", ORDERS), dict(body=ORDERS, defects=(
        "multipart without boundary; body read as plain text",
        "multipart without boundary",
        "multipart content type but no parts",
    )), id="missing-boundary-plain-body"),
    pytest.param(raw(STD + '\nContent-Type: multipart/mixed; boundary="b0undary"', "--b0undary\n"
                     "Content-Type: text/plain\n\nRONDEL investor\n"),
         dict(body="RONDEL investor\n", defects=("multipart close boundary missing",)), id="missing-close-boundary"),
    pytest.param(raw(STD + "\nContent-Type: text/plain; charset=utf-foo", "RONDEL investor\nGrüße\n".encode()),
         dict(body="RONDEL investor\nGrüße\n", defects=("unknown charset 'utf-foo' in text/plain; read as UTF-8",)),
         id="bad-charset-name"),
    pytest.param(raw(STD + "\nContent-Type: text/plain; charset=utf-8", b"RONDEL investor\nCaf\xe9\n"),
         dict(body="RONDEL investor\nCaf\ufffd\n", defects=("bytes not valid in charset utf-8 in text/plain; replaced",)),
         id="invalid-utf8-bytes"),
    pytest.param(raw(STD + "\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64",
                     b"Uk9ORE VMIGludmVzdG9yCg\n"),
         dict(body="RONDEL investor\n", defects=("invalid characters in base64", "bad base64 padding")),
         id="broken-base64"),
    pytest.param(raw(PLAIN.replace("Message-ID: <CAann-1@mail.example.org>\n", "")),
         dict(message_id=None, defects=("no Message-ID",)), id="no-message-id"),
    pytest.param(raw(PLAIN.replace("Message-ID: <CAann-1@mail.example.org>", "Message-ID: bare-id@example.org")),
         dict(message_id="<bare-id@example.org>", defects=("Message-ID without angle brackets",)), id="bare-message-id"),
    pytest.param(raw(PLAIN.replace("Date: Mon, 3 Jun 2030 10:15:00 +0200", "Date: the day after tomorrow")),
         dict(date=None, defects=("unreadable Date: the day after tomorrow",)), id="unreadable-date"),
    pytest.param(raw(PLAIN.replace("Date: Mon, 3 Jun 2030 10:15:00 +0200", "Date: Mon, 3 Jun 2030 10:15:00 -0000")),
         dict(date=datetime(2030, 6, 3, 10, 15, tzinfo=UTC)), id="date-without-zone"),
    pytest.param(raw(STD + "\nContent-Type: multipart/mixed; boundary=b0undary", multipart(
        "mixed",
        ("Content-Type: text/plain; charset=utf-8", "RONDEL investor\n"),
        ("Content-Type: image/png\nContent-Disposition: inline; filename=map.png\nContent-Transfer-Encoding: base64",
         "iVBORw0KGgo=\n"),
        ("Content-Type: text/plain; charset=utf-8", "BUILD factory in Moscow\n"),
        ("Content-Type: text/plain; charset=utf-8\nContent-Disposition: attachment; filename=notes.txt", "NOT ORDERS\n"),
        ("Content-Type: message/rfc822", "From: pbem@games.example\nSubject: fwd\n\nRONDEL taxation\n"),
    )), dict(body="RONDEL investor\n\nBUILD factory in Moscow\n"), id="apple-mail-split-text-attachments-skipped"),
    pytest.param(raw(PLAIN + "\nIn-Reply-To: <pbem.demo.3.abc@games.example>\n"
                             "References: <pbem.demo.thread.x@games.example>\n <pbem.demo.3.abc@games.example>"),
         dict(in_reply_to="<pbem.demo.3.abc@games.example>",
              references=("<pbem.demo.thread.x@games.example>", "<pbem.demo.3.abc@games.example>")), id="threading"),
    pytest.param(raw(PLAIN, "\ufeffRONDEL\u00a0investor\u200b\n"), dict(body="RONDEL investor\n"),
         id="bom-nbsp-zero-width"),
]

DEFAULTS: dict[str, Any] = dict(is_automatic=False, automatic_reason=None, defects=())


@pytest.mark.parametrize(("data", "expected"), CASES)
def test_inbound_message_fields(data: bytes, expected: dict[str, Any]) -> None:
    message = parse_message(data, moderator_address=MODERATOR)
    wanted = {**DEFAULTS, **expected}
    actual = {name: getattr(message, name) for name in wanted}
    assert actual == wanted
    assert message.size == len(data)


def test_every_field_of_a_plain_message() -> None:
    data = raw(PLAIN, ORDERS)
    message = parse_message(data, moderator_address=MODERATOR)
    assert message == InboundMessage(
        message_id="<CAann-1@mail.example.org>", sender="ann@example.org", sender_name="Ann Example",
        subject="Re: [demo] Your turn", date=DATE, recipients=(f"pbem+{TOKEN}@games.example",),
        address_token=TOKEN, body_token=None, body=ORDERS, body_type="text/plain", is_automatic=False,
        automatic_reason=None, in_reply_to=None, references=(), size=len(data), digest=message.digest, defects=(),
    )
    assert len(message.digest) == 64
    assert message.token == TOKEN
    assert message.key == "<CAann-1@mail.example.org>"


def test_without_the_moderator_address_any_plus_address_gives_a_token() -> None:
    data = raw(PLAIN.replace(f"pbem+{TOKEN}@games.example", "ann+games@example.org"))
    assert parse_message(data).address_token == "games"
    assert parse_message(data, moderator_address=MODERATOR).address_token is None


def test_the_plus_address_token_comes_before_the_body_token() -> None:
    message = parse_message(raw(PLAIN, "TOKEN otherone1\nRONDEL investor\n"), moderator_address=MODERATOR)
    assert (message.address_token, message.body_token, message.token) == (TOKEN, "otherone1", TOKEN)


def test_a_message_without_message_id_gets_a_stable_key() -> None:
    data = raw(PLAIN.replace("Message-ID: <CAann-1@mail.example.org>\n", ""))
    first, second = parse_message(data), parse_message(data)
    assert first.key == second.key
    assert first.key.startswith("<sha256.") and first.key.endswith("@pbem.invalid>")
    assert parse_message(data + b"x").key != first.key


@pytest.mark.parametrize(("data", "reason"), [
    (b"", "empty message"),
    (b"  \r\n\r\n", "empty message"),
    (b"hello world, this is not a mail\r\nat all\r\n", "no mail header"),
    (b"\x00\x01\x02\xff\xfe binary garbage", "no mail header"),
])
def test_unreadable_input_is_one_inbound_error(data: bytes, reason: str) -> None:
    with pytest.raises(InboundError, match=reason):
        parse_message(data)


def test_non_bytes_input_is_an_inbound_error() -> None:
    with pytest.raises(InboundError, match="must be bytes"):
        parse_message("From: a@b\r\n\r\nhi")  # type: ignore[arg-type]


def test_truncated_and_broken_messages_never_raise_anything_else() -> None:
    """Every prefix of a complex message still parses (the fetch may be cut, the sender's MIME may be broken)."""
    data = raw(STD + "\nContent-Type: multipart/alternative; boundary=b0undary", multipart(
        "alternative",
        ("Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable", "RONDEL =C3=BC\n"),
        ("Content-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: base64",
         base64.encodebytes(GMAIL_HTML.encode()).decode()),
    ))
    for end in range(1, len(data), 7):
        try:
            parse_message(data[:end])
        except InboundError:
            pass


@pytest.mark.parametrize("body", [
    "RONDEL investor\n\nOn Mon, 3 Jun 2030 at 09:00, Imperial 2030 <pbem@games.example> wrote:\n> RONDEL taxation\n",
    "On Mon, 3 Jun 2030 at 09:00, Imperial 2030 <pbem@games.example> wrote:\n> RONDEL taxation\n\nRONDEL investor\n",
    "RONDEL investor\n\n-----Original Message-----\nFrom: pbem@games.example\nSent: today\nSubject: x\n\nRONDEL taxation\n",
])
def test_the_body_gives_the_order_splitter_only_the_players_orders(body: str) -> None:
    """The contract with pbem.games.imperial2030.orders.split_message: quotes, attributions and Outlook history are gone."""
    message = parse_message(raw(PLAIN, body))
    assert [line.text for line in split_message(message.body)] == ["RONDEL investor"]


def test_line_numbers_survive_a_blanked_attribution_and_token() -> None:
    body = "On Mon, Ann wrote:\n> Your turn\nTOKEN abcd1234\nRONDEL investor\n"
    message = parse_message(raw(PLAIN, body))
    assert [(line.number, line.text) for line in split_message(message.body)] == [(4, "RONDEL investor")]


@pytest.mark.parametrize(("address", "moderator", "token"), [
    ("pbem+k7dq2m9x@games.example", None, "k7dq2m9x"),
    ("PBEM+K7dq2m9x@Games.Example", MODERATOR, "K7dq2m9x"),
    ("pbem+k7dq2m9x@other.example", MODERATOR, None),
    ("ann+k7dq2m9x@games.example", MODERATOR, None),
    ("pbem@games.example", MODERATOR, None),
    ("pbem+ab@games.example", None, None),  # too short to be one of ours
    ("pbem+a.b.c.d@games.example", None, None),
])
def test_token_of_address(address: str, moderator: str | None, token: str | None) -> None:
    assert token_of_address(address, moderator) == token
