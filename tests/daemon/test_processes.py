"""Every moderator process is seen: each writes a heartbeat, ``pbem status`` lists them all.

Two real ``pbem lmtp`` processes on one database, one of them killed with
SIGKILL: the survivor keeps the moderator "running" and is named; the
killed one is shown stopped (at once, being a process of this host that no
longer runs; from another host, once its heartbeat expired). A process that
stops cleanly takes its row away.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from pbem.cli.gather import gather, report_json
from pbem.config import load_config
from pbem.daemon.heartbeat import HEARTBEAT_EXPIRY, HEARTBEAT_INTERVAL, Heartbeat
from pbem.holders import host_name
from pbem.store import Database
from pbem.store.processes import processes
from tests.loopback import free_port
from tests.mailflowkit import wait_until
from tests.smtpservers import SmtpServer

ROOT = Path(__file__).resolve().parents[2]


def lmtp(config: Path, port: int) -> subprocess.Popen[str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "PBEM_CONFIG": "", "PBEM_DATABASE_URL": ""}
    environment.pop("PBEM_CRASH_AT", None)
    return subprocess.Popen([sys.executable, "-m", "pbem.cli", "--config", str(config), "lmtp", "--listen",
                             f"127.0.0.1:{port}"], cwd=ROOT, env=environment, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def status(config: Path) -> Any:
    return CliRunner().invoke(app, ["--config", str(config), "status", "--no-games"], env={"PBEM_CONFIG": "",
                                                                                         "PBEM_DATABASE_URL": ""})


@pytest.mark.slow
def test_two_lmtp_processes_are_seen_and_the_survivor_of_a_kill_keeps_it_running(tmp_path: Path,
                                                                                 smtpd: SmtpServer) -> None:
    url = f"sqlite:///{tmp_path / 'two.db'}"
    config = tmp_path / "pbem.toml"
    config.write_text(f'[moderator]\naddress = "pbem@games.test"\n\n[database]\nurl = "{url}"\n\n'
                      f'[smtp]\nhost = "{smtpd.host}"\nport = {smtpd.port}\nsecurity = "none"\n')
    db = Database(url)
    first_port, second_port = free_port(), free_port()
    first, second = lmtp(config, first_port), lmtp(config, second_port)
    try:
        names = {f"lmtp@{host_name()}:{first.pid}", f"lmtp@{host_name()}:{second.pid}"}

        def both_listed() -> bool:
            with db.transaction() as session:
                return {p.name for p in processes(session) if "takes mail by LMTP" in p.doing} == names

        wait_until(both_listed, 30, "both heartbeats")
        result = status(config)
        assert result.exit_code == 0, result.stdout
        assert "Moderator: running (no inbox configured: mail comes by LMTP): 2 process(es) alive." in result.stdout
        assert f"takes mail by LMTP on 127.0.0.1:{first_port}" in result.stdout
        assert f"takes mail by LMTP on 127.0.0.1:{second_port}" in result.stdout

        first.send_signal(signal.SIGKILL)
        first.wait(10)
        result = status(config)
        assert result.exit_code == 0, result.stdout
        out = result.stdout
        assert "Moderator: running (no inbox configured: mail comes by LMTP): 1 process(es) alive." in out
        assert f"  pbem lmtp lmtp@{host_name()}:{second.pid} (pbem " in out
        assert f"  STOPPED: pbem lmtp lmtp@{host_name()}:{first.pid} (pbem " in out
        assert "that process is gone" in out

        report = report_json(gather(db, load_config(config, {})))
        states = {p["pid"]: p["state"] for p in report["processes"]}
        assert states == {first.pid: "gone", second.pid: "alive"} and report["ok"] is True
        killed = next(p for p in report["processes"] if p["pid"] == first.pid)
        expires = datetime.fromisoformat(killed["expires"])
        assert expires - datetime.fromisoformat(killed["last_seen"]) == HEARTBEAT_EXPIRY

        second.send_signal(signal.SIGTERM)
        _, errors = second.communicate(timeout=30)
        assert second.returncode == 0, errors
        with db.transaction() as session:  # a clean stop takes its row away; the killed one's stays
            assert [p.pid for p in processes(session)] == [first.pid]
        result = status(config)
        assert result.exit_code == 1
        assert ("NOT RUNNING: no pbem lmtp process is alive to take mail from the mail server (it keeps the mail "
                "and tries again)") in result.stdout
    finally:
        for process in (first, second):
            if process.poll() is None:
                process.kill()
                process.wait()
        db.dispose()


def test_a_heartbeat_ages_out_after_four_intervals_and_a_clean_stop_removes_it(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'beat.db'}")
    moments = iter([datetime(2030, 6, 3, 12, 0, tzinfo=UTC), datetime(2030, 6, 3, 12, 0, 15, tzinfo=UTC)])
    now = next(moments)
    heartbeat = Heartbeat(db, "run", lambda: now, describe=lambda: "reads the inbox INBOX (IDLE)")
    assert heartbeat.beat()
    now = next(moments)
    assert heartbeat.beat()
    with db.transaction() as session:
        [row] = processes(session)
    assert (row.role, row.pid, row.doing) == ("run", os.getpid(), "reads the inbox INBOX (IDLE)")
    assert row.seen == now and row.expires == now + timedelta(seconds=4 * HEARTBEAT_INTERVAL)
    assert HEARTBEAT_EXPIRY == timedelta(minutes=1)  # the one minute docs/hosting.md names
    heartbeat.stop()
    with db.transaction() as session:
        assert processes(session) == []
    db.dispose()
