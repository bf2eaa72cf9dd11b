"""Deadlines: computed per kind of decision, reminders once, passive defaults on expiry, the game master alerted.

Time is the tick's ``now``; a game's clock starts at its creation or its last
answering move (their stored times), so every test counts hours from there.
"""
from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import update

from engine.imperial2030 import rules as imperial_rules
from engine.imperial2030.actions import Done, Fight, ForceStop, Pass, Passage, Produce
from engine.imperial2030.decisions import Decision, DecisionKind, pending
from engine.imperial2030.serialize import state_to_json
from pbem import store
from pbem.games.imperial2030.orders import apply_message
from pbem.moderator import Moderator
from pbem.moderator import deadlines as deadlines_module
from pbem.moderator.deadlines import CLOCK_PURPOSES, Deadline, deadlines
from pbem.moderator.tick import tick
from pbem.render.text import problems
from pbem.store import Database
from pbem.store.models import ActionRow
from pbem.store.settings import (
    DEFAULT_DEADLINE_HOURS,
    GameSettings,
    load_settings,
    save_settings,
)
from tests.helpers import standard_game
from tests.imperialpositions import SUEZ_MOVE, force_question, investment_question, suez_position
from tests.moderatorkit import GM, mails, run, since, suez_game, two_player_game

T0 = datetime(2030, 5, 6, 12, 0, tzinfo=UTC)


@pytest.fixture
def mod(tmp_path: Path) -> Moderator:
    return Moderator(Database(f"sqlite:///{tmp_path / 'pbem.db'}"))


def settings_of(mod: Moderator, name: str = "demo") -> GameSettings:
    with mod.db.transaction() as session:
        return load_settings(session, store.find_game(session, name))


def set_settings(mod: Moderator, name: str = "demo", **changes: object) -> None:
    with mod.db.transaction() as session:
        game = store.find_game(session, name)
        save_settings(session, game, replace(load_settings(session, game), **changes))  # type: ignore[arg-type]


def assert_replays(mod: Moderator, name: str = "demo") -> None:
    assert state_to_json(mod.verify(name)) == state_to_json(mod.state(name))


# --- the pure computation ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(DecisionKind))
def test_each_kind_gets_its_own_hours_and_reminders(monkeypatch: pytest.MonkeyPatch, kind: DecisionKind) -> None:
    decision = Decision("Anna", "russia", kind, (), None)
    monkeypatch.setattr(imperial_rules, "pending", lambda state: (decision,))
    hours = {k.value: 10.0 + i for i, k in enumerate(DecisionKind)}
    settings = GameSettings(deadline_hours=hours, reminder_hours=(2.0, 5.0, 50.0))
    (d,) = deadlines(standard_game(), settings, T0)
    assert (d.player, d.nation, d.kind) == ("Anna", "russia", kind.value)
    assert d.due == T0 + timedelta(hours=hours[kind.value])
    # reminders oldest first; one that would fall before the clock started (50 h before) is left out
    assert d.reminders == [d.due - timedelta(hours=5), d.due - timedelta(hours=2)]
    assert d.since == T0 and d.decision is decision


def test_default_hours_per_kind() -> None:
    """The shipped defaults: 72 h for a nation's own turn, 48 h to invest, 24 h for the maneuver questions."""
    assert {k.value for k in DecisionKind} == set(DEFAULT_DEADLINE_HOURS)
    cases = [(standard_game(), "rondel", 72, None), (investment_question(), "investment", 48, Pass()),
             (force_question(), "force_stop", 24, ForceStop(False))]
    for state, kind, hours, default in cases:
        (d,) = deadlines(state, GameSettings(), T0)
        # the one default reminder, 24 h before: none for a 24-hour question (it would come with the prompt)
        reminders = [T0 + timedelta(hours=hours - 24)] if hours > 24 else []
        assert (d.kind, d.due, d.reminders) == (kind, T0 + timedelta(hours=hours), reminders)
        assert d.decision is not None and d.decision.default == default and d.passive == (default is not None)


def test_no_deadline_for_a_kind_without_hours_a_finished_game_or_a_naive_clock() -> None:
    state = standard_game()
    assert deadlines(state, GameSettings(deadline_hours={"rondel": 0}), T0) == []
    assert deadlines(state, GameSettings(deadline_hours={}), T0) == []
    (d,) = deadlines(state, GameSettings(), T0.replace(tzinfo=None))  # SQLite hands times back naive: UTC
    assert d.due == T0 + timedelta(hours=72)
    # a reminder at or beyond the whole deadline is not sent (it would come with the prompt)
    (d,) = deadlines(state, GameSettings(reminder_hours=(72.0, 80.0)), T0)
    assert d.reminders == []


def test_real_positions_for_the_out_of_turn_questions() -> None:

    canal = apply_message(suez_position(), "ann", SUEZ_MOVE, end_maneuver=True).state
    (d,) = deadlines(canal, GameSettings(), T0)
    assert (d.player, d.kind, d.decision.default, d.decision.out_of_turn) == ("bob", "canal", Passage(True), True)  # type: ignore[union-attr]
    battle = apply_message(canal, "bob", "ALLOW").state
    (d,) = deadlines(battle, GameSettings(), T0)
    assert (d.player, d.kind, d.decision.default) == ("bob", "battle", Fight(False))  # type: ignore[union-attr]


# --- the clock ---------------------------------------------------------------------------------------------


def test_the_clock_starts_at_creation_then_at_the_last_answer_not_at_a_donation(mod: Moderator) -> None:
    two_player_game(mod)
    with mod.db.transaction() as session:
        created = store.find_game(session, "demo").created
    assert since(mod) == deadlines_module.utc(created)
    mod.submit("demo", "ann", "RONDEL investor")
    mod.submit("demo", "bob", "DONATE 1 TO China")  # at any time: answers nothing
    with mod.db.transaction() as session:
        game = store.find_game(session, "demo")
        session.exec(update(ActionRow).where(ActionRow.game_id == game.id, ActionRow.version == 0)  # type: ignore[call-overload]
                     .values(applied=T0))
        session.exec(update(ActionRow).where(ActionRow.game_id == game.id, ActionRow.version == 1)  # type: ignore[call-overload]
                     .values(applied=T0 + timedelta(hours=30)))
    assert since(mod) == T0
    assert set(CLOCK_PURPOSES) == {"undo", "replace", "resume"}


# --- reminders --------------------------------------------------------------------------------------------------


def test_a_reminder_is_queued_once_even_when_the_tick_runs_twice(db_url: str) -> None:
    mod = Moderator(Database(db_url))
    try:
        two_player_game(mod)
        start = since(mod)
        assert not run(mod, start + timedelta(hours=47)).acted  # reminder due 24 h before the 72 h deadline
        report = run(mod, start + timedelta(hours=48, minutes=1))
        assert [(r.game, r.player, r.kind) for r in report.reminders] == [("demo", "ann", "rondel")]
        again = run(mod, start + timedelta(hours=49))
        assert again.reminders == [] and not again.acted
        # a second process with its own connection: still once (the Message-ID is stable)
        other = Moderator(Database(db_url))
        assert run(other, start + timedelta(hours=50)).reminders == []
        other.db.dispose()
        (mail,) = mails(mod, purpose="reminder")
        assert mail.recipient == "ann@example.org" and mail.version == 0
        assert mail.headers["decision"] == "rondel"
        assert mail.message_id.endswith("@games.example>")
        assert mail.subject.startswith("[demo] Move 0: reminder: please choose a rondel space for Russia by ")
        assert "REMINDER" in mail.body and "Please answer by" in mail.body
        assert "the game master is asked to step in" in mail.body  # a rondel decision has no default
        assert "Your options:" in mail.body  # the prompt itself follows
        assert problems(mail.body) == []
        assert mod.state("demo").version == 0
    finally:
        mod.db.dispose()


def test_only_the_latest_due_reminder_is_sent(mod: Moderator) -> None:
    two_player_game(mod)
    set_settings(mod, reminder_hours=(48.0, 24.0))
    start = since(mod)
    report = run(mod, start + timedelta(hours=50))  # both are due now: only the one 24 h before is sent
    assert len(report.reminders) == 1
    (mail,) = mails(mod, purpose="reminder")
    assert "about 24 hours from this reminder" in " ".join(mail.body.split())
    assert run(mod, start + timedelta(hours=60)).reminders == []


# --- passive defaults ---------------------------------------------------------------------------------------------


def test_an_unanswered_investment_passes_and_the_game_moves_on(db_url: str) -> None:
    mod = Moderator(Database(db_url))
    try:
        two_player_game(mod)
        mod.submit("demo", "ann", "RONDEL investor")
        (d,) = pending(mod.state("demo"))
        assert (d.player, d.kind, d.default) == ("bob", DecisionKind.INVESTMENT, Pass())
        start = since(mod)
        assert run(mod, start + timedelta(hours=47, minutes=59)).defaults == []
        now = start + timedelta(hours=48)
        report = run(mod, now)
        assert [(i.player, i.kind, i.detail) for i in report.defaults] == [("bob", "investment", "PASS")]
        state = mod.state("demo")
        assert state.version == 2
        (d,) = pending(state)
        assert (d.player, d.kind) == ("bob", DecisionKind.RONDEL)  # China's turn: the game moved on
        assert_replays(mod)
        with mod.db.transaction() as session:
            game = store.find_game(session, "demo")
            (last,) = [e for e in store.load_log(session, game) if e.version == 1]
            rows = session.exec(store.ActionRow.__table__.select().where(  # type: ignore[attr-defined]
                ActionRow.game_id == game.id, ActionRow.version == 1)).all()
        assert (last.player, last.action) == ("bob", Pass())
        assert rows[0].applied.replace(tzinfo=UTC) == now  # logged at the tick's time
        (report,) = mails(mod, purpose="report")
        (prompt,) = mails(mod, purpose="prompt")  # bob decides next: the report and his prompt in one mail
        assert report.recipient == "ann@example.org"
        assert prompt.recipient == "bob@example.org" and prompt.headers["decision"] == "rondel"
        for r in (report, prompt):
            assert r.version == 2
            assert "No answer by the deadline: PASS." in r.body
            assert "bob did not invest." in r.body
        # the next decision's clock starts at the expiry: its deadline is 72 h later, in the prompt
        due = now + timedelta(hours=72)
        assert f"Please answer by {due:%A %Y-%m-%d %H:%M} UTC." in prompt.body
        assert since(mod) == now
        assert run(mod, now + timedelta(hours=1)).defaults == []  # nothing applied twice
        assert mod.state("demo").version == 2
    finally:
        mod.db.dispose()


def test_canal_allows_battle_does_not_fight_and_the_waiting_lines_go_on(mod: Moderator) -> None:
    suez_game(mod)
    result = mod.submit("suez", "ann", SUEZ_MOVE)
    assert result.waiting is not None and mod.waiting("suez") == {"ann": ((3, "ARMY Paris TO Mumbai HOSTILE"),)}
    now = since(mod, "suez") + timedelta(hours=24)
    report = run(mod, now)
    assert [(i.player, i.kind, i.detail) for i in report.defaults] == [("bob", "canal", "ALLOW")]
    (d,) = pending(mod.state("suez"))
    assert (d.player, d.kind) == ("bob", DecisionKind.BATTLE)

    now += timedelta(hours=24)
    report = run(mod, now)
    assert [(i.player, i.kind, i.detail) for i in report.defaults] == [("bob", "battle", "NO FIGHT")]
    # no fight: ann's waiting army line went on, and its convoy through Suez asks bob again
    assert mod.waiting("suez") == {"ann": ()}
    (d,) = pending(mod.state("suez"))
    assert (d.player, d.kind) == ("bob", DecisionKind.CANAL)

    now += timedelta(hours=24)
    assert [i.detail for i in run(mod, now).defaults] == ["ALLOW"]
    state = mod.state("suez")
    assert mod.waiting("suez") == {}
    assert state.nations["europe"].hostile == {"mumbai": 1}
    assert state.turn is not None and state.turn.nation == "russia"  # ann's message ended her maneuver
    assert_replays(mod, "suez")
    bodies = [r.body for r in mails(mod, "suez", "report") if r.recipient == "ann@example.org"]
    told = [next(line for line in b.splitlines() if "No answer by the deadline" in line).strip() for b in bodies]
    assert [line.split(".")[0] for line in told] == [f"No answer by the deadline: {order}"
                                                     for order in ("ALLOW", "NO FIGHT", "ALLOW")]
    assert "Europe moved an army from Paris to Mumbai" in bodies[-1]


def test_production_takes_every_factory(mod: Moderator) -> None:
    """A nation's own decision with a default takes it too: the prompt promised it."""
    two_player_game(mod)
    mod.submit("demo", "ann", "RONDEL production")
    (d,) = pending(mod.state("demo"))
    assert (d.kind, d.default) == (DecisionKind.PRODUCTION, Produce(None))
    report = run(mod, since(mod) + timedelta(hours=72))
    assert [(i.player, i.kind, i.detail) for i in report.defaults] == [("ann", "production", "PRODUCE")]
    assert report.alerts == []
    state = mod.state("demo")
    assert state.nations["russia"].armies == {"moscow": 1} and state.nations["russia"].fleets
    (d,) = pending(state)
    assert (d.player, d.nation) == ("bob", "china")
    assert_replays(mod)


def test_a_maneuver_ends_with_done(mod: Moderator) -> None:
    suez_game(mod)
    (d,) = pending(mod.state("suez"))
    assert (d.kind, d.default) == (DecisionKind.MANEUVER, Done())
    report = run(mod, since(mod, "suez") + timedelta(hours=72))
    assert [(i.player, i.kind, i.detail) for i in report.defaults] == [("ann", "maneuver", "DONE")]
    state = mod.state("suez")
    assert state.turn is not None and state.turn.nation == "russia"
    assert_replays(mod, "suez")


def test_a_paused_game_is_left_alone(mod: Moderator) -> None:
    two_player_game(mod)
    mod.submit("demo", "ann", "RONDEL investor")
    set_settings(mod, paused=True)
    report = run(mod, since(mod) + timedelta(days=30))
    assert report.paused == ["demo"] and not report.acted and mods_version(mod) == 1
    assert "demo: paused, deadlines not applied" in report.lines()
    set_settings(mod, paused=False)
    assert run(mod, since(mod) + timedelta(days=30)).defaults  # (without resume the clock did not restart)


def mods_version(mod: Moderator, name: str = "demo") -> int:
    return mod.state(name).version


def test_finished_games_and_other_games_are_not_ticked(mod: Moderator) -> None:
    two_player_game(mod, "a")
    two_player_game(mod, "b")
    with mod.db.transaction() as session:
        store.set_status(session, store.find_game(session, "b"), store.GameStatus.FINISHED)
    report = run(mod, since(mod, "a") + timedelta(hours=100))
    assert report.checked == ["a"]
    assert tick(mod.db, since(mod, "a") + timedelta(hours=100), games=["x"]).checked == []


# --- the game master ------------------------------------------------------------------------------------------------


def test_a_stalled_rondel_decision_alerts_the_game_master_once(mod: Moderator) -> None:
    two_player_game(mod)
    start = since(mod)
    report = run(mod, start + timedelta(hours=72))
    assert report.defaults == []
    assert [(i.player, i.kind) for i in report.alerts] == [("ann", "rondel")]
    assert [(i.player, i.kind, i.detail) for i in report.stalled] == [("ann", "rondel", "game master alerted")]
    again = run(mod, start + timedelta(hours=80))
    assert again.alerts == [] and [i.detail for i in again.stalled] == ["game master alerted before"]
    (alert,) = mails(mod, purpose="stalled")
    assert alert.recipient == GM
    assert alert.subject == "[demo] Stalled: ann is past the deadline (rondel)"
    assert "pbem force demo --as ann" in alert.body and "no default answer" in alert.body
    assert problems(alert.body) == []
    assert mods_version(mod) == 0  # nothing was decided for ann
    assert any("past the deadline" in line for line in again.lines())


def test_without_a_game_master_address_the_stall_is_only_reported(mod: Moderator) -> None:
    two_player_game(mod)
    report = run(mod, since(mod) + timedelta(hours=73), game_master=None)
    assert report.alerts == [] and mails(mod, purpose="stalled") == []
    assert [i.detail for i in report.stalled] == ["no game master address configured"]


def test_a_deadline_of_the_next_decision_is_its_own(mod: Moderator) -> None:
    """After the game master steps in for a stalled decision, the next decision's clock starts then."""
    two_player_game(mod)
    start = since(mod)
    run(mod, start + timedelta(hours=72))
    mod.submit("demo", "ann", "RONDEL investor")
    (d,) = deadlines(mod.state("demo"), settings_of(mod), since(mod))
    assert isinstance(d, Deadline) and d.kind == "investment" and d.due == since(mod) + timedelta(hours=48)


def test_the_tick_loads_no_game_before_anything_can_be_due() -> None:
    may_act = deadlines_module._may_act
    settings = GameSettings()  # the earliest thing: a 24-hour question's deadline, or a 48-hour one's reminder
    assert not may_act(settings, T0, T0 + timedelta(hours=23, minutes=59))
    assert may_act(settings, T0, T0 + timedelta(hours=24))
    assert not may_act(GameSettings(deadline_hours={}), T0, T0 + timedelta(days=999))
    assert may_act(GameSettings(deadline_hours={"rondel": 10}, reminder_hours=(4.0,)), T0, T0 + timedelta(hours=6))
