"""Bounces of our mail, as Postfix and Exim write them, through the real inbound path (``process_message``).

The rules: a bounce is never answered; it counts against a seat only when it
quotes our mail to that seat (our Message-ID, or the seat's token address);
hard bounces in a row make the seat unreachable at ``[limits]
bounces_to_unreachable``, which tells the game master once, holds the seat's
mail, and lets the stand-in play; a mail from the seat ends it.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from sqlmodel import col, select

from pbem.mail import build_message
from pbem.moderator.gamemaster import game_show, replace
from pbem.moderator.gamemaster.common import MailContext
from pbem.moderator.gamemaster.tuning import set_game
from pbem.moderator.inbound.handler import process_message
from pbem.moderator.tick import tick
from pbem.store import Database
from pbem.store.models import SeatRow
from pbem.store.outbox import OutboxRow, OutboxStatus
from tests import bouncesamples
from tests.mailflowkit import MODERATOR, NOW, PLAYERS, Table, config_for, mail_of

GAME_MASTER = "gm@example.org"
ANN = dict(PLAYERS)["ann"]
_uids = iter(range(1, 100_000))


@pytest.fixture
def table(tmp_path: Path) -> Table:
    t = Table(Database(f"sqlite:///{tmp_path / 'bounces.db'}"),
              config_for(moderator={"game_master": GAME_MASTER}, limits={"bounces_to_unreachable": 3}))
    t.create()
    return t


def process(table: Table, raw: bytes):  # type: ignore[no-untyped-def]
    return process_message(table.db, table.config, raw, "INBOX", 9, next(_uids), NOW, moderator=table.moderator)


def sent_to(table: Table, address: str) -> bytes:
    """The bytes of the latest mail of ours to ``address``, as the relay got them."""
    row = [r for r in table.outbox() if r.recipient == address][-1]
    return bytes(build_message(mail_of(table.db, row, table.config.moderator)))


def seat(table: Table, name: str) -> SeatRow:
    with table.db.transaction() as session:
        found = session.exec(select(SeatRow).where(col(SeatRow.name) == name)).one()
        session.expunge(found)
        return found


def bounce(table: Table, sample: Callable[..., bytes] = bouncesamples.postfix_failed, player: str = "ann"):  # type: ignore[no-untyped-def]
    address = dict(PLAYERS)[player]
    return process(table, sample(sent_to(table, address), address))


SAMPLES = {"postfix": bouncesamples.postfix_failed, "exim": bouncesamples.exim_failed,
           "exim without a report": bouncesamples.exim_classic}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_hard_bounce_counts_against_the_seat_whose_mail_came_back(table: Table, name: str) -> None:
    outcome = bounce(table, SAMPLES[name])
    assert (outcome.outcome, outcome.game, outcome.player) == ("bounce", "g1", "ann"), outcome.reason
    assert seat(table, "ann").bounces == 1 and not seat(table, "ann").unreachable
    assert seat(table, "bob").bounces == 0


def test_a_bounce_is_never_answered(table: Table) -> None:
    before = len(table.outbox())
    outcome = bounce(table)
    assert outcome.queued == () and len(table.outbox()) == before


def test_a_soft_bounce_is_recorded_and_counts_nothing(table: Table) -> None:
    outcome = bounce(table, bouncesamples.postfix_delayed)
    assert outcome.outcome == "bounce" and "soft bounce" in outcome.reason and "not counted" in outcome.reason
    assert seat(table, "ann").bounces == 0


def test_a_forged_bounce_that_quotes_no_mail_of_ours_changes_nothing(table: Table) -> None:
    """Naming a player's address is not enough: else anyone could cut a player off with three mails."""
    before = len(table.outbox())
    for _ in range(4):
        outcome = process(table, bouncesamples.forged(ANN))
        assert outcome.outcome == "automatic" and "quotes no mail of ours" in outcome.reason
    assert (seat(table, "ann").bounces, seat(table, "ann").unreachable) == (0, False)
    assert len(table.outbox()) == before


def test_a_bounce_too_broken_to_read_is_set_aside_without_failing(table: Table) -> None:
    raw = (b"From: MAILER-DAEMON@mx.example (Mail Delivery System)\r\nSubject: Undelivered Mail\r\n"
           b"Message-ID: <broken-1@mx.example>\r\n"
           b"Content-Type: multipart/report; report-type=delivery-status; boundary=x\r\n\r\n"
           b"--x\r\nContent-Type: message/delivery-status\r\n\r\nAction failed\r\n\x00\xff\r\n"
           b"--x\r\nContent-Type: message/rfc822\r\n\r\nnot a mail at all\r\n--x")
    outcome = process(table, raw)
    assert outcome.outcome == "automatic" and seat(table, "ann").bounces == 0


def test_the_bounce_of_one_seats_mail_never_counts_for_another_seat(table: Table) -> None:
    """Each seat's mail has its own Message-ID; the threading headers quoted with it name other mails."""
    bounce(table, player="bob")
    assert (seat(table, "ann").bounces, seat(table, "bob").bounces) == (0, 1)


def test_bounces_in_a_row_make_the_seat_unreachable_and_tell_the_game_master_once(table: Table) -> None:
    for _ in range(2):
        bounce(table)
    assert not seat(table, "ann").unreachable
    outcome = bounce(table)
    assert seat(table, "ann").unreachable and "unreachable" in outcome.reason
    bounce(table)  # a fourth: no second notice
    notices = [row for row in table.outbox() if row.recipient == GAME_MASTER and row.purpose == "unreachable"]
    assert len(notices) == 1
    assert "ann" in notices[0].subject and "ann@example.org" in notices[0].body
    assert "pbem replace g1 ann" in notices[0].body


def test_an_unreachable_seat_gets_no_more_mail(table: Table) -> None:
    player, order = table.an_order()
    silent = next(name for name, _ in PLAYERS[:2] if name != player)
    for _ in range(3):
        bounce(table, player=silent)
    before = {row.id for row in table.outbox()}
    process(table, table.mail_from(player, order))
    new = [row for row in table.outbox() if row.id not in before]
    assert any(row.recipient == dict(PLAYERS)[player] and row.status == OutboxStatus.QUEUED for row in new)
    held = [row for row in new if row.recipient == dict(PLAYERS)[silent]]
    assert held and all(row.status == OutboxStatus.HELD for row in held)


def test_a_mail_from_the_seat_makes_it_reachable_again(table: Table) -> None:
    for _ in range(3):
        bounce(table)
    outcome = process(table, table.mail_from("ann", "STATUS"))
    assert outcome.outcome == "query" and "bounces forgotten" in outcome.reason
    assert (seat(table, "ann").bounces, seat(table, "ann").unreachable) == (0, False)
    replies = [row for row in table.outbox() if row.recipient == ANN and row.purpose == "query"]
    assert replies[-1].status == OutboxStatus.QUEUED


def test_a_mail_from_the_seat_between_bounces_starts_the_count_again(table: Table) -> None:
    bounce(table)
    bounce(table)
    process(table, table.mail_from("ann", "STATUS"))
    bounce(table)
    bounce(table)
    assert (seat(table, "ann").bounces, seat(table, "ann").unreachable) == (2, False)


def test_a_new_player_in_the_seat_is_reachable(table: Table) -> None:
    for _ in range(3):
        bounce(table)
    replace(table.db, "g1", "ann", "ann", "ann@new.example",
            mail=MailContext.make(moderator_address=MODERATOR, game_master=GAME_MASTER), now=NOW)
    assert (seat(table, "ann").bounces, seat(table, "ann").unreachable) == (0, False)


def test_the_stand_in_plays_at_once_for_an_unreachable_seat(table: Table) -> None:
    set_game(table.db, "g1", ["absent=bot"])
    decider = table.decider()
    for _ in range(3):
        bounce(table, player=decider)
    length = table.log_length()
    report = tick(table.db, NOW, moderator_address=MODERATOR, game_master=GAME_MASTER, everything=True)
    assert [item.player for item in report.defaults] == [decider]
    assert table.log_length() > length
    with table.db.transaction() as session:
        told = session.exec(select(OutboxRow.recipient).where(col(OutboxRow.body).contains("cannot be delivered"))
                            ).all()
    assert set(told) >= {email for name, email in PLAYERS[:2] if name != decider}


def test_without_the_stand_in_an_unreachable_seat_waits_for_its_deadline(table: Table) -> None:
    decider = table.decider()
    for _ in range(3):
        bounce(table, player=decider)
    length = table.log_length()
    report = tick(table.db, NOW, moderator_address=MODERATOR, game_master=GAME_MASTER, everything=True)
    assert report.defaults == [] and table.log_length() == length


def test_zero_bounces_to_unreachable_keeps_every_seat_reachable(tmp_path: Path) -> None:
    table = Table(Database(f"sqlite:///{tmp_path / 'never.db'}"), config_for(limits={"bounces_to_unreachable": 0}))
    table.create()
    for _ in range(5):
        bounce(table)
    assert (seat(table, "ann").bounces, seat(table, "ann").unreachable) == (5, False)


def test_game_show_names_the_unreachable_seat_and_its_held_mail(table: Table) -> None:
    player, order = table.an_order()
    silent = next(name for name, _ in PLAYERS[:2] if name != player)
    for _ in range(3):
        bounce(table, player=silent)
    process(table, table.mail_from(player, order))
    view = game_show(table.db, "g1")
    assert [(s.name, s.unreachable) for s in view.seats if s.unreachable] == [(silent, True)]
    assert view.outbox.get(OutboxStatus.HELD, 0) >= 1
