"""Heartbeats: every moderator process (``pbem run``, ``lmtp``, ``poll``) says in the database that it lives.

Why: a lease (``pbem.store.leases``) names only the one process doing a
single job; ``pbem status`` read from the leases alone could not see a
second ``pbem lmtp`` at all, and called the moderator stopped while another
process was answering mail. Here each process has a row of its own (role,
host, pid, version, when it started, when it last beat, what it is doing),
written at start, renewed every few seconds (``pbem.daemon.heartbeat``),
and deleted when it stops cleanly. A process that is killed leaves its row:
its ``seen`` stops moving, and readers count it as stopped once it is older
than the expiry the writer promised (``expires``, kept in the row so that a
reader need not know the writer's interval).

Every write is one UPDATE, or one INSERT for a new process: safe on SQLite
and PostgreSQL with any number of writers.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Column, DateTime, Integer, String, delete, update
from sqlmodel import Field, Session, SQLModel, col, select

from pbem.store.models import as_utc

NAME_MAX = 64  # role@host:pid (pbem.holders.process_name)
DOING_MAX = 200


class ProcessRow(SQLModel, table=True):
    __tablename__ = "processes"

    name: str = Field(sa_column=Column(String(NAME_MAX), primary_key=True))  # role@host:pid
    role: str = Field(sa_column=Column(String(16), nullable=False))  # run, lmtp, poll
    host: str = Field(sa_column=Column(String(64), nullable=False))
    pid: int = Field(sa_column=Column(Integer, nullable=False))
    version: str = Field(sa_column=Column(String(32), nullable=False))  # the pbem that runs it
    started: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    seen: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))  # its latest beat
    expires: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))  # seen + its expiry
    doing: str = Field(default="", sa_column=Column(String(DOING_MAX), nullable=False))


@dataclass(frozen=True)
class Process:
    """A process as its row tells it (times in UTC)."""

    name: str
    role: str
    host: str
    pid: int
    version: str
    started: datetime
    seen: datetime
    expires: datetime
    doing: str


def beat(session: Session, process: Process) -> None:
    """Write ``process``'s row: renewed (``seen``, ``expires``, ``doing``) when there, else inserted whole."""
    doing = process.doing[:DOING_MAX]
    renewed = session.execute(update(ProcessRow).where(col(ProcessRow.name) == process.name)
                              .values(seen=process.seen, expires=process.expires, doing=doing))
    if not renewed.rowcount:  # type: ignore[attr-defined]  # a CursorResult at run time
        session.add(ProcessRow(name=process.name, role=process.role, host=process.host, pid=process.pid,
                               version=process.version, started=process.started, seen=process.seen,
                               expires=process.expires, doing=doing))


def forget(session: Session, name: str) -> None:
    """The process called ``name`` stopped cleanly: its row goes."""
    session.execute(delete(ProcessRow).where(col(ProcessRow.name) == name))


def forget_older(session: Session, moment: datetime) -> int:
    """Rows whose last beat came before ``moment`` (processes killed long ago) go; how many went."""
    gone = session.execute(delete(ProcessRow).where(col(ProcessRow.seen) < moment))
    return int(gone.rowcount or 0)  # type: ignore[attr-defined]  # a CursorResult at run time


def processes(session: Session) -> list[Process]:
    """Every process with a row, by role, then the oldest first."""
    rows = session.exec(select(ProcessRow).order_by(col(ProcessRow.role), col(ProcessRow.started),
                                                    col(ProcessRow.name))).all()
    return [Process(r.name, r.role, r.host, r.pid, r.version, as_utc(r.started), as_utc(r.seen), as_utc(r.expires),
                    r.doing) for r in rows]


def expiry_of(interval: float) -> timedelta:
    """How long after its last beat a process that beats every ``interval`` seconds counts as stopped: four
    beats missed (a slow database, a long pause of the machine are not a stop)."""
    return timedelta(seconds=4 * interval)
