"""A seat's mail leaves out a board it has already seen (issue 29: the board and its picture were most of the bytes).

A ``BOARD ON`` seat's mail shows the board (text and picture) when the board
changed since the last mail that showed it to that seat; else one line says
it is unchanged since that mail's move and that ``BOARD`` shows it. The game
master's notices show it whatever the seat saw.
"""
from __future__ import annotations

import pytest

from pbem import store
from pbem.games import kind_of
from pbem.moderator import gamemaster
from pbem.moderator.gamemaster import MailContext
from pbem.store.outbox import OutboxRow
from tests.emetable import EmeTable
from tests.mailflowkit import MODERATOR

IMPERIAL, EME = "imperial2030", "eight-minute-empire"
BOARD = {IMPERIAL: "THE WORLD BOARD", EME: "THE MAP"}
UNCHANGED = "The board has not changed since your mail of move"



def addresses(table: EmeTable) -> dict[str, str]:
    with table.db.transaction() as session:
        return {seat.email: seat.name for seat in store.seats(session, store.find_game(session, table.name))}


def move_once(table: EmeTable, kind: str) -> list[OutboxRow]:
    """The next decider mails a legal order; the mails that move wrote."""
    game_kind, state = kind_of(kind), table.state()
    decider = next(d.player for d in game_kind.rules.pending(state) if not d.answered)
    seen = len(table.outbox())
    table.send(decider, game_kind.legal_orders(state, decider)[0])
    return table.outbox()[seen:]


def test_issue29_a_board_is_shown_again_only_when_it_changed_since_the_seats_last_mail_that_showed_it(
        game: tuple[str, EmeTable]) -> None:
    kind, table = game
    game_kind, who = kind_of(kind), addresses(table)
    shown: dict[str, tuple[str, int]] = {}  # seat -> (the board it last saw, that mail's move)
    left_out = 0
    for _ in range(14):
        rows = move_once(table, kind)
        state = table.state()
        board = game_kind.board_key(state)
        for row in rows:
            player, flat = who[row.recipient], " ".join(row.body.split())
            if player in shown and shown[player][0] == board:
                assert f"{UNCHANGED} {shown[player][1]}," in flat, (player, row.body[:800])
                assert BOARD[kind] not in row.body and row.picture_id is None, player
                left_out += 1
            else:
                assert BOARD[kind] in row.body and row.picture_id is not None and UNCHANGED not in flat, player
                shown[player] = (board, game_kind.shown_move(state))
    assert left_out > 0  # some moves change nothing on the map (a bid, an investment, a rondel space)


def test_issue29_a_seat_with_board_off_reads_nothing_of_the_board(game: tuple[str, EmeTable]) -> None:
    kind, table = game
    gamemaster.set_game(table.db, table.name, ["board=off"])
    for _ in range(6):
        for row in move_once(table, kind):
            assert BOARD[kind] not in row.body and UNCHANGED not in " ".join(row.body.split())


def test_issue29_a_resend_shows_the_board_even_if_the_seat_has_seen_it(game: tuple[str, EmeTable]) -> None:
    kind, table = game
    for _ in range(30):
        if any(UNCHANGED in " ".join(row.body.split()) for row in move_once(table, kind)):
            break
    else:
        pytest.fail("no mail left the board out in 30 moves")
    seen = len(table.outbox())
    gamemaster.resend(table.db, table.name, mail=MailContext.make(moderator_address=MODERATOR))
    rows = table.outbox()[seen:]
    assert rows and all(BOARD[kind] in row.body and row.picture_id is not None for row in rows)
