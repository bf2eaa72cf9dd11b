"""The game master's tools: game show, force, undo, replace, pause/resume, resend; and their CLI commands."""
from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import update
from sqlmodel import select
from typer.testing import CliRunner

from engine.imperial2030.decisions import DecisionKind, pending
from engine.imperial2030.game import replay
from engine.imperial2030.mapfile import default_board
from engine.imperial2030.serialize import state_to_json
from pbem import store
from pbem.cli import app
from pbem.config import parse_config
from pbem.errors import BadSetup, GameNotFound, UnknownPlayer
from pbem.games.imperial2030.statejson import state_json
from pbem.moderator import Moderator, gamemaster
from pbem.moderator.deadlines import decision_since
from pbem.moderator.gamemaster import GameMasterError, GamePaused, MailContext, NothingToUndo
from pbem.moderator.tick import tick
from pbem.render.text import problems
from pbem.store import Database
from pbem.store import waiting as waiting_store
from pbem.store.models import ActionRow, GameRow, SnapshotRow
from pbem.store.outbox import OutboxRow, mail_for_game
from pbem.store.settings import load_settings
from pbem.store.tokens import issue_token, seat_for_token
from tests.imperialpositions import SUEZ_MOVE
from tests.moderatorkit import PLAYERS, suez_game

MAIL = MailContext.make(moderator_address="pbem@games.example", game_master="gm@example.org")


@pytest.fixture
def mod(tmp_path: Path) -> Moderator:
    return Moderator(Database(f"sqlite:///{tmp_path / 'pbem.db'}"))


def two_player_game(mod: Moderator, name: str = "demo") -> None:
    """ann governs Russia and moves first; bob holds the investor card."""
    mod.create_game(name, PLAYERS[:2], deal=[("russia", "ann")], seed=1)


def mails(mod: Moderator, name: str = "demo", purpose: str | None = None) -> list[OutboxRow]:
    with mod.db.transaction() as session:
        rows = mail_for_game(session, store.find_game(session, name).id)  # type: ignore[arg-type]
    return [r for r in rows if purpose is None or r.purpose == purpose]


def log_of(mod: Moderator, name: str = "demo"):  # type: ignore[no-untyped-def]
    with mod.db.transaction() as session:
        return store.load_log(session, store.find_game(session, name))


def replayed(mod: Moderator, name: str = "demo"):  # type: ignore[no-untyped-def]
    with mod.db.transaction() as session:
        game = store.find_game(session, name)
        return replay(default_board(), store.game_setup(game), store.load_log(session, game))


def since(mod: Moderator, name: str = "demo") -> datetime:
    with mod.db.transaction() as session:
        return decision_since(session, store.find_game(session, name))


# --- game show -----------------------------------------------------------------------------------------------


def test_game_show(mod: Moderator) -> None:
    suez_game(mod)
    mod.submit("suez", "ann", SUEZ_MOVE)
    view = gamemaster.game_show(mod.db, "suez")
    version = mod.state("suez").version
    assert (view.name, view.status, view.paused, view.version) == ("suez", "active", False, version)
    assert [(s.seat, s.name, s.email, s.token) for s in view.seats] == [
        (1, "ann", "ann@example.org", False), (2, "bob", "bob@example.org", False)]
    assert view.seats[0].governs == ("China", "Brazil", "Europe")
    (p,) = view.pending
    assert (p.player, p.kind, p.nation, p.out_of_turn, p.default) == ("bob", "canal", "India", True, "ALLOW")
    assert p.due == p.since + timedelta(hours=24) and p.reminders == ()
    assert p.what == "decide for India whether Europe may pass the Suez canal"
    assert view.waiting == {"ann": ((3, "ARMY Paris TO Mumbai HOSTILE"),)}
    assert len(view.recent) == 10 and view.recent[0].version == version - 1
    assert [a.order for a in view.recent[:2]] == ["FLEET Mediterranean Sea TO Indian Ocean",
                                                  "FLEET Rome TO Mediterranean Sea"]
    assert view.outbox == {}
    assert view.turn.startswith("Round ") and "Europe" in view.turn
    with pytest.raises(GameNotFound):
        gamemaster.game_show(mod.db, "nope")


# --- force ------------------------------------------------------------------------------------------------------


def test_force_orders_for_a_player_and_the_reports_say_so(mod: Moderator) -> None:
    two_player_game(mod)
    done = gamemaster.force(mod.db, "demo", "ANN", "RONDEL investor", mail=MAIL)
    played = done.played
    assert played.ok and played.player == "ann" and (played.version_before, played.version) == (0, 1)
    assert [a.line.text for a in played.applied] == ["RONDEL investor"]
    assert [(e.player, e.version) for e in log_of(mod)] == [("ann", 0)]  # the log is the player's
    (report,) = mails(mod, purpose="report")
    (prompt,) = mails(mod, purpose="prompt")  # bob decides next: one mail, the report and the prompt
    assert report.recipient == "ann@example.org"
    assert prompt.recipient == "bob@example.org" and prompt.headers["decision"] == "investment"
    for r in (report, prompt):
        assert "The game master gave these orders for ann: RONDEL investor." in " ".join(r.body.split())
        assert r.headers["list_id"] == "Imperial 2030 game demo <demo.pbem.games.example>"
    assert "Russia placed its marker on Investor." in " ".join(prompt.body.split())
    assert done.mailed == 2
    assert state_to_json(mod.verify("demo")) == state_to_json(played.state)


def test_a_refused_forced_order_changes_nothing_and_mails_nothing(mod: Moderator) -> None:
    two_player_game(mod)
    done = gamemaster.force(mod.db, "demo", "bob", "RONDEL taxation")
    assert not done.played.ok and done.played.applied == () and done.mailed == 0
    assert "nothing to decide" in done.played.refusal.reason  # type: ignore[union-attr]
    assert mails(mod) == [] and log_of(mod) == []
    with pytest.raises(UnknownPlayer):
        gamemaster.force(mod.db, "demo", "zed", "PASS")


def test_force_answers_a_question_and_waiting_lines_resume(mod: Moderator) -> None:
    suez_game(mod)
    mod.submit("suez", "ann", SUEZ_MOVE)
    played = gamemaster.force(mod.db, "suez", "bob", "ALLOW\nNO FIGHT").played
    assert played.ok
    assert [(a.player, a.line.text) for a in played.applied] == [
        ("bob", "ALLOW"), ("bob", "NO FIGHT"), ("ann", "ARMY Paris TO Mumbai HOSTILE")]
    assert mod.waiting("suez") == {"ann": ()}


# --- undo -------------------------------------------------------------------------------------------------------


def test_undo_restores_the_previous_state_exactly_and_tells_everyone(db_url: str) -> None:
    mod = Moderator(Database(db_url))
    try:
        two_player_game(mod)
        mod.submit("demo", "ann", "RONDEL investor")
        before = mod.state("demo")
        mod.submit("demo", "bob", "BUY russia 4")
        assert mod.state("demo").version == 2
        done = gamemaster.undo(mod.db, "demo", mail=MAIL)
        assert (done.entry.player, done.order, done.version) == ("bob", "BUY Russia 4", 1)
        assert state_to_json(done.state) == state_to_json(before)
        assert state_to_json(mod.state("demo")) == state_to_json(before) == state_to_json(replayed(mod))
        assert [e.version for e in log_of(mod)] == [0]
        with mod.db.transaction() as session:
            game = store.find_game(session, "demo")
            snapshots = session.exec(select(SnapshotRow.version).where(SnapshotRow.game_id == game.id)).all()
        assert list(snapshots) == [1]
        undone = mails(mod, purpose="undo")
        assert sorted(r.recipient for r in undone) == ["ann@example.org", "bob@example.org"]
        for r in undone:
            text = " ".join(r.body.split())
            assert "The game master has undone move 2: bob's BUY Russia 4." in text
            assert "The game stands again as after move 1." in text
            assert "Taken back: bob bought Russia 4." in text
        ann, bob = sorted(undone, key=lambda r: r.recipient)
        assert ann.subject == "[demo] Move 1: move 2 taken back by the game master" and not ann.headers["decision"]
        # bob decides again: the notice carries his prompt, in one mail (no separate prompt)
        assert bob.subject == "[demo] Move 1: please invest with the investor card (move 2 taken back)"
        assert bob.headers["decision"] == "investment" and "Please answer by" in bob.body
        assert mails(mod, purpose="prompt") == []
        # bob decides again, at the same version: a new report is a new mail, not the undone one
        assert mod.submit("demo", "bob", "PASS").ok
        gamemaster.undo(mod.db, "demo", mail=MAIL)
        gamemaster.undo(mod.db, "demo", mail=MAIL)
        assert mod.state("demo").version == 0 and log_of(mod) == []
        with pytest.raises(NothingToUndo, match="no moves to undo"):
            gamemaster.undo(mod.db, "demo")
    finally:
        mod.db.dispose()


def test_undo_restarts_the_deadline_clock(mod: Moderator) -> None:
    two_player_game(mod)
    mod.submit("demo", "ann", "RONDEL investor")
    mod.submit("demo", "bob", "PASS")
    later = datetime.now(UTC) + timedelta(days=5)
    gamemaster.undo(mod.db, "demo", now=later)
    assert since(mod) == later  # bob's investment deadline counts from the undo, not from ann's move
    assert tick(mod.db, later + timedelta(hours=47)).defaults == []
    assert [i.detail for i in tick(mod.db, later + timedelta(hours=48)).defaults] == ["PASS"]


def test_undo_drops_waiting_lines_that_wait_for_nothing(mod: Moderator) -> None:
    suez_game(mod)
    mod.submit("suez", "ann", SUEZ_MOVE)  # the second fleet move asks bob about Suez; line 3 waits
    assert mod.waiting("suez") == {"ann": ((3, "ARMY Paris TO Mumbai HOSTILE"),)}
    done = gamemaster.undo(mod.db, "suez", mail=MAIL)
    assert done.order == "FLEET Mediterranean Sea TO Indian Ocean"
    assert done.dropped == {"ann": ((3, "ARMY Paris TO Mumbai HOSTILE"),)}
    assert mod.waiting("suez") == {}
    (d,) = pending(mod.state("suez"))
    assert (d.player, d.kind) == ("ann", DecisionKind.MANEUVER)
    (ann,) = [r for r in mails(mod, "suez", "undo") if r.recipient == "ann@example.org"]
    assert "were dropped with it" in ann.body
    assert state_to_json(mod.verify("suez")) == state_to_json(done.state)


def test_undo_keeps_waiting_lines_older_than_the_undone_move(mod: Moderator) -> None:
    suez_game(mod)
    mod.submit("suez", "ann", SUEZ_MOVE)
    mod.submit("suez", "bob", "DONATE 1 TO India")  # at any time, while ann's lines wait
    done = gamemaster.undo(mod.db, "suez")
    assert done.order == "DONATE 1 TO India" and done.dropped == {}
    assert mod.waiting("suez") == {"ann": ((3, "ARMY Paris TO Mumbai HOSTILE"),)}


# --- replace ----------------------------------------------------------------------------------------------------


def test_replace_renames_everywhere_and_the_new_player_can_order(db_url: str) -> None:
    mod = Moderator(Database(db_url))
    try:
        suez_game(mod)
        mod.submit("suez", "ann", SUEZ_MOVE)
        with mod.db.transaction() as session:
            issue_token(session, store.seats(session, store.find_game(session, "suez"))[0])
        before = state_json("suez", mod.state("suez"))
        done = gamemaster.replace(mod.db, "suez", "Ann", "cleo", "cleo@example.org", mail=MAIL)
        assert (done.old, done.new, done.email, done.seat) == ("ann", "cleo", "cleo@example.org", 1)
        assert done.token is not None  # a new address: a new token; the old one no longer works
        with mod.db.transaction() as session:
            game = store.find_game(session, "suez")
            assert [p["name"] for p in game.setup["players"]] == ["cleo", "bob"]
            assert game.setup["players"][0]["email"] == "cleo@example.org"
            assert ["europe", "cleo"] in game.setup["deal"]
            assert [(s.name, s.email) for s in store.seats(session, game)] == [
                ("cleo", "cleo@example.org"), ("bob", "bob@example.org")]
            players = set(session.exec(select(ActionRow.player).where(ActionRow.game_id == game.id)).all())
            assert players == {"cleo", "bob"}
            seat = seat_for_token(session, done.token)
            assert seat is not None and seat.name == "cleo"
            assert waiting_store.load_waiting(session, game) == {"cleo": ((3, "ARMY Paris TO Mumbai HOSTILE"),)}
        after = state_json("suez", mod.state("suez"))
        renamed = json.loads(json.dumps(before).replace('"ann"', '"cleo"').replace("ann@example.org",
                                                                                    "cleo@example.org"))
        assert after == renamed  # the same game, another name on the seat
        assert state_to_json(mod.verify("suez")) == state_to_json(done.state)
        # bob answers; cleo's waiting lines (ann's, renamed) go on under her name
        result = mod.submit("suez", "bob", "ALLOW\nNO FIGHT\nALLOW")
        assert result.ok and [part.player for part in result.resumed] == ["cleo", "cleo"]
        with pytest.raises(UnknownPlayer):
            mod.submit("suez", "ann", "STATUS")
        by = {r.recipient: r for r in mails(mod, "suez", "replace")}
        assert set(by) == {"cleo@example.org", "bob@example.org", "ann@example.org"}
        welcome = " ".join(by["cleo@example.org"].body.split())
        assert f"TOKEN {done.token}" in welcome and f"pbem+{done.token}@games.example" in welcome
        assert by["cleo@example.org"].headers["reply_to"] == f"pbem+{done.token}@games.example"
        assert "cleo takes over seat 1 from ann" in " ".join(by["bob@example.org"].body.split())
        assert "no longer taken" in " ".join(by["ann@example.org"].body.split())
        assert done.token not in by["bob@example.org"].body and done.token not in by["ann@example.org"].body
    finally:
        mod.db.dispose()


def test_a_rename_at_the_same_address_keeps_the_token(mod: Moderator) -> None:
    two_player_game(mod)
    with mod.db.transaction() as session:
        token = issue_token(session, store.seats(session, store.find_game(session, "demo"))[1])
    done = gamemaster.replace(mod.db, "demo", "bob", "Robert", "bob@example.org")
    assert done.token is None
    with mod.db.transaction() as session:
        assert seat_for_token(session, token).name == "Robert"  # type: ignore[union-attr]
    assert mod.submit("demo", "ann", "RONDEL investor").ok
    assert mod.submit("demo", "robert", "PASS").ok


@pytest.mark.parametrize(("old", "new", "email", "error"), [
    ("zed", "cleo", "cleo@example.org", "not a player"),
    ("ann", "Bob", "cleo@example.org", "already a player"),
    ("ann", "cleo", "BOB@example.org", "the address of bob"),
    ("ann", "9lives", "cleo@example.org", "bad player name"),
    ("ann", "cleo", "not-an-address", "bad email address"),
    ("ann", "ann", "ann@example.org", "nothing to change"),
])
def test_replace_refuses_bad_input_and_changes_nothing(mod: Moderator, old: str, new: str, email: str,
                                                       error: str) -> None:
    two_player_game(mod)
    with pytest.raises((BadSetup, UnknownPlayer), match=error):
        gamemaster.replace(mod.db, "demo", old, new, email)
    assert mod.seats("demo") == PLAYERS[:2] and mails(mod) == []


# --- pause and resume ------------------------------------------------------------------------------------------


def test_pause_refuses_orders_and_resume_restarts_the_clock(mod: Moderator) -> None:
    two_player_game(mod)
    mod.submit("demo", "ann", "RONDEL investor")
    start = since(mod)
    done = gamemaster.pause(mod.db, "demo", mail=MAIL, now=start + timedelta(hours=1))
    assert done.paused and done.mailed == 2 and gamemaster.is_paused(mod.db, "demo")
    with mod.db.transaction() as session:
        with pytest.raises(GamePaused, match="paused"):
            gamemaster.refuse_if_paused(session, store.find_game(session, "demo"))
    with pytest.raises(GameMasterError, match="paused already"):
        gamemaster.pause(mod.db, "demo")
    assert tick(mod.db, start + timedelta(days=9)).paused == ["demo"]  # deadlines stand still
    assert all("paused" in r.body for r in mails(mod, purpose="pause"))

    back = start + timedelta(days=10)
    done = gamemaster.resume(mod.db, "demo", mail=MAIL, now=back)
    assert not done.paused and not gamemaster.is_paused(mod.db, "demo")
    (d,) = done.deadlines
    assert (d.player, d.kind, d.due) == ("bob", "investment", back + timedelta(hours=48))
    assert since(mod) == back
    resumed = mails(mod, purpose="resume")
    assert sorted(r.recipient for r in resumed) == ["ann@example.org", "bob@example.org"]
    assert "Deadlines count from now: bob: invest with the investor card" in " ".join(resumed[0].body.split())
    (prompt,) = [r for r in resumed if r.headers["decision"]]  # the resume notice carries bob's prompt
    assert prompt.recipient == "bob@example.org" and mails(mod, purpose="prompt") == []
    assert prompt.subject == "[demo] Move 1: please invest with the investor card (game resumed)"
    assert f"Please answer by {back + timedelta(hours=48):%A %Y-%m-%d %H:%M} UTC." in prompt.body
    with mod.db.transaction() as session:
        gamemaster.refuse_if_paused(session, store.find_game(session, "demo"))  # no error now
    assert tick(mod.db, back + timedelta(hours=47)).defaults == []
    assert [i.detail for i in tick(mod.db, back + timedelta(hours=48)).defaults] == ["PASS"]
    with pytest.raises(GameMasterError, match="not paused"):
        gamemaster.resume(mod.db, "demo")


def test_force_works_in_a_paused_game(mod: Moderator) -> None:
    two_player_game(mod)
    gamemaster.pause(mod.db, "demo")
    assert gamemaster.force(mod.db, "demo", "ann", "RONDEL investor").played.ok
    assert gamemaster.is_paused(mod.db, "demo")


# --- resend -----------------------------------------------------------------------------------------------------


def test_resend_queues_the_current_report_and_prompt_with_new_ids(mod: Moderator) -> None:
    two_player_game(mod)
    mod.submit("demo", "ann", "RONDEL investor")
    done = gamemaster.resend(mod.db, "demo", mail=MAIL)
    assert done.version == 1
    assert sorted(done.mails) == [("ann", "report"), ("bob", "prompt")]  # bob's report and prompt: one mail
    rows = mails(mod, purpose="resend")
    assert len(rows) == 2 and len({r.message_id for r in rows}) == 2
    for r in rows:
        assert "Sent again at the game master's request" in " ".join(r.body.split())
    (report,) = [r for r in rows if r.recipient == "ann@example.org"]
    assert "Russia placed its marker on Investor." in " ".join(report.body.split())  # the last message's events
    (prompt,) = [r for r in rows if r.headers.get("decision")]
    assert prompt.recipient == "bob@example.org" and prompt.subject.endswith("(sent again)")
    assert "Russia placed its marker on Investor." in " ".join(prompt.body.split())
    again = gamemaster.resend(mod.db, "demo", "BOB", mail=MAIL, now=datetime.now(UTC) + timedelta(seconds=1))
    assert sorted(again.mails) == [("bob", "prompt")]
    assert len(mails(mod, purpose="resend")) == 3
    with pytest.raises(UnknownPlayer):
        gamemaster.resend(mod.db, "demo", "zed")


def test_mail_context() -> None:
    assert MailContext.make().domain == "pbem.invalid"
    assert MailContext.make(moderator_address="m@Games.Example").domain == "games.example"
    assert MailContext.make(mail_domain="x.example", moderator_address="m@games.example").domain == "x.example"
    with pytest.raises(GameMasterError):
        MailContext.make(moderator_address="nobody")
    config = parse_config({"moderator": {"address": "m@games.example", "name": "The Game Master"}}, None, {})
    assert MailContext.from_config(config).name == "The Game Master"  # the From of the commands' mail


# --- the CLI ----------------------------------------------------------------------------------------------------


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'cli.db'}"


def cli(runner: CliRunner, url: str, *args: str, input: str | None = None,  # type: ignore[no-untyped-def]
        config: Path | None = None):
    return runner.invoke(app, ["--database", url, *(["--config", str(config)] if config else []), *args],
                         input=input)


def mail_config(tmp_path: Path) -> Path:
    """A configuration with mail: the game master's commands queue mail and say so."""
    path = tmp_path / "pbem.toml"
    path.write_text('[moderator]\naddress = "pbem@games.example"\n[smtp]\nhost = "127.0.0.1"\n')
    return path


def cli_game(runner: CliRunner, url: str) -> None:
    result = cli(runner, url, "game", "new", "demo", "--player", "ann:ann@example.org",
                 "--player", "bob:bob@example.org", "--deal", "russia=ann", "--seed", "1")
    assert result.exit_code == 0, result.output


def age(url: str, hours: float, name: str = "demo") -> None:
    """Move the game's clock back by ``hours`` (creation, log and outbox times)."""
    db = Database(url)
    with db.transaction() as session:
        game = store.find_game(session, name)
        session.exec(update(GameRow).where(GameRow.id == game.id)  # type: ignore[call-overload]
                     .values(created=game.created - timedelta(hours=hours)))
        for row in session.exec(select(ActionRow).where(ActionRow.game_id == game.id)).all():
            row.applied = row.applied - timedelta(hours=hours)
            session.add(row)
        for row in session.exec(select(OutboxRow).where(OutboxRow.game_id == game.id)).all():
            row.created = row.created - timedelta(hours=hours)
            session.add(row)
    db.dispose()


def test_cli_game_show_force_and_undo(runner: CliRunner, url: str, tmp_path: Path) -> None:
    cli_game(runner, url)
    config = mail_config(tmp_path)
    result = cli(runner, url, "force", "demo", "--as", "ann", "-", input="RONDEL investor\n", config=config)
    assert result.exit_code == 0, result.output
    assert "Game demo, orders for ann given by the game master: move 0 -> 1." in result.stdout
    assert "line 1: RONDEL investor" in result.stdout and "Mails queued: 2." in result.stdout
    assert "Waiting for bob (investment" in result.stdout

    result = cli(runner, url, "game", "show", "demo")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Game demo: active, move 1, created " in out
    assert "  1. ann <ann@example.org>  governs Russia, India, USA" in out
    assert "  bob: invest with the investor card (investment)" in out
    assert "then the game takes PASS" in out
    assert "     1  ann  RONDEL investor  (" in out
    assert "Outbox: 2 queued." in out
    assert "Deadlines: rondel 72h" in out

    result = cli(runner, url, "force", "demo", "--as", "ann", "RONDEL taxation")
    assert result.exit_code == 1 and "REFUSED line 1: RONDEL taxation" in result.stdout

    result = cli(runner, url, "undo", "demo", config=config)
    assert result.exit_code == 0, result.output
    assert "Game demo: undid move 1 (ann: RONDEL investor); back at move 0." in result.stdout
    assert "Mails queued: 2." in result.stdout  # two undo notices, ann's with her prompt
    result = cli(runner, url, "undo", "demo")
    assert result.exit_code == 2 and "error: game 'demo' has no moves to undo" in result.stderr
    result = cli(runner, url, "game", "show", "nope")
    assert result.exit_code == 2 and result.stderr.startswith("error: no game named 'nope'")


def test_cli_replace_pause_resume_resend(runner: CliRunner, url: str, tmp_path: Path) -> None:
    cli_game(runner, url)
    config = mail_config(tmp_path)
    result = cli(runner, url, "replace", "demo", "bob", "cleo", "--email", "cleo@example.org", config=config)
    assert result.exit_code == 0, result.output
    assert "cleo <cleo@example.org> takes over seat 2 from bob; a new reply token was issued" in result.stdout
    result = cli(runner, url, "replace", "demo", "bob", "dan", "--email", "dan@example.org")
    assert result.exit_code == 2 and "'bob' is not a player" in result.stderr
    result = cli(runner, url, "replace", "demo", "cleo", "dan")
    assert result.exit_code == 2  # --email is required

    result = cli(runner, url, "pause", "demo", config=config)
    assert result.exit_code == 0 and "Game demo is paused. Mails queued: 2." in result.stdout
    assert "PAUSED" in cli(runner, url, "game", "show", "demo").stdout
    result = cli(runner, url, "pause", "demo")
    assert result.exit_code == 2 and "error: game 'demo' is paused already" in result.stderr
    result = cli(runner, url, "resume", "demo", config=config)
    assert result.exit_code == 0 and "Game demo is running again." in result.stdout
    assert "  ann (rondel): deadline " in result.stdout

    result = cli(runner, url, "resend", "demo", "--to", "cleo", config=config)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == ["Queued the report for cleo again.", "Mails queued: 1."]
    result = cli(runner, url, "resend", "demo", config=config)
    assert result.stdout.splitlines() == ["Queued the prompt for ann again.", "Queued the report for cleo again.",
                                          "Mails queued: 2."]  # ann's report and prompt in one mail


def test_cli_order_with_a_mail_configuration_mails_every_seat_as_a_mailed_order(runner: CliRunner, url: str,
                                                                                  tmp_path: Path) -> None:
    """docs/game-master.md: with a mail configuration, commands that change a game queue the mails that tell the
    players; `pbem order` too. ann is told as any seat (no reply: she sees the outcome on the console); bob, who
    must invest next, gets the report and his prompt in one mail."""
    cli_game(runner, url)
    result = cli(runner, url, "order", "demo", "--as", "ann", "RONDEL investor", config=mail_config(tmp_path))
    assert result.exit_code == 0, result.output
    assert "line 1: RONDEL investor" in result.stdout and result.stdout.rstrip().endswith("Mails queued: 2.")
    db = Database(url)
    with db.transaction() as session:
        rows = mail_for_game(session, store.find_game(session, "demo").id)  # type: ignore[arg-type]
    db.dispose()
    assert sorted((r.recipient, r.purpose, r.headers["decision"]) for r in rows) == [
        ("ann@example.org", "report", None), ("bob@example.org", "prompt", "investment")]
    assert all("Russia placed its marker on Investor." in " ".join(r.body.split()) for r in rows)
    assert all(r.headers["reply_to"].startswith("pbem+") and r.headers["in_reply_to"] is not None for r in rows)
    result = cli(runner, url, "order", "demo", "--as", "bob", "RONDEL taxation", config=mail_config(tmp_path))
    assert result.exit_code == 1 and "Mails queued: 0." in result.stdout  # a refusal is shown, not mailed


def test_cli_order_to_a_paused_game_is_refused_and_changes_nothing(runner: CliRunner, url: str) -> None:
    """`pbem order` refuses a paused game as mail does (exit 1, nothing applied); `force` still works."""
    cli_game(runner, url)
    assert cli(runner, url, "pause", "demo").exit_code == 0
    result = cli(runner, url, "order", "demo", "--as", "ann", "RONDEL taxation")
    assert result.exit_code == 1, result.output
    assert "Game demo is paused by the game master: nothing was applied." in result.stdout
    assert Moderator(Database(url)).state("demo").version == 0
    result = cli(runner, url, "force", "demo", "--as", "ann", "RONDEL investor")
    assert result.exit_code == 0, result.output
    assert Moderator(Database(url)).state("demo").version > 0


def test_cli_deadlines_tick_with_a_game_master_from_the_config(runner: CliRunner, url: str, tmp_path: Path) -> None:
    config = tmp_path / "pbem.toml"
    config.write_text('[moderator]\naddress = "pbem@games.example"\ngame_master = "gm@example.org"\n')
    cli_game(runner, url)
    result = cli(runner, url, "deadlines", "tick")
    assert result.exit_code == 0 and result.stdout.strip() == "Nothing due (1 active game checked)."
    age(url, 49)
    result = runner.invoke(app, ["--database", url, "--config", str(config), "deadlines", "tick"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("demo: reminded ann (rondel, due ")
    age(url, 24)
    result = runner.invoke(app, ["--database", url, "--config", str(config), "deadlines", "tick"])
    assert "demo: ann is past the deadline (rondel, due " in result.stdout
    assert result.stdout.rstrip().endswith("game master alerted")
    db = Database(url)
    with db.transaction() as session:
        rows = mail_for_game(session, store.find_game(session, "demo").id)  # type: ignore[arg-type]
        assert not load_settings(session, store.find_game(session, "demo")).paused
    db.dispose()
    assert [(r.recipient, r.purpose) for r in rows] == [("ann@example.org", "reminder"), ("gm@example.org", "stalled")]
    assert all(r.message_id.endswith("@games.example>") for r in rows)


def test_every_mail_of_the_game_master_and_the_tick_has_the_mail_flows_headers(mod: Moderator) -> None:
    """Reminders, the stalled alert, forced moves and notices are written by the mail flow's composer: From and its
    name, Date, Auto-Submitted, List-Id, the game's thread, and a seat's token as Reply-To (none to the game master)."""
    two_player_game(mod)
    start = since(mod)
    tick(mod.db, start + timedelta(hours=49), moderator_address="pbem@games.example", game_master="gm@example.org")
    tick(mod.db, start + timedelta(hours=73), moderator_address="pbem@games.example", game_master="gm@example.org")
    gamemaster.force(mod.db, "demo", "ann", "RONDEL investor", mail=MAIL)
    gamemaster.undo(mod.db, "demo", mail=MAIL)
    rows = mails(mod)
    assert {r.purpose for r in rows} == {"reminder", "stalled", "report", "prompt", "undo"}
    with mod.db.transaction() as session:
        root = load_settings(session, store.find_game(session, "demo")).thread_root
    assert root
    for row in rows:
        h = row.headers
        assert (h["from"], h["auto_submitted"], h["list_id"]) == (
            "pbem@games.example", "auto-generated", "Imperial 2030 game demo <demo.pbem.games.example>"), row.purpose
        assert h["date"] and h["references"][0] == root and h["in_reply_to"], row.purpose
        if row.recipient == "gm@example.org":
            assert h["reply_to"] is None and h["to_name"] == ""
        else:
            assert h["reply_to"].startswith("pbem+") and h["to_name"] in ("ann", "bob"), row.purpose
        assert h["from_name"] == "", row.purpose  # the sender puts the configured name (MailContext.from_config)


def test_every_mail_of_the_game_master_is_fit_for_mail(mod: Moderator) -> None:
    """Pure ASCII, at most 78 columns, no trailing blanks; one-line subjects; unique Message-IDs."""
    suez_game(mod)
    mod.submit("suez", "ann", SUEZ_MOVE)
    start = since(mod, "suez")
    tick(mod.db, start + timedelta(hours=24), moderator_address="pbem@games.example", game_master="gm@example.org")
    gamemaster.force(mod.db, "suez", "bob", "FIGHT", mail=MAIL)
    gamemaster.undo(mod.db, "suez", mail=MAIL)
    gamemaster.replace(mod.db, "suez", "bob", "Bartholomew-the-Long", "bart@example.org", mail=MAIL)
    gamemaster.pause(mod.db, "suez", mail=MAIL)
    gamemaster.resume(mod.db, "suez", mail=MAIL)
    gamemaster.resend(mod.db, "suez", mail=MAIL)
    rows = mails(mod, "suez")
    assert {r.purpose for r in rows} == {"report", "prompt", "undo", "replace", "pause", "resume", "resend"}
    for row in rows:
        assert problems(row.body) == [], (row.purpose, problems(row.body))
        assert "\n" not in row.subject and row.subject.startswith("[suez] ")
    assert len({r.message_id for r in rows}) == len(rows)
