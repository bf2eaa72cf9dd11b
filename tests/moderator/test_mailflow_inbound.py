"""One inbound mail = one transaction: each kind of mail gets its outcome and changes only what it should.

``process_message`` straight on the database (no mail servers here; the
end-to-end tests by IMAP and SMTP are in tests/daemon/test_mailflow_e2e.py).
"""
from __future__ import annotations

import base64
import copy
from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import select

from pbem.daemon.sender import outgoing_mail
from pbem.mail import build_message, parse_message
from pbem.moderator import Moderator
from pbem.moderator.inbound.handler import MessageFailed, process_message
from pbem.moderator.notify.compose import MailComposer
from pbem.moderator.notify.turnmail import Move, turn_mail
from pbem.store import Database, find_game, replay_game, save_snapshot
from pbem.store.inbound import load_position
from pbem.store.models import ActionRow
from pbem.store.outbox import QueuedMail, queue_mail
from pbem.store.settings import load_settings, save_settings
from pbem.store.tokens import SeatTokenRow
from tests.imperialpositions import finished
from tests.mailflowkit import MODERATOR, NOW, PLAYERS, Table, config_for, raw_mail


@pytest.fixture
def table(tmp_path: Path) -> Table:
    t = Table(Database(f"sqlite:///{tmp_path / 'mail.db'}"), config_for(limits={"replies_per_sender_per_hour": 3}))
    t.create()
    return t


def process(t: Table, raw: bytes, uid: int = 1, now=NOW):  # type: ignore[no-untyped-def]
    return process_message(t.db, t.config, raw, "INBOX", 77, uid, now, moderator=t.moderator)


def new_mail(t: Table, before: int) -> list:  # type: ignore[type-arg]
    return t.outbox()[before:]


# --- creation: tokens and welcome mails ------------------------------------------------------------


def test_game_creation_queues_welcomes_with_tokens_stored_hashed(table: Table) -> None:
    rows = table.outbox()
    assert [(r.recipient, r.purpose) for r in rows] == [
        ("ann@example.org", "welcome"), ("ann@example.org", "prompt"), ("bob@example.org", "welcome")]
    ann, bob = table.token("ann"), table.token("bob")
    assert ann != bob and ann.isalnum() and ann.islower()
    assert f"pbem+{ann}@games.test" in rows[0].body  # the welcome names the reply address
    with table.db.transaction() as session:
        hashes = [r.token_hash for r in session.exec(select(SeatTokenRow)).all()]
    assert len(hashes) == 2 and ann not in hashes and bob not in hashes
    prompt = rows[1]
    assert prompt.headers["decision"] == "rondel"
    with table.db.transaction() as session:
        settings = load_settings(session, find_game(session, "g1"))
    assert settings.thread_root == rows[0].message_id  # the first seat's welcome is the thread root
    assert rows[0].headers["in_reply_to"] is None
    assert rows[2].headers["in_reply_to"] == settings.thread_root
    assert prompt.headers["references"] == [settings.thread_root]


# --- orders ----------------------------------------------------------------------------------------


def test_an_order_is_applied_reported_to_all_and_prompts_only_the_decider(table: Table) -> None:
    before = len(table.outbox())
    outcome = process(table, table.mail_from("ann", "RONDEL investor\n"))
    assert (outcome.outcome, outcome.game, outcome.player) == ("applied", "g1", "ann")
    assert (outcome.version_before, outcome.version) == (0, 1)
    mails = new_mail(table, before)
    assert sorted((m.recipient, m.purpose) for m in mails) == [  # one mail each: bob's report carries his prompt
        ("ann@example.org", "report"), ("bob@example.org", "prompt")]
    prompt = next(m for m in mails if m.purpose == "prompt")
    assert prompt.headers["decision"] == "investment" and "BUY" in prompt.body and "report for bob" in prompt.body
    assert all(m.headers["decision"] is None for m in mails if m.purpose == "report")
    for mail in mails:
        player = dict((e, p) for p, e in PLAYERS)[mail.recipient]
        assert mail.headers["reply_to"] == table.reply_to(player)
        assert mail.headers["auto_submitted"] == "auto-generated"
        message = build_message(outgoing_mail(mail))
        assert message["From"].addresses[0].addr_spec == MODERATOR
        assert message["Reply-To"].addresses[0].addr_spec == table.reply_to(player)
        assert message["List-Id"].endswith("<g1.pbem.games.test>")
    [record] = table.inbound()
    assert (record.outcome, record.player, record.version, record.uid, record.uidvalidity) == (
        "applied", "ann", 1, 1, 77)
    with table.db.transaction() as session:
        position = load_position(session, "INBOX")
    assert (position.uidvalidity, position.last_uid) == (77, 1)


def test_the_same_message_twice_is_applied_once(table: Table) -> None:
    raw = table.mail_from("ann", "RONDEL investor\n", message_id="<twice@clients.example>")
    assert process(table, raw, uid=1).outcome == "applied"
    count = len(table.outbox())
    again = process(table, raw, uid=2)
    assert again.duplicate and again.folder == "processed" and again.queued == ()
    assert table.log_length() == 1 and len(table.outbox()) == count and len(table.inbound()) == 1
    with table.db.transaction() as session:
        assert load_position(session, "INBOX").last_uid == 2


def test_a_mail_without_message_id_is_deduplicated_by_its_bytes(table: Table) -> None:
    raw = table.mail_from("ann", "RONDEL investor\n").replace(b"Message-ID:", b"X-Old-Id:")
    first = process(table, raw)
    assert first.outcome == "applied" and first.key.startswith("<sha256.")
    assert process(table, raw, uid=2).duplicate


def test_orders_out_of_turn_are_refused_with_an_error_reply_and_change_nothing(table: Table) -> None:
    before = len(table.outbox())
    raw = table.mail_from("bob", "RONDEL taxation\n", subject="my move")
    outcome = process(table, raw)
    assert outcome.outcome == "refused" and outcome.version == 0
    [error] = new_mail(table, before)
    assert (error.recipient, error.subject) == ("bob@example.org", "Re: my move")
    assert error.headers["auto_submitted"] == "auto-replied"
    assert error.headers["in_reply_to"] == parse_message(raw).message_id  # answers the player's mail
    assert "RONDEL taxation" in error.body and "ann" in error.body
    assert error.headers["decision"] is None  # bob has nothing to decide: no X-PBEM-Decision
    assert table.log_length() == 0


def test_bad_orders_are_refused_naming_the_line(table: Table) -> None:
    before = len(table.outbox())
    outcome = process(table, table.mail_from("ann", "RONDEL nowhere\n"))
    assert outcome.outcome == "refused" and "line 1" in outcome.reason
    [error] = new_mail(table, before)
    assert error.recipient == "ann@example.org" and "RONDEL nowhere" in error.body
    assert error.headers["decision"] == "rondel"  # ann still has to decide: her filters see it
    assert table.log_length() == 0


def test_lines_before_a_refused_line_stand(table: Table) -> None:
    before = len(table.outbox())
    outcome = process(table, table.mail_from("ann", "RONDEL factory\nBUILD Atlantis\n"))
    assert outcome.outcome == "refused" and (outcome.version_before, outcome.version) == (0, 1)
    mails = new_mail(table, before)
    assert sorted((m.recipient, m.purpose) for m in mails) == [("ann@example.org", "prompt"),
                                                              ("bob@example.org", "report")]
    ann = next(m for m in mails if m.recipient == "ann@example.org")  # one mail back: prompt, refusal, report
    assert ann.body.index("your decision") < ann.body.index("BUILD Atlantis") < ann.body.index("report for ann")


def test_an_empty_message_is_refused(table: Table) -> None:
    outcome = process(table, table.mail_from("ann", "\n\n-- \nAnn\n"))
    assert outcome.outcome == "refused" and "no orders" in outcome.reason


def test_a_token_line_in_the_body_works_too(table: Table) -> None:
    raw = raw_mail("ann@example.org", MODERATOR, f"TOKEN {table.token('ann')}\nRONDEL investor\n")
    assert process(table, raw).outcome == "applied"


def test_a_query_only_message_is_answered_to_the_sender_alone(table: Table) -> None:
    before = len(table.outbox())
    outcome = process(table, table.mail_from("bob", "STATUS\nHELP\n", subject="where are we"))
    assert outcome.outcome == "query" and outcome.reason == "status, help"
    [answer] = new_mail(table, before)
    assert (answer.recipient, answer.subject) == ("bob@example.org", "Re: where are we")
    assert "ann" in answer.body and "RONDEL" in answer.body  # whom the game waits for; the orders
    assert table.log_length() == 0


def test_queries_with_orders_are_answered_after_the_orders(table: Table) -> None:
    before = len(table.outbox())
    outcome = process(table, table.mail_from("ann", "RONDEL investor\nHISTORY\n"))
    assert outcome.outcome == "applied"
    purposes = sorted((m.recipient, m.purpose) for m in new_mail(table, before))
    assert purposes == [("ann@example.org", "report"), ("bob@example.org", "prompt")]  # one mail back to ann
    answer = next(m for m in new_mail(table, before) if m.recipient == "ann@example.org")
    assert "HISTORY" in answer.body and "investor" in answer.body.lower()


# --- real-world mail -------------------------------------------------------------------------------------


def test_an_html_only_reply_is_read(table: Table) -> None:
    html = "<html><body><div>RONDEL investor</div><div><br></div><div>-- <br>Ann</div></body></html>"
    raw = table.mail_from("ann", html, content_type="text/html; charset=utf-8")
    assert process(table, raw).outcome == "applied"
    assert table.log_length() == 1


def test_a_top_posted_quoted_reply_applies_only_the_new_lines(table: Table) -> None:
    quoted = "\n".join("> " + line for line in table.outbox()[1].body.splitlines())
    body = f"RONDEL investor\n\nOn Mon, 3 Jun 2030 at 12:00, Imperial 2030 moderator <{MODERATOR}> wrote:\n{quoted}\n"
    outcome = process(table, table.mail_from("ann", body))
    assert outcome.outcome == "applied" and table.log_length() == 1


def test_malformed_mime_is_read_as_well_as_it_can_be(table: Table) -> None:
    body = "--nowhere\r\nContent-Type: text/plain\r\n\r\nRONDEL investor\r\n"  # the boundary is never declared
    raw = table.mail_from("ann", body, content_type="multipart/mixed")
    outcome = process(table, raw)
    assert outcome.outcome == "applied" and "MIME:" in outcome.reason
    assert table.log_length() == 1


def test_base64_and_latin1_are_decoded(table: Table) -> None:
    body = base64.b64encode("# Grüße\nRONDEL investor\n".encode("latin-1")).decode()
    raw = table.mail_from("ann", body, content_type="text/plain; charset=iso-8859-1",
                          headers="Content-Transfer-Encoding: base64")
    assert process(table, raw).outcome == "applied"


def test_not_a_mail_at_all_fails_and_records_nothing(table: Table) -> None:
    with pytest.raises(MessageFailed, match="not a readable mail"):
        process(table, b"\x00\x01 just bytes, no header\r\n")
    assert table.inbound() == []


# --- who sent it -----------------------------------------------------------------------------------------


def test_a_spoofed_sender_changes_nothing_and_the_real_seat_is_told(table: Table) -> None:
    before = len(table.outbox())
    raw = raw_mail("eve@evil.example", table.reply_to("ann"), "RONDEL investor\n")
    outcome = process(table, raw)
    assert outcome.outcome == "spoofed" and "eve@evil.example" in outcome.reason
    [notice] = new_mail(table, before)
    assert notice.recipient == "ann@example.org"  # never the sender
    assert "eve@evil.example" in notice.body and "ignored" in notice.body
    assert notice.headers["reply_to"] == table.reply_to("ann")
    assert table.log_length() == 0
    # another seat's address with ann's token is just as spoofed
    assert process(table, raw_mail("bob@example.org", table.reply_to("ann"), "RONDEL investor\n")).outcome == "spoofed"
    assert table.log_length() == 0


def test_the_sender_address_is_compared_ignoring_case(table: Table) -> None:
    raw = raw_mail("Ann@Example.ORG", table.reply_to("ann"), "RONDEL investor\n")
    assert process(table, raw).outcome == "applied"


def test_no_token_gets_one_short_reply_rate_limited(table: Table) -> None:
    """A player's address gets at most three "no token" replies a day (tests/moderator/test_mail_security.py
    has the stranger who never played: one reply, ever)."""
    before = len(table.outbox())
    outcomes = [process(table, raw_mail("ann@example.org", MODERATOR, "hello?"), uid=n) for n in range(1, 6)]
    assert [o.outcome for o in outcomes] == ["no_token"] * 5
    replies = new_mail(table, before)
    assert len(replies) == 3
    assert all(r.recipient == "ann@example.org" and r.headers["reply_to"] is None for r in replies)
    assert "TOKEN <your token>" in replies[0].body
    assert "suppressed (rate limit)" in outcomes[-1].reason
    # a day later the sender may be answered again
    later = process(table, raw_mail("ann@example.org", MODERATOR, "hello?"), uid=9, now=NOW + timedelta(days=1, minutes=1))
    assert later.outcome == "no_token" and len(new_mail(table, before)) == 4


def test_an_unknown_token_is_explained(table: Table) -> None:
    before = len(table.outbox())
    outcome = process(table, raw_mail("ann@example.org", "pbem+deadbeefdeadbeef@games.test", "RONDEL investor"))
    assert outcome.outcome == "unknown_token"
    [reply] = new_mail(table, before)
    assert reply.recipient == "ann@example.org" and "belongs to no seat" in reply.body


@pytest.mark.parametrize("headers", [
    "Auto-Submitted: auto-replied",
    "Precedence: bulk",
    "List-Id: <games.lists.example>",
    "X-Autoreply: yes",
])
def test_automatic_mail_is_recorded_and_never_answered(table: Table, headers: str) -> None:
    before = len(table.outbox())
    outcome = process(table, table.mail_from("ann", "I am on holiday.\nRONDEL investor\n", headers=headers))
    assert outcome.outcome == "automatic"
    assert new_mail(table, before) == [] and table.log_length() == 0
    assert table.inbound()[0].outcome == "automatic"


def test_a_bounce_is_never_answered(table: Table) -> None:
    raw = (b"From: Mail Delivery System <MAILER-DAEMON@mx.example.org>\r\nTo: " + MODERATOR.encode()
           + b"\r\nSubject: Undelivered Mail\r\nMessage-ID: <bounce-1@mx.example.org>\r\nReturn-Path: <>\r\n"
           b"Content-Type: multipart/report; report-type=delivery-status; boundary=b\r\n\r\n--b\r\n"
           b"Content-Type: text/plain\r\n\r\nDelivery failed.\r\n--b--\r\n")
    before = len(table.outbox())
    assert process(table, raw).outcome == "automatic"
    assert new_mail(table, before) == []


def test_our_own_mail_is_never_answered(table: Table) -> None:
    before = len(table.outbox())
    raw = raw_mail(MODERATOR, table.reply_to("ann"), "RONDEL investor\n")
    assert process(table, raw).outcome == "automatic"
    assert new_mail(table, before) == [] and table.log_length() == 0


# --- size, pause, end ------------------------------------------------------------------------------------


def test_oversize_mail_is_not_read_and_the_sender_is_told(tmp_path: Path) -> None:
    t = Table(Database(f"sqlite:///{tmp_path / 'big.db'}"), config_for(limits={"max_message_bytes": 2000}))
    t.create()
    before = len(t.outbox())
    raw = t.mail_from("ann", "RONDEL investor\n" + "x" * 5000 + "\n")
    outcome = process(t, raw)
    assert outcome.outcome == "oversize" and "above the limit of 2000" in outcome.reason
    [reply] = new_mail(t, before)
    assert reply.recipient == "ann@example.org" and "plain text" in reply.body
    assert reply.headers["reply_to"] == t.reply_to("ann")
    assert t.log_length() == 0
    assert process(t, raw, uid=2).duplicate


def test_a_paused_game_takes_no_orders(table: Table) -> None:
    with table.db.transaction() as session:
        game = find_game(session, "g1")
        settings = load_settings(session, game)
        settings.paused = True
        save_settings(session, game, settings)
    before = len(table.outbox())
    outcome = process(table, table.mail_from("ann", "RONDEL investor\n"))
    assert outcome.outcome == "paused"
    [notice] = new_mail(table, before)
    assert notice.recipient == "ann@example.org" and "paused" in notice.body
    assert table.log_length() == 0


def test_a_finished_game_takes_no_orders(table: Table) -> None:
    with table.db.transaction() as session:
        game = find_game(session, "g1")
        game.status = "finished"
        session.add(game)
    assert process(table, table.mail_from("ann", "RONDEL investor\n")).outcome == "finished"
    assert table.log_length() == 0


# --- tokens on later mail ----------------------------------------------------------------------------------


def test_a_seat_without_a_token_at_hand_gets_a_new_one(table: Table) -> None:
    """A game created without mail: the first mail to a seat issues its token."""
    table.moderator.create_game("plain", PLAYERS[:2], [("russia", "ann")], 3)
    with table.db.transaction() as session:
        game = find_game(session, "plain")
        composer = MailComposer(session, table.config.moderator, NOW)
        composer.welcomes(game, table.moderator.state("plain"))
    rows = [r for r in table.outbox() if r.game_id != 1]
    assert {r.recipient for r in rows} == {"ann@example.org", "bob@example.org"}
    assert all(r.headers["reply_to"].startswith("pbem+") for r in rows)


@pytest.mark.slow
def test_the_token_stays_the_same_across_mails(table: Table) -> None:
    token = table.token("bob")
    process(table, table.mail_from("ann", "RONDEL investor\n"))
    bob_mail = [r for r in table.outbox() if r.recipient == "bob@example.org"]
    assert len(bob_mail) == 2 and {r.headers["reply_to"] for r in bob_mail} == {f"pbem+{token}@games.test"}


# --- PostgreSQL too --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_flow_on_both_databases(db_url: str) -> None:
    t = Table(Database(db_url), config_for())
    t.create(players=3)
    raw = t.mail_from("ann", "RONDEL investor\n", message_id="<" + "x" * 400 + "@long.example>")
    outcome = process(t, raw, uid=4_000_000_000)  # UIDs are unsigned 32-bit: above a signed INTEGER
    assert outcome.outcome == "applied" and len(outcome.key) <= 255
    assert process(t, raw, uid=4_000_000_001).duplicate
    assert process(t, raw_mail("eve@evil.example", t.reply_to("bob"), "PASS")).outcome == "spoofed"
    assert t.log_length() == 1
    t.db.dispose()


def test_the_game_end_goes_to_every_seat_instead_of_the_report(tmp_path: Path) -> None:

    state, events = finished()
    before = copy.deepcopy(state)
    before.version -= 1  # the position the last move was made in, as far as the mail is concerned
    db = Database(f"sqlite:///{tmp_path / 'end.db'}")
    moderator = Moderator(db)
    moderator.create_game("end", [(name, f"{name.lower()}@example.org") for name in state.seating], seed=1)
    config = config_for()
    with db.transaction() as session:
        game = find_game(session, "end")
        composer = MailComposer(session, config.moderator, NOW)
        turn_mail(composer, game, Move(state.seating[0], before, state, tuple(events)))
    t = Table(db, config, name="end")
    rows = t.outbox()
    assert [r.purpose for r in rows] == ["game_end"] * len(state.seating)
    assert {r.recipient for r in rows} == {f"{name.lower()}@example.org" for name in state.seating}
    assert all(r.subject == "[end] Game over" and r.headers["decision"] is None for r in rows)
    assert "Anna" in rows[0].body


def test_the_token_is_found_behind_many_mails_without_one(table: Table) -> None:
    """Mail queued by other code without a Reply-To (reminders, notices) does not make a new token."""
    token = table.token("bob")
    with table.db.transaction() as session:
        for n in range(120):
            queue_mail(session, QueuedMail(recipient="bob@example.org", purpose="notice", message_id=f"<n{n}@x.test>",
                                           subject="notice", body="x", game_id=1, headers={}))
    process(table, table.mail_from("ann", "RONDEL investor\n"))
    latest = [r for r in table.outbox() if r.recipient == "bob@example.org" and r.headers.get("reply_to")][-1]
    assert latest.purpose == "prompt" and latest.headers["reply_to"] == f"pbem+{token}@games.test"


def test_a_version_played_again_after_an_undo_gets_new_mail(table: Table) -> None:
    """After the game master takes a move back, the next move's report has the same version but is new mail."""
    from sqlalchemy import delete

    process(table, table.mail_from("ann", "RONDEL investor\n"))
    first = {r.message_id for r in table.outbox() if r.version == 1}
    with table.db.transaction() as session:  # what `pbem undo` does to the log
        game = find_game(session, "g1")
        session.exec(delete(ActionRow).where(ActionRow.game_id == game.id))
        save_snapshot(session, game, replay_game(session, game))
    before = len(table.outbox())
    outcome = process(table, table.mail_from("ann", "RONDEL factory\n"), uid=2)
    assert outcome.outcome == "applied" and outcome.version == 1
    again = new_mail(table, before)
    assert sorted(m.purpose for m in again) == ["prompt", "report"]
    assert not first & {m.message_id for m in again}
