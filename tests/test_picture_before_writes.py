"""A move's board picture is drawn before its transaction first writes (``MailComposer.draw_ahead``).

Why it matters: from the first write on, an SQLite transaction holds the
database's one write lock, and the outbox's sender, marking each mail sent,
waits for it. Drawn first, the picture (the longest step of a move) keeps
nobody waiting; drawn once, it is the same picture every seat's mail carries.
"""
from __future__ import annotations

import re
from typing import Any

import pytest
from dbfixtures import db_url, postgres_url  # noqa: F401  (fixtures of the table fixture)
from sqlalchemy import event

from pbem.moderator.notify import compose
from tests.test_eme_moderator import EmeTable, table  # noqa: F401  (a fixture: a three-player game)

WRITES = re.compile(r"^\s*(INSERT|UPDATE|DELETE)\b", re.IGNORECASE)


def test_the_picture_is_drawn_once_before_the_first_write(table: EmeTable,  # noqa: F811
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    written: list[str] = []
    event.listen(table.db.engine, "before_cursor_execute",
                 lambda *args: written.append(args[2]) if WRITES.match(args[2]) else None)
    drawn: list[int] = []  # how many writes had run when each picture was drawn
    original = compose.board_picture

    def counting(*args: Any) -> Any:
        drawn.append(len(written))
        return original(*args)

    monkeypatch.setattr(compose, "board_picture", counting)
    assert table.send("ann", "BID 1") == "applied"
    assert drawn == [0]
    assert any(mail.picture for mail in table.outbox()[-1:])


def test_with_the_board_off_by_default_nothing_is_drawn_ahead(table: EmeTable,  # noqa: F811
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from pbem.moderator.gamemaster import set_game

    set_game(table.db, table.name, ["board=off"])
    drawn: list[str] = []
    monkeypatch.setattr(compose, "board_picture", lambda *args: drawn.append("drawn"))
    assert table.send("ann", "BID 1") == "applied"
    assert drawn == []
