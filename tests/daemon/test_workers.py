"""Several workers on one database: claims, not races.

Two ``pbem run`` daemons (threads here, each with its own worker) share one
PostgreSQL database and one inbox: one holds the inbox's lease and queues
the mail, both handle it and both send the outbox. Every order must be
applied once, every mail sent once, and each player must get a game's mail
in the order it was written. The claims themselves (inbound queue, outbox,
leases) are checked on SQLite and PostgreSQL alike.
"""
from __future__ import annotations

import threading
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from engine.imperial2030.decisions import pending
from pbem.daemon import Daemon, MailFlow
from pbem.daemon.sender import deliver_due
from pbem.daemon.workers import Appliers
from pbem.games.imperial2030.orders import apply_message, legal_orders
from pbem.mail import SmtpSender
from pbem.store import Database, find_game, load_log
from pbem.store.inqueue import QueuedMessageRow, claim_next, enqueue, finish
from pbem.store.leases import take_lease
from pbem.store.outbox import OutboxRow, QueuedMail, queue_mail
from tests.mailflowkit import PLAYERS, Table, config_for, raw_mail, wait_until
from tests.mailservers import DovecotAccount
from tests.smtpservers import SmtpServer

EMAILS = dict(PLAYERS)
GAMES = 4
STEPS = 3
NOW = datetime(2030, 6, 3, 12, 0, tzinfo=UTC)




def mail_config(account: DovecotAccount, smtp: SmtpServer) -> Any:
    return config_for(imap={"host": account.host, "port": account.port, "security": "none", "username": account.user,
                            "password": account.password, "timeout": 10, "poll_interval": 0.2},
                      smtp={"host": smtp.host, "port": smtp.port, "security": "none", "timeout": 10})


def plan(tables: list[Table]) -> list[bytes]:
    """Each game's next STEPS orders, computed ahead on its state in memory; step after step, game after game."""
    steps: list[list[bytes]] = [[] for _ in range(STEPS)]
    for table in tables:
        state = table.state()
        tokens = {player: table.reply_to(player) for player, _ in PLAYERS[:3]}
        for step in range(STEPS):
            player = pending(state)[0].player
            orders = legal_orders(state, player)
            order = ([o for o in orders if "investor" not in o.lower()] or orders)[0]
            state = apply_message(state, player, order, end_maneuver=True).state
            steps[step].append(raw_mail(EMAILS[player], tokens[player], order + "\n",
                                        message_id=f"<w-{table.name}-{step}@clients.example>"))
    return [raw for step in steps for raw in step]


class Worker:
    """One daemon with one applier thread, in a thread of its own (a ``pbem run --workers 1`` elsewhere)."""

    def __init__(self, table: Table) -> None:
        self.flow = MailFlow(table.config, Database(str(table.db.url.render_as_string(hide_password=False))),
                             apply_inline=False)
        self.appliers = Appliers(self.flow, 1, poll=0.1)
        self.flow.on_queued(self.appliers.wake)
        self.daemon = Daemon(self.flow, outbox_interval=1.0, wait_slice=0.2)
        self.thread = threading.Thread(target=self.daemon.run, daemon=True)

    def start(self) -> None:
        self.appliers.start()
        self.thread.start()

    def stop(self) -> None:
        self.daemon.stop()
        self.thread.join(20)
        self.appliers.stop()
        self.flow.db.dispose()


@pytest.mark.slow
def test_two_workers_on_postgresql_apply_every_order_once_and_send_every_mail_once(
        postgres_url: str, dovecot: DovecotAccount, smtpd: SmtpServer) -> None:
    db = Database(postgres_url)
    config = mail_config(dovecot, smtpd)
    tables = [Table(db, config, name=f"w{i}") for i in range(GAMES)]
    for table in tables:
        table.create(players=3, now=datetime.now(UTC))
    mails = plan(tables)
    workers = [Worker(tables[0]), Worker(tables[0])]
    for worker in workers:
        worker.start()
    try:
        wait_until(lambda: all(r.status == "sent" for r in tables[0].outbox()), 60.0)  # the welcomes
        for raw in mails:
            dovecot.append(raw)
        wait_until(lambda: len(tables[0].inbound()) == len(mails), 60.0)
        wait_until(lambda: all(r.status == "sent" for r in tables[0].outbox()), 60.0)
    finally:
        for worker in workers:
            worker.stop()
    assert [r.outcome for r in tables[0].inbound()] == ["applied"] * len(mails)  # each order once
    with db.transaction() as session:
        for table in tables:
            assert len(load_log(session, find_game(session, table.name))) == STEPS
    rows = {r.message_id: r for r in tables[0].outbox()}
    sent = Counter(str(r.message["Message-ID"]) for r in smtpd.received)
    assert set(sent) == set(rows) and set(sent.values()) == {1}  # every mail once
    versions: dict[tuple[int | None, str], list[int]] = {}
    for received in smtpd.received:  # each player gets a game's mail in the order it was written
        row = rows[str(received.message["Message-ID"])]
        versions.setdefault((row.game_id, row.recipient), []).append(row.id or 0)
    assert all(ids == sorted(ids) for ids in versions.values())
    assert dovecot.uids("INBOX") == [] and len(dovecot.uids("processed")) == len(mails)
    db.dispose()


# --- the claims themselves --------------------------------------------------------------------------------


def queued(key: str, route: str) -> QueuedMessageRow:
    return QueuedMessageRow(message_key=key, route=route, raw=b"x", source="test", received=NOW)


@pytest.mark.parametrize("returning", [True, False], ids=["UPDATE RETURNING", "UPDATE then SELECT"])
@pytest.mark.slow
def test_one_games_mail_is_claimed_in_arrival_order(db_url: str, returning: bool,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The claim is the same where the database cannot return the row it updated (SQLite before 3.35)."""
    db = Database(db_url)
    if not returning:
        monkeypatch.setattr(db.engine.dialect, "update_returning", False)
    with db.transaction() as session:
        for key, route in (("a1", "game:1"), ("a2", "game:1"), ("b1", "game:2")):
            assert enqueue(session, queued(key, route))
        assert not enqueue(session, queued("a1", "game:1"))  # the same message twice: queued once
    with db.transaction() as session:
        first = claim_next(session, "w1", NOW, 60)
    with db.transaction() as session:
        second = claim_next(session, "w2", NOW, 60)
    with db.transaction() as session:
        third = claim_next(session, "w3", NOW, 60)
    assert first is not None and second is not None
    assert (first.message_key, second.message_key, third) == ("a1", "b1", None)  # a2 waits for a1
    with db.transaction() as session:
        finish(session, first.id or 0)
    with db.transaction() as session:
        after = claim_next(session, "w3", NOW, 60)
    assert after is not None and after.message_key == "a2"
    with db.transaction() as session:  # a worker that died: its claim is taken again when the lease ends
        assert claim_next(session, "w4", NOW + timedelta(seconds=30), 60) is None
        again = claim_next(session, "w4", NOW + timedelta(seconds=61), 60)
    assert again is not None and again.message_key in ("b1", "a2")
    db.dispose()


@pytest.mark.slow
def test_racing_senders_send_each_mail_once(db_url: str, smtpd: SmtpServer) -> None:
    db = Database(db_url)
    with db.transaction() as session:
        for n in range(60):
            queue_mail(session, QueuedMail(recipient=f"p{n % 7}@example.org", purpose="report",
                                           message_id=f"<race-{n}@games.test>", subject="s", body="b"))
    config = config_for()
    errors: list[BaseException] = []

    def send() -> None:
        try:
            deliver_due(db, SmtpSender(smtpd.settings()), NOW + timedelta(seconds=1), batch=5,
                        moderator=config.moderator)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=send) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    sent = Counter(str(r.message["Message-ID"]) for r in smtpd.received)
    assert len(sent) == 60 and set(sent.values()) == {1}
    with db.transaction() as session:
        from sqlmodel import select

        assert {row.status for row in session.exec(select(OutboxRow)).all()} == {"sent"}
    db.dispose()


def test_a_lease_has_one_holder_until_it_runs_out(db_url: str) -> None:
    db = Database(db_url)
    with db.transaction() as session:
        assert take_lease(session, "deadline-tick", "one", NOW, 60)
    with db.transaction() as session:
        assert not take_lease(session, "deadline-tick", "two", NOW + timedelta(seconds=59), 60)
        assert take_lease(session, "deadline-tick", "one", NOW + timedelta(seconds=59), 60)  # renewed
    with db.transaction() as session:
        assert not take_lease(session, "deadline-tick", "two", NOW + timedelta(seconds=118), 60)
        assert take_lease(session, "deadline-tick", "two", NOW + timedelta(seconds=120), 60)  # ran out
    with db.transaction() as session:  # a holder known to be dead (pbem.holders.gone) is replaced at once
        assert take_lease(session, "deadline-tick", "three", NOW + timedelta(seconds=121), 60,
                          gone=lambda holder: holder == "two")
    db.dispose()
