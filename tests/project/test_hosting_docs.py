"""The numbers and names that docs/running.md and docs/hosting.md give hosts are the code's own."""
from __future__ import annotations

import re
from pathlib import Path

from pbem.daemon.heartbeat import FORGET_AFTER, HEARTBEAT_EXPIRY, HEARTBEAT_INTERVAL
from pbem.daemon.loop import TASK_LEASE

ROOT = Path(__file__).resolve().parents[2]
WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 10: "ten"}


def test_running_md_says_how_long_the_deadline_lease_lasts() -> None:
    """A second process takes the deadline checks over when the lease of a process that vanished has run out."""
    text = re.sub(r"\s+", " ", (ROOT / "docs" / "running.md").read_text(encoding="utf-8"))
    minutes = int(TASK_LEASE // 60)
    assert f"lease that lasts {WORDS[minutes]} minutes" in text
    assert f"when the {WORDS[minutes]} minutes have run out" in text


def test_hosting_md_says_how_often_a_process_beats_and_when_it_counts_as_stopped() -> None:
    text = re.sub(r"\s+", " ", (ROOT / "docs" / "hosting.md").read_text(encoding="utf-8"))
    assert f"It beats every {HEARTBEAT_INTERVAL:g} seconds" in text
    minutes = int(HEARTBEAT_EXPIRY.total_seconds() // 60)
    assert f"*STOPPED* {WORDS[minutes]} minute after its last heartbeat" in text
    beats = int(HEARTBEAT_EXPIRY.total_seconds() / HEARTBEAT_INTERVAL)
    assert f"({WORDS[beats]} beats missed" in text
    assert FORGET_AFTER.days == 1 and "stays listed for a day" in text
