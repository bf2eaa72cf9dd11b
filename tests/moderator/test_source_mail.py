"""Every way a move happens is mailed as a mailed order is: force, a deadline's default, the stand-in, pbem order.

Each test plays the same position twice, in two databases with the same
seed: once the move comes by the player's mail, once by the other source,
at the same moment. Per seat the two must agree: whether it gets a mail, the
mail's purpose, ``X-PBEM-Decision`` and subject, whether it carries the board
(text and picture, by the seat's ``BOARD`` choice), its text apart from the
source's note ("The game master gave these orders for ann: ...") and the news
a seat keeps for its next mail (``MAIL TURN|ROUND|DAILY``), again apart from
the note. The note reaches every seat told of the move exactly once: in the
head of an ``EVERY`` seat's mail, in the kept news of the other modes (so the
next mail opens with it); a seat not told of the move (another player's
sealed bid, R8-BID-1) hears nothing of it.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pbem import store
from pbem.moderator import Moderator, gamemaster
from pbem.moderator.gamemaster import set_game
from pbem.moderator.tick import tick
from pbem.store import Database
from pbem.store.outbox import OutboxRow, mail_for_game
from tests.dbfixtures import fresh_postgres_url, sqlite_url
from tests.imperialpositions import SUEZ_MOVE
from tests.mailflowkit import MODERATOR, Table
from tests.moderatorkit import suez_game
from tests.sourcemail import (
    BOARD,
    EME,
    GAME_MASTER,
    IMPERIAL,
    MAIL,
    MODES,
    UNCHANGED,
    decider_and_default,
    kept_news,
    kind_name,
    mail,
    mails_since,
    new_table,
    told_of_last_moves,
    without_note,
)

# --- the sources: each makes the move its own way; (player, text played, a words its note always holds) -------------


def by_force(table: Table, now: datetime) -> tuple[str, str, str]:
    player, text = decider_and_default(table)
    done = gamemaster.force(table.db, table.name, player, text, mail=MAIL, now=now)
    assert done.played.ok
    return player, text, f"The game master gave these orders for {player}:"


def by_order(table: Table, now: datetime) -> tuple[str, str, str]:
    """``pbem order`` with a mail configuration (``gamemaster.order``): no note, no sender."""
    player, text = decider_and_default(table)
    done = gamemaster.order(table.db, table.name, player, text, mail=MAIL, now=now)
    assert done.played.ok
    return player, text, ""


def by_deadline(table: Table, now: datetime) -> tuple[str, str, str]:
    player, text = decider_and_default(table)
    done = tick(table.db, now, moderator_address=MODERATOR, game_master=GAME_MASTER)
    assert [(item.player, item.detail) for item in done.defaults] == [(player, text)], done
    return player, text, f"No answer by the deadline: {text}."


def by_stand_in(table: Table, now: datetime) -> tuple[str, str, str]:
    set_game(table.db, table.name, ["absent=bot", "absent_limit=0"])
    player, _ = decider_and_default(table)
    done = tick(table.db, now, moderator_address=MODERATOR, game_master=GAME_MASTER)
    (item,) = done.defaults
    assert item.player == player and item.detail.startswith("the stand-in played "), done
    return player, item.detail.removeprefix("the stand-in played "), "the stand-in (the moderator's bot) played"


Source = Callable[[Table, datetime], tuple[str, str, str]]
SOURCES: dict[str, Source] = {"force": by_force, "order": by_order, "deadline": by_deadline, "stand-in": by_stand_in}


# --- the positions ----------------------------------------------------------------------------------------------


def start(table: Table, now: datetime) -> None:
    """The game as created: Imperial's first rondel choice (ann), Eight-Minute Empire's sealed bids (R8-BID-1)."""


def investor(table: Table, now: datetime) -> None:
    """Imperial: ann chose the investor space; bob must invest (a question with a default, PASS)."""
    assert mail(table, "ann", "RONDEL investor", now) == "applied"


def bids_in(table: Table, now: datetime) -> None:
    """Eight-Minute Empire: every bid is in (R8-BID-2), ann takes the first card (R8-TURN-1)."""
    for player, coins in (("ann", 2), ("bob", 1), ("cy", 0)):
        assert mail(table, player, f"BID {coins}", now) == "applied"


POSITIONS = {"start": start, "investor": investor, "bids in": bids_in}
# (kind, position, source): the stand-in plays a decision of the player's own turn, a default needs one
CASES = [(IMPERIAL, "start", "force"), (IMPERIAL, "start", "order"), (IMPERIAL, "start", "stand-in"),
         (IMPERIAL, "investor", "deadline"), (EME, "start", "force"), (EME, "bids in", "force"),
         (EME, "bids in", "order"), (EME, "bids in", "deadline"), (EME, "bids in", "stand-in")]


@dataclass
class Side:
    """One of the twins after the move: its game and the first outbox row the move queued."""

    table: Table
    start: int
    version: int

    def mails(self) -> dict[str, OutboxRow]:
        return mails_since(self.table, self.start)


def play_twice(urls: tuple[str, str], kind: str, position: str, source: str, mode: str,
               board: bool) -> tuple[Side, Side, str]:
    """The position in both databases and the seats' mode and board set; then the move, by mail in the first, by
    ``source`` in the second, at one moment (a prompt's deadline counts from it). Returns the sides and the note's
    marker."""
    now = datetime.now(UTC).replace(microsecond=0) + timedelta(days=40)  # past every deadline of the position
    twins = [new_table(kind, url) for url in urls]
    for table in twins:
        POSITIONS[position](table, datetime.now(UTC))
        set_game(table.db, table.name, [f"mail={mode}", f"board={'on' if board else 'off'}", "deadline.default=48"])
    mailed, other = (Side(table, len(table.outbox()), table.log_length()) for table in twins)
    player, text, marker = SOURCES[source](other.table, now)
    assert mail(mailed.table, player, text, now) == "applied"
    return mailed, other, marker


def assert_told_alike(mailed: Side, other: Side, marker: str, board: bool) -> None:
    """The seats' mails and kept news agree between the twins (see the module docstring)."""
    kind = kind_name(mailed.table)
    by_mail, by_source = mailed.mails(), other.mails()
    assert sorted(by_source) == sorted(by_mail)
    for player, row in by_mail.items():
        twin = by_source[player]
        assert (twin.purpose, twin.headers["decision"], twin.subject) == (
            row.purpose, row.headers["decision"], row.subject), player
        shown = BOARD[kind] in row.body
        assert (BOARD[kind] in twin.body) == shown == (twin.picture_id is not None) == (row.picture_id is not None)
        assert (shown or UNCHANGED in " ".join(row.body.split())) == board, player  # a board seen: one line
        assert twin.headers["reply_to"] and twin.headers["references"], player  # a seat's token, the game's thread
        assert without_note(twin.body, marker) == row.body, player
    news, twin_news = kept_news(mailed.table), kept_news(other.table)
    assert {p: [line for line in lines if not marker or marker not in line] for p, lines in twin_news.items()} == news
    if marker:  # the note: to each seat told of the move, once, at once or with its next mail
        told = told_of_last_moves(other.table, other.version)
        for player, lines in twin_news.items():
            flat = " ".join(by_source[player].body.split()) if player in by_source else ""
            times = flat.count(marker) + sum(marker in line for line in lines)
            assert times == (1 if player in told else 0), (player, times)


@pytest.mark.parametrize("board", [True, False], ids=["board-on", "board-off"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("kind", "position", "source"), CASES, ids=[f"{k}-{p}-{s}" for k, p, s in CASES])
def test_every_source_mails_each_seat_what_the_mailed_order_does(tmp_path: Path, kind: str, position: str,
                                                                 source: str, mode: str, board: bool) -> None:
    urls = []
    for side in ("mail", "source"):
        (tmp_path / side).mkdir()
        urls.append(sqlite_url(tmp_path / side))
    mailed, other, marker = play_twice((urls[0], urls[1]), kind, position, source, mode, board)
    assert_told_alike(mailed, other, marker, board)


@pytest.fixture
def postgres_twins() -> Iterator[tuple[str, str]]:
    for first in fresh_postgres_url():
        for second in fresh_postgres_url():
            yield first, second


@pytest.mark.parametrize(("kind", "position", "source"), [c for c in CASES if c[0] == EME or c[2] == "deadline"])
def test_every_source_mails_what_the_mailed_order_does_on_postgresql(postgres_twins: tuple[str, str], kind: str,
                                                                     position: str, source: str) -> None:
    mailed, other, marker = play_twice(postgres_twins, kind, position, source, "turn", False)
    assert_told_alike(mailed, other, marker, False)


@pytest.mark.parametrize("mode", MODES)
def test_a_forced_answer_tells_the_player_whose_waiting_lines_it_refused_in_their_one_mail(tmp_path: Path,
                                                                                            mode: str) -> None:
    """bob's forced DENY refuses ann's waiting army line (docs/orders.md, waiting lines): ann, who must go on
    with her maneuver, gets one mail in any mode, with the refusal, the note and her prompt; bob, who decides
    nothing, hears of it as his mode says."""
    moderator = Moderator(Database(sqlite_url(tmp_path)))
    suez_game(moderator)
    moderator.submit("suez", "ann", SUEZ_MOVE)  # the canal question to bob; line 3 waits for his answer
    set_game(moderator.db, "suez", [f"mail={mode}"])
    done = gamemaster.force(moderator.db, "suez", "bob", "DENY", mail=MAIL)
    assert [player for player, _ in done.played.resumed_refusals] == ["ann"]
    with moderator.db.transaction() as session:
        rows = mail_for_game(session, store.find_game(session, "suez").id or 0)
    (ann,) = [row for row in rows if row.recipient == "ann@example.org"]
    text = " ".join(ann.body.split())
    assert "Your orders that waited for an answer went on; line 3 (ARMY Paris TO Mumbai HOSTILE) was refused" in text
    assert "The game master gave these orders for bob: DENY." in text
    assert ann.purpose == "prompt" and ann.headers["decision"] == "maneuver"
    assert [row.recipient for row in rows if row.recipient != "ann@example.org"] == (
        ["bob@example.org"] if mode == "every" else [])
    moderator.db.dispose()
