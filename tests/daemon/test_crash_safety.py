"""Crash safety: the moderator killed at every crash point, and by a real SIGKILL, then restarted.

Every test puts the same mails into a real Dovecot inbox: the first turns of
two games (a three-player ``g1`` and a two-player ``g2``, interleaved), each
mail a seat's orders (sometimes two orders in one mail) or, once, a STATUS
question. The moderator runs as its own process (``pbem poll --once`` or
``pbem run``, as a deployment runs it) with ``PBEM_CRASH_AT`` set, so that it
dies with exit code 137 at the named point (:mod:`pbem.crash`); the
test checks that it died *there* (the exit code, its last words, and what the
database, the mailbox and the relay hold at that moment), restarts it without
the variable (``pbem poll --once``: the same ``poll_once`` in the test's
process, which saves a second of interpreter start-up per case; ``pbem run``:
a new ``pbem run`` process, stopped with SIGTERM once all is done), and checks
what must hold after any crash:

* every order applied exactly once: each game's action log is exactly the
  reference log (the same mails handed to ``process_message`` in order, in a
  database of its own, no crash), versions 0, 1, 2 … without gap or repeat;
  each mail recorded once, with the reference outcome;
* the state equals the replay of the log (``engine.imperial2030.game.replay`` of the setup
  and the log == the stored state == the reference state);
* every mail the outbox holds is the reference's (each queued once) and was
  delivered at least once: its Message-ID was seen by aiosmtpd; a mail is seen
  twice only where the crash allows it (``mid_send``, a SIGKILL);
* every handled mail is in the processed folder; the inbox and the failed
  folder are empty.

The SIGKILL tests start ``pbem run``, append the mails, and kill it (SIGKILL,
twice in a row, the second time while the restarted daemon recovers and goes
on) at a seeded random moment while it works: once a random number of mails
are handled or accepted by the relay, plus a random 0-5 ms; each kill must
leave work undone (so the test looks at the progress every 2 ms). Two seeds, so four kills.

SQLite throughout; one representative crash (mid-transaction: an open
transaction dies with the process) on PostgreSQL as well.
"""
from __future__ import annotations

import functools
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func
from sqlmodel import select

from engine.imperial2030.decisions import pending
from engine.imperial2030.game import LogEntry, replay
from engine.imperial2030.mapfile import default_board
from engine.imperial2030.model import GameState
from pbem.config import load_config
from pbem.crash import ENV, EXIT_CODE
from pbem.daemon import MailFlow, PollReport, deadline_task, poll_once
from pbem.games.imperial2030.orders import apply_message, legal_orders
from pbem.moderator import Moderator
from pbem.moderator.inbound.handler import process_message
from pbem.store import Database, find_game, load_log, load_state
from pbem.store.games import game_setup
from pbem.store.inbound import InboundRow
from pbem.store.moves import MoveToTellRow
from pbem.store.outbox import OutboxRow
from tests.mailflowkit import PLAYERS, Table, config_for, mailbox_config_text, raw_mail, wait_until
from tests.mailservers import DovecotAccount
from tests.smtpservers import SmtpServer

ROOT = Path(__file__).resolve().parents[2]
EMAILS = dict(PLAYERS)
GAMES = {"g1": 3, "g2": 2}  # name -> players
ORDER_MAILS = 8  # alternately g1, g2
QUERY_AT = 4  # the STATUS question is the 5th mail


# --- the reference: the same mails, handled in order, without a crash -----------------------------------


@dataclass(frozen=True)
class Step:
    game: str
    player: str
    body: str
    message_id: str
    outcome: str  # "applied" or "query"


@dataclass(frozen=True)
class Scenario:
    steps: tuple[Step, ...]
    logs: dict[str, list[LogEntry]]  # game -> the whole log
    log_after: tuple[dict[str, int], ...]  # after step i: game -> log length
    states: dict[str, GameState]
    outbox: dict[str, tuple[str, str, int]]  # Message-ID -> (recipient, purpose, version)

    def logs_after(self, handled: int) -> dict[str, list[LogEntry]]:
        """Each game's log once the first ``handled`` mails are handled."""
        lengths = self.log_after[handled - 1] if handled else dict.fromkeys(GAMES, 0)
        return {name: self.logs[name][:lengths[name]] for name in GAMES}


def tables_of(db: Database, config: Any) -> dict[str, Table]:
    return {name: Table(db, config, name) for name in GAMES}


def create_games(tables: dict[str, Table], now: datetime) -> None:
    for name, players in GAMES.items():
        tables[name].create(players=players, now=now)


def mail_of(table: Table, step: Step) -> bytes:
    """The step's mail as the seat's client sends it: to the seat's token address of ``table``'s database."""
    return raw_mail(EMAILS[step.player], table.reply_to(step.player), step.body,
                    subject=f"Re: [{step.game}] orders", message_id=step.message_id)


@functools.cache
def scenario() -> Scenario:
    """Play the mails once through ``process_message`` (the moderator's own path) and keep what came of it."""
    with tempfile.TemporaryDirectory(prefix="pbem-crash-ref-") as directory:
        db = Database(f"sqlite:///{directory}/reference.db")
        config = config_for()
        tables = tables_of(db, config)
        now = datetime.now(UTC)
        create_games(tables, now)
        steps: list[Step] = []
        log_after: list[dict[str, int]] = []
        names = list(GAMES)
        orders = 0
        while orders < ORDER_MAILS:
            index = len(steps)
            if index == QUERY_AT:  # someone who does not decide now asks for the position
                t = tables["g1"]
                deciding = t.decider()
                player = next(p for p, _ in PLAYERS[:GAMES["g1"]] if p != deciding)
                step = Step("g1", player, "STATUS\n", f"<crash-{index}@clients.example>", "query")
            else:
                t = tables[names[orders % len(names)]]
                state = t.state()
                player, order = t.an_order()
                body = order
                if order.startswith("RONDEL") and orders % 3 != 1:  # the rondel and what follows, in one mail
                    after = apply_message(state, player, order, end_maneuver=False).state
                    if any(d.player == player for d in pending(after)):
                        follow = [o for o in legal_orders(after, player) if "investor" not in o.lower()]
                        if follow:
                            body = order + "\n" + follow[0]
                step = Step(t.name, player, body + "\n", f"<crash-{index}@clients.example>", "applied")
                orders += 1
            outcome = process_message(db, config, mail_of(t, step), "INBOX", 1, index + 1, now,
                                      moderator=t.moderator)
            assert outcome.outcome == step.outcome, (step, outcome)
            steps.append(step)
            log_after.append({name: tables[name].log_length() for name in GAMES})
        with db.transaction() as session:
            logs = {name: load_log(session, find_game(session, name)) for name in GAMES}
        states = {name: tables[name].state() for name in GAMES}
        outbox = {row.message_id: (row.recipient, row.purpose, row.version) for row in tables["g1"].outbox()}
        db.dispose()
    assert all(len(logs[name]) >= ORDER_MAILS // len(GAMES) for name in GAMES)
    assert len({s.player for s in steps}) == 3  # mails from every player
    return Scenario(tuple(steps), logs, tuple(log_after), states, outbox)


# --- one moderator under test: its database, its inbox, its relay, its processes ---------------------------


@dataclass
class Rig:
    """The games in a fresh database, the mails for them, the servers, the moderator's processes."""

    directory: Path
    dovecot: DovecotAccount
    smtpd: SmtpServer
    url: str
    db: Database = field(init=False)
    config: Path = field(init=False)
    tables: dict[str, Table] = field(init=False)
    mails: list[bytes] = field(init=False)
    uids: list[int] = field(default_factory=list)  # of the mails, once appended
    welcomes: int = 0  # mails queued when the games were created
    runs: int = 0

    def __post_init__(self) -> None:
        self.config = self.directory / "pbem.toml"
        self.config.write_text(mailbox_config_text(self.dovecot, self.smtpd, self.url))
        self.db = Database(self.url)
        self.tables = tables_of(self.db, load_config(self.config, {}))
        create_games(self.tables, datetime.now(UTC))  # the moderator runs on the real clock: welcomes are due
        self.mails = [mail_of(self.tables[step.game], step) for step in scenario().steps]
        self.welcomes = len(self.outbox())

    # --- the moderator's processes ------------------------------------------------------------

    def start(self, *args: str, crash_at: str | None = None) -> tuple[subprocess.Popen[bytes], Path]:
        environment = {**os.environ, "PYTHONPATH": str(ROOT), "PBEM_CONFIG": "", "PBEM_DATABASE_URL": ""}
        environment.pop(ENV, None)
        if crash_at:
            environment[ENV] = crash_at
        self.runs += 1
        errors = self.directory / f"stderr-{self.runs}.txt"
        with errors.open("wb") as stderr:
            process = subprocess.Popen([sys.executable, "-m", "pbem.cli", "--config", str(self.config), *args],
                                       cwd=ROOT, env=environment, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=stderr)
        return process, errors

    def poll(self, crash_at: str | None = None) -> tuple[int, str]:
        """``pbem poll --once`` to its end: (exit code, stderr)."""
        process, errors = self.start("poll", "--once", crash_at=crash_at)
        code = process.wait(timeout=60)
        return code, errors.read_text()

    def run(self, crash_at: str | None = None) -> tuple[subprocess.Popen[bytes], Path]:
        """``pbem run`` (IDLE where the server offers it, as here), logging at INFO."""
        return self.start("run", "--log-level", "INFO", crash_at=crash_at)

    def poll_here(self) -> PollReport:
        """The restart of ``pbem poll --once`` in this process (what the command does, without its ~1 s
        of start-up): a new flow, a new IMAP connection, the deadline task as the command has it."""
        config = load_config(self.config, {})
        moderator = Moderator(self.db)
        tasks = [t for t in (deadline_task(config, self.db),) if t is not None]
        return poll_once(MailFlow(config, self.db, moderator=moderator, tasks=tasks))

    def stop(self, process: subprocess.Popen[bytes], errors: Path) -> str:
        """SIGTERM: a clean stop (exit 0)."""
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=15)
        text = errors.read_text()
        assert code == 0, text
        assert "pbem moderator stopped" in text
        return text

    # --- what there is ------------------------------------------------------------------------

    def append_all(self) -> None:
        client = self.dovecot.client()  # one connection for the lot: they arrive as fast as they can
        try:
            for raw in self.mails:
                text = client.append("INBOX", raw)
                text = text.decode() if isinstance(text, bytes) else str(text)
                self.uids.append(int(text.split("APPENDUID", 1)[1].split("]", 1)[0].split()[1]))
        finally:
            client.logout()

    def outbox(self) -> list[OutboxRow]:
        return self.tables["g1"].outbox()

    def inbound(self) -> list[InboundRow]:
        return self.tables["g1"].inbound()

    def handled(self) -> int:
        with self.db.transaction() as session:
            return session.exec(select(func.count(InboundRow.id))).one()

    def moves_to_tell(self) -> list[MoveToTellRow]:
        with self.db.transaction() as session:
            return list(session.exec(select(MoveToTellRow)).all())

    def logs(self) -> dict[str, list[LogEntry]]:
        with self.db.transaction() as session:
            return {name: load_log(session, find_game(session, name)) for name in GAMES}

    def received_ids(self) -> Counter[str]:
        return Counter(str(r.message["Message-ID"]) for r in list(self.smtpd.received))

    def complete(self) -> bool:
        """Every mail handled and every queued mail sent (the mailbox is checked by ``check``)."""
        if self.handled() < len(self.mails):
            return False
        rows = self.outbox()
        return all(r.status == "sent" for r in rows) and len(rows) == len(scenario().outbox)

    # --- the checks -----------------------------------------------------------------------------

    def check_crashed_at(self, spec: str, stderr: str) -> None:
        """It died at ``spec`` (``point[:n]``): what the database, the mailbox and the relay hold says so."""
        assert f"{ENV}={spec}: exiting with {EXIT_CODE}" in stderr, stderr
        assert "Traceback" not in stderr, stderr
        point, _, count = spec.partition(":")
        n = int(count or 1)
        total = len(self.mails)
        committed, moved, received, sent = {
            "after_fetch": (0, 0, 0, 0),
            # the fetched batch is queued (one commit), moved in one command, then handled from the queue
            "after_commit_before_move": (0, 0, 0, 0),
            "mid_transaction": (n - 1, total, 0, 0),
            # the n-th move is committed, its mail not written (the 5th mail, a question, makes no move)
            "after_apply_before_render": (n + (n > QUERY_AT), total, 0, 0),
            "mid_render": (n + (n > QUERY_AT), total, 0, 0),
            "mid_send": (total, total, n, n - 1),
        }[point]
        assert self.handled() == committed
        assert self.logs() == scenario().logs_after(committed)
        assert len(self.moves_to_tell()) == (1 if point in ("after_apply_before_render", "mid_render") else 0)
        assert self.dovecot.uids("INBOX") == self.uids[moved:]
        assert len(self.dovecot.uids("processed")) == moved
        assert len(self.smtpd.received) == received
        assert sum(r.status == "sent" for r in self.outbox()) == sent

    def check(self, *, resent: int | None = 0) -> None:
        """What must hold after any crash and a restart (see the module docstring).

        ``resent``: how many mails may have been delivered twice (None: any number).
        """
        reference = scenario()
        # every order applied exactly once
        logs = self.logs()
        for name in GAMES:
            assert [e.version for e in logs[name]] == list(range(len(logs[name]))), name
            assert logs[name] == reference.logs[name], name
        inbound = self.inbound()
        assert sorted(r.message_key for r in inbound) == sorted(s.message_id for s in reference.steps)
        outcomes = {r.message_key: r.outcome for r in inbound}
        assert [outcomes[s.message_id] for s in reference.steps] == [s.outcome for s in reference.steps]
        # the state is the replay of the log
        with self.db.transaction() as session:
            for name in GAMES:
                game = find_game(session, name)
                state = load_state(session, game)
                assert replay(default_board(), game_setup(game), load_log(session, game)) == state
                assert state == reference.states[name], name
        # every mail queued once and delivered at least once
        rows = self.outbox()
        assert {r.message_id: (r.recipient, r.purpose, r.version) for r in rows} == reference.outbox
        assert self.moves_to_tell() == []  # every move told
        assert all(r.status == "sent" for r in rows), [(r.message_id, r.status) for r in rows if r.status != "sent"]
        seen = self.received_ids()
        assert set(seen) == {r.message_id for r in rows}  # each at least once, and nothing else
        twice = sum(n - 1 for n in seen.values())
        if resent is not None:
            assert twice == resent, seen
        # the mailbox
        assert self.dovecot.uids("INBOX") == []
        assert len(self.dovecot.uids("processed")) == len(self.mails)
        assert self.dovecot.uids("failed") == []


@pytest.fixture
def rig(tmp_path: Path, dovecot: DovecotAccount, smtpd: SmtpServer) -> Iterator[Rig]:
    r = Rig(tmp_path, dovecot, smtpd, f"sqlite:///{tmp_path / 'pbem.db'}")
    yield r
    r.db.dispose()


@pytest.fixture
def pg_rig(tmp_path: Path, dovecot: DovecotAccount, smtpd: SmtpServer,
           postgres_url: str) -> Iterator[Rig]:
    r = Rig(tmp_path, dovecot, smtpd, postgres_url)
    yield r
    r.db.dispose()


def test_the_reference_is_a_real_game() -> None:
    reference = scenario()
    assert len(reference.steps) == ORDER_MAILS + 1
    assert sum(len(log) for log in reference.logs.values()) > ORDER_MAILS  # some mails carry two orders
    assert len(reference.outbox) > 25  # one mail per seat and move: report and prompt together


# --- the crash points, with pbem poll --once ---------------------------------------------------------------

TOTAL = ORDER_MAILS + 1


@pytest.mark.parametrize("spec", [
    "after_fetch",
    "mid_transaction",
    f"mid_transaction:{TOTAL // 2}",
    "after_commit_before_move",
    "after_commit_before_move:2",
    f"after_commit_before_move:{TOTAL}",  # the last mail of the batch
    "after_apply_before_render",  # the move committed, its mail not written: the restart writes it, once
    f"after_apply_before_render:{TOTAL - 1}",  # the last move
    "mid_render",  # the move's mail written, not committed: nothing of it stays, the restart writes it all
    "mid_render:3",
    "mid_send",
    "mid_send:20",
])
@pytest.mark.slow
def test_poll_once_killed_at_a_crash_point_and_restarted(rig: Rig, spec: str) -> None:
    rig.append_all()
    code, stderr = rig.poll(crash_at=spec)
    assert code == EXIT_CODE, stderr
    rig.check_crashed_at(spec, stderr)
    report = rig.poll_here()  # the restart
    assert report.ok, report
    assert report.inbox is not None
    point = spec.partition(":")[0]
    # the whole batch was queued, and none of it moved yet: the restart moves it all
    assert report.inbox.recovered == (TOTAL if point == "after_commit_before_move" else 0)
    rig.check(resent=1 if spec.startswith("mid_send") else 0)
    if spec.startswith("mid_send"):  # the mail accepted just before the crash went out twice, with its Message-ID
        n = int(spec.partition(":")[2] or 1)
        first = [str(r.message["Message-ID"]) for r in rig.smtpd.received[:n]]
        assert rig.received_ids()[first[-1]] == 2


@pytest.mark.parametrize("point", ["mid_transaction", "after_apply_before_render", "mid_render"])
@pytest.mark.slow
def test_poll_once_killed_on_postgresql(pg_rig: Rig, point: str) -> None:
    spec = f"{point}:{TOTAL // 2}"
    pg_rig.append_all()
    code, stderr = pg_rig.poll(crash_at=spec)
    assert code == EXIT_CODE, stderr
    pg_rig.check_crashed_at(spec, stderr)
    assert pg_rig.poll_here().ok
    pg_rig.check()


# --- the crash points, with pbem run ---------------------------------------------------------------------


def run_to_the_end(rig: Rig) -> str:
    """``pbem run`` without a crash until everything is handled and sent; then SIGTERM."""
    process, errors = rig.run()
    try:
        wait_until(rig.complete, what="the restarted moderator to finish")
        wait_until(lambda: rig.dovecot.uids("INBOX") == [], timeout=5, what="the inbox to be empty")
        return rig.stop(process, errors)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.parametrize("spec", ["after_fetch:2", "mid_transaction:3", "after_apply_before_render:3", "mid_render:2"])
@pytest.mark.slow
def test_run_killed_at_a_crash_point_and_restarted(rig: Rig, spec: str) -> None:
    """The daemon is idle when the mail arrives; it dies at the point, and a new daemon finishes the work."""
    process, errors = rig.run(crash_at=spec)
    try:
        wait_until(lambda: len(rig.smtpd.received) >= rig.welcomes, what="the welcome mails")
        rig.append_all()
        code = process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    stderr = errors.read_text()
    assert code == EXIT_CODE, stderr
    assert f"{ENV}={spec}: exiting with {EXIT_CODE}" in stderr and "(IDLE)" in stderr
    point, _, count = spec.partition(":")
    committed = {"after_fetch": 0, "mid_transaction": int(count) - 1}.get(point, int(count))  # (the first pass
    assert rig.handled() == committed  # had nothing to fetch; the question is the 5th mail)
    assert rig.logs() == scenario().logs_after(committed)
    assert len(rig.moves_to_tell()) == (point in ("after_apply_before_render", "mid_render"))
    left = rig.dovecot.uids("INBOX")  # what was fetched was queued and moved before it was handled
    assert left == rig.uids[len(rig.uids) - len(left):]
    assert len(left) == len(rig.uids) if point == "after_fetch" else \
        len(left) <= len(rig.uids) - committed - (point == "mid_transaction")
    stderr = run_to_the_end(rig)
    assert "Traceback" not in stderr
    # ``pbem run`` sends from a thread of its own while it handles the next mail: the kill may come while that
    # thread has a mail in flight, which is then the one mail sent twice (the at-most-once-more rule)
    rig.check(resent=None)
    assert sum(n - 1 for n in rig.received_ids().values()) <= 1


# --- a real SIGKILL at a random moment -----------------------------------------------------------------


POLL = 0.002  # seconds between looks at the progress before a kill: it must land while work is left


def work_left(rig: Rig) -> bool:
    rows = rig.outbox()
    return (rig.handled() < len(rig.mails) or len(rows) < len(scenario().outbox)
            or any(r.status != "sent" for r in rows))


def kill_while_working(rig: Rig, rng: random.Random) -> str:
    """Start ``pbem run`` (the first time: the mail arrives while it is idle), wait for a random amount of
    progress (handled mails, or mails accepted by the relay), then a random few milliseconds, and SIGKILL it.

    Says where it was; asserts that work was left (it was killed while it worked).
    """
    process, errors = rig.run()
    try:
        if not rig.uids:
            wait_until(lambda: len(rig.smtpd.received) >= rig.welcomes, what="the welcome mails")
            rig.append_all()
        handled, received, total = rig.handled(), len(rig.smtpd.received), len(scenario().outbox)
        choices = (["handled"] if handled < len(rig.mails) - 1 else []) + (["sent"] if received < total - 6 else [])
        what = "at once"
        if choices and rng.choice(choices) == "handled":
            target = rng.randint(handled + 1, len(rig.mails) - 1)
            what = f"after {target} handled mails"
            wait_until(lambda: rig.handled() >= target, what=what, every=POLL)
        elif choices:
            target = rng.randint(received + 1, total - 5)
            what = f"after {target} mails accepted by the relay"
            wait_until(lambda: len(rig.smtpd.received) >= target, what=what, every=POLL)
        time.sleep(rng.uniform(0.0, 0.005))  # anywhere in what it does next (a mail goes out in a few ms)
        process.send_signal(signal.SIGKILL)
        code = process.wait(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert code == -signal.SIGKILL, errors.read_text()
    where = f"killed {what}: {rig.handled()} handled, {len(rig.smtpd.received)} accepted"
    assert work_left(rig), where
    return where


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.slow
def test_run_killed_by_sigkill_at_random_moments(rig: Rig, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(2):
        print(kill_while_working(rig, rng))  # shown with -s, or when the test fails
    stderr = run_to_the_end(rig)
    assert "Traceback" not in stderr
    rig.check(resent=None)


# --- two pbem run processes on one PostgreSQL database ----------------------------------------------------------


def run_two(rig: Rig) -> None:
    """``pbem run`` twice on the rig's database: the first reads the inbox, the second helps (it takes mail from
    the queue and sends); the mails arrive once both run; both are stopped once everything is sent."""
    first, first_log = rig.run()
    second, second_log = None, None
    try:
        wait_until(lambda: "(IDLE)" in first_log.read_text(), what="the first process to read the inbox")
        second, second_log = rig.run()
        wait_until(lambda: "another process reads the inbox" in second_log.read_text(), what="the second to help")
        wait_until(lambda: len(rig.smtpd.received) >= rig.welcomes, what="the welcome mails")
        rig.append_all()
        wait_until(rig.complete, timeout=60, what="every mail handled and sent")
        wait_until(lambda: rig.dovecot.uids("INBOX") == [], timeout=10, what="the inbox to be empty")
        for process, log in ((second, second_log), (first, first_log)):
            assert "Traceback" not in rig.stop(process, log)
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()


@pytest.mark.slow
def test_two_processes_on_postgresql_tell_and_send_every_mail_once(pg_rig: Rig) -> None:
    run_two(pg_rig)
    pg_rig.check(resent=0)


@pytest.mark.slow
def test_a_move_whose_process_died_before_telling_it_is_told_by_another_process(pg_rig: Rig) -> None:
    """The process that applied a move dies before its mail is written; another ``pbem run``, started later,
    writes it at its first pass, with no new mail to make it look (the move's process is gone), once."""
    first, first_log = pg_rig.run(crash_at="after_apply_before_render")
    try:
        wait_until(lambda: len(pg_rig.smtpd.received) >= pg_rig.welcomes, what="the welcome mails")
        pg_rig.dovecot.append(pg_rig.mails[0])
        assert first.wait(timeout=30) == EXIT_CODE
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert f"{ENV}=after_apply_before_render: exiting with {EXIT_CODE}" in first_log.read_text()
    assert pg_rig.handled() == 1 and len(pg_rig.moves_to_tell()) == 1
    told = len(pg_rig.outbox())
    second, second_log = pg_rig.run()
    try:
        wait_until(lambda: len(pg_rig.outbox()) > told and all(r.status == "sent" for r in pg_rig.outbox()),
                   what="the move's mail written and sent")
        assert "the mail of 1 move(s) left by another process written" in second_log.read_text()
        assert pg_rig.moves_to_tell() == []
        pg_rig.uids.append(pg_rig.dovecot.uids("processed")[0])
        for raw in pg_rig.mails[1:]:
            pg_rig.uids.append(pg_rig.dovecot.append(raw))
        wait_until(pg_rig.complete, timeout=60, what="every mail handled and sent")
        wait_until(lambda: pg_rig.dovecot.uids("INBOX") == [], timeout=10, what="the inbox to be empty")
        assert "Traceback" not in pg_rig.stop(second, second_log)
    finally:
        if second.poll() is None:
            second.kill()
            second.wait()
    pg_rig.check(resent=0)
