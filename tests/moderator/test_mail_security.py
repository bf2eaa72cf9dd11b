"""Attacks by mail, each opened first: silencing a seat, backscatter, forged From, reply loops.

Every test plays the attacker against the real inbound pipeline (``process_message`` on a real
database) and checks what the moderator queued in answer.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from pbem.daemon.sender import outgoing_mail
from pbem.mail import build_message, parse_message
from pbem.mail.inbound import LOOP_HEADER
from pbem.moderator.inbound.handler import process_message
from pbem.store import Database
from tests.mailflowkit import MODERATOR, NOW, Table, config_for, raw_mail

_uids = iter(range(1, 100_000))


@pytest.fixture
def table(tmp_path: Path) -> Table:
    t = Table(Database(f"sqlite:///{tmp_path / 'mail.db'}"),
              config_for(limits={"replies_to_strangers_per_hour": 20, "replies_per_domain_per_hour": 5}))
    t.create()
    return t


def process(table: Table, raw: bytes):  # type: ignore[no-untyped-def]
    return process_message(table.db, table.config, raw, "INBOX", 77, next(_uids), NOW, moderator=table.moderator)


def replies_to(table: Table, address: str) -> list:  # type: ignore[type-arg]
    return [row for row in table.outbox() if row.recipient == address and row.purpose not in ("welcome", "prompt")]


# --- item 8: tokenless mail must not spend a seat's reply budget ------------------------------------


def test_forged_tokenless_mail_does_not_silence_the_seats_own_replies(table: Table) -> None:
    for _ in range(12):
        process(table, raw_mail("ann@example.org", MODERATOR, "hello"))  # forged From: ann, no token
    before = len(replies_to(table, "ann@example.org"))
    outcome = process(table, table.mail_from("ann", "RONDEL nowhere"))
    assert outcome.outcome == "refused"
    errors = [r for r in replies_to(table, "ann@example.org")[before:] if r.purpose == "error"]
    assert len(errors) == 1, outcome.reason
    process(table, table.mail_from("ann", "STATUS"))
    assert [r for r in replies_to(table, "ann@example.org") if r.purpose == "query"]


# --- item 9: backscatter ----------------------------------------------------------------------------


def test_tokenless_mail_from_many_forged_senders_gets_few_replies(table: Table) -> None:
    for n in range(100):
        process(table, raw_mail(f"victim{n}@domain{n % 50}.example", MODERATOR, "hello"))
    strangers = [row for row in table.outbox() if row.recipient.startswith("victim")]
    assert len(strangers) == 20  # [limits] replies_to_strangers_per_hour


def test_replies_to_one_domain_are_capped(table: Table) -> None:
    for n in range(10):
        process(table, raw_mail(f"victim{n}@one.example", MODERATOR, "hello"))
    assert len([row for row in table.outbox() if row.recipient.endswith("@one.example")]) == 5


def test_an_address_that_never_played_gets_one_reply_ever(table: Table) -> None:
    for _ in range(3):
        process(table, raw_mail("stranger@example.net", MODERATOR, "hello"))
    process(table, raw_mail("stranger@example.net", "pbem+deadbeefdeadbeef@games.test", "RONDEL investor"))
    assert len(replies_to(table, "stranger@example.net")) == 1


# --- item 11: exactly one From mailbox --------------------------------------------------------------


def forged(table: Table, from_lines: list[str], extra: str = "") -> bytes:
    """A mail with the seat's token and ann's legal order, but the given From (and other) lines."""
    raw = table.mail_from("ann", "RONDEL investor", headers=extra)
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = [line for line in head.split(b"\r\n") if not line.startswith(b"From:")]
    return b"\r\n".join([*(line.encode() for line in from_lines), *lines]) + b"\r\n\r\n" + body


@pytest.mark.parametrize("from_lines, extra", [
    (["From: <ann@example.org>", "From: <mallory@example.net>"], ""),
    (["From: <ann@example.org>, <mallory@example.net>"], ""),
    ([], "Sender: <ann@example.org>\nReturn-Path: <ann@example.org>"),
], ids=["two From headers", "two addresses in From", "no From, Sender of the seat"])
def test_not_exactly_one_from_mailbox_is_spoofed_and_nothing_applies(table: Table, from_lines: list[str],
                                                                       extra: str) -> None:
    outcome = process(table, forged(table, from_lines, extra))
    assert outcome.outcome == "spoofed"
    assert table.log_length() == 0
    assert replies_to(table, "mallory@example.net") == []  # never an answer to a forged co-author


def test_a_spoof_warning_reaches_the_seat_once_a_day(table: Table) -> None:
    for _ in range(5):
        process(table, raw_mail("mallory@example.net", table.reply_to("ann"), "RONDEL investor"))
    assert len([r for r in replies_to(table, "ann@example.org") if r.purpose == "spoofed"]) == 1


# --- item 12: auto-replies, bounces and other moderators ---------------------------------------------


AUTOMATIC = {
    "out of office": ("ann@example.org", "Out of office: [g1] Move 3", ""),
    "automatic reply": ("ann@example.org", "Automatic reply: [g1] Your decision", "X-Auto-Response-Suppress: All"),
    "x-autoreply": ("ann@example.org", "Re: [g1] Move 3", "X-Autoreply: yes"),
    "dsn without report": ("mailer@example.org", "Delivery Status Notification (Failure)", ""),
    "failed recipients": ("ann@example.org", "Re: [g1] Move 3", "X-Failed-Recipients: bob@example.org"),
    "another moderator": ("pbem@other.example", "[g7] Move 2", f"{LOOP_HEADER}: pbem@other.example"),
    "german vacation": ("ann@example.org", "Abwesenheitsnotiz: [g1] Move 3", ""),
}


@pytest.mark.parametrize("name", sorted(AUTOMATIC))
@pytest.mark.slow
def test_auto_replies_and_bounces_are_never_answered(table: Table, name: str) -> None:
    sender, subject, headers = AUTOMATIC[name]
    sender_name = "Mail Delivery Subsystem" if name == "dsn without report" else ""
    raw = raw_mail(sender, MODERATOR, "I am away until Monday.", subject=subject, headers=headers,
                   sender_name=sender_name)
    before = len(table.outbox())
    outcome = process(table, raw)
    assert outcome.outcome == "automatic", outcome.reason
    assert len(table.outbox()) == before


def test_a_players_ordinary_reply_is_not_taken_for_an_automatic_one(table: Table) -> None:
    raw = table.mail_from("ann", "RONDEL investor", subject="Re: [g1] Your decision: Russia's rondel move")
    assert process(table, raw).outcome == "applied"


def test_every_mail_we_send_carries_our_loop_mark_and_we_never_answer_it(table: Table) -> None:
    row = table.outbox()[0]
    raw = bytes(build_message(outgoing_mail(row, table.config.moderator)))
    assert f"{LOOP_HEADER}: {MODERATOR}".encode() in raw
    # a second moderator behind a relay that strips Auto-Submitted and List-Id still sees the mark
    stripped = b"\r\n".join(line for line in raw.split(b"\r\n")
                            if not line.startswith((b"Auto-Submitted", b"List-Id", b"X-Auto-Response-Suppress")))
    message = parse_message(stripped, moderator_address="pbem@other.example")
    assert message.is_automatic and LOOP_HEADER in (message.automatic_reason or "")


def test_a_vacation_responder_without_headers_cannot_ping_pong(table: Table) -> None:
    """An unrecognised responder answering every mail of ours, tokenless, gets three replies a day."""
    for _ in range(12):
        process(table, raw_mail("ann@example.org", MODERATOR, "I am away and will read your mail later.",
                                subject="Thanks for your mail"))
    assert len([r for r in replies_to(table, "ann@example.org") if r.purpose == "no_token"]) == 3
