"""End to end by email: players' mails appended to a real Dovecot inbox, the moderator's mail received by aiosmtpd.

The game's first rounds are played entirely by mail: every order is a reply to
the last mail the player received (To its Reply-To, the token address), and
what the players receive is checked after every move: the report to every
seat, the prompt only to whoever must decide (with ``X-PBEM-Decision``), the
token address in Reply-To, the threading headers.
"""
from __future__ import annotations

from collections.abc import Iterator
from email.message import EmailMessage
from email.utils import getaddresses
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from engine.imperial2030.decisions import pending
from pbem.daemon import MailFlow, poll_once
from pbem.games.imperial2030.orders import apply_message, legal_orders
from pbem.moderator.inbound.handler import process_message
from pbem.store import Database, find_game, replay_game
from pbem.store.inbound import MailboxStateRow
from pbem.store.outbox import OutboxRow
from tests.loopback import free_port
from tests.mailflowkit import MODERATOR, NOW, PLAYERS, Table, mail_config, raw_mail
from tests.mailservers import DovecotAccount
from tests.smtpservers import RecordingHandler, SmtpServer, _controller

EMAILS = dict(PLAYERS)
PLAYER_OF = {email: player for player, email in PLAYERS}


@pytest.fixture
def table(tmp_path: Path, dovecot: DovecotAccount, smtpd: SmtpServer) -> Iterator[Table]:
    t = Table(Database(f"sqlite:///{tmp_path / 'e2e.db'}"), mail_config(dovecot, smtpd))
    yield t
    t.db.dispose()


def flow_of(t: Table, **kwargs: Any) -> MailFlow:
    return MailFlow(t.config, t.db, moderator=t.moderator, clock=lambda: NOW, **kwargs)


def received_by(smtp: SmtpServer, player: str, since: int = 0) -> list[EmailMessage]:
    return [r.message for r in smtp.received[since:] if r.rcpt_tos == (EMAILS[player],)]


def addr(message: EmailMessage, header: str) -> str:
    return getaddresses([str(message[header])])[0][1]


def reply(t: Table, player: str, last: EmailMessage, body: str, *, quote: bool = False) -> bytes:
    """The player hits Reply on ``last``: To its Reply-To, threaded under it, optionally quoting it."""
    if quote:
        quoted = "\n".join("> " + line for line in text_of(last).splitlines())
        body = f"{body}\nOn Mon, 3 Jun 2030, Imperial 2030 moderator <{MODERATOR}> wrote:\n{quoted}\n"
    return raw_mail(EMAILS[player], addr(last, "Reply-To"), body, subject=f"Re: {last['Subject']}",
                    headers=f"In-Reply-To: {last['Message-ID']}\nReferences: {last['Message-ID']}")


def check_headers(t: Table, message: EmailMessage, player: str, root: str, welcome: str) -> None:
    assert addr(message, "From") == MODERATOR
    assert addr(message, "Reply-To") == t.reply_to(player)  # the token address of the reader's seat
    assert message["Auto-Submitted"] == "auto-generated"
    assert str(message["List-Id"]).endswith("<g1.pbem.games.test>")
    # under the reader's own welcome mail, or the one mail back under the reader's message it answers ...
    assert message["In-Reply-To"] == welcome or message["In-Reply-To"].endswith("@clients.example>")
    assert root in str(message["References"]).split()  # ... in the game's thread
    # plain text, or (a mail with the board) plain text with an HTML alternative showing its picture
    plain = message.get_body(("plain",))
    assert plain is not None and plain.get_content_charset() == "utf-8"
    assert message.get_content_type() in ("text/plain", "multipart/alternative")


def text_of(message: EmailMessage) -> str:
    """The text/plain part of a mail (the whole mail when it has no picture)."""
    plain = message.get_body(("plain",))
    assert plain is not None
    return str(plain.get_content())


@pytest.mark.slow
def test_the_first_rounds_played_entirely_by_mail(table: Table, dovecot: DovecotAccount,
                                                  smtpd: SmtpServer) -> None:
    t = table
    t.create(players=2)
    flow = flow_of(t)
    report = poll_once(flow)
    assert report.ok and report.outbox.sent == 3
    welcome = {p: received_by(smtpd, p)[0] for p in ("ann", "bob")}
    root = welcome["ann"]["Message-ID"]
    assert "In-Reply-To" not in welcome["ann"] and welcome["bob"]["In-Reply-To"] == root
    first_prompt = received_by(smtpd, "ann")[1]
    assert first_prompt["X-PBEM-Decision"] == "rondel"
    assert [m.get("X-PBEM-Decision") for m in received_by(smtpd, "bob")] == [None]  # bob decides nothing yet
    last = {"ann": first_prompt, "bob": welcome["bob"]}

    moves = 0
    while t.state().round < 2 or moves < 9:  # round 1 and the start of round 2
        state = t.state()
        player, order = t.an_order()
        body = order
        if order.startswith("RONDEL"):  # sometimes two orders in one mail: the rondel and what follows
            after = apply_message(state, player, order, end_maneuver=False).state
            follow = [d for d in pending(after) if d.player == player]
            if follow and moves % 4 != 1:
                body = order + "\n" + [o for o in legal_orders(after, player) if "investor" not in o.lower()][0]
        before = len(smtpd.received)
        version = state.version
        dovecot.append(reply(t, player, last[player], body, quote=moves % 3 == 0))
        report = poll_once(flow)
        assert report.ok, report
        [outcome] = report.inbox.outcomes
        assert outcome.outcome == "applied", (body, outcome)
        now = t.state()
        assert now.version > version
        new = smtpd.received[before:]
        reports = [r for r in new if "] Move " in r.message["Subject"]]
        assert sorted(PLAYER_OF[r.rcpt_tos[0]] for r in reports) == ["ann", "bob"]  # one mail to every seat
        deciders = {d.player: d.kind.value for d in pending(now)}
        for item in new:
            message = item.message
            reader = PLAYER_OF[item.rcpt_tos[0]]
            check_headers(t, message, reader, root, welcome[reader]["Message-ID"])
            if message["X-PBEM-Decision"] is not None:  # a prompt: only to whoever decides now
                assert reader in deciders and message["X-PBEM-Decision"] == deciders[reader]
                last[reader] = message
        next_player = pending(now)[0].player
        assert [PLAYER_OF[i.rcpt_tos[0]] for i in new if i.message["X-PBEM-Decision"]] == [next_player]
        moves += 1
        assert moves < 40
    assert dovecot.uids("INBOX") == [] and len(dovecot.uids("processed")) == moves
    with t.db.transaction() as session:  # the stored state is the replay of the log
        assert replay_game(session, find_game(session, "g1")) == t.state()
    assert all(r.status == "sent" for r in t.outbox())


def test_every_kind_of_mail_in_one_inbox(table: Table, dovecot: DovecotAccount, smtpd: SmtpServer) -> None:
    t = table
    t.create(players=2)
    flow = flow_of(t)
    poll_once(flow)
    before = len(smtpd.received)
    order = t.mail_from("ann", "RONDEL investor\n", message_id="<dup@clients.example>")
    html = t.mail_from("ann", "<p>STATUS</p>", content_type="text/html; charset=utf-8")
    mails = {
        "order": order,
        "duplicate": order,
        "spoofed": raw_mail("eve@evil.example", t.reply_to("bob"), "PASS\n"),
        "no token": raw_mail("stranger@example.net", MODERATOR, "Can I play?\n"),
        "auto-reply": t.mail_from("bob", "Out of office\n", headers="Auto-Submitted: auto-replied"),
        "malformed": t.mail_from("bob", "--x\r\nBUY Russia 99\r\n", content_type="multipart/mixed"),
        "wrong turn": t.mail_from("ann", "RONDEL taxation\n"),
        "html query": html,
        "not a mail": b"\x00\x01\x02 garbage without any header\r\n",
    }
    uids = {name: dovecot.append(raw) for name, raw in mails.items()}
    report = poll_once(flow)
    outcomes = {o.key: o.outcome for o in report.inbox.outcomes}
    # the second copy is known when the batch is queued; the rest are handled from the queue in arrival order
    assert [o.outcome for o in report.inbox.outcomes] == [
        "duplicate", "applied", "spoofed", "no_token", "automatic", "refused", "refused", "query"]
    assert [uid for uid, _ in report.inbox.failed] == [uids["not a mail"]]
    assert len(outcomes) == 7
    assert t.log_length() == 1  # only the first order changed the game
    assert dovecot.uids("INBOX") == []
    assert len(dovecot.uids("processed")) == 8 and len(dovecot.uids("failed")) == 1
    got = [(r.rcpt_tos[0], r.message["Subject"]) for r in smtpd.received[before:]]
    recipients = [rcpt for rcpt, _ in got]
    assert "eve@evil.example" not in recipients  # the spoofer hears nothing ...
    assert any(rcpt == "bob@example.org" and "another address" in subject for rcpt, subject in got)  # ... bob does
    assert recipients.count("stranger@example.net") == 1
    assert ("bob@example.org", "Re: orders") in got  # the bad orders (malformed mail) and ...
    assert recipients.count("ann@example.org") == 3  # report after the order, error for the wrong turn, status
    with t.db.transaction() as session:
        [state_row] = session.exec(select(MailboxStateRow)).all()
    assert state_row.last_uid == uids["not a mail"]


@pytest.mark.slow
def test_smtp_down_for_an_hour_loses_nothing(tmp_path: Path, dovecot: DovecotAccount) -> None:
    handler = RecordingHandler()
    port = free_port()
    relay = SmtpServer("127.0.0.1", port, handler)
    t = Table(Database(f"sqlite:///{tmp_path / 'down.db'}"), mail_config(dovecot, relay))
    t.create(players=3)
    clock = [NOW]
    flow = MailFlow(t.config, t.db, moderator=t.moderator, clock=lambda: clock[0])
    dovecot.append(t.mail_from("ann", "RONDEL investor\n"))
    for minutes in (0, 10, 30, 60):  # nobody listens on the port
        clock[0] = NOW.replace(minute=minutes % 60, hour=12 + minutes // 60)
        report = poll_once(flow)
        assert report.outbox.unavailable and "connection refused" in report.outbox.unavailable
        assert not report.ok
    assert t.log_length() == 1  # the order was applied meanwhile
    rows = t.outbox()
    assert len(rows) == 7 and all(r.status == "queued" and r.attempts == 0 for r in rows)
    controller = _controller(handler, port)
    controller.start()
    try:
        report = poll_once(flow)
        assert report.ok and report.outbox.sent == 7
        assert sorted(r.rcpt_tos[0] for r in handler.received) == sorted(r.recipient for r in rows)
        assert {r.message["Message-ID"] for r in handler.received} == {r.message_id for r in rows}
        # a 4xx from the relay keeps the mail and retries it after the backoff
        dovecot.append(t.mail_from("bob", "PASS\n"))
        relay.reply("RCPT", "451 4.3.0 try again later")
        report = poll_once(flow)
        assert report.outbox.retried == 1 and not report.ok
        waiting = [r for r in t.outbox() if r.status == "queued"]
        assert waiting and waiting[0].attempts == 1 and "451" in waiting[0].last_error
        assert all(r.attempts == 0 for r in waiting[1:])  # the run stopped at the first refusal
        del handler.replies["RCPT"]
        assert poll_once(flow).outbox.sent == len(waiting) - 1  # the refused one waits for its backoff
        clock[0] = clock[0].replace(minute=clock[0].minute + 2)
        report = poll_once(flow)
        assert report.ok and report.outbox.sent == 1
        assert all(r.status == "sent" for r in t.outbox())
    finally:
        controller.stop()


def test_a_permanent_refusal_marks_the_mail_failed(table: Table, dovecot: DovecotAccount,
                                                   smtpd: SmtpServer) -> None:
    table.create(players=2)
    smtpd.reply("RCPT", "550 5.1.1 no such user")
    report = poll_once(flow_of(table))
    assert report.outbox.failed == 3 and report.outbox.sent == 0
    assert {r.status for r in table.outbox()} == {"failed"}
    assert "550" in table.outbox()[0].last_error


@pytest.mark.slow
def test_mail_recorded_but_not_moved_is_moved_and_not_applied_again(table: Table, dovecot: DovecotAccount,
                                                                  smtpd: SmtpServer) -> None:
    """What a crash between the commit and the move leaves: the message recorded, still in the inbox."""
    t = table
    t.create(players=2)
    raw = t.mail_from("ann", "RONDEL investor\n")
    uid = dovecot.append(raw)
    flow = flow_of(t)
    inbox = flow.open_inbox()
    try:
        validity = inbox.uidvalidity
    finally:
        inbox.close()
    assert process_message(t.db, t.config, raw, "INBOX", validity, uid, NOW, moderator=t.moderator).outcome \
        == "applied"
    later = dovecot.append(t.mail_from("bob", "STATUS\n"))
    report = poll_once(flow)
    assert report.inbox.recovered == 1
    assert [o.outcome for o in report.inbox.outcomes] == ["duplicate", "query"]
    assert t.log_length() == 1 and dovecot.uids("INBOX") == []
    assert len(dovecot.uids("processed")) == 2 and later > uid


def test_a_new_uidvalidity_rereads_the_inbox_and_skips_what_was_handled(table: Table,
                                                                       dovecot: DovecotAccount,
                                                                       smtpd: SmtpServer) -> None:
    t = table
    t.create(players=2)
    flow = flow_of(t)
    raw = t.mail_from("ann", "RONDEL investor\n")
    uid = dovecot.append(raw)
    inbox = flow.open_inbox()
    try:
        validity = inbox.uidvalidity
    finally:
        inbox.close()
    process_message(t.db, t.config, raw, "INBOX", validity, uid, NOW, moderator=t.moderator)
    with t.db.transaction() as session:  # as if the mailbox had been rebuilt since
        row = session.exec(select(MailboxStateRow)).one()
        row.uidvalidity = validity + 1000
        session.add(row)
    report = poll_once(flow)
    assert report.inbox.uidvalidity_changed
    assert [o.outcome for o in report.inbox.outcomes] == ["duplicate"]
    assert t.log_length() == 1
    with t.db.transaction() as session:
        assert session.exec(select(MailboxStateRow)).one().uidvalidity == validity


@pytest.mark.slow
def test_orders_of_two_games_in_one_inbox(tmp_path: Path, dovecot: DovecotAccount,
                                          smtpd: SmtpServer) -> None:
    t = Table(Database(f"sqlite:///{tmp_path / 'two.db'}"), mail_config(dovecot, smtpd))
    t.create(players=2)
    other = Table(t.db, t.config, name="g2")
    other.create(players=2)
    assert t.token("ann") != other.token("ann")
    poll_once(flow_of(t))
    dovecot.append(other.mail_from("ann", "RONDEL investor\n"))
    dovecot.append(t.mail_from("ann", "RONDEL factory\n"))
    report = poll_once(flow_of(t))
    assert [(o.game, o.outcome) for o in report.inbox.outcomes] == [("g2", "applied"), ("g1", "applied")]
    with t.db.transaction() as session:
        games = {r.game_id for r in session.exec(select(OutboxRow)).all()}
    assert len(games) == 2
