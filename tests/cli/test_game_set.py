"""`pbem game set NAME key=value ...`: a running game's deadlines, reminders and open cash, all or nothing."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem import store
from pbem.cli import app
from pbem.moderator.deadlines import game_deadlines
from pbem.store import Database
from pbem.store.settings import load_settings

Run = Callable[..., tuple[int, str]]


@pytest.fixture
def pbem(tmp_path: Path) -> Run:
    url = f"sqlite:///{tmp_path / 'p.db'}"

    def run(*args: str) -> tuple[int, str]:
        result = CliRunner().invoke(app, ["--database", url, *args])
        return result.exit_code, result.output

    run("game", "new", "e", "--kind", "eight-minute-empire", "--player", "ann:a@x.org", "--player", "bob:b@x.org",
        "--seed", "3")
    run.url = url  # type: ignore[attr-defined]
    return run


def hours(url: str) -> dict[str, float]:
    db = Database(url)
    with db.transaction() as session:
        found = load_settings(session, store.find_game(session, "e")).deadline_hours
    db.dispose()
    return dict(found)


def test_a_game_made_without_mail_has_its_own_kinds_deadlines(pbem: Run) -> None:
    """R8-BID-3, R8-TURN-4: the bid and the turn have deadlines even where no configuration names them."""
    assert hours(pbem.url) == {"neutral": 48.0, "bid": 48.0, "take": 48.0, "action": 48.0}  # type: ignore[attr-defined]


def test_set_changes_deadlines_and_reminders_and_says_what_changed(pbem: Run) -> None:
    code, out = pbem("game", "set", "e", "deadline.bid=12", "deadline.default=30", "reminders=6,1")
    assert code == 0
    assert out.strip() == "Game e: deadline.bid: 48h -> 12h; deadline.default: none -> 30h; reminders: 24h -> 6h,1h."
    _, shown = pbem("game", "show", "e")
    assert "bid 12h" in shown and "other 30h" in shown and "reminders 6h, 1h before" in shown


def test_reminders_none_stays_none_after_another_change(pbem: Run) -> None:
    """Reminders turned off stay off: the stored empty list was read back as the default 24 hours."""
    assert pbem("game", "set", "e", "reminders=none")[0] == 0
    code, out = pbem("game", "set", "e", "deadline.bid=12")
    assert code == 0 and "reminders" not in out
    db = Database(pbem.url)  # type: ignore[attr-defined]
    with db.transaction() as session:
        assert load_settings(session, store.find_game(session, "e")).reminder_hours == ()
    db.dispose()


def test_a_changed_deadline_applies_to_the_decisions_pending_now(pbem: Run) -> None:
    pbem("game", "set", "e", "deadline.bid=5")
    db = Database(pbem.url)  # type: ignore[attr-defined]
    with db.transaction() as session:
        game = store.find_game(session, "e")
        due = [d.due - d.since for d in game_deadlines(session, game, store.load_state(session, game))]
    db.dispose()
    assert {d.total_seconds() for d in due} == {5 * 3600}


@pytest.mark.parametrize(("pair", "message"), [
    ("deadline.rondel=3", "'rondel' is no decision of this game; its decisions: neutral, bid, take, action"),
    ("deadline.bid=soon", "give hours as a number"),
    ("bogus=1", "'bogus' is no setting; keys: deadline.<decision>, deadline.default, reminders, open_cash, mail"),
    ("absent=maybe", "absent=maybe: one of alert, bot"),
    ("mail=weekly", "mail=weekly: one of every, turn, round, daily"),
    ("open_cash=maybe", "write on or off"),
    ("deadline.bid", "write key=value"),
])
def test_one_bad_pair_changes_nothing_and_names_the_fault(pbem: Run, pair: str, message: str) -> None:
    before = hours(pbem.url)  # type: ignore[attr-defined]
    code, out = pbem("game", "set", "e", "deadline.take=1", pair)
    assert code != 0 and message in " ".join(out.split())
    assert hours(pbem.url) == before  # type: ignore[attr-defined]
