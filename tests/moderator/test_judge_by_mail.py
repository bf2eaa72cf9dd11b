"""Games by mail (issue 31): LIST, SUMMARY, CREATE, JOIN and OBSERVE written to the moderator's own address,
each change done only when the asking address answers its one-time confirmation.

Every test runs the real inbound pipeline (``process_message`` on a real database) and reads what the
moderator queued in answer.
"""
from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import select

from pbem.mail import token_of_address
from pbem.moderator.inbound.handler import process_message
from pbem.store import Database, find_game, seats
from pbem.store.judge import ConfirmationRow, joins_of, open_game_named, vacant_seats
from pbem.store.observers import observers_of
from pbem.store.outbox import OutboxRow
from tests.mailflowkit import MODERATOR, NOW, PLAYERS, Table, config_for, raw_mail

_uids = iter(range(1, 100_000))
HOST = "host@example.org"  # allowed to create games by mail


@pytest.fixture
def table(tmp_path: Path) -> Table:
    t = Table(Database(f"sqlite:///{tmp_path / 'judge.db'}"), config_for(judge={"creators": [HOST]}))
    t.create()  # g1, a running game of ann and bob
    return t


def send(table: Table, sender: str, body: str, to: str = MODERATOR, subject: str = "games") -> str:
    return process_message(table.db, table.config, raw_mail(sender, to, body, subject=subject), "INBOX", 77,
                           next(_uids), NOW, moderator=table.moderator).outcome


def mails_to(table: Table, address: str) -> list[OutboxRow]:
    return [row for row in table.outbox() if row.recipient == address]


def last_to(table: Table, address: str) -> OutboxRow:
    return mails_to(table, address)[-1]


def confirm(table: Table, address: str, body: str = "yes") -> str:
    """Reply to the newest confirmation mail to ``address``, as a mail client does: to its Reply-To."""
    asked = [row for row in mails_to(table, address) if row.purpose == "confirm"][-1]
    return send(table, address, body, to=asked.headers["reply_to"], subject=f"Re: {asked.subject}")


def create_open_game(table: Table, players: int = 3) -> None:
    assert send(table, HOST, f"CREATE friday eight-minute-empire {players}") == "command"
    assert confirm(table, HOST) == "command"


def test_list_names_open_and_running_games_and_no_address(table: Table) -> None:
    create_open_game(table)
    assert send(table, "zoe@elsewhere.example", "LIST") == "command"
    body = last_to(table, "zoe@elsewhere.example").body
    assert "friday: Eight-Minute Empire, 3 seats of 3 free" in body
    assert "g1: Imperial 2030" in body
    assert "@" not in body.replace(MODERATOR, "")


def test_summary_of_a_running_game_names_its_players_and_whose_turn(table: Table) -> None:
    send(table, "zoe@elsewhere.example", "SUMMARY g1")
    body = last_to(table, "zoe@elsewhere.example").body
    assert "Game g1: Imperial 2030." in body
    assert "ann" in body and "bob" in body
    assert "ann@" not in body and "bob@" not in body


def test_summary_of_an_unknown_game_says_so(table: Table) -> None:
    send(table, "zoe@elsewhere.example", "SUMMARY nothing")
    assert "There is no game named nothing" in last_to(table, "zoe@elsewhere.example").body


def test_create_by_an_address_the_host_did_not_name_is_refused(table: Table) -> None:
    send(table, "zoe@elsewhere.example", "CREATE mine imperial2030 4")
    assert "Only the players the host names" in last_to(table, "zoe@elsewhere.example").body
    with table.db.transaction() as session:
        assert open_game_named(session, "mine") is None
        assert session.exec(select(ConfirmationRow)).first() is None


def test_create_waits_for_its_confirmation_then_tells_its_creator(table: Table) -> None:
    send(table, HOST, "CREATE friday eight-minute-empire 3")
    with table.db.transaction() as session:
        assert open_game_named(session, "friday") is None
    asked = last_to(table, HOST)
    assert asked.purpose == "confirm" and "CREATE friday" in asked.subject
    confirm(table, HOST)
    assert "Game friday (Eight-Minute Empire) is created and waits for 3 players" in last_to(table, HOST).body
    with table.db.transaction() as session:
        assert open_game_named(session, "friday") is not None


def test_a_game_filled_by_join_with_confirmations_starts(table: Table) -> None:
    create_open_game(table)
    players = ["kim@a.example", "lea@b.example", "max@c.example"]
    for n, address in enumerate(players):
        assert send(table, address, f"JOIN friday p{n}") == "command"
        assert confirm(table, address) == "command"
        assert f"You have a seat in game friday as p{n}." in [r for r in mails_to(table, address)
                                                              if r.purpose == "judge_joined"][-1].body
    with table.db.transaction() as session:
        assert open_game_named(session, "friday") is None
        game = find_game(session, "friday")
        assert [(s.name, s.email) for s in seats(session, game)] == [(f"p{n}", a) for n, a in enumerate(players)]
    for address in players:
        welcome = [r for r in mails_to(table, address) if r.purpose == "welcome"]
        assert len(welcome) == 1 and token_of_address(welcome[0].headers["reply_to"], MODERATOR)


def test_a_join_is_not_done_without_its_confirmation(table: Table) -> None:
    create_open_game(table)
    send(table, "kim@a.example", "JOIN friday")
    send(table, "zoe@elsewhere.example", "SUMMARY friday")
    assert "3 seats of 3 are free" in last_to(table, "zoe@elsewhere.example").body


def test_a_confirmation_cannot_be_answered_from_another_address(table: Table) -> None:
    create_open_game(table)
    send(table, "kim@a.example", "JOIN friday")
    asked = last_to(table, "kim@a.example")
    assert send(table, "eve@evil.example", "yes", to=asked.headers["reply_to"]) == "unknown_token"
    send(table, "zoe@elsewhere.example", "SUMMARY friday")
    assert "3 seats of 3 are free" in last_to(table, "zoe@elsewhere.example").body
    assert confirm(table, "kim@a.example") == "command"  # and the token still works for its own address


def test_a_confirmation_is_used_once(table: Table) -> None:
    create_open_game(table)
    send(table, "kim@a.example", "JOIN friday")
    confirm(table, "kim@a.example")
    confirm(table, "kim@a.example")
    assert "That confirmation is no longer valid" in last_to(table, "kim@a.example").body
    send(table, "zoe@elsewhere.example", "SUMMARY friday")
    assert "Joined so far: player1." in last_to(table, "zoe@elsewhere.example").body


def test_a_confirmation_expires_after_two_days(table: Table) -> None:
    create_open_game(table)
    send(table, "kim@a.example", "JOIN friday")
    asked = last_to(table, "kim@a.example")
    late = NOW + timedelta(hours=49)
    process_message(table.db, table.config, raw_mail("kim@a.example", asked.headers["reply_to"], "yes"), "INBOX", 77,
                    next(_uids), late, moderator=table.moderator)
    assert "That confirmation is no longer valid" in last_to(table, "kim@a.example").body
    with table.db.transaction() as session:
        friday = open_game_named(session, "friday")
        assert friday is not None and joins_of(session, friday) == []


def test_a_guessed_confirmation_token_does_nothing(table: Table) -> None:
    create_open_game(table)
    send(table, "kim@a.example", "JOIN friday")
    assert send(table, "kim@a.example", "yes", to="pbem+" + "0" * 32 + "@games.test") == "unknown_token"


def test_the_confirmation_token_is_long_and_stored_hashed(table: Table) -> None:
    create_open_game(table)
    send(table, "kim@a.example", "JOIN friday")
    token = token_of_address(last_to(table, "kim@a.example").headers["reply_to"], MODERATOR)
    assert token is not None and len(token) >= 32
    with table.db.transaction() as session:
        assert all(token not in row.token_hash for row in session.exec(select(ConfirmationRow)))


def test_observe_after_confirmation_sends_the_observer_welcome(table: Table) -> None:
    send(table, "zoe@elsewhere.example", "OBSERVE g1")
    confirm(table, "zoe@elsewhere.example")
    assert last_to(table, "zoe@elsewhere.example").purpose == "observer"
    with table.db.transaction() as session:
        assert [o.email for o in observers_of(session, find_game(session, "g1"))] == ["zoe@elsewhere.example"]


def test_a_stranger_gets_no_more_replies_than_the_strangers_budget(table: Table) -> None:
    for _ in range(10):
        send(table, "zoe@elsewhere.example", "LIST")
    assert len(mails_to(table, "zoe@elsewhere.example")) == 3  # three a day to one address



def test_resign_after_confirmation_offers_the_seat_and_tells_the_game_master(tmp_path: Path) -> None:
    table = Table(Database(f"sqlite:///{tmp_path / 'gm.db'}"),
                  config_for(moderator={"game_master": "gm@example.org"}))
    table.create()
    assert send(table, "bob@example.org", "RESIGN g1") == "command"
    with table.db.transaction() as session:
        assert vacant_seats(session, find_game(session, "g1")) == []
    confirm(table, "bob@example.org")
    assert "You gave up your seat in game g1 (bob)" in last_to(table, "bob@example.org").body
    told = last_to(table, "gm@example.org")
    assert told.subject == "[g1] bob gives up their seat" and "TAKEOVER g1 bob" in told.body
    send(table, "zoe@elsewhere.example", "SUMMARY g1")
    assert "take over by writing TAKEOVER g1 <seat>" in last_to(table, "zoe@elsewhere.example").body


def test_resign_from_an_address_without_a_seat_is_refused(table: Table) -> None:
    send(table, "zoe@elsewhere.example", "RESIGN g1")
    assert "You hold no seat in game g1." in last_to(table, "zoe@elsewhere.example").body


def test_takeover_of_a_seat_given_up_makes_the_sender_its_player(table: Table) -> None:
    old = table.reply_to("bob")
    send(table, "bob@example.org", "RESIGN g1")
    confirm(table, "bob@example.org")
    assert send(table, "zoe@elsewhere.example", "TAKEOVER g1 bob") == "command"
    confirm(table, "zoe@elsewhere.example")
    with table.db.transaction() as session:
        game = find_game(session, "g1")
        assert [(s.name, s.email) for s in seats(session, game)][1] == ("bob", "zoe@elsewhere.example")
        assert vacant_seats(session, game) == []
    purposes = [row.purpose for row in mails_to(table, "zoe@elsewhere.example")]
    assert "judge_took_over" in purposes and "replace" in purposes  # the answer, and the seat's welcome
    assert send(table, "bob@example.org", "STATUS", to=old) == "unknown_token"  # bob's token is gone


def test_takeover_of_a_seat_nobody_gave_up_is_refused(table: Table) -> None:
    send(table, "zoe@elsewhere.example", "TAKEOVER g1 ann")
    assert "Game g1 has no seat ann that its player gave up" in last_to(table, "zoe@elsewhere.example").body


def confirmation_to(table: Table, address: str) -> OutboxRow:
    return [row for row in mails_to(table, address) if row.purpose == "confirm"][-1]


def test_set_address_moves_the_seats_once_both_addresses_confirm(table: Table) -> None:
    token = table.token("bob")
    assert send(table, "bob@example.org", "SET ADDRESS bob@new.example") == "command"
    to_new = confirmation_to(table, "bob@new.example")
    assert "bob@example.org" not in to_new.body  # the new address is not told the old one
    confirm(table, "bob@example.org")
    assert "once it answers its own confirmation mail too" in last_to(table, "bob@example.org").body
    with table.db.transaction() as session:
        assert seats(session, find_game(session, "g1"))[1].email == "bob@example.org"  # not yet
    send(table, "bob@new.example", "ok", to=to_new.headers["reply_to"])
    assert "Both addresses confirmed" in last_to(table, "bob@new.example").body
    with table.db.transaction() as session:
        assert seats(session, find_game(session, "g1"))[1].email == "bob@new.example"
    assert send(table, "bob@new.example", "STATUS", to=f"pbem+{token}@games.test") == "query"  # same token
    assert send(table, "bob@example.org", "STATUS", to=f"pbem+{token}@games.test") == "spoofed"


def test_set_address_without_the_new_addresses_confirmation_moves_nothing(table: Table) -> None:
    send(table, "bob@example.org", "SET ADDRESS bob@new.example")
    confirm(table, "bob@example.org")
    confirm(table, "bob@example.org")  # a second answer from the old address does not count twice
    with table.db.transaction() as session:
        assert seats(session, find_game(session, "g1"))[1].email == "bob@example.org"


def test_set_address_from_an_address_without_seats_is_refused(table: Table) -> None:
    send(table, "zoe@elsewhere.example", "SET ADDRESS zoe@new.example")
    assert "holds no seat in any game" in last_to(table, "zoe@elsewhere.example").body
    assert mails_to(table, "zoe@new.example") == []


def test_start_by_the_creator_starts_the_game_with_the_players_who_joined(table: Table) -> None:
    create_open_game(table, players=4)
    for address in ("kim@a.example", "lea@b.example"):
        send(table, address, "JOIN friday")
        confirm(table, address)
    send(table, "kim@a.example", "START friday")
    assert "Only the player who created game friday may start it" in last_to(table, "kim@a.example").body
    send(table, HOST, "START friday")
    confirm(table, HOST)
    assert "Game friday starts now" in last_to(table, HOST).body
    with table.db.transaction() as session:
        assert [s.email for s in seats(session, find_game(session, "friday"))] == ["kim@a.example", "lea@b.example"]


def test_start_with_too_few_players_is_refused(table: Table) -> None:
    create_open_game(table)
    send(table, HOST, "START friday")
    assert "it needs at least 2 players" in last_to(table, HOST).body


def test_summary_shows_each_players_on_time_record(table: Table) -> None:
    for _ in range(2):
        player, order = table.an_order()
        send(table, dict(PLAYERS)[player], order, to=table.reply_to(player))
    send(table, "zoe@elsewhere.example", "SUMMARY g1")
    assert "ann (on time: 2 of 2)" in last_to(table, "zoe@elsewhere.example").body


def test_a_game_with_an_on_time_requirement_refuses_a_player_without_a_record(table: Table) -> None:
    send(table, HOST, "CREATE friday eight-minute-empire 3 ontime=80")
    confirm(table, HOST)
    assert "an on-time record of at least 80%" in last_to(table, HOST).body
    send(table, "kim@a.example", "JOIN friday")
    assert "you have no record yet" in last_to(table, "kim@a.example").body
    player, order = table.an_order()
    send(table, dict(PLAYERS)[player], order, to=table.reply_to(player))
    send(table, dict(PLAYERS)[player], "JOIN friday")
    assert last_to(table, dict(PLAYERS)[player]).purpose == "confirm"  # a record of 100%: may join


def test_the_last_join_to_a_game_whose_name_the_game_master_took_meanwhile_is_refused(table: Table) -> None:
    table.name = "friday"
    create_open_game(table, players=2)
    send(table, "kim@a.example", "JOIN friday")
    confirm(table, "kim@a.example")
    table.create()  # pbem game new friday, by hand
    send(table, "lea@b.example", "JOIN friday")
    assert confirm(table, "lea@b.example") == "command"
    assert "The name friday is taken" in last_to(table, "lea@b.example").body
    with table.db.transaction() as session:
        friday = open_game_named(session, "friday")
        assert friday is not None and [j.email for j in joins_of(session, friday)] == ["kim@a.example"]
