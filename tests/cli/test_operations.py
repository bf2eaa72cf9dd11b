"""Running for months: ``pbem status``, ``pbem backup``/``restore`` (SQLite), the log as JSON lines.

The status is read from the leases and queues a running moderator leaves in
the database, so most tests here write those rows by hand; the JSON log is
checked on a real ``pbem poll`` against the test mail servers.
"""
from __future__ import annotations

import json
import logging
import os
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pbem import store
from pbem.cli import app
from pbem.cli.gather import gather, report_json
from pbem.config import load_config
from pbem.daemon.logformat import JsonLines
from pbem.daemon.loop import FETCH_LEASE
from pbem.holders import holder_name
from pbem.moderator import Moderator
from pbem.store import Database
from pbem.store.db import normalise_url
from pbem.store.leases import LeaseRow
from pbem.store.moves import MoveToTellRow
from pbem.store.outbox import OutboxRow, OutboxStatus
from pbem.store.pgbackup import pg_dump_line, pg_restore_line
from pbem.store.processes import Process, beat, processes
from tests.mailflowkit import Table, mailbox_config_text
from tests.mailservers import DovecotAccount
from tests.smtpservers import SmtpServer

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = [("ann", "ann@example.org"), ("bob", "bob@example.org")]


def cli(url: str, *args: str, config: Path | None = None) -> Any:
    env = {"PBEM_DATABASE_URL": url, "PBEM_CONFIG": str(config) if config else ""}
    return CliRunner().invoke(app, list(args), env=env)


@pytest.fixture
def game(tmp_path: Path) -> tuple[str, Moderator]:
    """A two-player game in progress: ann has moved, bob must invest."""
    url = f"sqlite:///{tmp_path / 'pbem.db'}"
    moderator = Moderator(Database(url))
    moderator.create_game("g1", PLAYERS, deal=[("russia", "ann")], seed=1)
    assert moderator.submit("g1", "ann", "RONDEL investor").ok
    return url, moderator


def state_json(moderator: Moderator, name: str = "g1") -> dict[str, Any]:
    return moderator.state_json(name)


def replayed_json(moderator: Moderator, name: str = "g1") -> dict[str, Any]:
    with moderator.db.transaction() as session:
        game = store.find_game(session, name)
        state = store.replay_game(session, game)
    return moderator.kind_of(name).state_json(name, state)


def a_move_for(moderator: Moderator, player: str, name: str = "g1") -> str:
    kind = moderator.kind_of(name)
    orders = [o for o in kind.legal_orders(moderator.state(name), player) if o.split()[0] not in ("PASS", "DONE")]
    return orders[0]


def hold_lease(db: Database, name: str, holder: str, until: datetime) -> None:
    with db.transaction() as session:
        session.merge(LeaseRow(name=name, holder=holder, until=until))


def beating(db: Database, name: str, *, expires: datetime | None = None, doing: str = "reads the inbox") -> None:
    """A heartbeat row as a live process leaves it (``role@host:pid``), last seen now, alive for a minute."""
    role, _, where = name.partition("@")
    now = datetime.now(UTC)
    with db.transaction() as session:
        beat(session, Process(name, role, where.partition(":")[0], int(where.rpartition(":")[2]), "0.15.0",
                              now - timedelta(hours=1), now, expires or now + timedelta(minutes=1), doing))


# --- backup and restore ---------------------------------------------------------------------------------


def test_backup_and_restore_round_trip_a_game_in_progress(game: tuple[str, Moderator], tmp_path: Path) -> None:
    url, moderator = game
    at_backup = state_json(moderator)
    backup = tmp_path / "backups" / "pbem-1.db"
    backup.parent.mkdir()
    result = cli(url, "backup", str(backup))
    assert result.exit_code == 0, result.output
    assert "1 game(s)" in result.stdout
    assert backup.stat().st_mode & 0o777 == 0o600  # it holds every seat's reply token
    assert open(backup, "rb").read(20)[18:20] == b"\x01\x01"  # one self-contained file, no -wal needed
    assert sorted(p.name for p in backup.parent.iterdir()) == ["pbem-1.db"]  # no partial file left behind

    move = a_move_for(moderator, "bob")
    assert moderator.submit("g1", "bob", move).ok
    assert state_json(moderator) != at_backup

    result = cli(url, "restore", str(backup))
    assert result.exit_code == 0, result.output
    assert "restored" in result.stdout
    fresh = Moderator(Database(url))
    assert state_json(fresh) == at_backup
    assert replayed_json(fresh) == at_backup  # the log replays to the same state: the copy is whole
    assert state_json(moderator) == at_backup  # an engine opened before the restore reads the restored data too
    assert moderator.submit("g1", "bob", move).ok  # and the game goes on from there
    fresh.db.dispose()


def test_backup_refuses_to_overwrite_without_force(game: tuple[str, Moderator], tmp_path: Path) -> None:
    url, _ = game
    backup = tmp_path / "b.db"
    backup.write_bytes(b"an older backup")
    result = cli(url, "backup", str(backup))
    assert result.exit_code == 2 and "exists already" in result.stderr and "--force" in result.stderr
    assert backup.read_bytes() == b"an older backup"
    (tmp_path / "b.db-wal").write_bytes(b"stale")  # left by an older database of that name: must not be applied
    result = cli(url, "backup", str(backup), "--force")
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "b.db-wal").exists()
    with sqlite3.connect(backup) as copy:
        assert copy.execute("SELECT name FROM games").fetchall() == [("g1",)]
    result = cli(url, "backup", str(tmp_path / "pbem.db"))
    assert result.exit_code == 2 and "the database itself" in result.stderr


def test_backup_quiet_prints_nothing_when_it_worked_and_the_error_when_not(game: tuple[str, Moderator],
                                                                           tmp_path: Path) -> None:
    """Cron mails whatever a job prints: a nightly `backup --quiet` mails only when the backup failed."""
    url, _ = game
    result = cli(url, "backup", "--quiet", str(tmp_path / "night.db"))
    assert result.exit_code == 0 and result.stdout == "" and result.stderr == ""
    assert (tmp_path / "night.db").exists()
    result = cli(url, "backup", "-q", str(tmp_path / "night.db"))
    assert result.exit_code == 2 and "exists already" in result.stderr


def test_a_backup_is_taken_while_another_process_writes(game: tuple[str, Moderator], tmp_path: Path) -> None:
    """WAL mode: the backup reads one snapshot and waits for no writer (the daemon keeps going)."""
    url, moderator = game
    writer = sqlite3.connect(tmp_path / "pbem.db", timeout=1)
    try:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("INSERT INTO leases (name, holder, until) VALUES ('x', 'someone', '2030-01-01 00:00:00')")
        result = cli(url, "backup", str(tmp_path / "b.db"))  # the write transaction is still open
        assert result.exit_code == 0, result.output
        writer.commit()
    finally:
        writer.close()
    with sqlite3.connect(tmp_path / "b.db") as copy:
        assert copy.execute("SELECT count(*) FROM leases WHERE name = 'x'").fetchone() == (0,)  # not committed then


def test_restore_refuses_while_a_moderator_reads_the_inbox(game: tuple[str, Moderator], tmp_path: Path) -> None:
    url, moderator = game
    assert cli(url, "backup", str(tmp_path / "b.db")).exit_code == 0
    hold_lease(moderator.db, "fetch:imap:pbem@mail.example:993/INBOX", "lease1@elsewhere:4242:1",
               datetime.now(UTC) + timedelta(minutes=4))
    result = cli(url, "restore", str(tmp_path / "b.db"))
    assert result.exit_code == 2
    assert "lease1@elsewhere:4242:1" in result.stderr and "stop it first" in result.stderr
    result = cli(url, "restore", str(tmp_path / "b.db"), "--force")
    assert result.exit_code == 0, result.output
    with moderator.db.transaction() as session:  # the copy's own leases and claims belong to no process now
        assert session.get(LeaseRow, "fetch:imap:pbem@mail.example:993/INBOX") is None


def test_restore_lets_go_of_the_leases_and_claims_in_the_copy(game: tuple[str, Moderator], tmp_path: Path) -> None:
    url, moderator = game
    later = datetime.now(UTC) + timedelta(minutes=4)
    hold_lease(moderator.db, "periodic-tasks", "lease2@elsewhere:4242:1", later)
    with moderator.db.transaction() as session:
        session.add(OutboxRow(recipient="ann@example.org", purpose="report", message_id="<m1@pbem.test>",
                              subject="s", body="b", claimed_by="send@elsewhere:4242:1", next_attempt=later))
    assert cli(url, "backup", str(tmp_path / "b.db")).exit_code == 0
    with moderator.db.transaction() as session:
        session.execute(LeaseRow.__table__.delete())  # type: ignore[attr-defined]  # the daemon stopped
    result = cli(url, "restore", str(tmp_path / "b.db"))
    assert result.exit_code == 0, result.output
    assert "1 lease(s)" in result.stdout and "1 mail claim(s)" in result.stdout
    with moderator.db.transaction() as session:
        mail = session.exec(OutboxRow.__table__.select()).one()  # type: ignore[attr-defined]  # a Table
        assert mail.claimed_by == ""


def test_restore_refuses_while_a_pbem_lmtp_beats_and_forgets_the_copys_heartbeats(game: tuple[str, Moderator],
                                                                                 tmp_path: Path) -> None:
    """pbem lmtp holds no lease while another process checks the deadlines: its heartbeat tells it runs."""
    url, moderator = game
    beating(moderator.db, "lmtp@elsewhere:4242", doing="takes mail by LMTP on 127.0.0.1:8024")
    assert cli(url, "backup", str(tmp_path / "b.db")).exit_code == 0
    result = cli(url, "restore", str(tmp_path / "b.db"))
    assert result.exit_code == 2
    assert "lmtp@elsewhere:4242, last heartbeat" in result.stderr and "stop it first" in result.stderr
    assert cli(url, "restore", str(tmp_path / "b.db"), "--force").exit_code == 0
    with moderator.db.transaction() as session:
        assert processes(session) == []  # the copy's heartbeat was of a process that does not run on it


def test_restore_refuses_what_is_no_pbem_database(game: tuple[str, Moderator], tmp_path: Path) -> None:
    url, moderator = game
    before = state_json(moderator)
    (tmp_path / "text.db").write_text("not a database")
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE notes (x)")
    newer = tmp_path / "newer.db"
    assert cli(url, "backup", str(newer)).exit_code == 0
    with sqlite3.connect(newer) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '9999'")
    for path, words in ((tmp_path / "text.db", "not a pbem database"), (other, "no table alembic_version, games"),
                        (newer, "newer pbem"), (tmp_path / "missing.db", "no such file")):
        result = cli(url, "restore", str(path))
        assert result.exit_code == 2 and words in result.stderr, result.output
    assert state_json(moderator) == before


def test_without_the_postgresql_tools_the_lines_to_run_elsewhere_keep_the_dump_private(tmp_path: Path) -> None:
    """pbem runs pg_dump and pg_restore itself (tests/store/test_postgres_backup.py); where they are not installed
    (the container image) it gives the lines to run where they are: a private dump, no password in them."""
    url = "postgresql+psycopg://pbem:Secret-Pw-1@db.example.org:5433/games"
    nothing = tmp_path / "empty-path"
    nothing.mkdir()
    (tmp_path / "b.dump").write_bytes(b"PGDMP")
    env = {"PBEM_DATABASE_URL": url, "PBEM_CONFIG": "", "PATH": str(nothing)}
    result = CliRunner().invoke(app, ["backup", str(tmp_path / "new.dump")], env=env)
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1, result.output
    assert ("pg_dump is not installed here" in result.stderr and "(umask 077 && pg_dump --format=custom --file="
            + str(tmp_path / "new.dump") + " --host=db.example.org --port=5433 --username=pbem games)") in result.stderr
    assert "Secret-Pw-1" not in result.output
    result = CliRunner().invoke(app, ["restore", str(tmp_path / "b.dump")], env=env)
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1, result.output
    assert "pg_restore --clean" in result.stderr and "then: pbem restore --forget-processes" in result.stderr
    assert "Secret-Pw-1" not in result.output
    assert pg_restore_line(normalise_url(url), "x y.dump").endswith("--dbname=games 'x y.dump'")
    assert pg_dump_line(normalise_url("postgresql://localhost/pbem"), "f") == "(umask 077 && pg_dump " \
                                                                               "--format=custom --file=f " \
                                                                               "--host=localhost pbem)"


# --- pbem status --------------------------------------------------------------------------------------------


def test_status_says_when_no_moderator_reads_the_inbox(game: tuple[str, Moderator]) -> None:
    url, moderator = game
    result = cli(url, "status")
    assert result.exit_code == 1
    assert "NOT RUNNING: no pbem run or pbem lmtp process is alive" in result.stdout
    assert "no moderator process is listed: each one stopped cleanly" in result.stdout
    assert "g1 (imperial2030, move 1): waits for bob (invest with the investor card) since" in result.stdout
    expired = datetime.now(UTC) - timedelta(minutes=2)
    hold_lease(moderator.db, "fetch:maildir:/srv/mail", "lease1@elsewhere:4242:1", expired)
    result = cli(url, "status")
    assert result.exit_code == 1
    assert "nobody reads the inbox now: the last reader, lease1@elsewhere:4242:1, renewed its lease" in result.stdout
    assert "its lease ran out" in result.stdout


def test_status_counts_the_moves_whose_mail_is_still_to_be_written(game: tuple[str, Moderator]) -> None:
    """A process that died between a move and its mail leaves the move to tell: status says so until a
    moderator's next pass writes the mail."""
    url, moderator = game
    with moderator.db.transaction() as session:
        game_id = store.find_game(session, "g1").id
        assert game_id is not None
        session.add(MoveToTellRow(game_id=game_id, version_before=0, version_after=1, state_before={}, cause="c",
                                  source="mail", player="ann", claimed_by="tell@elsewhere:4242:1"))
    result = cli(url, "status")
    assert "  1 move(s) whose mail is still to be written" in result.stdout
    assert json.loads(cli(url, "status", "--json").stdout)["outbox"]["to_write"] == 1


def test_status_of_a_running_moderator(game: tuple[str, Moderator], tmp_path: Path) -> None:
    url, moderator = game
    now = datetime.now(UTC)
    hold_lease(moderator.db, "fetch:maildir:/srv/mail", "lease1@elsewhere:4242:1", now + timedelta(seconds=280))
    hold_lease(moderator.db, "periodic-tasks", "lease2@elsewhere:4242:1", now + timedelta(seconds=170))
    beating(moderator.db, "run@elsewhere:4242", doing="reads the inbox INBOX (IDLE)")
    assert moderator.submit("g1", "bob", a_move_for(moderator, "bob")).ok
    moderator.create_game("g2", PLAYERS, deal=[("russia", "bob")], seed=2)
    assert cli(url, "pause", "g2").exit_code == 0
    with moderator.db.transaction() as session:
        session.add(OutboxRow(recipient="ann@example.org", purpose="report", message_id="<m1@pbem.test>",
                              subject="s", body="b", attempts=2, next_attempt=now + timedelta(minutes=3),
                              last_error="421 4.7.0 try again later\nsecond line"))
        session.add(OutboxRow(recipient="bob@example.org", purpose="prompt", message_id="<m2@pbem.test>",
                              subject="s", body="b", status=OutboxStatus.FAILED, last_error="550 no such user"))
        session.add(OutboxRow(recipient="bob@example.org", purpose="report", message_id="<m3@pbem.test>",
                              subject="s", body="b", next_attempt=now - timedelta(seconds=5)))
    result = cli(url, "status")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Moderator: running: 1 process(es) alive." in out and "inbox read by lease1@elsewhere:4242:1, last renewed" in out
    assert "pbem run run@elsewhere:4242 (pbem 0.15.0, started" in out and ": reads the inbox INBOX (IDLE)" in out
    assert "deadlines last checked" in out and "lease2@elsewhere:4242:1" in out
    assert "Outbox: 1 due now, 0 being sent, 1 due later, 1 failed" in out
    assert "#1 to ann@example.org (report): tried 2 time(s), next at" in out and "421 4.7.0 try again later" in out
    assert "second line" not in out
    assert "Games: 2 active (1 paused), 0 finished" in out
    assert "g2 (imperial2030, move 0): paused" in out
    assert "g1 (imperial2030, move 2): waits for" in out

    data = json.loads(cli(url, "status", "--json").stdout)
    assert set(data) == {"format", "ok", "now", "database", "moderator", "inbound", "outbox", "games",
                         "finished_games", "outages", "processes"}
    assert [(p["name"], p["role"], p["pid"], p["state"]) for p in data["processes"]] == [
        ("run@elsewhere:4242", "run", 4242, "alive")]
    assert data["moderator"]["alive"] is True and data["moderator"]["needed"] == ["run", "lmtp"]
    assert data["format"] == 1 and data["ok"] is True
    reader = data["moderator"]["reader"]
    assert reader["holder"] == "lease1@elsewhere:4242:1" and reader["held"] is True
    renewed = datetime.fromisoformat(reader["renewed"])
    assert renewed == datetime.fromisoformat(reader["until"]) - timedelta(seconds=FETCH_LEASE)
    assert data["outbox"] == {"due": 1, "sending": 0, "later": 1, "failed": 1, "held_by_limit": None, "to_write": 0,
                              "retrying": [{"id": 1, "recipient": "ann@example.org", "purpose": "report",
                                            "attempts": 2, "next_attempt": data["outbox"]["retrying"][0]["next_attempt"],
                                            "last_error": "421 4.7.0 try again later"}]}
    assert data["inbound"] == {"waiting": 0, "claimed": 0, "set_aside": 0}
    games = {g["name"]: g for g in data["games"]}
    assert games["g2"]["paused"] is True and games["g2"]["waiting_on"] == []
    waiting = games["g1"]["waiting_on"]
    assert waiting and set(waiting[0]) == {"player", "decision", "what", "since", "due"}
    assert cli(url, "status", "--no-games", "--json").stdout.count('"games": null') == 1


def test_status_on_sqlite_and_postgresql(db_url: str) -> None:
    moderator = Moderator(Database(db_url))
    try:
        moderator.create_game("g1", PLAYERS, deal=[("russia", "ann")], seed=1)
        now = datetime.now(UTC)
        hold_lease(moderator.db, "fetch:imap:pbem@mail.example:993/INBOX", "lease1@elsewhere:1:1",
                   now + timedelta(seconds=100))
        beating(moderator.db, "run@elsewhere:1", expires=now + timedelta(seconds=100))
        with moderator.db.transaction() as session:
            session.add(OutboxRow(recipient="ann@example.org", purpose="report", message_id="<m1@pbem.test>",
                                  subject="s", body="b", attempts=1, next_attempt=now + timedelta(minutes=1),
                                  last_error="421 later"))
        report = report_json(gather(moderator.db, load_config(None, {}), now))
        assert report["ok"] is True and report["moderator"]["reader"]["holder"] == "lease1@elsewhere:1:1"
        assert report["moderator"]["reader"]["until"] == (now + timedelta(seconds=100)).isoformat(timespec="seconds")
        assert (report["outbox"]["due"], report["outbox"]["later"]) == (0, 1)
        assert report["outbox"]["retrying"][0]["last_error"] == "421 later"
        assert report["games"][0]["waiting_on"][0]["player"] == "ann"
        later = report_json(gather(moderator.db, load_config(None, {}), now + timedelta(seconds=101)))
        assert later["ok"] is False and later["outbox"]["due"] == 1
        assert later["processes"][0]["state"] == "silent"
    finally:
        moderator.db.dispose()


def test_a_process_of_this_host_that_died_is_stopped_at_once(game: tuple[str, Moderator]) -> None:
    url, moderator = game
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    host = holder_name("lease1").partition("@")[2].partition(":")[0]
    hold_lease(moderator.db, "fetch:maildir:/srv/mail", f"lease1@{host}:{dead.stdout.strip()}:1",
               datetime.now(UTC) + timedelta(minutes=4))
    beating(moderator.db, f"run@{host}:{dead.stdout.strip()}")  # its heartbeat has not expired yet
    result = cli(url, "status", "--no-games")
    assert result.exit_code == 1, result.stdout
    assert f"STOPPED: pbem run run@{host}:{dead.stdout.strip()}" in result.stdout
    assert "that process is gone" in result.stdout


def test_status_needs_a_reader_of_the_inbox_of_the_configuration(game: tuple[str, Moderator],
                                                                 tmp_path: Path) -> None:
    """With an inbox configured, only a process that reads it makes the moderator run: pbem lmtp does not."""
    url, moderator = game
    maildir = tmp_path / "mail"
    config = tmp_path / "pbem.toml"
    config.write_text(f'[moderator]\naddress = "pbem@games.test"\n\n[maildir]\npath = "{maildir}"\n')
    later = datetime.now(UTC) + timedelta(minutes=4)
    hold_lease(moderator.db, "fetch:maildir:/somewhere/else", "lease1@elsewhere:1:1", later)  # another inbox
    beating(moderator.db, "lmtp@elsewhere:1", doing="takes mail by LMTP on 127.0.0.1:8024")
    result = cli(url, "status", config=config)
    assert result.exit_code == 1 and "NOT RUNNING: no pbem run process is alive to read the inbox" in result.stdout
    assert "lease1@elsewhere:1:1" not in result.stdout  # the reader of another inbox is not this one's
    beating(moderator.db, "run@elsewhere:2")
    hold_lease(moderator.db, f"fetch:maildir:{maildir}", "lease1@elsewhere:2:1", later)
    result = cli(url, "status", config=config)
    assert result.exit_code == 0 and "inbox read by lease1@elsewhere:2:1" in result.stdout


def test_with_lmtp_and_no_inbox_a_pbem_lmtp_must_live(game: tuple[str, Moderator], tmp_path: Path) -> None:
    """Without an inbox the mail server hands mail to pbem lmtp: that is the process the words ask for."""
    url, moderator = game
    config = tmp_path / "pbem.toml"
    config.write_text('[moderator]\naddress = "pbem@games.test"\n\n[smtp]\nhost = "127.0.0.1"\nsecurity = "none"\n')
    beating(moderator.db, "run@elsewhere:1", doing="handles the queue and the outbox")
    hold_lease(moderator.db, "periodic-tasks", "lease2@elsewhere:1:1", datetime.now(UTC) + timedelta(minutes=2))
    result = cli(url, "status", config=config)
    assert result.exit_code == 1
    assert ("NOT RUNNING: no pbem lmtp process is alive to take mail from the mail server (it keeps the mail and "
            "tries again) (no inbox configured: mail comes by LMTP)") in result.stdout
    assert "deadline" not in result.stdout.splitlines()[1]  # the deadline checks run: they are not what is missing
    beating(moderator.db, "lmtp@elsewhere:2", doing="takes mail by LMTP on 127.0.0.1:8024")
    result = cli(url, "status", config=config)
    assert result.exit_code == 0 and "running (no inbox configured: mail comes by LMTP): 2 process(es)" in result.stdout


@pytest.mark.slow
def test_status_reads_and_writes_nothing_of_the_games(game: tuple[str, Moderator]) -> None:
    url, moderator = game
    before = state_json(moderator)
    report = gather(moderator.db, load_config(None, {}))
    assert [g.name for g in report.games] == ["g1"] and report.games[0].waiting_on[0].player == "bob"
    assert report_json(report)["games"][0]["waiting_on"][0]["decision"] == "investment"
    assert state_json(moderator) == before


def test_a_database_that_cannot_be_opened_exits_2(tmp_path: Path) -> None:
    result = cli(f"sqlite:///{tmp_path / 'no' / 'such' / 'dir.db'}", "status")
    assert result.exit_code == 2 and "error: no database at" in result.stderr
    result = cli(f"sqlite:///{tmp_path / 'missing.db'}", "status")
    assert result.exit_code == 2 and not (tmp_path / "missing.db").exists()  # not created by looking
    (tmp_path / "broken.db").write_text("no database")
    result = cli(f"sqlite:///{tmp_path / 'broken.db'}", "status")
    assert result.exit_code == 2 and "error:" in result.stderr


# --- the log as JSON lines -----------------------------------------------------------------------------------


def test_json_lines_carry_the_exception(capsys: pytest.CaptureFixture[str]) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLines())
    logger = logging.getLogger("pbem.test.jsonlines")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        try:
            raise ValueError("broken\nover two lines")
        except ValueError:
            logger.exception("it failed: %s", "message α")
    finally:
        logger.removeHandler(handler)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1
    entry = json.loads(lines[0])
    assert entry["level"] == "ERROR" and entry["logger"] == "pbem.test.jsonlines"
    assert entry["message"] == "it failed: message α"
    assert "ValueError: broken" in entry["exception"] and entry["time"].endswith("Z")
    assert datetime.fromisoformat(entry["time"]).tzinfo is not None


@pytest.mark.slow
def test_poll_logs_json_lines(tmp_path: Path, dovecot: DovecotAccount, smtpd: SmtpServer) -> None:
    url = f"sqlite:///{tmp_path / 'json.db'}"
    path = tmp_path / "pbem.toml"
    path.write_text(mailbox_config_text(dovecot, smtpd, url))
    table = Table(Database(url), load_config(path, {}))
    table.create(players=2, now=datetime.now(UTC))
    dovecot.append(table.mail_from("ann", "RONDEL investor\n"))
    table.db.dispose()
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "PBEM_CONFIG": "", "PBEM_DATABASE_URL": ""}
    environment.pop("PBEM_CRASH_AT", None)
    done = subprocess.run([sys.executable, "-m", "pbem.cli", "--config", str(path), "poll", "--log-format", "json",
                           "--log-level", "INFO"], cwd=ROOT, env=environment, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines, "INFO logs something for a mail handled"
    entries = [json.loads(line) for line in lines]  # every line of standard error is one JSON object
    for entry in entries:
        assert {"time", "level", "logger", "message"} <= set(entry)
        assert entry["time"].endswith("Z")
    assert any("applied" in entry["message"] for entry in entries)
    assert dovecot.password not in done.stderr
    assert "inbox: 1 message(s) handled" in done.stdout


def test_a_bad_log_format_is_a_usage_error(tmp_path: Path) -> None:
    config = tmp_path / "pbem.toml"
    config.write_text('[moderator]\naddress = "pbem@games.test"\n\n[maildir]\npath = "mail"\n\n'
                      '[smtp]\nhost = "127.0.0.1"\nsecurity = "none"\n')
    result = cli(f"sqlite:///{tmp_path / 'x.db'}", "poll", "--log-format", "xml", config=config)
    assert result.exit_code == 2 and "--log-format must be text or json" in result.stderr
