"""A mail that asks a decision opens with the question (issue 29): the options within its first 15 lines.

Before, the question came last: an Imperial 2030 prompt mail began with the
report (the nations, the bonds, the rondel and the world board) and "your
decision" started at line 191. Now the order of a seat's mail is the
question, the answer to its own mail (a refusal, answers to its questions),
what happened since its last mail, the report, the board last
(``pbem.moderator.notify.turnmail``). One test per mail kind that asks, in
both games: the prompt after another's move, the reply to one's own orders
that asks again, a refusal (with orders that stood, and without), the reply
to stale orders and the deadline reminder.
"""
from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from pbem import store
from pbem.games import kind_of
from pbem.moderator.deadlines import deadlines, decision_since
from pbem.moderator.gamemaster.newgame import create_game_with_mail
from pbem.moderator.inbound.handler import process_message
from pbem.moderator.notify.subjects import decision_deadline, decisions_of
from pbem.moderator.tick import tick
from pbem.store import Database
from pbem.store.outbox import OutboxRow
from pbem.store.settings import load_settings
from tests.emetable import EmeTable
from tests.imperialpositions import SUEZ_DEAL, SUEZ_OPENING
from tests.mailflowkit import MODERATOR, NOW, PLAYERS, config_for

IMPERIAL, EME = "imperial2030", "eight-minute-empire"
FIRST_LINES = 15
OPTIONS = "Your options:"
LEGAL = "Legal now:"  # a refusal's list of the options, in a reply that asks nothing more
UNREADABLE = "FROBNICATE 7"  # no order of either game



def prompt_now(table: EmeTable, kind: str, player: str, since: datetime) -> str | None:
    """The prompt ``player`` is sent for the current position, its deadline counted from ``since``."""
    game_kind, state = kind_of(kind), table.state()
    decisions = decisions_of(game_kind, state, player)
    if not decisions:
        return None
    with table.db.transaction() as session:
        settings = load_settings(session, store.find_game(session, table.name))
    return game_kind.prompt(state, player, game=table.name,
                            deadline=decision_deadline(settings, decisions[0], since))


def asks_first(body: str, heading: str = OPTIONS) -> bool:
    """Whether the options' heading is among the first 15 lines of a mail."""
    return heading in body.split("\n")[:FIRST_LINES]


def decider(table: EmeTable, kind: str) -> str:
    game_kind = kind_of(kind)
    return next(d.player for d in game_kind.rules.pending(table.state()) if not d.answered)


def first_order(table: EmeTable, kind: str, player: str) -> str:
    """A legal order of ``player``, not the investor's (shorter games)."""
    orders = kind_of(kind).legal_orders(table.state(), player)
    return next(o for o in orders if "investor" not in o.lower())


def first_step(order: str) -> str:
    """The first order of a whole reply: 'TAKE 3' of 'TAKE 3; MOVE 12-13', which asks again (use the card)."""
    return order.split(";")[0].strip()


def play(table: EmeTable, kind: str, moves: int) -> Iterator[list[OutboxRow]]:
    """Mail a legal order of the next decider ``moves`` times; after each, the mails that move wrote."""
    for _ in range(moves):
        player = decider(table, kind)
        seen = len(table.outbox())
        table.send(player, first_order(table, kind, player))
        yield table.outbox()[seen:]


def to_a_player_who_asks_again(table: EmeTable, kind: str) -> str:
    """Play on until the decider's first order alone leaves them a decision (Imperial: a rondel space with a
    factory to build; Eight-Minute Empire: a card taken, its action to use); that decider."""
    for _ in range(12):
        player = decider(table, kind)
        order = first_order(table, kind, player)
        if kind == IMPERIAL and order.startswith("RONDEL factory") or kind == EME and order.startswith("TAKE"):
            return player
        table.send(player, order)
    raise AssertionError("no decision that asks again")


def mails_to(table: EmeTable, player: str, since: int) -> list[OutboxRow]:
    address = table_players(table)[player]
    return [row for row in table.outbox()[since:] if row.recipient == address]


def test_issue29_a_prompt_mail_opens_with_the_question_and_its_options(game: tuple[str, EmeTable]) -> None:
    kind, table = game
    asked = 0
    for rows in play(table, kind, 8):
        for row in rows:
            if row.headers.get("decision") is None:
                continue
            player = next(name for name, email in table_players(table).items() if email == row.recipient)
            prompt = prompt_now(table, kind, player, NOW)
            assert prompt is not None and row.body.startswith(prompt), (player, row.body[:400])
            assert asks_first(row.body), row.body[:1200]
            asked += 1
    assert asked >= 4


def test_issue29_the_reply_to_ones_own_orders_that_asks_again_opens_with_the_question(
        game: tuple[str, EmeTable]) -> None:
    kind, table = game
    player = to_a_player_who_asks_again(table, kind)
    seen = len(table.outbox())
    table.send(player, first_step(first_order(table, kind, player)))
    (reply,) = mails_to(table, player, seen)
    assert reply.headers.get("decision") and asks_first(reply.body), reply.body[:1200]


def test_issue29_a_refusal_after_orders_that_stood_asks_again_with_the_options_once(
        game: tuple[str, EmeTable]) -> None:
    """The refusal follows the question, and does not list what is legal again: the options above are that."""
    kind, table = game
    player = to_a_player_who_asks_again(table, kind)
    seen = len(table.outbox())
    table.send(player, f"{first_step(first_order(table, kind, player))}\n{UNREADABLE}")
    (reply,) = mails_to(table, player, seen)
    body = reply.body
    assert reply.headers.get("decision") and asks_first(body), body[:1200]
    assert body.count(OPTIONS) == 1 and LEGAL not in body
    assert body.index(OPTIONS) < body.index(UNREADABLE) < body.index("report for")


def test_issue29_a_refusal_that_changed_nothing_lists_what_is_legal_in_its_first_lines(
        game: tuple[str, EmeTable]) -> None:
    kind, table = game
    player = to_a_player_who_asks_again(table, kind)
    seen = len(table.outbox())
    table.send(player, UNREADABLE)
    (reply,) = mails_to(table, player, seen)
    assert reply.purpose == "error" and reply.headers.get("decision")
    assert asks_first(reply.body, LEGAL) and OPTIONS not in reply.body, reply.body[:1200]


def test_issue29_the_reply_to_stale_orders_opens_with_what_is_asked_now(game: tuple[str, EmeTable]) -> None:
    """Orders answering a prompt the player has answered already (tests/moderator/test_stale_replies.py): not
    applied; the mail asks the open decision first, then says why nothing was applied."""
    kind, table = game
    player = to_a_player_who_asks_again(table, kind)
    old = [row for row in mails_to(table, player, 0) if row.headers.get("decision")][-1]
    order = first_order(table, kind, player)
    table.send(player, first_step(order))  # the player answered it: now they are asked another decision
    seen = len(table.outbox())
    again = table.mail_from(player, first_step(order), subject=f"Re: {old.subject}",
                            headers=f"In-Reply-To: {old.message_id}\nReferences: {old.message_id}")
    table.uid += 1
    assert process_message(table.db, table.config, again, "INBOX", 1, table.uid, NOW,
                           moderator=table.moderator).outcome == "stale"
    (stale,) = mails_to(table, player, seen)
    assert stale.purpose == "stale" and stale.headers.get("decision") and asks_first(stale.body), stale.body[:1200]
    assert stale.body.index(OPTIONS) < stale.body.index("YOUR ORDERS WERE NOT APPLIED")


def test_issue29_a_deadline_reminder_opens_with_the_question(game: tuple[str, EmeTable]) -> None:
    kind, table = game
    for _ in play(table, kind, 4):
        pass
    with table.db.transaction() as session:
        found = store.find_game(session, table.name)
        settings, since = load_settings(session, found), decision_since(session, found)
    due = min(moment for d in deadlines(table.state(), settings, since, kind_of(kind)) for moment in d.reminders)
    seen = len(table.outbox())
    tick(table.db, due + timedelta(minutes=1), moderator_address=MODERATOR)
    reminders = [row for row in table.outbox()[seen:] if row.purpose == "reminder"]
    assert reminders
    for row in reminders:
        assert row.headers.get("decision") and asks_first(row.body), row.body[:1200]
        assert row.body.index(OPTIONS) < row.body.index("REMINDER")


def test_issue29_the_report_follows_the_question_and_the_board_comes_last(game: tuple[str, EmeTable]) -> None:
    kind, table = game
    board = {IMPERIAL: "THE WORLD BOARD", EME: "THE MAP"}[kind]
    for rows in play(table, kind, 3):
        for row in rows:
            if row.headers.get("decision") is None:
                continue
            body = row.body
            assert body.index(OPTIONS) < body.index("report for")
            if board in body:  # else unchanged since the seat's last mail (tests/moderator/test_board_unchanged.py)
                assert body.rindex(board) > body.index("report for")


def test_issue29_an_eight_minute_empire_mail_shows_the_row_once_after_the_options(table: EmeTable) -> None:
    """The row of cards is what a turn's options refer to: the prompt shows it below them, and the report
    under the prompt leaves it out; a report that asks nothing shows it."""
    rows = [row for moves in play(table, EME, 8) for row in moves]
    assert any(row.headers.get("decision") == "take" for row in rows)
    for row in rows:
        assert row.body.count("THE ROW") == 1, row.body
        if row.headers.get("decision") == "take":
            assert row.body.index(OPTIONS) < row.body.index("THE ROW")


def table_players(table: EmeTable) -> dict[str, str]:
    """The seats' addresses by player."""
    with table.db.transaction() as session:
        return {seat.name: seat.email for seat in store.seats(session, store.find_game(session, table.name))}


@pytest.mark.parametrize("mode", ["turn", "round", "daily"])
def test_issue29_in_every_mail_mode_a_mail_that_asks_opens_with_the_question(
        game: tuple[str, EmeTable], mode: str) -> None:
    """``MAIL TURN``, ``ROUND`` and ``DAILY`` seats keep news between mails: the question still comes before
    them; a daily digest to a seat that must decide asks first too."""
    kind, table = game
    for player in table_players(table):
        table.send(player, f"MAIL {mode.upper()}")
    seen = len(table.outbox())
    for _ in play(table, kind, 8):
        pass
    tick(table.db, NOW + timedelta(hours=25), moderator_address=MODERATOR)
    asking = [row for row in table.outbox()[seen:] if row.headers.get("decision")]
    assert asking
    for row in asking:
        assert asks_first(row.body), (row.purpose, row.body[:1200])


def test_issue29_a_reply_saying_waiting_orders_were_refused_opens_with_the_question(tmp_path: Path) -> None:
    """R-MAN-7: orders that waited for a canal answer and were refused once it came are told to their player in
    the mail that asks them again: what is legal now (the options) within its first 15 lines."""
    table = EmeTable(Database(f"sqlite:///{tmp_path / 'game.db'}"), config_for())
    setup = table.moderator.make_setup(table.name, PLAYERS[:2], list(SUEZ_DEAL), 1)
    create_game_with_mail(table.moderator, table.config, table.name, setup, NOW)
    for player, text in SUEZ_OPENING:
        table.send(player, text)
    table.send("ann", "FLEET Rome TO Mediterranean Sea\nFLEET Mediterranean Sea TO Indian Ocean\n"
                      "ARMY Paris TO Mumbai HOSTILE\nARMY Paris TO Nowhere")
    seen = len(table.outbox())
    table.send("bob", "DENY")
    refused = [row for row in mails_to(table, "ann", seen) if "refused" in row.body.lower()]
    assert refused, [row.body[:600] for row in mails_to(table, "ann", seen)]
    for row in refused:
        assert row.headers.get("decision") and (asks_first(row.body) or asks_first(row.body, LEGAL)), row.body[:1200]
    table.db.dispose()
