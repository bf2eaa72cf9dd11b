"""A move's mail written after the move has committed (``pbem.moderator.notify.telling``).

The move's own transaction notes what its mail needs (``moves_to_tell``);
the mail is written after the commit, by the process that applied it, or by
any later pass when that process died. What must hold: the same mail as
ever, each written once, in the order the moves were applied; a board drawn
only when some mail carries it, once per move; the game master's history
rewrites (undo) told after the moves they take back.
"""
from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import delete
from sqlmodel import col, select

from pbem.daemon.sender import deliver_due
from pbem.games import kind_of
from pbem.holders import holder_name
from pbem.mail import PermanentSendError, TransientSendError, build_message
from pbem.moderator.gamemaster import MailContext, force, set_game, undo
from pbem.moderator.inbound import handler, seatreplies
from pbem.moderator.notify import pictures
from pbem.moderator.notify.telling import Told, tell_left_over, tell_moves
from pbem.store import Database, find_game, seats
from pbem.store.mailprefs import set_prefs
from pbem.store.models import ActionRow, as_utc
from pbem.store.moves import CLAIM, MoveToTellRow
from pbem.store.outbox import PictureRow
from tests.dbfixtures import sqlite_url
from tests.emetable import EmeTable
from tests.mailflowkit import NOW, PLAYERS, Table, config_for, mail_of, picture_of

EMAIL = dict(PLAYERS)
EME_KIND = kind_of("eight-minute-empire")


@pytest.fixture
def imperial(db_url: str) -> Iterator[Table]:
    t = Table(Database(db_url), config_for())
    t.create(players=3)
    yield t
    t.db.dispose()


@pytest.fixture
def reference(tmp_path: Path) -> Iterator[EmeTable]:
    """The same game in a database of its own, its moves told as they come (SQLite)."""
    folder = tmp_path / "reference"
    folder.mkdir()
    t = EmeTable(Database(sqlite_url(folder)), config_for())
    t.create()
    yield t
    t.db.dispose()


def drawings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every board picture drawn in this process from now on (the helper is not started in tests)."""
    drawn: list[str] = []
    original = pictures.render_png

    def counting(scene: Any) -> bytes:
        drawn.append(scene.title)
        return original(scene)

    monkeypatch.setattr(pictures, "render_png", counting)
    return drawn


def moves_to_tell(table: Table) -> list[MoveToTellRow]:
    with table.db.transaction() as session:
        return list(session.exec(select(MoveToTellRow).order_by(col(MoveToTellRow.id))).all())


def game_id(table: Table) -> int:
    with table.db.transaction() as session:
        found = find_game(session, table.name).id
    assert found is not None
    return found


def untold(monkeypatch: pytest.MonkeyPatch) -> None:
    """The handler's process dies between its commit and the telling, as far as the mail is concerned."""
    monkeypatch.setattr(handler, "tell_safely", lambda *args, **kwargs: Told())


# --- pictures: only when some mail carries the board, once per move ------------------------------------------


def test_a_game_whose_seats_all_chose_board_off_draws_no_picture(imperial: Table,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The game's default is the board (``board=on``), and every seat answered ``BOARD OFF``: no mail of a move
    carries the board, so none is drawn (it was drawn for every move, and thrown away)."""
    with imperial.db.transaction() as session:
        for seat in seats(session, find_game(session, imperial.name)):
            set_prefs(session, seat, board=False)
    drawn = drawings(monkeypatch)
    for uid in range(1, 5):
        player, order = imperial.an_order()
        raw = imperial.mail_from(player, order + "\n", message_id=f"<off-{uid}@example.org>")
        assert handler.process_message(imperial.db, imperial.config, raw, "INBOX", 1, uid, NOW,
                                       moderator=imperial.moderator).outcome == "applied"
    assert imperial.log_length() >= 4 and drawn == []
    assert not any(row.picture_id for row in imperial.outbox())


def test_a_moves_board_is_drawn_once_whoever_takes_it(table: EmeTable, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every seat takes the board: one drawing per move, the same picture in every seat's mail."""
    for player, bid in (("ann", 1), ("bob", 2), ("cy", 0)):
        assert table.send(player, f"BID {bid}") == "applied"
    drawn = drawings(monkeypatch)
    since = len(table.outbox())
    place_armies(table)
    mails = table.outbox()[since:]
    assert len(drawn) == 1
    assert len(mails) == 3 and len({row.picture_id for row in mails}) == 1 and picture_of(table.db, mails[0])


def place_armies(game: EmeTable) -> None:
    """After the bids: the first player takes a card and places armies, a move every seat sees on the map
    (a move that changes nothing there brings no board to a seat that has seen it: test_board_unchanged.py)."""
    state = game.eme()
    player = next(d.player for d in EME_KIND.rules.pending(state) if not d.answered)
    order = next(o for o in EME_KIND.legal_orders(state, player) if "PLACE" in o)
    assert game.send(player, order) == "applied"


def test_a_board_answer_without_a_move_carries_the_picture(table: EmeTable, monkeypatch: pytest.MonkeyPatch) -> None:
    """``BOARD`` from a seat with ``BOARD OFF``, nothing else: the reply is written in the message's own
    transaction (it belongs to no move), with the board's picture beside the answer."""
    with table.db.transaction() as session:
        for seat in seats(session, find_game(session, table.name)):
            set_prefs(session, seat, board=False)
    drawn = drawings(monkeypatch)
    assert table.send("ann", "BOARD") == "query"
    answer = table.outbox()[-1]
    assert answer.purpose == "query" and picture_of(table.db, answer) and len(drawn) == 1 and moves_to_tell(table) == []


# --- after the commit --------------------------------------------------------------------------------------


def test_a_moves_mail_is_written_after_its_commit_and_its_record_goes_with_it(table: EmeTable) -> None:
    since = len(table.outbox())
    assert table.send("ann", "BID 1") == "applied"
    assert moves_to_tell(table) == []
    assert [row.recipient for row in table.outbox()[since:]] == [EMAIL["ann"]]  # the bid is sealed


def test_a_move_its_process_did_not_tell_is_told_by_a_later_pass_once(table: EmeTable,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The record waits, claimed by the process that applied the move, until its claim runs out (or that
    process is found dead); then any pass tells it, and a second pass finds nothing to tell."""
    untold(monkeypatch)
    since = len(table.outbox())
    assert table.send("ann", "BID 1") == "applied"
    (row,) = moves_to_tell(table)
    assert row.source == "mail" and row.player == "ann" and row.claimed_by and len(table.outbox()) == since
    identity = table.config.require_moderator()
    soon = lambda: NOW + timedelta(seconds=CLAIM / 2)  # noqa: E731
    assert tell_left_over(table.db, identity, holder="tell@elsewhere:1:1", now=soon) == Told()
    later = lambda: as_utc(row.created) + timedelta(seconds=CLAIM + 1)  # noqa: E731
    told = tell_left_over(table.db, identity, holder="tell@elsewhere:1:1", now=later)
    assert told.moves == 1 and len(told.queued) == 1 and moves_to_tell(table) == []
    (mail,) = table.outbox()[since:]
    assert mail.recipient == EMAIL["ann"] and mail.message_id == told.queued[0]
    assert tell_left_over(table.db, identity, holder="tell@elsewhere:1:1", now=later) == Told()


def test_moves_are_told_in_the_order_they_were_applied(table: EmeTable, reference: EmeTable,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Three moves left untold: the next teller tells them oldest first, each seat's mail in that order, and
    the news of the sealed bids as the reveal mail would have it."""
    for player, bid in (("ann", 1), ("bob", 2), ("cy", 0)):
        assert reference.send(player, f"BID {bid}") == "applied"
    untold(monkeypatch)
    for player, bid in (("ann", 1), ("bob", 2), ("cy", 0)):
        assert table.send(player, f"BID {bid}") == "applied"
    assert len(moves_to_tell(table)) == 3
    told = tell_moves(table.db, table.config.require_moderator(), game_id(table), holder=holder_name("tell"))
    assert told.moves == 3
    ours = [(row.recipient, row.purpose, row.version, row.subject, row.body) for row in table.outbox()
            if row.purpose != "welcome"]  # (the welcomes hold each database's own tokens)
    theirs = [(row.recipient, row.purpose, row.version, row.subject, row.body) for row in reference.outbox()
              if row.purpose != "welcome"]
    assert ours == theirs


def test_a_move_another_process_is_telling_is_left_to_it(table: EmeTable, monkeypatch: pytest.MonkeyPatch) -> None:
    """On SQLite the move's own process tells it (a second teller would fail at its first write); on
    PostgreSQL the move is locked while it is told, and a second teller waits for it or tells it itself."""
    untold(monkeypatch)
    assert table.send("ann", "BID 1") == "applied"
    identity = table.config.require_moderator()
    told = tell_moves(table.db, identity, game_id(table), holder="tell@elsewhere:1:1")  # a live claim
    if table.db.url.get_backend_name() == "postgresql":
        assert told.moves == 1 and moves_to_tell(table) == []
        return
    assert told == Told() and len(moves_to_tell(table)) == 1
    assert tell_moves(table.db, identity, game_id(table), holder="tell@elsewhere:1:1", take_over=True).moves == 1


def test_a_move_taken_back_before_it_was_told_is_not_told(table: EmeTable, monkeypatch: pytest.MonkeyPatch,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    """Its actions are no longer in the log (the log is the truth): its record goes, no mail is written."""
    untold(monkeypatch)
    since = len(table.outbox())
    assert table.send("ann", "BID 1") == "applied"
    with table.db.transaction() as session:
        session.execute(delete(ActionRow).where(col(ActionRow.game_id) == game_id(table)))
    told = tell_moves(table.db, table.config.require_moderator(), game_id(table), holder=holder_name("tell"))
    assert told == Told((), 1) and moves_to_tell(table) == [] and len(table.outbox()) == since
    assert "no longer in the log" in caplog.text


def test_an_undo_tells_the_move_it_takes_back_first(imperial: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every seat hears of a move before it hears that the game master took it back."""
    untold(monkeypatch)
    player, order = imperial.an_order()
    raw = imperial.mail_from(player, order + "\n", message_id="<undone@example.org>")
    assert handler.process_message(imperial.db, imperial.config, raw, "INBOX", 1, 1, NOW,
                                   moderator=imperial.moderator).outcome == "applied"
    since = len(imperial.outbox())
    undo(imperial.db, imperial.name, mail=MailContext.from_config(imperial.config), now=NOW + timedelta(minutes=1))
    purposes = [(row.recipient, row.purpose) for row in imperial.outbox()[since:]]
    for _, email in PLAYERS[:3]:
        told = [purpose for recipient, purpose in purposes if recipient == email]
        assert told[-1] == "undo" and told[0] in ("report", "prompt"), (email, told)
    assert moves_to_tell(imperial) == []


def test_the_position_before_is_replayed_when_its_record_cannot_be_read(table: EmeTable, reference: EmeTable,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A record whose position is not the game's any more (a seat renamed since, a format changed) is told
    from the log: the same mail."""
    assert reference.send("ann", "BID 1") == "applied"
    untold(monkeypatch)
    assert table.send("ann", "BID 1") == "applied"
    with table.db.transaction() as session:
        row = session.exec(select(MoveToTellRow)).one()
        row.state_before = {"not": "a state"}
        session.add(row)
    assert tell_moves(table.db, table.config.require_moderator(), game_id(table), holder=holder_name("tell")).moves == 1
    assert [(r.recipient, r.body) for r in table.outbox() if r.purpose != "welcome"] == \
        [(r.recipient, r.body) for r in reference.outbox() if r.purpose != "welcome"]


def test_a_forced_move_is_mailed_before_force_returns(table: EmeTable) -> None:
    forced = force(table.db, table.name, "ann", "BID 1", mail=MailContext.from_config(table.config), now=NOW)
    assert forced.mailed == 1 and moves_to_tell(table) == []
    assert "The game master gave these orders for ann" in table.outbox()[-1].body


def test_board_off_by_game_setting_draws_nothing_either(table: EmeTable, monkeypatch: pytest.MonkeyPatch) -> None:
    set_game(table.db, table.name, ["board=off"])
    drawn = drawings(monkeypatch)
    assert table.send("ann", "BID 1") == "applied"
    assert drawn == []


# --- a picture stored once, dropped with the last mail that carries it ------------------------------------------


class Relay:
    """A relay that takes every mail but refuses those to ``refused`` for good, and stops (try later) at the
    ``pause``-th mail of a run."""

    def __init__(self, refused: str = "", pause: int = 0) -> None:
        self.refused, self.pause, self.taken = refused, pause, []  # type: ignore[var-annotated]
        self.tried = 0

    def open(self) -> None:
        self.tried = 0

    def close(self) -> None:
        pass

    def send_wire(self, mail: Any, *, meanwhile: Any = None) -> None:
        self.tried += 1
        if meanwhile is not None:
            meanwhile()
        if self.tried == self.pause:
            raise TransientSendError("421 try later")
        if self.refused and self.refused in mail.recipients:
            raise PermanentSendError("550 no such user")
        self.taken.append(mail)


def stored_pictures(table: Table) -> list[PictureRow]:
    with table.db.transaction() as session:
        return list(session.exec(select(PictureRow)).all())


def test_a_moves_picture_is_stored_once_and_goes_with_the_last_mail_that_carries_it(table: EmeTable) -> None:
    """Three seats take the board of the reveal: one stored picture (not three copies of it); it stays while any
    mail that carries it waits, and goes when the last of them is sent or refused for good."""
    identity = table.config.require_moderator()
    deliver_due(table.db, Relay(), NOW, moderator=identity)  # the welcomes
    for player, bid in (("ann", 1), ("bob", 2), ("cy", 0)):
        assert table.send(player, f"BID {bid}") == "applied"
    place_armies(table)
    queued = [row for row in table.outbox() if row.status == "queued"]
    reveal = [row for row in queued if row.version == queued[-1].version]
    (picture,) = [p for p in stored_pictures(table) if p.id == reveal[0].picture_id]
    assert len(reveal) == 3 and {row.picture_id for row in reveal} == {picture.id}
    carried = {row.picture_id for row in queued} - {None}
    assert len(stored_pictures(table)) == len(carried)  # one per move, not per mail
    assert picture.alt.startswith("Picture of the board") and picture.png.startswith(b"\x89PNG")
    report = deliver_due(table.db, Relay(pause=len(queued)), NOW, moderator=identity)  # the last one: later
    assert report.sent == len(queued) - 1 and [p.id for p in stored_pictures(table)] == [picture.id]
    report = deliver_due(table.db, Relay(refused=reveal[-1].recipient), NOW + timedelta(minutes=5),
                         moderator=identity)
    assert report.failed == 1 and stored_pictures(table) == []
    assert all(row.picture_id is None for row in table.outbox())


def test_a_long_history_asked_with_orders_rides_on_the_senders_mail_about_the_move(
        table: EmeTable, monkeypatch: pytest.MonkeyPatch) -> None:
    """The move's record keeps what only the sender's one mail carries, its attachment too: the mail written
    after the commit (here by a later pass) is the reply, threaded under the player's mail, with the file."""
    monkeypatch.setattr(seatreplies, "HISTORY_INLINE_LINES", 1)  # every history is long
    untold(monkeypatch)
    since = len(table.outbox())
    raw = table.mail_from("ann", "BID 1\nHISTORY ALL\n", message_id="<bid-and-history@example.org>")
    assert handler.process_message(table.db, table.config, raw, "INBOX", 1, 1, NOW,
                                   moderator=table.moderator).outcome == "applied"
    (row,) = moves_to_tell(table)
    assert row.reply is not None and row.reply["attachment"]["filename"] == "g1-history.txt"
    assert tell_moves(table.db, table.config.require_moderator(), game_id(table), holder="tell@x:1:1",
                      take_over=True).moves == 1
    (mail,) = table.outbox()[since:]
    assert mail.recipient == EMAIL["ann"] and mail.headers["in_reply_to"] == "<bid-and-history@example.org>"
    assert "attached to this mail as g1-history.txt" in " ".join(mail.body.split())
    attached = list(build_message(mail_of(table.db, mail)).iter_attachments())
    assert [part.get_filename() for part in attached] == ["g1-history.txt"]
