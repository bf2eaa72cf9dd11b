"""Where a benchmark run's CPU went, by role (the moderator, its picture helpers, Dovecot ...), from /proc.

Why: on a small machine every process of a run shares the same cores, the
benchmark's own relay included. Throughput can only grow while a core is
idle; once the roles' CPU per order adds up to what the cores give, the
figure is the machine's, whatever the moderator does. Linux only (/proc);
elsewhere :func:`read` gives an empty reading and nothing is printed.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
PROC = Path("/proc")


@dataclass(frozen=True)
class Reading:
    """Every process's CPU seconds so far, its parent and command line; the machine's busy and total ticks."""

    cpu: dict[int, float] = field(default_factory=dict)
    parent: dict[int, int] = field(default_factory=dict)
    command: dict[int, str] = field(default_factory=dict)
    busy: int = 0
    total: int = 0


def read() -> Reading:
    if not (PROC / "stat").exists():
        return Reading()
    cpu, parent, command = {}, {}, {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # gone meanwhile
            continue
        fields = stat[stat.rfind(")") + 2:].split()  # after the command name, which may hold spaces
        pid = int(entry.name)
        parent[pid] = int(fields[1])
        cpu[pid] = (int(fields[11]) + int(fields[12])) / TICK  # utime + stime
        command[pid] = line
    ticks = [int(n) for n in (PROC / "stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = ticks[3] + ticks[4]  # idle + iowait
    return Reading(cpu, parent, command, sum(ticks) - idle, sum(ticks))


def descendants(reading: Reading, roots: Iterable[int]) -> set[int]:
    """``roots`` and every process below them."""
    found = set(roots)
    grew = True
    while grew:
        grew = False
        for pid, parent in reading.parent.items():
            if parent in found and pid not in found:
                found.add(pid)
                grew = True
    return found


Role = Callable[[int, Reading], bool]


def shares(before: Reading, after: Reading, roles: dict[str, Role]) -> dict[str, float]:
    """CPU seconds spent between the readings per role (the first role a process fits), and ``the rest``."""
    spent = dict.fromkeys([*roles, "the rest"], 0.0)
    for pid, now in after.cpu.items():
        used = now - before.cpu.get(pid, 0.0)
        role = next((name for name, fits in roles.items() if fits(pid, after)), "the rest")
        spent[role] += max(0.0, used)
    return spent


def summary(before: Reading, after: Reading, roles: dict[str, Role], orders: int) -> str | None:
    """``CPU per order: role X ms, ...; Y ms in all: N cores could do at most Z orders/s of this; they were
    B% busy``, or None without /proc."""
    if not after.total or orders <= 0:
        return None
    spent = shares(before, after, roles)
    per_order = {role: seconds * 1e3 / orders for role, seconds in spent.items()}
    everything = sum(per_order.values())
    cores = os.cpu_count() or 1
    busy = (after.busy - before.busy) / max(1, after.total - before.total)
    parts = ", ".join(f"{role} {ms:.1f} ms" for role, ms in per_order.items() if ms >= 0.05)  # roles that ran
    return (f"CPU per order: {parts}; {everything:.1f} ms in all: {cores} cores could do at most "
            f"{cores * 1e3 / everything:.0f} orders/s of this; they were {busy:.0%} busy")
