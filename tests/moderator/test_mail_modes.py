"""Mail modes (MAIL EVERY|TURN|ROUND|DAILY, BOARD ON|OFF) through the mail flow, on Eight-Minute Empire.

The promise: whatever a seat's mode, its mails read in order tell every event it may see, once and in
order; one inbound mail gets at most one mail back; a wrong preference line changes nothing.
"""
from __future__ import annotations

import random
import re
from collections.abc import Iterator
from datetime import timedelta

import pytest

from engine.eight_minute_empire.randomplay import random_move
from pbem import store
from pbem.games import kind_of
from pbem.moderator.tick import tick
from pbem.store import Database
from pbem.store.outbox import OutboxRow
from tests.emetable import EmeTable, cy_keeps_daily_news
from tests.mailflowkit import NOW, PLAYERS, config_for

EMAIL = dict(PLAYERS)
KIND = kind_of("eight-minute-empire")
SECTIONS = ("SINCE YOUR LAST MAIL", "WHAT HAPPENED")


@pytest.fixture
def table(db_url: str) -> Iterator[EmeTable]:
    t = EmeTable(Database(db_url), config_for())
    t.create()
    yield t
    t.db.dispose()


def told(body: str) -> list[str]:
    """The sentences of a mail's news and WHAT HAPPENED sections, and a game-end mail's bullets, in order."""
    found: list[str] = []
    inside = listed = False
    for line in body.split("\n"):
        if line in SECTIONS or line.endswith(" - the game is over"):
            inside, listed = True, False
        elif inside and line.startswith("  - "):
            found.append(line[4:])
            listed = True
        elif inside and line.startswith("    ") and listed:
            found[-1] += " " + line.strip()
        elif inside and not line.strip() and listed:
            inside = False
    return found


def expected_narration(table: EmeTable, viewer: str, since: int) -> list[str]:
    """What ``viewer`` may read of every move from log position ``since`` on, by replaying the log."""
    with table.db.transaction() as session:
        game = store.find_game(session, table.name)
        setup, log = store.game_setup(game), store.load_log(session, game)
    rules = KIND.rules
    state, _ = rules.new_game(setup)
    sentences: list[str] = []
    for entry in log:
        state, events = rules.apply(state, entry.player, entry.action)
        if entry.version >= since and KIND.tells(state, events, viewer):
            sentences += KIND.narrate(state, events, viewer)
    return sentences


def mails_to(table: EmeTable, player: str, since: int = 0) -> list[OutboxRow]:
    return [row for row in table.outbox()[since:] if row.recipient == EMAIL[player]]


def play_one(table: EmeTable, rng: random.Random) -> None:
    """One legal step of whoever must decide, sent by mail as its order text."""
    state = table.eme()
    player, action = random_move(KIND.board, state, rng)  # type: ignore[attr-defined]
    assert table.send(player, KIND.format_action(state, action)) in ("applied", "refused")


@pytest.mark.slow
def test_mail_turn_by_mail_is_confirmed_to_the_player_alone(table: EmeTable) -> None:
    before = len(table.outbox())
    assert table.send("cy", "MAIL TURN\nBOARD OFF") == "query"
    (reply,) = table.outbox()[before:]
    assert reply.recipient == EMAIL["cy"] and "Your mail is now TURN" in reply.body and "leave the board out" in \
        " ".join(reply.body.split())


def test_a_wrong_preference_line_refuses_the_whole_message(table: EmeTable) -> None:
    assert table.send("ann", "BID 3\nMAIL WEEKLY") == "refused"
    (reply,) = mails_to(table, "ann", -1)
    assert "line 2: MAIL WEEKLY: write MAIL and one of EVERY, TURN, ROUND, DAILY." in " ".join(reply.body.split())
    assert table.eme().bids == {}  # the bid on line 1 was not taken either


def test_one_inbound_mail_gets_one_mail_back_with_the_answers_and_the_report(table: EmeTable) -> None:
    for player, coins in (("ann", 1), ("bob", 0), ("cy", 0)):
        table.send(player, f"BID {coins}")
    before = len(table.outbox())
    assert table.send("ann", "TAKE 1\nDONE\nSTATUS\nHELP TAKE") == "applied"
    (reply,) = mails_to(table, "ann", before)
    assert "HELP TAKE" in reply.body and "You took #" in reply.body and reply.headers["in_reply_to"]


@pytest.mark.slow
def test_a_turn_seat_hears_nothing_until_it_decides_then_everything_since(table: EmeTable) -> None:
    table.send("cy", "MAIL TURN")
    for player, coins in (("ann", 2), ("bob", 1), ("cy", 0)):  # cy bids last: the reveal asks ann first
        table.send(player, f"BID {coins}")
    since_bid = len(table.outbox())
    table.send("ann", "TAKE 1\nDONE")
    assert mails_to(table, "cy", since_bid) == []  # bob decides now, not cy
    table.send("bob", "TAKE 1\nDONE")
    (mail,) = mails_to(table, "cy", since_bid)  # now cy must take a card: one mail, with the news
    assert mail.headers["decision"] == "take"
    assert told(mail.body) == expected_narration(table, "cy", 0)  # from cy's own bid on: all it was not told


def test_board_off_leaves_the_map_out_of_the_reports(table: EmeTable) -> None:
    table.send("bob", "BOARD OFF")
    before = len(table.outbox())
    table.send("ann", "BID 1")
    table.send("bob", "BID 1")
    table.send("cy", "BID 1")
    reports = mails_to(table, "bob", before)
    assert reports and all("THE MAP" not in row.body for row in reports)
    assert all("THE MAP" in row.body for row in mails_to(table, "cy", before))


def test_a_daily_seat_gets_a_digest_once_its_news_are_a_day_old(table: EmeTable) -> None:
    before = cy_keeps_daily_news(table)
    tick(table.db, NOW + timedelta(hours=23), moderator_address="pbem@games.test")
    assert mails_to(table, "cy", before) == []
    tick(table.db, NOW + timedelta(hours=25), moderator_address="pbem@games.test")
    (digest,) = [row for row in mails_to(table, "cy", before) if row.purpose == "digest"]
    assert any(sentence.startswith("ann took #") for sentence in told(digest.body))


@pytest.mark.parametrize("modes", [("every", "turn", "round"), ("daily", "every", "turn")])
@pytest.mark.slow
def test_whole_games_in_mixed_modes_tell_each_seat_everything_once_in_order(table: EmeTable,
                                                                           modes: tuple[str, ...]) -> None:
    """The mails a seat receives, read in order, hold exactly the narration it may see of the whole game."""
    for (player, _), mode in zip(PLAYERS, modes, strict=True):
        table.send(player, f"MAIL {mode.upper()}")
    start = len(table.outbox())
    rng = random.Random(7)
    while not table.eme().finished:
        play_one(table, rng)
    for player, _ in PLAYERS:
        heard = [s for row in mails_to(table, player, start) for s in told(row.body)]
        assert heard == expected_narration(table, player, 0), player
        assert re.search(r"the game is over", mails_to(table, player)[-1].body)
