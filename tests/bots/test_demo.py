"""``pbem demo``: whole games played by email (hub, moderator, bots), checked from the outside.

For 2, 4 and 6 players the demo runs as ``pbem demo`` in its own process
(the three at once), and afterwards its directory is examined on its own:

* the game ended by the rules (a nation reached the power limit, the game is finished);
* the final state equals the replay of the game's log;
* every mail sent was received: each outbox row is sent, and each recipient's
  Maildir holds exactly the mails (by Message-ID) the outbox sent to it; every
  mail the bots sent reached the moderator's Maildir, was recorded once and
  moved to its processed folder; nothing failed.

The seeds are fixed and were chosen among the shorter games of the sensible
bots (the demo is deterministic: a seed always plays the same game), so that
the three games take well under a minute of CPU together.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from email import message_from_bytes
from pathlib import Path

import pytest
from sqlmodel import col
from typer.testing import CliRunner

from engine.imperial2030.serialize import state_to_json
from pbem import store
from pbem.bots.mailio import latest_mail
from pbem.cli import app
from pbem.demo import (
    MODERATOR,
    Demo,
    DemoOptions,
    DemoResult,
    Progress,
    ProgressLine,
    summary_lines,
)
from pbem.games.imperial2030.bot.strategy import decide
from pbem.moderator import Moderator
from pbem.store import Database
from pbem.store.inbound import InboundRow
from pbem.store.models import ActionRow
from pbem.store.outbox import OutboxRow, OutboxStatus

ROOT = Path(__file__).resolve().parents[2]
GAMES = ((2, 28), (4, 7), (6, 10))  # (players, seed)


def message_ids(maildir: Path) -> list[str]:
    """The Message-IDs of every mail in a Maildir and its Maildir++ folders."""
    found = []
    for directory, _, names in os.walk(maildir):
        if Path(directory).name not in ("cur", "new"):
            continue
        for name in names:
            parsed = message_from_bytes((Path(directory) / name).read_bytes())
            found.append(str(parsed["Message-ID"]).strip())
    return found


def check_demo(directory: Path, players: int) -> dict:
    result = json.loads((directory / "result.json").read_text())
    assert result["finished"] and not result["timed_out"]
    db = Database(f"sqlite:///{directory / 'pbem.db'}")
    try:
        moderator = Moderator(db)
        state = moderator.state("demo")
        # the game ended by the rules
        assert state.finished
        power_max = state.board.tables.power_max
        assert max(ns.power for ns in state.nations.values()) >= power_max
        assert len(state.seating) == players
        with db.transaction() as session:
            game = store.find_game(session, "demo")
            assert game.status == store.GameStatus.FINISHED
            replayed = store.replay_game(session, game)
            outbox = list(session.exec(store_select(OutboxRow)).all())
            inbound = list(session.exec(store_select(InboundRow)).all())
            seats = {s.email: s.name for s in store.seats(session, game)}
        # the final state is the replay of the log
        assert state_to_json(replayed) == state_to_json(state)
        # every mail the moderator sent was delivered to its recipient, once
        assert outbox and all(row.status == OutboxStatus.SENT for row in outbox)
        mail = directory / "mail"
        for address in seats:
            sent = sorted(row.message_id for row in outbox if row.recipient == address)
            received = sorted(message_ids(mail / address))
            assert received == sent, address
        # every mail the bots sent reached the moderator and was handled once
        moderator_dir = mail / MODERATOR
        processed = message_ids(moderator_dir / ".processed")
        assert len(processed) == len(inbound) == result["bot_replies"] == result["messages"]
        assert sorted(processed) == sorted(row.message_key for row in inbound)
        assert not os.listdir(moderator_dir / "new") and not os.listdir(moderator_dir / "cur")
        assert not (moderator_dir / ".failed").exists() or not os.listdir(moderator_dir / ".failed" / "cur")
        assert {row.outcome for row in inbound} == {"applied"}
        assert {row.sender for row in inbound} <= set(seats)
        # the hub delivered exactly these mails
        assert result["mails_delivered"] == len(outbox) + len(inbound)
        return result
    finally:
        db.dispose()


def mails_in_hint(output: str) -> int:
    """How many mails the Maildir in the demo's closing "mutt -f DIR/" hint holds itself (not its folders)."""
    hint = re.search(r"mutt -f (\S+)/$", output, re.MULTILINE)
    assert hint, output
    box = Path(hint.group(1))
    return sum(len(list((box / part).iterdir())) for part in ("cur", "new") if (box / part).is_dir())


def store_select(model):  # type: ignore[no-untyped-def]
    from sqlmodel import select

    return select(model)


@pytest.mark.slow
def test_demo_games_for_2_4_and_6_players_play_to_the_end_by_email(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    started = time.monotonic()
    runs = []
    for players, seed in GAMES:
        directory = tmp_path / f"demo{players}"
        command = [sys.executable, "-m", "pbem.cli", "demo", "--players", str(players), "--seed", str(seed),
                   "--dir", str(directory), "--timeout", "600"]
        runs.append((players, seed, directory,
                     subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      text=True)))
    timings = []
    for players, seed, directory, process in runs:
        output, _ = process.communicate(timeout=900)
        assert process.returncode == 0, output
        assert "Final scores:" in output and "equals the replay" in output, output
        assert f"{directory / 'mail'}" in output  # where to read the mail
        assert mails_in_hint(output), output  # the hint opens a mailbox that holds mail
        result = check_demo(directory, players)
        timings.append(f"{players} players (seed {seed}): {result['version']} moves in {result['messages']} order "
                       f"mails, {result['mails_delivered']} mails, {result['elapsed']:.1f} s")
    print(f"\n3 demo games at once in {time.monotonic() - started:.1f} s:\n  " + "\n  ".join(timings))


@pytest.mark.slow
def test_a_person_takes_a_seat_and_answers_with_pbem_mail_reply(tmp_path: Path) -> None:
    runner = CliRunner()
    demo = Demo(DemoOptions(players=2, seed=28, humans=("ann",), directory=tmp_path / "demo", timeout=120))
    demo.setup()
    demo.start()
    try:
        assert [(n, h) for n, _, h in demo.players] == [("ann", True), ("bot1", False)]
        maildir = demo.maildir_of("ann@demo.pbem")
        answered = 0
        seen: set[str | None] = set()
        deadline = time.monotonic() + 60
        while answered < 3 and time.monotonic() < deadline:
            prompt = latest_mail(maildir)
            if prompt is None or prompt.message_id in seen:
                time.sleep(0.05)
                continue
            seen.add(prompt.message_id)
            shown = runner.invoke(app, ["mail", "reply", "--dir", str(demo.directory), "--as", "Ann"])
            assert shown.exit_code == 0 and "Your options:" in shown.output
            orders = decide(prompt.body, "random", seed=answered).replace("\n", ";")
            sent = runner.invoke(app, ["mail", "reply", "--dir", str(demo.directory), "--as", "ann", orders])
            assert sent.exit_code == 0, sent.output
            assert "Sent to the moderator as ann" in sent.output
            answered += 1
        assert answered == 3
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with demo.db.transaction() as session:
                rows = session.exec(store_select(InboundRow).where(InboundRow.player == "ann")).all()
            if len(rows) == 3:
                break
            time.sleep(0.05)
        assert [row.outcome for row in rows] == ["applied"] * 3
        assert demo.snapshot().version > 3
    finally:
        demo.stop()
    unknown = runner.invoke(app, ["mail", "reply", "--dir", str(demo.directory), "--as", "zed", "PASS"])
    assert unknown.exit_code == 2 and "no seat" in unknown.output
    down = runner.invoke(app, ["mail", "reply", "--dir", str(demo.directory), "--as", "ann", "PASS"])
    assert down.exit_code == 2 and "still running" in down.output
    nowhere = runner.invoke(app, ["mail", "reply", "--dir", str(tmp_path / "none"), "--as", "ann"])
    assert nowhere.exit_code == 2 and "holds no demo" in nowhere.output


class Screen:
    """A stand-in for the terminal (or a pipe) the demo writes its progress to."""

    def __init__(self, tty: bool) -> None:
        self.text, self.tty = "", tty

    def write(self, text: str) -> None:
        self.text += text

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return self.tty

    def lines(self) -> list[str]:
        """What the screen shows line after line (a terminal's line rewritten in place counts each time)."""
        return [line for part in self.text.split("\n") for line in part.split("\r") if line]


def test_the_progress_line() -> None:
    tty = Screen(True)
    line = ProgressLine(tty)  # type: ignore[arg-type]
    line(Progress(3, 40, "Europe", 10, 120, "bot2"))
    line(Progress(3, 41, "Europe", 10, 128, "bot1"))
    line.done()
    assert tty.text.count("\r") == 2 and tty.text.endswith("\n")
    assert "round  3" in tty.text and "Europe leads with 10 power" in tty.text and "128 mails" in tty.text
    assert "[#####-------]" in tty.text
    plain = Screen(False)
    line = ProgressLine(plain)  # type: ignore[arg-type]
    for version in range(5):
        line(Progress(3, 40 + version, "Europe", 10, 120, "bot2"))
    line(Progress(4, 50, "USA", 12, 150, "bot1"))
    line(Progress(9, 90, "USA", 25, 300, "", finished=True))
    assert "\r" not in plain.text and len(plain.text.splitlines()) == 3  # one line per round, and the end
    assert plain.text.splitlines()[-1].endswith("game over")


@pytest.mark.parametrize("tty", [True, False], ids=["terminal", "pipe"])
def test_the_progress_line_fits_78_columns(tty: bool) -> None:
    """Five long names waiting, long leaders' names, four-digit moves and mails: still at most 78 columns."""
    screen = Screen(tty)
    line = ProgressLine(screen)  # type: ignore[arg-type]
    waiting = ", ".join(f"{name}{index}" for index, name in enumerate(["alexandra", "bartholomew", "christina",
                                                                        "dominique", "evangeline"]))
    line(Progress(1, 0, "Russia", 0, 0, waiting))
    line(Progress(12, 1234, "Maximiliane", 17, 12345, waiting, goal=25))
    line(Progress(18, 2300, "Maximiliane-Alexandrina-Josephine", 20, 23000, waiting, goal=25))
    line(Progress(19, 2345, "Maximiliane", 25, 23456, "", finished=True, goal=25))
    line.done()
    shown = screen.lines()
    assert shown and max(len(text) for text in shown) <= 78, shown
    assert "game over" in shown[-1]


@pytest.mark.parametrize("tty", [True, False], ids=["terminal", "pipe"])
def test_the_progress_line_names_no_leader_before_anyone_scores(tty: bool) -> None:
    screen = Screen(tty)
    line = ProgressLine(screen)  # type: ignore[arg-type]
    line(Progress(0, 0, "bot1", 0, 0, "bot1, bot2", unit="points"))
    line(Progress(1, 6, "bot2", 4, 25, "bot3", unit="points"))
    first, *_, last = screen.lines()
    assert "lead" not in first and "0 points" not in first, first
    assert "bot2 leads with 4 points" in last


def ended(tmp_path: Path, ending: tuple[str, ...]) -> list[str]:
    from types import SimpleNamespace

    result = DemoResult(directory=tmp_path, game="demo", state=SimpleNamespace(version=69), finished=True,
                        scores=(("bot2", 9), ("ann", 8)), elapsed=3.0, mails_delivered=10, delivered_to={},
                        outbox_sent=8, outbox_queued=0, outbox_failed=0, inbound={}, bot_replies=0, rounds=8,
                        players=(("ann", "ann@demo.pbem", True), ("bot2", "bot2@demo.pbem", False)), ending=ending)
    return summary_lines(result)


def test_the_final_scores_are_printed_once(tmp_path: Path) -> None:
    """A game whose ending is its score sheet (Eight-Minute Empire) gets no second list of the same scores."""
    sheet = ("FINAL SCORES (regions + continents + goods; ties: coins, armies, regions)",
             "  1. bot2: 5 + 1 + 3 = 9 points (5 coins, 13 armies)",
             "  2. ann: 4 + 0 + 4 = 8 points (5 coins, 8 armies)")
    lines = ended(tmp_path, sheet)
    assert sum("final scores" in line.lower() for line in lines) == 1, lines
    assert [line for line in lines if " 9 points" in line or re.search(r"\b9$", line)] == [sheet[1]]
    sentence = ended(tmp_path, ("Russia reached 25 power points.",))  # Imperial 2030: a sentence, then the list
    assert "Russia reached 25 power points." in sentence and sentence.count("Final scores:") == 1
    assert "  1. bot2          9" in sentence and "  2. ann           8 (human)" in sentence


def test_the_summary_weighs_each_seats_mail_and_the_database(tmp_path: Path) -> None:
    """Issue 29's figures, printed by every demo: mails and bytes per seat as delivered, the database on disk."""
    from types import SimpleNamespace

    result = DemoResult(directory=tmp_path, game="demo", state=SimpleNamespace(version=9), finished=True, scores=(),
                        elapsed=1.0, mails_delivered=5, delivered_to={"ann@demo.pbem": 3, "bot2@demo.pbem": 2},
                        outbox_sent=5, outbox_queued=0, outbox_failed=0, inbound={}, bot_replies=0,
                        players=(("ann", "ann@demo.pbem", True), ("bot2", "bot2@demo.pbem", False)),
                        delivered_bytes={"ann@demo.pbem": 2_750_000, "bot2@demo.pbem": 61_000},
                        database_bytes=13_700_000, kept_bytes=420_000)
    lines = summary_lines(result)
    assert "  ann            3 mails, 2.8 MB" in lines and "  bot2           2 mails, 61 KB" in lines, lines
    assert "The database: 13.7 MB on disk for this game." in lines
    assert "  Kept for good once sent mail loses its texts (keep_sent_mail_days): 0.4 MB." in lines


def test_bad_demo_options(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="2 to 6"):
        Demo(DemoOptions(players=7))
    with pytest.raises(ValueError, match="2 to 6"):
        Demo(DemoOptions(players=1))
    demo = Demo(DemoOptions(players=3, humans=("ann", "Ann", "bot1"), directory=tmp_path))
    assert [(n, h) for n, _, h in demo.players] == [("ann", True), ("bot1", True), ("bot2", False)]
    result = CliRunner().invoke(app, ["demo", "--players", "2", "--strategy", "clever"])
    assert result.exit_code == 2 and "strategy" in result.output


def test_summary_lines_name_the_mailboxes(tmp_path: Path) -> None:
    result = DemoResult(directory=tmp_path, game="demo", state=None, finished=False, scores=(), elapsed=3.0,
                        mails_delivered=0, delivered_to={}, outbox_sent=0, outbox_queued=0, outbox_failed=0,
                        inbound={}, bot_replies=0, timed_out=True,
                        players=(("bot1", "bot1@demo.pbem", False), ("ann", "ann@demo.pbem", True)))
    text = "\n".join(summary_lines(result))
    assert "before the game ended" in text
    assert str(tmp_path / "mail" / "bot1@demo.pbem") in text and str(tmp_path / "mail" / MODERATOR) in text


# --- a seed gives one game ------------------------------------------------------------------------

PLAY = """
import json, sys
from pbem.demo import Demo, DemoOptions
options = json.loads(sys.argv[1])
result = Demo(DemoOptions(**options), out=sys.stderr).run()
print(json.dumps({"replay_matches": result.replay_matches, "version": result.state.version}))
"""


def played(tmp_path: Path, name: str, hash_seed: int, **options: object) -> tuple[list[tuple[int, str, str]], dict]:
    """A demo played in a process of its own (its own string hashing): its log (move, player, action) and
    what it printed (whether the final state equals the replay)."""
    directory = tmp_path / name
    env = {**os.environ, "PYTHONHASHSEED": str(hash_seed),
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    run = subprocess.run([sys.executable, "-c", PLAY, json.dumps({**options, "directory": str(directory),
                                                                     "timeout": 300})],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    db = Database(f"sqlite:///{directory / 'pbem.db'}")
    try:
        with db.transaction() as session:
            rows = session.exec(store_select(ActionRow).order_by(col(ActionRow.version))).all()
            log = [(row.version, row.player, json.dumps(row.action, sort_keys=True)) for row in rows]
    finally:
        db.dispose()
    return log, json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize("kind, seed, moves", [("imperial2030", 3, 160), ("eight-minute-empire", 1, None)],
                         ids=["imperial2030", "eight-minute-empire"])
def test_a_seed_plays_one_game_on_every_run_whatever_the_mail_mode(tmp_path: Path, kind: str, seed: int,
                                                                    moves: int | None) -> None:
    """``pbem demo --seed S`` plays the same moves on every run, in every mail mode and whatever the machine's
    speed or a process's string hashing: each bot decides from its seed, its seat and the position, never
    from when or in which mail (with which deadline, after which report) a prompt came. Two players, and
    Imperial 2030 only its first ``moves`` moves, to stay quick."""
    options = {"players": 2, "seed": seed, "kind": kind, "moves": moves}
    first, told = played(tmp_path, "first", 1, **options, mail="every")
    again, _ = played(tmp_path, "again", 2, **options, mail="every")
    turn, told_turn = played(tmp_path, "turn", 3, **options, mail="turn")
    # the result is of the game as it stopped: no bot moved between reading the state and replaying the log
    assert told["replay_matches"] and told_turn["replay_matches"]
    assert told["version"] == len(first) and told_turn["version"] == len(turn)
    length = moves or len(first)
    assert len(first) >= length
    assert again[:length] == first[:length]
    assert turn[:length] == first[:length]


def test_issue30_a_person_in_the_demo_reads_their_language_and_the_bots_english(tmp_path: Path) -> None:
    """A person's seat alone gets Russian (``--language ann=ru``); the bot's stays English, with no language of
    its own stored."""
    demo = Demo(DemoOptions(players=2, seed=28, humans=("ann",), directory=tmp_path / "demo",
                            languages=(("ann", "ru"),)))
    demo.setup()
    try:
        with demo.db.transaction() as session:
            game = store.find_game(session, "demo")
            languages = {seat.name: seat.language for seat in store.seats(session, game)}
        assert languages == {"ann": "ru", "bot1": None}
    finally:
        demo.stop()
