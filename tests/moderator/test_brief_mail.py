"""A decision taken within another nation's turn comes in a brief mail (issue 29: a tenth of the bytes).

Imperial 2030 asks a battle (R-MAN-9) or a canal passage (R-MAN-7) of a
player in the middle of another nation's maneuver, often several in a few
moves; each answered from the question alone. Their mails carried the whole
report, the 117-line board and its picture: a third of a seat's mails and
half of its bytes. Now such a mail holds the question, the news and one line
saying the next full mail brings the report and the board
(``KindInfo.brief``, ``pbem.moderator.notify.turnmail``).
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.moderator.gamemaster.newgame import create_game_with_mail
from pbem.store import Database
from pbem.store.outbox import OutboxRow
from tests.emetable import EmeTable
from tests.imperialpositions import SUEZ_DEAL, SUEZ_MOVE, SUEZ_OPENING
from tests.mailflowkit import NOW, PLAYERS, config_for

BOARD = "THE WORLD BOARD"
REPORT = "report for bob"
BRIEF = "This short mail asks a quick decision"


@pytest.fixture
def suez(tmp_path: Path) -> Iterator[EmeTable]:
    """Europe (ann) maneuvers by the Suez canal, which India (bob) holds; every seat on MAIL EVERY, board on."""
    table = EmeTable(Database(f"sqlite:///{tmp_path / 'game.db'}"), config_for())
    setup = table.moderator.make_setup(table.name, PLAYERS[:2], list(SUEZ_DEAL), 1)
    create_game_with_mail(table.moderator, table.config, table.name, setup, NOW)
    for player, text in SUEZ_OPENING:
        table.send(player, text)
    yield table
    table.db.dispose()


def to_bob(table: EmeTable, seen: int) -> OutboxRow:
    (row,) = [row for row in table.outbox()[seen:] if row.recipient == dict(PLAYERS)["bob"]]
    return row


def flat(row: OutboxRow) -> str:
    return " ".join(row.body.split())


def test_r_man_7_a_canal_passage_is_asked_in_a_brief_mail_with_what_happened(suez: EmeTable) -> None:
    seen = len(suez.outbox())
    suez.send("ann", SUEZ_MOVE)
    mail = to_bob(suez, seen)
    assert mail.headers.get("decision") == "canal"
    assert "Your options:" in mail.body.split("\n")[:15]
    assert BRIEF in flat(mail) and "Europe moved a fleet from Rome to Mediterranean Sea." in flat(mail)
    assert REPORT not in mail.body and BOARD not in mail.body and mail.picture_id is None


def test_r_man_9_a_battle_asked_after_a_canal_answer_is_brief_too(suez: EmeTable) -> None:
    suez.send("ann", SUEZ_MOVE)
    seen = len(suez.outbox())
    suez.send("bob", "ALLOW")
    mail = to_bob(suez, seen)
    assert mail.headers.get("decision") == "battle"
    assert BRIEF in flat(mail) and REPORT not in mail.body and mail.picture_id is None


def test_r_man_9_the_next_full_mail_brings_the_report_and_the_board_the_brief_ones_left_out(suez: EmeTable) -> None:
    suez.send("ann", SUEZ_MOVE)
    asked = []
    for answer in ("ALLOW", "NO FIGHT", "ALLOW"):  # the fleet's passage, the battle, the army's convoy
        seen = len(suez.outbox())
        suez.send("bob", answer)
        asked.append(to_bob(suez, seen))
    brief, full = asked[:-1], asked[-1]  # Europe's maneuver is over: Russia's turn, which bob governs
    assert [mail.headers.get("decision") for mail in brief] == ["battle", "canal"]
    assert all(BRIEF in flat(mail) and mail.picture_id is None for mail in brief)
    assert full.headers.get("decision") == "rondel" and BRIEF not in flat(full)
    assert REPORT in full.body and BOARD in full.body and full.picture_id is not None
