"""Game masters by mail (issue 31): a master's token from the master's address runs the CLI's commands.

Real inbound pipeline (``process_message``) on a real database; what the
moderator queued is the answer read.
"""
from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from pbem.mail import token_of_address
from pbem.moderator.gamemaster import MailContext, is_paused
from pbem.moderator.inbound.handler import process_message
from pbem.moderator.mastermail.roster import host_add
from pbem.store import Database
from tests.mailflowkit import MODERATOR, NOW, Table, config_for, raw_mail

MASTER = "gm@example.org"
_uids = iter(range(1, 100_000))


@pytest.fixture
def table(tmp_path: Path) -> Table:
    t = Table(Database(f"sqlite:///{tmp_path / 'masters.db'}"), config_for())
    t.create()
    host_add(t.db, t.name, MASTER, MailContext.make(moderator_address=MODERATOR), NOW)
    return t


def process(table: Table, raw: bytes):  # type: ignore[no-untyped-def]
    return process_message(table.db, table.config, raw, "INBOX", 77, next(_uids), NOW + timedelta(minutes=1),
                           moderator=table.moderator)


def master_token(table: Table) -> str:
    for row in table.outbox():
        if row.recipient == MASTER and row.headers.get("reply_to"):
            token = token_of_address(row.headers["reply_to"], MODERATOR)
            assert token
            return token
    raise AssertionError("no mail with a token to the master")


def from_master(table: Table, body: str, sender: str = MASTER) -> bytes:
    return raw_mail(sender, f"pbem+{master_token(table)}@games.test", body)


def replies_to_master(table: Table) -> list[str]:
    return [row.body for row in table.outbox() if row.recipient == MASTER and row.purpose == "master"]


def test_a_named_master_gets_a_welcome_with_its_own_token_address(table: Table) -> None:
    welcome = replies_to_master(table)
    assert len(welcome) == 1 and "PAUSE" in welcome[0] and master_token(table) in welcome[0]
    assert master_token(table) not in (table.token("ann"), table.token("bob"))


def test_a_masters_pause_pauses_the_game_tells_the_players_and_answers_the_master(table: Table) -> None:
    outcome = process(table, from_master(table, "PAUSE"))
    assert outcome.outcome == "master" and is_paused(table.db, table.name)
    assert {row.recipient for row in table.outbox() if row.purpose == "pause"} == {"ann@example.org",
                                                                                  "bob@example.org"}
    assert "Line 1: PAUSE" in replies_to_master(table)[-1]


def test_every_line_is_answered_and_a_refused_line_says_why_and_what_is_legal(table: Table) -> None:
    process(table, from_master(table, "RESUME\nPAUSE\nDANCE"))
    reply = replies_to_master(table)[-1]
    assert "Line 1: RESUME" in reply and "is not paused" in reply and "RESUME" in reply
    assert "Line 2: PAUSE" in reply and is_paused(table.db, table.name)
    assert "Line 3: DANCE" in reply and "no master command" in reply and "MASTER COMMANDS BY MAIL" in reply


def test_a_masters_force_plays_for_the_player_like_the_cli(table: Table) -> None:
    player, order = table.an_order()
    before = table.log_length()
    process(table, from_master(table, f"FORCE {player} {order}"))
    assert table.log_length() > before
    assert "Done" in replies_to_master(table)[-1]


def test_a_masters_replace_gives_the_seat_to_a_new_address(table: Table) -> None:
    process(table, from_master(table, "REPLACE bob carol@example.org"))
    assert any(row.recipient == "carol@example.org" for row in table.outbox())
    assert "carol@example.org" in replies_to_master(table)[-1]


def test_help_master_answers_the_master(table: Table) -> None:
    process(table, from_master(table, "HELP MASTER"))
    assert "MASTER COMMANDS BY MAIL" in replies_to_master(table)[-1]


# --- security ------------------------------------------------------------------------------------


def test_a_players_token_cannot_do_a_masters_command(table: Table) -> None:
    outcome = process(table, table.mail_from("ann", "PAUSE"))
    assert outcome.outcome != "master" and not is_paused(table.db, table.name)


def test_a_forged_master_address_without_the_token_does_nothing(table: Table) -> None:
    outcome = process(table, raw_mail(MASTER, MODERATOR, "PAUSE"))
    assert outcome.outcome == "no_token" and not is_paused(table.db, table.name)
    assert len(replies_to_master(table)) == 1  # the welcome only


def test_the_masters_token_from_another_address_does_nothing_and_is_not_answered(table: Table) -> None:
    outcome = process(table, from_master(table, "PAUSE", sender="mallory@example.net"))
    assert outcome.outcome == "master_ignored" and not is_paused(table.db, table.name)
    assert not [row for row in table.outbox() if row.recipient == "mallory@example.net"]


def test_a_master_may_not_promote_someone_who_does_not_observe(table: Table) -> None:
    process(table, from_master(table, "PROMOTE eve@example.net"))
    assert "no observer" in replies_to_master(table)[-1]
    assert not [row for row in table.outbox() if row.recipient == "eve@example.net"]


def test_the_last_master_cannot_be_ejected_by_mail(table: Table) -> None:
    process(table, from_master(table, f"EJECT {MASTER}"))
    assert "last master" in replies_to_master(table)[-1]


def test_a_masters_extend_gives_the_pending_decisions_more_time_and_tells_the_players(table: Table) -> None:
    process(table, from_master(table, "EXTEND 24"))
    assert "Done" in replies_to_master(table)[-1]
    assert {row.recipient for row in table.outbox() if row.purpose == "extend"} == {"ann@example.org",
                                                                                   "bob@example.org"}


def test_replies_to_a_master_are_capped_so_an_autoresponder_cannot_loop(tmp_path: Path) -> None:
    t = Table(Database(f"sqlite:///{tmp_path / 'loop.db'}"), config_for(limits={"replies_per_sender_per_hour": 2}))
    t.create()
    host_add(t.db, t.name, MASTER, MailContext.make(moderator_address=MODERATOR), NOW)
    for _ in range(4):
        process(t, from_master(t, "thanks for your mail"))
    assert len(replies_to_master(t)) == 1 + 2  # the welcome, then two answers


def test_end_game_ends_the_game_and_tells_the_players_but_end_alone_only_ends_the_mail(table: Table) -> None:
    process(table, from_master(table, "END\nEND GAME"))
    assert "Line" not in replies_to_master(table)[-1]  # no line read: the answer is the help
    assert not [row for row in table.outbox() if row.purpose == "end"]
    process(table, from_master(table, "END GAME"))
    assert "Done" in replies_to_master(table)[-1]
    assert {row.recipient for row in table.outbox() if row.purpose == "end"} == {"ann@example.org",
                                                                                "bob@example.org"}
    assert process(table, table.mail_from("ann", "STATUS")).outcome == "finished"


def test_greetings_the_quoted_mail_and_the_signature_are_not_read_as_commands(table: Table) -> None:
    process(table, from_master(table, "Hi all,\nPAUSE\nThanks, Gina\n\nOn Mon, 3 Jun 2030, pbem wrote:\n> RESUME\n"
                                      "-- \nGina\nRESUME"))
    reply = replies_to_master(table)[-1]
    assert "Line 1: PAUSE" in reply and "Line 2" not in reply and is_paused(table.db, table.name)
