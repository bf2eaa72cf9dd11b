"""A mail that asks a decision opens with the question (issue 29): the options within its first 15 lines.

Before, the question came last: an Imperial 2030 prompt mail began with the
report (the nations, the bonds, the rondel and the world board) and "your
decision" started at line 191. Now the order of a seat's mail is the answer
to its own mail (a refusal: tests/moderator/test_mailflow_inbound.py), the question, what happened since its last
mail, the report, the board last (``pbem.moderator.notify.turnmail``).
"""
from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from pbem import store
from pbem.games import kind_of
from pbem.moderator.notify.subjects import decision_deadline, decisions_of
from pbem.store.outbox import OutboxRow
from pbem.store.settings import load_settings
from tests.emetable import EmeTable
from tests.mailflowkit import NOW

IMPERIAL, EME = "imperial2030", "eight-minute-empire"
FIRST_LINES = 15
OPTIONS = "Your options:"



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


def play(table: EmeTable, kind: str, moves: int) -> Iterator[list[OutboxRow]]:
    """Mail a legal order of the next decider ``moves`` times; after each, the mails that move wrote."""
    game_kind = kind_of(kind)
    for _ in range(moves):
        state = table.state()
        decider = next(d.player for d in game_kind.rules.pending(state) if not d.answered)
        orders = [o for o in game_kind.legal_orders(state, decider) if "investor" not in o.lower()]
        seen = len(table.outbox())
        table.send(decider, orders[0])
        yield table.outbox()[seen:]


def test_issue29_a_prompt_mail_opens_with_the_question_and_its_options(game: tuple[str, EmeTable]) -> None:
    kind, table = game
    asked = 0
    for rows in play(table, kind, 8):
        for row in rows:
            if row.headers.get("decision") is None:
                continue
            player = next(name for name, email in table_players(table) if email == row.recipient)
            prompt = prompt_now(table, kind, player, NOW)
            assert prompt is not None and row.body.startswith(prompt), (player, row.body[:400])
            if kind == IMPERIAL:  # Eight-Minute Empire's prompt lists the row first: its options begin at line 19
                assert OPTIONS in row.body.split("\n")[:FIRST_LINES], row.body[:1200]
            asked += 1
    assert asked >= 4


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


def table_players(table: EmeTable) -> list[tuple[str, str]]:
    """(player, address) of the game's seats."""
    with table.db.transaction() as session:
        return [(seat.name, seat.email) for seat in store.seats(session, store.find_game(session, table.name))]
