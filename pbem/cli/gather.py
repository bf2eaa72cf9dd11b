"""What ``pbem status`` reports, read from the database: the moderator's processes, the queues, whom each game
waits for (the command itself: ``pbem.cli.status``).

Why a command of its own: a moderator runs for months, unattended, and the
first sign of a dead daemon is otherwise a player asking why nobody answers.
Everything here is read from the database (one short read per part, nothing
written), so the answer is the same from any host that shares the database,
and a monitoring script or a container's health check can ask it often.

How "running" is told: every moderator process (``pbem run``, ``lmtp``,
``poll``) writes a heartbeat row (``pbem.store.processes``, written by
``pbem.daemon.heartbeat``) every few seconds while it lives, and deletes it
when it stops cleanly. A row whose last beat is older than its expiry (a
killed process, a host gone down), or whose process is one of this host
that no longer runs (``pbem.holders.gone``), is shown as stopped. The
moderator runs while some process of each role it needs lives: with an
inbox in the configuration, one that reads it (``pbem run``, or a ``pbem
poll`` during its pass); without one (mail handed over by ``pbem lmtp``),
a ``pbem lmtp``; without a configuration, either. The leases
(``pbem.store.leases``) still tell which process reads the inbox now and
which checks the deadlines: ``fetch:<inbox>`` and ``periodic-tasks``, each
renewed at every pass for :data:`pbem.daemon.loop.FETCH_LEASE` and
:data:`pbem.daemon.loop.TASK_LEASE` seconds.

What a running moderator cannot reach (the SMTP relay, the inbox) is named
from the outages its processes write (``pbem.store.outages``): a process may
run and hold its lease while no mail goes out. A database that is down is
said by the command itself, which cannot read it.

:func:`gather` returns a typed :class:`StatusReport`; :func:`report_json` is
its stable JSON form (documented in docs/running.md), :func:`report_lines`
the text the command prints.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from engine.core.errors import EngineError
from pbem import store
from pbem.config import Config
from pbem.daemon.loop import FETCH_LEASE, TASK_LEASE, inbox_identity
from pbem.daemon.outages import Service
from pbem.daemon.sendlimits import waiting_reason
from pbem.errors import PbemError
from pbem.games import kind_of
from pbem.holders import gone
from pbem.moderator.deadlines import decision_since, game_deadlines, utc
from pbem.render.text import utc_stamp
from pbem.store.inbound import MailboxStateRow
from pbem.store.inqueue import counts as queue_counts
from pbem.store.leases import LEASE_NAME_MAX, LeaseRow
from pbem.store.models import GameRow, GameStatus
from pbem.store.moves import to_tell
from pbem.store.outages import Outage, outages
from pbem.store.outbox import OutboxRow, OutboxStatus
from pbem.store.processes import Process, processes
from pbem.store.settings import GameSettingsRow, load_settings

FORMAT = 1  # the version of the JSON form: bumped only when a key changes meaning or goes away
FETCH_PREFIX = "fetch:"
TASK_LEASE_NAME = "periodic-tasks"
RETRYING_SHOWN = 10  # mails waiting for a retry listed one by one; the rest are counted


@dataclass(frozen=True)
class LeaseView:
    """One lease as the database holds it: who, until when, and when it was last renewed."""

    name: str
    holder: str  # role@host:pid:thread (pbem.holders)
    until: datetime
    renewed: datetime  # until minus the lease's length: the holder's last pass
    held: bool  # not run out, and its holder is not a dead process of this host


@dataclass(frozen=True)
class ReaderStatus:
    """The leases that say which process reads the inbox and which checks the deadlines, and the inbox position."""

    watched: str  # "inbox" (the configuration has one) or "deadlines" (none: mail comes by LMTP)
    inbox: str | None  # the inbox of the configuration ("imap:user@host:993/INBOX"); None: any inbox
    reader: LeaseView | None
    ticker: LeaseView | None
    last_inbox_update: datetime | None  # when the stored inbox position last changed (mail taken, a first read)


ALIVE, GONE, SILENT = "alive", "gone", "silent"


@dataclass(frozen=True)
class ProcessView:
    """A moderator process from its heartbeat: alive, gone (a process of this host that no longer runs) or
    silent (no beat since its expiry: killed, or its host is down)."""

    process: Process
    state: str  # ALIVE, GONE, SILENT

    @property
    def alive(self) -> bool:
        return self.state == ALIVE


# The roles a configuration needs alive, any one of each tuple: what the words say is missing when none is.
NEEDS_INBOX = ("run", "poll")  # a reader of the inbox (pbem poll only while its pass runs)
NEEDS_LMTP = ("lmtp",)  # no inbox: the mail server hands mail to pbem lmtp, which also checks the deadlines
NEEDS_ANY = ("run", "lmtp")  # no configuration given: any moderator process


@dataclass(frozen=True)
class InboundStatus:
    waiting: int
    claimed: int  # being handled by a worker now
    set_aside: int  # handling failed: `pbem inbox retry`


@dataclass(frozen=True)
class RetryingMail:
    """A queued mail not due yet: its next attempt, and why the last one failed."""

    id: int
    recipient: str
    purpose: str
    attempts: int
    next_attempt: datetime
    last_error: str  # its first line ("" for a mail queued for later that was never tried)


@dataclass(frozen=True)
class OutboxSummary:
    due: int  # queued, due now, not taken by a sender yet
    sending: int  # claimed by a sender at this moment
    later: int  # queued, due later (a retry's backoff, a mail written for later)
    failed: int  # refused for good by the relay, kept for the game master
    retrying: tuple[RetryingMail, ...] = ()  # the first of ``later``, soonest first
    # When a sending limit ([limits] max_mails_per_hour / max_mails_per_day) or a relay's "too many messages"
    # holds the outbox back: why, and until when (pbem.daemon.sendlimits). None: nothing holds it.
    held_by_limit: str | None = None
    to_write: int = 0  # moves whose mail is still to be written (pbem.moderator.notify.telling)


@dataclass(frozen=True)
class WaitingOn:
    """One pending decision of a game: who, what, since when, until when."""

    player: str
    decision: str  # the game's decision kind ("rondel", "bid")
    what: str  # in the game's words: "choose a rondel space for Russia"
    since: datetime
    due: datetime | None  # None: this decision has no deadline


@dataclass(frozen=True)
class GameStatusView:
    name: str
    kind: str
    version: int
    paused: bool
    waiting_on: tuple[WaitingOn, ...] = ()
    error: str | None = None  # the game could not be read (its kind unknown here, a log that does not replay)


@dataclass(frozen=True)
class StatusReport:
    now: datetime
    database: str  # the URL, any password masked
    reader: ReaderStatus
    inbound: InboundStatus
    outbox: OutboxSummary
    games: tuple[GameStatusView, ...] = ()
    finished_games: int = 0
    games_listed: bool = True  # False with ``--no-games``: the games were not read
    outages: tuple[Outage, ...] = ()  # what the moderator's processes could not reach at their last try
    processes: tuple[ProcessView, ...] = ()  # every process with a heartbeat row, alive or stopped
    needed: tuple[str, ...] = NEEDS_ANY  # roles of which one must be alive

    @property
    def ok(self) -> bool:
        """Exit code 0: a process of a needed role is alive."""
        return any(p.alive and p.process.role in self.needed for p in self.processes)


# --- gathering ------------------------------------------------------------------------------------


def gather(db: Any, config: Config, now: datetime | None = None, *, games: bool = True) -> StatusReport:
    """Read everything ``pbem status`` shows from ``db`` (a ``pbem.store.Database``), writing nothing."""
    now = utc(now or datetime.now(UTC))
    with db.transaction() as session:
        reader = _reader(session, config, now)
        inbound = _inbound(session)
        outbox = _outbox(session, now, config)
        finished = session.exec(select(func.count(col(GameRow.id)))
                                .where(col(GameRow.status) == GameStatus.FINISHED)).one()
        active = list(session.exec(select(GameRow.id, GameRow.name).where(col(GameRow.status) == GameStatus.ACTIVE)
                                   .order_by(col(GameRow.name))).all())
        paused = set(session.exec(select(GameSettingsRow.game_id).where(col(GameSettingsRow.paused))).all())
        down = tuple(outages(session))
        beating = tuple(_process(p, now) for p in processes(session))
    views: list[GameStatusView] = []
    if games:
        for game_id, name in active:
            views.append(_game(db, game_id, name, game_id in paused))
    return StatusReport(now, db.display_url, reader, inbound, outbox, tuple(views), int(finished), games, down,
                        beating, _needed(config))


def _needed(config: Config) -> tuple[str, ...]:
    if config.inbox_configured:
        return NEEDS_INBOX
    return NEEDS_LMTP if config.path is not None else NEEDS_ANY


def _process(process: Process, now: datetime) -> ProcessView:
    if gone(process.name):
        return ProcessView(process, GONE)
    return ProcessView(process, ALIVE if process.expires > now else SILENT)


def _lease(row: LeaseRow | None, seconds: float, now: datetime) -> LeaseView | None:
    if row is None:
        return None
    until = utc(row.until)
    return LeaseView(row.name, row.holder, until, until - timedelta(seconds=seconds),
                     until > now and not gone(row.holder))


def _reader(session: Session, config: Config, now: datetime) -> ReaderStatus:
    inbox = inbox_identity(config) if config.inbox_configured else None
    rows = session.exec(select(LeaseRow).where(col(LeaseRow.name).startswith(FETCH_PREFIX))
                        .order_by(col(LeaseRow.until).desc())).all()
    wanted = (FETCH_PREFIX + inbox)[:LEASE_NAME_MAX] if inbox is not None else None
    mine = [row for row in rows if wanted is None or row.name == wanted]
    ticker = session.exec(select(LeaseRow).where(col(LeaseRow.name) == TASK_LEASE_NAME)).first()
    updated = session.exec(select(func.max(col(MailboxStateRow.updated)))).one()
    lmtp_only = config.path is not None and not config.inbox_configured
    return ReaderStatus("deadlines" if lmtp_only else "inbox", inbox, _lease(mine[0] if mine else None, FETCH_LEASE, now),
                        _lease(ticker, TASK_LEASE, now), utc(updated) if updated is not None else None)


def _inbound(session: Session) -> InboundStatus:
    numbers = queue_counts(session)
    return InboundStatus(numbers.get("waiting", 0), numbers.get("claimed", 0), numbers.get("failed", 0))


def _outbox(session: Session, now: datetime, config: Config) -> OutboxSummary:
    queued = col(OutboxRow.status) == OutboxStatus.QUEUED
    free = col(OutboxRow.claimed_by) == ""

    def count(*where: Any) -> int:
        return int(session.exec(select(func.count(col(OutboxRow.id))).where(*where)).one())

    later = (queued, free, col(OutboxRow.next_attempt) > now)
    columns = (col(OutboxRow.id), col(OutboxRow.recipient), col(OutboxRow.purpose), col(OutboxRow.attempts),
               col(OutboxRow.next_attempt), col(OutboxRow.last_error))  # not the body, nor the picture
    rows = session.execute(sa_select(*columns).where(*later).order_by(col(OutboxRow.next_attempt), col(OutboxRow.id))
                           .limit(RETRYING_SHOWN)).all()
    retrying = tuple(RetryingMail(int(row_id or 0), recipient, purpose, int(attempts), utc(next_attempt),
                                  _first_line(error))
                     for row_id, recipient, purpose, attempts, next_attempt, error in rows)
    return OutboxSummary(due=count(queued, free, col(OutboxRow.next_attempt) <= now),
                         sending=count(queued, col(OutboxRow.claimed_by) != ""), later=count(*later),
                         failed=count(col(OutboxRow.status) == OutboxStatus.FAILED), retrying=retrying,
                         held_by_limit=waiting_reason(session, config.limits, now), to_write=to_tell(session))


def _game(db: Any, game_id: int, name: str, paused: bool) -> GameStatusView:
    """One active game: whom it waits for and since when (a paused game is only listed, as the tick does)."""
    try:
        with db.transaction() as session:
            game = session.get(GameRow, game_id)
            if game is None:  # deleted meanwhile
                return GameStatusView(name, "?", 0, paused, error="deleted while status was read")
            kind = kind_of(game.kind)
            state = store.load_state(session, game)
            version = int(kind.version(state))
            if paused:
                return GameStatusView(name, game.kind, version, True)
            settings = load_settings(session, game)
            since = utc(decision_since(session, game, state))
            dues = {(d.player, d.kind): d.due for d in game_deadlines(session, game, state, settings)}
            waiting = tuple(WaitingOn(d.player, d.kind, kind.decision_words(state, d), since, dues.get((d.player, d.kind)))
                            for d in kind.pending(state)
                            if not d.answered)  # a sealed answer is in: the game waits for the others
            return GameStatusView(name, game.kind, version, False, waiting)
    except (PbemError, EngineError, LookupError) as exc:
        return GameStatusView(name, "?", 0, paused, error=str(exc) or type(exc).__name__)


def _words(service: str) -> str:
    """"the SMTP relay" for ``smtp`` (a service this pbem does not know: its key)."""
    try:
        return Service(service).words
    except ValueError:
        return service


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0][:300] if lines else ""


# --- showing --------------------------------------------------------------------------------------


def _stamp(moment: datetime | None) -> str | None:
    """ISO 8601 in UTC to the second, for the JSON form."""
    return None if moment is None else utc(moment).isoformat(timespec="seconds")


def report_json(report: StatusReport) -> dict[str, Any]:
    """The stable JSON form (keys documented in docs/running.md; ``format`` says which version)."""
    def lease(view: LeaseView | None) -> dict[str, Any] | None:
        if view is None:
            return None
        return {"name": view.name, "holder": view.holder, "held": view.held, "until": _stamp(view.until),
                "renewed": _stamp(view.renewed)}

    reader, out = report.reader, report.outbox
    return {
        "format": FORMAT,
        "ok": report.ok,
        "now": _stamp(report.now),
        "database": report.database,
        "moderator": {
            "alive": report.ok,
            "needed": list(report.needed),
            "watched": reader.watched,
            "inbox": reader.inbox,
            "reader": lease(reader.reader),
            "deadline_ticker": lease(reader.ticker),
            "last_inbox_update": _stamp(reader.last_inbox_update),
        },
        "inbound": {"waiting": report.inbound.waiting, "claimed": report.inbound.claimed,
                    "set_aside": report.inbound.set_aside},
        "outbox": {
            "due": out.due, "sending": out.sending, "later": out.later, "failed": out.failed,
            "held_by_limit": out.held_by_limit, "to_write": out.to_write,
            "retrying": [{"id": m.id, "recipient": m.recipient, "purpose": m.purpose, "attempts": m.attempts,
                          "next_attempt": _stamp(m.next_attempt), "last_error": m.last_error}
                         for m in out.retrying],
        },
        "games": None if not report.games_listed else [
            {"name": g.name, "kind": g.kind, "version": g.version, "paused": g.paused, "error": g.error,
             "waiting_on": [{"player": w.player, "decision": w.decision, "what": w.what, "since": _stamp(w.since),
                             "due": _stamp(w.due)} for w in g.waiting_on]}
            for g in report.games],
        "finished_games": report.finished_games,
        "outages": [{"service": o.service, "since": _stamp(o.since), "last_tried": _stamp(o.seen), "by": o.holder,
                     "error": o.error} for o in report.outages],
        "processes": [{"name": v.process.name, "role": v.process.role, "host": v.process.host, "pid": v.process.pid,
                       "version": v.process.version, "started": _stamp(v.process.started),
                       "last_seen": _stamp(v.process.seen), "expires": _stamp(v.process.expires),
                       "doing": v.process.doing, "state": v.state} for v in report.processes],
    }


def _ago(now: datetime, moment: datetime) -> str:
    """'3 min ago', '2 h ago', '4 days ago'; 'in 5 min' for a moment ahead."""
    seconds = (now - moment).total_seconds()
    span = abs(seconds)
    if span < 90:
        words = f"{span:.0f} s"
    elif span < 90 * 60:
        words = f"{span / 60:.0f} min"
    elif span < 36 * 3600:
        words = f"{span / 3600:.0f} h"
    else:
        words = f"{span / 86400:.0f} days"
    return f"{words} ago" if seconds >= 0 else f"in {words}"


def _when(now: datetime, moment: datetime) -> str:
    return f"{utc_stamp(moment)} ({_ago(now, moment)})"


def _lease_line(now: datetime, what: str, view: LeaseView) -> str:
    return f"{what} {view.holder}, last renewed {_when(now, view.renewed)}, holds it until {utc_stamp(view.until)}"


ROLE_WORDS = {"run": "pbem run", "lmtp": "pbem lmtp", "poll": "pbem poll"}
MISSING = {
    NEEDS_INBOX: "no pbem run process is alive to read the inbox",
    NEEDS_LMTP: "no pbem lmtp process is alive to take mail from the mail server (it keeps the mail and tries "
                "again)",
    NEEDS_ANY: "no pbem run or pbem lmtp process is alive",
}


def _process_line(now: datetime, view: ProcessView) -> str:
    p = view.process
    who = f"{ROLE_WORDS.get(p.role, p.role)} {p.name} (pbem {p.version}, started {_when(now, p.started)})"
    if view.state == ALIVE:
        return f"  {who}, last heartbeat {_ago(now, p.seen)}: {p.doing}"
    why = ("that process is gone" if view.state == GONE
           else f"no heartbeat since: counted as stopped since {utc_stamp(p.expires)} (killed, or its host is down)")
    return f"  STOPPED: {who}, last heartbeat {_when(now, p.seen)}; {why}"


def _moderator_lines(report: StatusReport) -> list[str]:
    """Whether the moderator runs, every process, and which process reads the inbox and checks deadlines."""
    now, reader = report.now, report.reader
    alive = [v for v in report.processes if v.alive]
    mode = " (no inbox configured: mail comes by LMTP)" if reader.watched == "deadlines" else ""
    if report.ok:
        head = f"Moderator: running{mode}: {len(alive)} process(es) alive."
    else:
        head = f"Moderator: NOT RUNNING: {MISSING.get(report.needed, MISSING[NEEDS_ANY])}{mode}."
    lines = [head]
    lines += [_process_line(now, view) for view in report.processes]
    if not report.processes:
        lines.append("  no moderator process is listed: each one stopped cleanly, or none ran on this database "
                     "in the last day")
    if reader.watched == "inbox":
        if reader.reader is not None and reader.reader.held:
            lines.append("  " + _lease_line(now, "inbox read by", reader.reader))
        elif reader.reader is not None:  # left behind: its holder stopped renewing it, or died
            why = "that process is gone" if reader.reader.until > now else "its lease ran out"
            lines.append(f"  nobody reads the inbox now: the last reader, {reader.reader.holder}, renewed its lease "
                         f"{_when(now, reader.reader.renewed)}; {why}")
        elif alive:
            lines.append("  nobody holds the inbox now: a pbem run process takes it at its next try")
    if reader.ticker is not None:
        state = "" if reader.ticker.held else " (nobody holds it now)"
        lines.append(f"  deadlines last checked {_when(now, reader.ticker.renewed)} by {reader.ticker.holder}{state}")
    if reader.last_inbox_update is not None:
        lines.append(f"  the stored inbox position last changed {_when(now, reader.last_inbox_update)}")
    return lines


def report_lines(report: StatusReport) -> list[str]:
    """What ``pbem status`` prints, one line each."""
    now, out, inbound = report.now, report.outbox, report.inbound
    lines = [f"Database: {report.database}", *_moderator_lines(report)]
    for outage in report.outages:
        lines.append(f"  DOWN: {_words(outage.service)} cannot be reached since {_when(now, outage.since)}; "
                     f"last tried {_ago(now, outage.seen)} by {outage.holder}: {outage.error}")
    lines.append(f"Inbound queue: {inbound.waiting} waiting, {inbound.claimed} being handled, "
                 f"{inbound.set_aside} set aside" + (" (see: pbem inbox)" if inbound.set_aside else ""))
    relay_down = any(o.service == Service.RELAY.value for o in report.outages)
    lines.append(f"Outbox: {out.due} due now{' (waiting for the SMTP relay)' if relay_down and out.due else ''}, "
                 f"{out.sending} being sent, {out.later} due later, {out.failed} failed")
    if out.held_by_limit:
        lines.append(f"  held back by a sending limit: {out.held_by_limit}")
    if out.to_write:
        lines.append(f"  {out.to_write} move(s) whose mail is still to be written (a moderator writes it at its next "
                     "pass; if the number stays, its log says why)")
    for mail in out.retrying:
        error = f": {mail.last_error}" if mail.last_error else ""
        tried = f"tried {mail.attempts} time(s), " if mail.attempts else ""
        lines.append(f"  #{mail.id} to {mail.recipient} ({mail.purpose}): {tried}next at "
                     f"{_when(now, mail.next_attempt)}{error}")
    if out.later > len(out.retrying):
        lines.append(f"  … and {out.later - len(out.retrying)} more due later")
    if not report.games_listed:
        return lines
    paused = sum(1 for g in report.games if g.paused)
    lines.append(f"Games: {len(report.games)} active ({paused} paused), {report.finished_games} finished")
    for game in report.games:
        head = f"  {game.name} ({game.kind}, move {game.version})"
        if game.error is not None:
            lines.append(f"{head}: cannot be read: {game.error}")
        elif game.paused:
            lines.append(f"{head}: paused")
        elif not game.waiting_on:
            lines.append(f"{head}: waits for nobody")
        for waiting in () if game.error is not None or game.paused else game.waiting_on:
            due = f", deadline {utc_stamp(waiting.due)}" if waiting.due is not None else ", no deadline"
            lines.append(f"{head}: waits for {waiting.player} ({waiting.what}) since "
                         f"{_when(now, waiting.since)}{due}")
    return lines
