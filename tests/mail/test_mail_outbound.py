"""Building outgoing mail: headers, stable Message-IDs, threading, X-PBEM-Decision, UTF-8, refusals."""
from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from email import policy
from email.parser import BytesParser
from typing import Any

import pytest

from pbem.mail import (
    DECISION_HEADER,
    OutboundError,
    OutgoingMail,
    build_message,
    domain_of,
    game_thread_id,
    list_id_for,
    message_id_for,
    parse_message,
    reply_threading,
    thread_headers,
    token_address,
)

MODERATOR = "pbem@games.example"
DOMAIN = "games.example"
WHEN = datetime(2030, 6, 3, 10, 0, tzinfo=timezone(timedelta(hours=2)))


def report(**changes: Any) -> OutgoingMail:
    values: dict[str, Any] = dict(
        to="ann@example.org",
        to_name="Ann Example",
        subject="[demo] Round 3: Russia to move",
        body="Russia chose Investor.\nYour turn: choose a rondel space.\n",
        from_address=MODERATOR,
        from_name="Imperial 2030",
        message_id=message_id_for("demo", 3, "ann@example.org", "prompt", domain=DOMAIN),
        date=WHEN,
        reply_to=token_address(MODERATOR, "k7dq2m9x"),
        list_id=list_id_for("demo", domain=DOMAIN),
        decision="rondel",
    )
    values.update(changes)
    return OutgoingMail(**values)


def reparse(mail: OutgoingMail) -> Any:
    return BytesParser(policy=policy.default).parsebytes(build_message(mail).as_bytes())


def test_headers_of_a_prompt() -> None:
    root = game_thread_id("demo", domain=DOMAIN)
    threading = thread_headers(root)
    message = build_message(report(in_reply_to=threading.in_reply_to, references=threading.references))
    assert message["From"] == "Imperial 2030 <pbem@games.example>"
    assert message["To"] == "Ann Example <ann@example.org>"
    assert message["Reply-To"] == "Imperial 2030 <pbem+k7dq2m9x@games.example>"
    assert message["Subject"] == "[demo] Round 3: Russia to move"
    assert message["Date"] == "Mon, 03 Jun 2030 10:00:00 +0200"
    assert message["Message-ID"] == message_id_for("demo", 3, "ann@example.org", "prompt", domain=DOMAIN)
    assert message["In-Reply-To"] == root
    assert message["References"] == root
    assert message["List-Id"] == "Imperial 2030 game demo <demo.pbem.games.example>"
    assert message["Auto-Submitted"] == "auto-generated"
    assert message["X-Auto-Response-Suppress"] == "All"
    assert message[DECISION_HEADER] == "rondel"
    assert message.get_content_type() == "text/plain"
    assert message.get_content_charset() == "utf-8"
    assert message["MIME-Version"] == "1.0"
    assert message["Content-Transfer-Encoding"] == "7bit"
    assert message.get_content() == "Russia chose Investor.\nYour turn: choose a rondel space.\n"


def test_a_report_asks_nothing_so_has_no_decision_header() -> None:
    message = build_message(report(decision=None, reply_to=None, list_id=None))
    assert DECISION_HEADER not in message
    assert "Reply-To" not in message and "List-Id" not in message and "In-Reply-To" not in message


def test_building_is_pure_same_mail_same_bytes() -> None:
    assert build_message(report()).as_bytes() == build_message(report()).as_bytes()
    assert build_message(report()).as_bytes().count(b"\r\n") > 10  # SMTP line ends


def test_utf8_subject_names_and_body_round_trip() -> None:
    mail = report(subject="[Zürich] Österreich wählt — Runde 3", to_name="Jörg Müller", from_name="Modérateur",
                  body="Österreich baut eine Fabrik in Wien.\n“Quoted” 5€ ✓\n" + "x" * 1200 + "\n")
    data = build_message(mail).as_bytes()
    assert data.isascii()  # 7-bit clean on the wire: encoded words and quoted-printable
    parsed = BytesParser(policy=policy.default).parsebytes(data)
    assert parsed["Subject"] == "[Zürich] Österreich wählt — Runde 3"
    assert parsed["To"].addresses[0].display_name == "Jörg Müller"
    assert parsed["From"].addresses[0].display_name == "Modérateur"
    assert parsed["Content-Transfer-Encoding"] == "quoted-printable"
    assert parsed.get_content().replace("\r\n", "\n") == mail.body  # QP keeps the wire CRLF
    assert all(len(line) <= 78 for line in data.split(b"\r\n"))


RUSSIAN = "Россия строит фабрику в Москве. Ход переходит к Китаю: казна 12 млн.\n" * 40
POLISH = "Rosja buduje fabrykę w Moskwie. Ruch przechodzi do Chin: skarbiec 12 mln.\n" * 40


@pytest.mark.parametrize(("body", "encoding"), [
    pytest.param(POLISH, "quoted-printable", id="a Latin script keeps readable quoted-printable"),
    pytest.param(RUSSIAN, "base64", id="Cyrillic travels as base64"),
    pytest.param("Russia builds a factory in Moscow.\n" * 40, "7bit", id="English as it is"),
])
def test_a_text_travels_in_the_shorter_encoding(body: str, encoding: str) -> None:
    data = build_message(report(body=body)).as_bytes()
    parsed = BytesParser(policy=policy.default).parsebytes(data)
    assert parsed["Content-Transfer-Encoding"] == encoding
    assert parsed.get_content().replace("\r\n", "\n") == body
    assert data.isascii() and all(len(line) <= 78 for line in data.split(b"\r\n"))
    if encoding != "7bit":  # and no larger than the other would have made it
        other = "base64" if encoding == "quoted-printable" else "quoted-printable"
        message = build_message(report(body=body))
        message.set_content(body, charset="utf-8", cte=other)
        assert len(data) < len(message.as_bytes())


def test_our_mail_read_back_by_our_parser() -> None:
    """What we send is what a player's Reply would quote; our own parser must recognise it as ours."""
    message = parse_message(build_message(report()).as_bytes(), moderator_address=MODERATOR)
    assert message.sender == MODERATOR
    assert message.is_automatic is True
    assert message.automatic_reason == "Auto-Submitted: auto-generated"
    assert message.message_id == report().message_id


def test_line_endings_are_normalised_and_a_final_newline_added() -> None:
    message = build_message(report(body="line one\r\nline two\rline three"))
    assert message.get_content() == "line one\nline two\nline three\n"


def test_an_answer_to_a_player_is_auto_replied_and_threads_under_their_mail() -> None:
    inbound = parse_message(
        b"From: ann@example.org\r\nTo: pbem+k7dq2m9x@games.example\r\nSubject: Re: [demo] Round 3\r\n"
        b"Message-ID: <ann-42@example.org>\r\nIn-Reply-To: <pbem.demo.3.x@games.example>\r\n"
        b"References: <pbem.demo.thread.y@games.example> <pbem.demo.3.x@games.example>\r\n\r\nRONDEL nowhere\r\n",
        moderator_address=MODERATOR,
    )
    root = game_thread_id("demo", domain=DOMAIN)
    threading = reply_threading(inbound, root)
    assert threading.in_reply_to == "<ann-42@example.org>"
    assert threading.references == (root, "<pbem.demo.thread.y@games.example>", "<pbem.demo.3.x@games.example>",
                                    "<ann-42@example.org>")
    message = build_message(report(
        auto_submitted="auto-replied", decision=None, in_reply_to=threading.in_reply_to,
        references=threading.references,
        message_id=message_id_for("demo", 3, "ann@example.org", f"error:{inbound.key}", domain=DOMAIN),
    ))
    assert message["Auto-Submitted"] == "auto-replied"
    assert message["In-Reply-To"] == "<ann-42@example.org>"
    assert message["References"].split() == list(threading.references)


def test_reply_threading_of_a_fresh_mail_joins_the_game_thread() -> None:
    inbound = parse_message(b"From: ann@example.org\r\nMessage-ID: <fresh@example.org>\r\n\r\nRONDEL investor\r\n")
    root = game_thread_id("demo", domain=DOMAIN)
    assert reply_threading(inbound, root) == (("<fresh@example.org>"), (root, "<fresh@example.org>"))
    assert reply_threading(inbound) == ("<fresh@example.org>", ("<fresh@example.org>",))


def test_thread_headers() -> None:
    root, parent = "<root@games.example>", "<parent@games.example>"
    assert thread_headers(root) == (root, (root,))
    assert thread_headers(root, parent) == (parent, (root, parent))
    assert thread_headers(root, root) == (root, (root,))


def test_message_ids_are_stable_and_distinct() -> None:
    first = message_id_for("demo", 3, "ann@example.org", "report", domain=DOMAIN)
    assert first == message_id_for("demo", 3, "Ann@Example.ORG", "report", domain="Games.Example")
    assert re.fullmatch(r"<pbem\.demo\.3\.[0-9a-f]{16}@games\.example>", first)
    others = {
        message_id_for("demo2", 3, "ann@example.org", "report", domain=DOMAIN),
        message_id_for("demo", 4, "ann@example.org", "report", domain=DOMAIN),
        message_id_for("demo", 3, "bob@example.org", "report", domain=DOMAIN),
        message_id_for("demo", 3, "ann@example.org", "prompt", domain=DOMAIN),
    }
    assert len(others) == 4 and first not in others


def test_message_ids_of_odd_game_names_are_valid_and_unique() -> None:
    a = message_id_for("Grand Game #1", 0, "ann@example.org", "welcome", domain=DOMAIN)
    b = message_id_for("Grand-Game-1", 0, "ann@example.org", "welcome", domain=DOMAIN)
    c = message_id_for("Zürich ☃", 0, "ann@example.org", "welcome", domain=DOMAIN)
    assert a.startswith("<pbem.Grand-Game-1.0.") and b.startswith("<pbem.Grand-Game-1.0.") and a != b
    assert c.startswith("<pbem.Z-rich.0.") and c.isascii()
    build_message(report(message_id=c))  # accepted as a Message-ID


def test_game_thread_id_is_stable_per_game() -> None:
    assert game_thread_id("demo", domain=DOMAIN) == game_thread_id("demo", domain=DOMAIN)
    assert game_thread_id("demo", domain=DOMAIN) != game_thread_id("other", domain=DOMAIN)
    assert re.fullmatch(r"<pbem\.demo\.thread\.[0-9a-f]{16}@games\.example>", game_thread_id("demo", domain=DOMAIN))


def test_list_id() -> None:
    assert list_id_for("demo", domain=DOMAIN) == "Imperial 2030 game demo <demo.pbem.games.example>"
    assert list_id_for("Big, Game", domain=DOMAIN) == '"Imperial 2030 game Big, Game" <big-game.pbem.games.example>'
    assert build_message(report(list_id=list_id_for("Big, Game", domain=DOMAIN)))["List-Id"]


def test_token_address_round_trips_through_the_parser() -> None:
    address = token_address(MODERATOR, "k7dq2m9x")
    assert address == "pbem+k7dq2m9x@games.example"
    inbound = parse_message(f"From: ann@example.org\r\nTo: {address}\r\n\r\nRONDEL investor\r\n".encode(),
                            moderator_address=MODERATOR)
    assert inbound.address_token == "k7dq2m9x"


@pytest.mark.parametrize(("moderator", "token", "reason"), [
    (MODERATOR, "ab", "reply token"),
    (MODERATOR, "has space", "reply token"),
    (MODERATOR, "a+b+c+d", "reply token"),
    ("pbem+x@games.example", "k7dq2m9x", "without a '\\+'"),
    ("not-an-address", "k7dq2m9x", "local@host"),
])
def test_token_address_refusals(moderator: str, token: str, reason: str) -> None:
    with pytest.raises(OutboundError, match=reason) as caught:
        token_address(moderator, token)
    if reason == "reply token":
        assert token not in str(caught.value)  # tokens are secrets: a refused one is not echoed


def test_domain_of() -> None:
    assert domain_of("PBEM@Games.Example") == "games.example"
    with pytest.raises(OutboundError):
        domain_of("nobody")


def test_idn_domains_are_encoded() -> None:
    message = build_message(report(to="ann@bücher.example"))
    assert message["To"].addresses[0].domain == "xn--bcher-kva.example"


@pytest.mark.parametrize(("changes", "reason"), [
    (dict(subject="Hello\r\nBcc: everyone@example.org"), "Subject must be one line"),
    (dict(to_name="Ann\nBcc: x@example.org"), "To must be one line"),
    (dict(to="ann@example.org\nBcc: x@example.org"), "To must be one line"),
    (dict(to="not an address"), "To: not an e-mail address"),
    (dict(to="ann@example.org, bob@example.org"), "To: not an e-mail address"),
    (dict(to="jörg@example.org"), "non-ASCII local part"),
    (dict(reply_to="nobody"), "Reply-To: not an e-mail address"),
    (dict(message_id="no-brackets@games.example"), "Message-ID must look like"),
    (dict(in_reply_to="<a b@c>"), "In-Reply-To must look like"),
    (dict(references=("<ok@x>", "bad")), "References must look like"),
    (dict(date=datetime(2030, 6, 3, 10, 0)), "timezone-aware"),
    (dict(decision="rondel move"), "decision kind"),
    (dict(decision="x\nBcc: y"), "decision kind"),
    (dict(auto_submitted="no"), "Auto-Submitted must be one of"),
    (dict(list_id="demo\r\n<x>"), "List-Id must be one line"),
])
def test_refusals(changes: dict[str, Any], reason: str) -> None:
    with pytest.raises(OutboundError, match=reason):
        build_message(report(**changes))


def test_bad_version_in_message_id() -> None:
    with pytest.raises(OutboundError, match="version"):
        message_id_for("demo", -1, "ann@example.org", "report", domain=DOMAIN)
    with pytest.raises(OutboundError, match="domain"):
        message_id_for("demo", 1, "ann@example.org", "report", domain="bad domain")
