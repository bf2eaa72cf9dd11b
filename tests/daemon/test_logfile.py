"""Logs a host can keep: ``--log-file`` is reopened on SIGHUP (logrotate without copytruncate), and SIGHUP
no longer ends the moderator.

A real ``pbem lmtp`` in its own process: its log file renamed as logrotate
does, then SIGHUP; the new lines go to a new file at the path, the old file
keeps the old ones, and the process lives on.
"""
from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.config import load_config
from tests.loopback import free_port
from tests.mailflowkit import wait_until
from tests.smtpservers import SmtpServer

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def config(tmp_path: Path, smtpd: SmtpServer) -> Path:
    path = tmp_path / "pbem.toml"
    path.write_text(f'[moderator]\naddress = "pbem@games.test"\n\n[database]\nurl = "sqlite:///{tmp_path / "l.db"}"\n\n'
                    f'[smtp]\nhost = "{smtpd.host}"\nport = {smtpd.port}\nsecurity = "none"\n')
    return path


def lmtp(config: Path, *args: str) -> subprocess.Popen[str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "PBEM_CONFIG": "", "PBEM_DATABASE_URL": ""}
    environment.pop("PBEM_CRASH_AT", None)
    return subprocess.Popen([sys.executable, "-m", "pbem.cli", "--config", str(config), "lmtp", "--listen",
                             f"127.0.0.1:{free_port()}", *args], cwd=ROOT, env=environment,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


@pytest.fixture
def stopped() -> Iterator[list[subprocess.Popen[str]]]:
    """The processes a test starts, killed at its end if still running."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait()


def text(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.exists() else ""


@pytest.mark.slow
def test_sighup_reopens_the_log_file_after_logrotate_renamed_it(config: Path, tmp_path: Path,
                                                                stopped: list[subprocess.Popen[str]]) -> None:
    log = tmp_path / "logs" / "pbem.log"
    log.parent.mkdir()
    process = lmtp(config, "--log-file", str(log))
    stopped.append(process)
    wait_until(lambda: "LMTP server listening" in text(log), 30, "the first lines in the log file")
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    log.rename(log.with_name("pbem.log.1"))  # what logrotate does, before it sends SIGHUP
    process.send_signal(signal.SIGHUP)
    wait_until(lambda: "log file" in text(log) and "reopened" in text(log), 30, "a line in the new file")
    assert process.poll() is None  # alive
    assert "LMTP server listening" in text(log.with_name("pbem.log.1")) and "LMTP server listening" not in text(log)
    assert "SIGHUP" not in text(log.with_name("pbem.log.1"))
    process.send_signal(signal.SIGTERM)
    _, errors = process.communicate(timeout=30)
    assert process.returncode == 0 and errors == ""  # nothing went to standard error
    assert "pbem moderator stopped" in text(log)


@pytest.mark.slow
def test_without_a_log_file_sighup_is_logged_and_ignored(config: Path, stopped: list[subprocess.Popen[str]]) -> None:
    process = lmtp(config)
    stopped.append(process)
    said = read_until(process, "LMTP server listening")
    process.send_signal(signal.SIGHUP)
    said += read_until(process, "SIGHUP")
    assert "SIGHUP received: no log file to reopen (the log goes to standard error); ignored" in said
    assert process.poll() is None
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=30)
    assert process.returncode == 0


def read_until(process: subprocess.Popen[str], words: str) -> str:
    """Standard error's lines up to the one holding ``words`` (all of it, if the process ends first)."""
    assert process.stderr is not None
    said = ""
    while words not in said:
        line = process.stderr.readline()
        if not line:
            raise AssertionError(f"the process ended without saying {words!r}: {said}")
        said += line
    return said


def test_log_file_in_the_configuration_is_taken_from_its_folder(tmp_path: Path) -> None:
    path = tmp_path / "pbem.toml"
    path.write_text('[moderator]\naddress = "pbem@games.test"\n\n[log]\nfile = "logs/pbem.log"\n')
    assert load_config(path, {}).log_file == tmp_path / "logs" / "pbem.log"
    path.write_text('[log]\nfile = "/var/log/pbem.log"\n')
    assert load_config(path, {}).log_file == Path("/var/log/pbem.log")
    assert load_config(None, {}).log_file is None
