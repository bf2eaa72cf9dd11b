"""Reading bounces (``pbem.mail.bounce``): what failed, for good or not, and which mail of ours it quotes."""
from __future__ import annotations

from pbem.mail import parse_message
from tests import bouncesamples
from tests.mailflowkit import raw_mail

MODERATOR = "pbem@games.test"
OURS = "<pbem.g1.4.0123456789abcdef@games.test>"
ROOT = "<pbem.g1.0.fedcba9876543210@games.test>"  # the game's thread root: another seat's welcome
TOKEN = "a5e39ffe44c2a81d73f92fea"
ORIGINAL = (
    "From: Imperial 2030 moderator <pbem@games.test>\r\n"
    "To: ann <ann@example.org>\r\n"
    f"Reply-To: pbem+{TOKEN}@games.test\r\n"
    "Subject: [g1] Move 4: please choose a rondel space for Russia\r\n"
    f"Message-ID: {OURS}\r\n"
    f"In-Reply-To: {ROOT}\r\n"
    f"References: {ROOT}\r\n"
    "Auto-Submitted: auto-generated\r\n"
    "Content-Type: text/plain; charset=utf-8\r\n"
    "\r\n"
    "Russia is on the Investor.\r\n"
).encode()


def read(raw: bytes):  # type: ignore[no-untyped-def]
    message = parse_message(raw, moderator_address=MODERATOR)
    assert message.is_automatic, "a bounce is never answered"
    return message.bounce


def test_a_postfix_report_names_the_failed_address_its_status_and_our_mail() -> None:
    bounce = read(bouncesamples.postfix_failed(ORIGINAL, "ann@example.org"))
    assert bounce is not None and bounce.standard and bounce.hard
    assert [(f.address, f.status, f.action) for f in bounce.failures] == [("ann@example.org", "5.1.1", "failed")]
    assert bounce.message_ids == (OURS,) and bounce.tokens == (TOKEN,)


def test_a_delayed_mail_is_a_soft_bounce() -> None:
    bounce = read(bouncesamples.postfix_delayed(ORIGINAL, "ann@example.org"))
    assert bounce is not None and not bounce.hard
    assert [(f.status, f.action) for f in bounce.failures] == [("4.4.1", "delayed")]
    assert bounce.message_ids == (OURS,)  # the original's header alone (text/rfc822-headers) is enough


def test_an_exim_report_is_read_like_postfixs() -> None:
    bounce = read(bouncesamples.exim_failed(ORIGINAL, "ann@example.org"))
    assert bounce is not None and bounce.standard and bounce.hard
    assert bounce.failures[0].address == "ann@example.org" and bounce.message_ids == (OURS,)


def test_a_free_form_bounce_quoting_the_original_as_text_is_read_too() -> None:
    bounce = read(bouncesamples.exim_classic(ORIGINAL, "ann@example.org"))
    assert bounce is not None and not bounce.standard and bounce.hard
    assert [f.address for f in bounce.failures] == ["ann@example.org"]  # X-Failed-Recipients
    assert bounce.message_ids == (OURS,) and bounce.tokens == (TOKEN,)


def test_only_the_quoted_message_id_counts_not_the_mails_it_answered() -> None:
    """The References of our mail name the thread's root, another seat's welcome: never taken for the mail."""
    bounce = read(bouncesamples.exim_classic(ORIGINAL, "ann@example.org"))
    assert bounce is not None and ROOT not in bounce.message_ids


def test_only_our_own_token_addresses_are_taken() -> None:
    other = ORIGINAL.replace(b"pbem+", b"games+")
    bounce = read(bouncesamples.postfix_failed(other, "ann@example.org"))
    assert bounce is not None and bounce.tokens == ()


def test_an_out_of_office_reply_that_quotes_our_mail_is_no_bounce() -> None:
    raw = raw_mail("ann@example.org", MODERATOR, "I am away.\n\n> " + ORIGINAL.decode().replace("\r\n", "\n> "),
                   subject="Out of office: [g1] Move 4")
    assert read(raw) is None


def test_a_broken_report_is_no_bounce_and_never_raises() -> None:
    raw = (b"From: MAILER-DAEMON@mx.example (Mail Delivery System)\r\nSubject: Undelivered Mail\r\n"
           b"Content-Type: multipart/report; report-type=delivery-status; boundary=x\r\n\r\n"
           b"--x\r\nContent-Type: message/delivery-status\r\n\r\nAction failed\r\n\x00\xff\r\n--x")
    bounce = read(raw)
    assert bounce is None or (bounce.message_ids == () and bounce.tokens == ())
