"""The deadline tick's alarm (issue 13): a tick opens only the games whose alarm has rung, so idle games cost nothing.

Each game row holds ``next_check`` (``pbem.store.alarm``): NULL after any change that can move a deadline,
else the next moment the tick may have something to do. The promise kept: the same reminders, defaults,
alerts and digests at the same moments as when every game was opened at every tick.
"""
from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import event, update

from pbem import store
from pbem.moderator import Moderator, gamemaster
from pbem.moderator import tick as tick_module
from pbem.moderator.deadlines import utc
from pbem.moderator.gamemaster import set_game
from pbem.moderator.tick import LOOK_AGAIN, tick
from pbem.store import Database, GameRow
from pbem.store.absence import set_vacation
from pbem.store.alarm import NEVER, PAUSED
from pbem.store.mailprefs import MailMode, set_prefs
from tests.emetable import EmeTable, cy_keeps_daily_news
from tests.mailflowkit import NOW, PLAYERS
from tests.moderatorkit import GM, MODERATOR, mails, run, since, two_player_game


@pytest.fixture
def mod(db_url: str) -> Iterator[Moderator]:
    moderator = Moderator(Database(db_url))
    yield moderator
    moderator.db.dispose()


def alarm(db: Database, name: str = "demo") -> datetime | None:
    with db.transaction() as session:
        stored = store.find_game(session, name).next_check
    return None if stored is None else utc(stored)


class Loads:
    """Counts ``store.load_state`` calls (the tick's expensive step: replaying a game)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        original = store.load_state

        def counting(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(store, "load_state", counting)


def statements(db: Database, call: Any) -> int:
    """How many SQL statements ``call()`` sends to ``db``."""
    seen: list[str] = []

    def count(*args: Any) -> None:
        seen.append(args[2])

    event.listen(db.engine, "before_cursor_execute", count)
    try:
        call()
    finally:
        event.remove(db.engine, "before_cursor_execute", count)
    return len(seen)


# --- an idle game is not opened ------------------------------------------------------------------------------


def test_a_game_whose_alarm_lies_ahead_is_not_opened(mod: Moderator, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new game (alarm NULL) is looked at once, without loading its state; its alarm is then the earliest
    moment anything could be due (a 24-hour question's deadline), and until then no tick opens it. When that
    rings, the state is read once and the true moment stored: ann's rondel reminder, 24 h before 72 h."""
    two_player_game(mod)
    start = since(mod)
    assert alarm(mod.db) is None
    assert run(mod, start + timedelta(hours=1)).checked == ["demo"]
    assert alarm(mod.db) == start + timedelta(hours=24)  # the cheap bound: a 24-hour question's deadline
    loads = Loads(monkeypatch)
    report = run(mod, start + timedelta(hours=23))
    assert report.checked == [] and loads.count == 0 and report.lines() == ["Nothing due (0 active games checked)."]
    run(mod, start + timedelta(hours=24))  # the bound rang: the state is loaded, the true moment stored
    assert loads.count == 1 and alarm(mod.db) == start + timedelta(hours=48)
    assert run(mod, start + timedelta(hours=47)).checked == [] and loads.count == 1


def test_the_statements_of_a_tick_do_not_grow_with_idle_games(mod: Moderator) -> None:
    """Issue 13: a tick over 1 idle game and over 30 sends the same statements (one indexed query)."""
    two_player_game(mod, "g00")
    start = since(mod, "g00")
    run(mod, start)  # settles the alarm
    one = statements(mod.db, lambda: run(mod, start + timedelta(hours=1)))
    for number in range(1, 30):
        two_player_game(mod, f"g{number:02d}")
    run(mod, start)
    many = statements(mod.db, lambda: run(mod, start + timedelta(hours=1)))
    assert many == one == 1


def test_a_game_with_no_deadline_sleeps_until_something_changes(mod: Moderator) -> None:
    two_player_game(mod)
    set_game(mod.db, "demo", ["deadline.rondel=0", "deadline.default=0"] +
             [f"deadline.{kind}=0" for kind in ("factory", "production", "import", "maneuver", "investment",
                                                "setup_bond", "force_stop", "canal", "battle")])
    run(mod, since(mod))
    assert alarm(mod.db) == NEVER


# --- a reminder, a default and an alert still come exactly when due ----------------------------------------------


def test_a_reminder_arrives_exactly_when_due_after_the_alarm_was_set(mod: Moderator) -> None:
    two_player_game(mod)
    start = since(mod)
    run(mod, start + timedelta(hours=30))  # past the cheap bound: the state is read, the reminder's moment stored
    due = start + timedelta(hours=48)
    assert alarm(mod.db) == due
    assert run(mod, due - timedelta(microseconds=1)).reminders == []
    report = run(mod, due)
    assert [(r.player, r.kind) for r in report.reminders] == [("ann", "rondel")]
    assert alarm(mod.db) == start + timedelta(hours=72)  # next: the deadline itself
    assert len(mails(mod, purpose="reminder")) == 1


def test_an_expired_default_is_taken_on_time_and_the_next_decision_gets_its_alarm(mod: Moderator) -> None:
    """bob's investment (48 h, default PASS) expires: the tick plays PASS; the game changed, so the next tick
    looks again and stores the new decision's reminder (China's rondel, 72 h from the expiry)."""
    two_player_game(mod)
    mod.submit("demo", "ann", "RONDEL investor")
    start = since(mod)
    run(mod, start + timedelta(hours=25))
    assert alarm(mod.db) == start + timedelta(hours=48)
    expiry = start + timedelta(hours=48)
    assert [i.detail for i in run(mod, expiry).defaults] == ["PASS"]
    assert alarm(mod.db) is None  # the tick's own action woke the game: it is looked at again
    run(mod, expiry + timedelta(minutes=1))
    assert alarm(mod.db) == expiry + timedelta(hours=24)  # the cheap bound from the new clock start


def test_a_stalled_decision_is_listed_again_an_hour_later(mod: Moderator, monkeypatch: pytest.MonkeyPatch) -> None:
    """No default for the rondel: the game master is alerted once; the game is not reopened at every tick."""
    two_player_game(mod)
    expiry = since(mod) + timedelta(hours=72)
    assert [i.kind for i in run(mod, expiry).alerts] == ["rondel"]
    assert alarm(mod.db) == expiry + LOOK_AGAIN
    loads = Loads(monkeypatch)
    assert run(mod, expiry + timedelta(minutes=30)).stalled == [] and loads.count == 0
    again = run(mod, expiry + LOOK_AGAIN)
    assert [i.detail for i in again.stalled] == ["game master alerted before"] and again.alerts == []
    assert len(mails(mod, purpose="stalled")) == 1


def test_a_reminder_without_a_moderator_address_is_looked_for_again(mod: Moderator) -> None:
    """A tick that can mail nothing leaves the reminder to a later tick that can."""
    two_player_game(mod)
    start = since(mod)
    tick(mod.db, start + timedelta(hours=49))  # no moderator address: nothing queued
    assert mails(mod, purpose="reminder") == []
    assert alarm(mod.db) == start + timedelta(hours=49) + LOOK_AGAIN
    assert len(run(mod, start + timedelta(hours=50)).reminders) == 1


# --- every change wakes the game -----------------------------------------------------------------------------


def test_an_order_wakes_the_game(mod: Moderator) -> None:
    two_player_game(mod)
    run(mod, since(mod))
    assert alarm(mod.db) is not None
    mod.submit("demo", "ann", "RONDEL investor")
    assert alarm(mod.db) is None
    run(mod, since(mod))
    assert alarm(mod.db) == since(mod) + timedelta(hours=24)  # bob's investment: its reminder


def test_a_changed_deadline_wakes_the_game_and_applies_at_once(mod: Moderator) -> None:
    """``pbem game set demo deadline.rondel=2``: the pending rondel decision is due 2 h after its start."""
    two_player_game(mod)
    start = since(mod)
    run(mod, start)
    assert alarm(mod.db) == start + timedelta(hours=24)
    set_game(mod.db, "demo", ["deadline.rondel=2"])
    assert alarm(mod.db) is None
    report = run(mod, start + timedelta(hours=2))
    assert [(i.player, i.kind) for i in report.alerts] == [("ann", "rondel")]


def test_undo_and_replace_wake_the_game(mod: Moderator) -> None:
    two_player_game(mod)
    mod.submit("demo", "ann", "RONDEL investor")
    run(mod, since(mod))
    gamemaster.undo(mod.db, "demo")
    assert alarm(mod.db) is None
    run(mod, since(mod))
    gamemaster.replace(mod.db, "demo", "bob", "cy", "cy@example.org")
    assert alarm(mod.db) is None


def test_a_paused_game_is_not_opened_and_a_resumed_one_gets_its_full_deadline(
        mod: Moderator, monkeypatch: pytest.MonkeyPatch) -> None:
    two_player_game(mod)
    mod.submit("demo", "ann", "RONDEL investor")
    start = since(mod)
    run(mod, start)
    gamemaster.pause(mod.db, "demo", now=start + timedelta(hours=1))
    assert alarm(mod.db) is None
    assert run(mod, start + timedelta(hours=2)).paused == ["demo"]
    assert alarm(mod.db) == PAUSED
    opened = []
    monkeypatch.setattr(tick_module, "_tick_game", lambda *args: opened.append(args) or None)
    report = run(mod, start + timedelta(days=9))
    assert report.paused == ["demo"] and report.checked == ["demo"] and opened == []  # listed, not opened
    assert "demo: paused, deadlines not applied" in report.lines()
    monkeypatch.undo()
    back = start + timedelta(days=10)
    gamemaster.resume(mod.db, "demo", now=back)
    assert alarm(mod.db) is None
    assert run(mod, back + timedelta(hours=47)).defaults == []
    assert [i.detail for i in run(mod, back + timedelta(hours=48)).defaults] == ["PASS"]


def test_finishing_and_reopening_wake_the_game(mod: Moderator) -> None:
    two_player_game(mod)
    run(mod, since(mod))
    with mod.db.transaction() as session:
        store.set_status(session, store.find_game(session, "demo"), store.GameStatus.FINISHED)
    assert alarm(mod.db) is None and run(mod, since(mod)).checked == []
    with mod.db.transaction() as session:
        store.set_status(session, store.find_game(session, "demo"), store.GameStatus.ACTIVE)
    assert run(mod, since(mod)).checked == ["demo"]


def test_a_vacation_and_a_mail_mode_wake_the_game(mod: Moderator) -> None:
    """A vacation moves its player's deadlines (or lets the stand-in play); a DAILY seat gets digests from the tick."""
    two_player_game(mod)
    changes = [lambda session, seat: set_vacation(session, seat, datetime.now(UTC) + timedelta(days=2)),
               lambda session, seat: set_vacation(session, seat, None),
               lambda session, seat: set_prefs(session, seat, mode=MailMode.DAILY)]
    for change in changes:
        run(mod, since(mod))
        assert alarm(mod.db) is not None
        with mod.db.transaction() as session:
            change(session, store.seats(session, store.find_game(session, "demo"))[1])
        assert alarm(mod.db) is None


@pytest.mark.parametrize("woken", [True, False])
@pytest.mark.slow
def test_a_change_committed_while_the_tick_looks_wins(mod: Moderator, monkeypatch: pytest.MonkeyPatch,
                                                      woken: bool) -> None:
    """The tick stores the alarm only if the row still holds what it listed: an order that lands while the
    tick reads the game (another process) leaves the game woken, not under an alarm computed before it;
    whether the tick found the game woken (NULL, then claimed) or under an alarm that rang."""
    two_player_game(mod)
    start = since(mod)
    if not woken:
        run(mod, start)
        assert alarm(mod.db) == start + timedelta(hours=24)
    original = tick_module._tick_game

    def meanwhile(*args: Any) -> Any:
        found = original(*args)
        mod.submit("demo", "ann", "RONDEL investor")  # its own transaction, committed before the tick settles
        return found

    monkeypatch.setattr(tick_module, "_tick_game", meanwhile)
    run(mod, start + timedelta(hours=25))
    assert alarm(mod.db) is None


def test_a_game_from_before_the_alarm_is_looked_at_once(mod: Moderator) -> None:
    """Games stored before ``next_check`` existed hold NULL: the first tick looks at them and sets it."""
    two_player_game(mod)
    run(mod, since(mod))
    with mod.db.transaction() as session:
        session.execute(update(GameRow).values(next_check=None))
    assert run(mod, since(mod) + timedelta(hours=1)).checked == ["demo"] and alarm(mod.db) is not None


def test_the_cli_tick_looks_at_every_game(mod: Moderator) -> None:
    """``pbem deadlines tick`` (``everything``) opens every active game, whatever its alarm."""
    two_player_game(mod)
    run(mod, since(mod))
    assert run(mod, since(mod) + timedelta(hours=1)).checked == []
    report = tick(mod.db, since(mod) + timedelta(hours=1), moderator_address=MODERATOR, game_master=GM,
                  everything=True)
    assert report.checked == ["demo"]


# --- the daily digest ------------------------------------------------------------------------------------------


def test_a_daily_digest_goes_out_when_its_alarm_rings(table: EmeTable) -> None:
    """cy (MAIL DAILY) keeps news; the alarm is a day after the first of them, and the digest goes then."""
    before = cy_keeps_daily_news(table)
    tick(table.db, NOW + timedelta(hours=1), moderator_address=MODERATOR)
    ring = alarm(table.db, table.name)
    assert ring is not None and NOW < ring <= NOW + timedelta(days=1)
    assert tick(table.db, ring - timedelta(seconds=1), moderator_address=MODERATOR).checked == []
    tick(table.db, ring, moderator_address=MODERATOR)
    digests = [row for row in table.outbox()[before:] if row.purpose == "digest"]
    assert [row.recipient for row in digests] == [dict(PLAYERS)["cy"]]
    assert alarm(table.db, table.name) == NEVER  # news sent, no deadline: nothing more until something changes
