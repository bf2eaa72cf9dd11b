"""Mail benchmark: the moderator (``pbem run``) between a real Dovecot and an aiosmtpd relay, on loopback.

Dovecot is started exactly as the test fixture starts it (``tests/mailservers.py``:
its own config in a temporary directory, a free 127.0.0.1 port); the SMTP relay
is aiosmtpd in this process, noting when it accepted each mail (the moment its
DATA is answered). The moderator is the real daemon, ``pbem run``, in a process
of its own, on an SQLite database in a temporary directory. Printed:

``latency idle: median X ms, p95 Y ms``
``latency polling (interval Z s): median X ms, p95 Y ms``
    One three-player game; ``--orders`` order mails, one at a time, each from
    whoever must decide. Measured from the moment the order mail's APPEND to
    the inbox is sent (its round trip included) to the moment the relay
    accepted the last mail it caused (the reports to every seat, the next
    prompt). Before each APPEND a random pause (up to the poll interval when
    polling, so that mail arrives at any point of the daemon's sleep; up to
    50 ms with IDLE). The 95th percentile is the nearest rank. Printed
    before them: how long Dovecot itself takes to announce an APPEND to a
    client in IDLE (about 0.5 s: its mailbox watcher waits that long,
    ``NOTIFY_DELAY_MSECS``, to gather changes), the floor of IDLE's latency.
``orders per second (50 games): N``
    ``--games`` three-player games are created (their welcome mails delivered
    first, outside the timing); then one order mail per game per step, for
    ``--steps`` steps, is planned ahead (the orders computed on the games'
    states in memory) and appended all at once, step after step, to the inbox
    of one running moderator. N = orders / seconds from the first APPEND to the
    last resulting mail accepted by the relay. Also printed: the time until
    every order was applied (committed; seen by polling the database every
    20 ms), where the CPU went per order (``cpushare.py``), and checks (every
    order applied, state = replay for every game).

Only loopback; everything (Dovecot, the daemon, the temporary directories)
is stopped and removed at the end, also on errors and Ctrl-C. Usage:

    python benchmarks/mail.py [--orders 30] [--poll-interval 1.0] [--games 50] [--steps 4] [--seed 1]

Needs Debian's ``dovecot-imapd`` (as the mail tests do).
"""
from __future__ import annotations

import argparse
import functools
import math
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from email.parser import BytesHeaderParser
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cpushare  # noqa: E402  (benchmarks/cpushare.py, beside this file)
from sqlalchemy import func  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402
from sqlmodel import col, select  # noqa: E402

from engine.imperial2030.decisions import pending  # noqa: E402
from engine.imperial2030.game import replay  # noqa: E402
from engine.imperial2030.mapfile import default_board  # noqa: E402
from pbem.config import load_config  # noqa: E402
from pbem.games.imperial2030.orders import apply_message, legal_orders  # noqa: E402
from pbem.mail import token_of_address  # noqa: E402
from pbem.store import Database, find_game, load_log, load_state  # noqa: E402
from pbem.store.games import game_setup  # noqa: E402
from pbem.store.inbound import InboundRow  # noqa: E402
from pbem.store.inqueue import counts as queue_counts  # noqa: E402
from pbem.store.moves import MoveToTellRow  # noqa: E402
from pbem.store.outbox import OutboxRow, OutboxStatus  # noqa: E402
from pbem.store.settings import load_settings, save_settings  # noqa: E402
from tests.loopback import free_port  # noqa: E402
from tests.mailflowkit import PLAYERS, Table, raw_mail  # noqa: E402
from tests.mailservers import DOVECOT_SEARCH_PATH, DovecotServer  # noqa: E402
from tests.smtpservers import RecordingHandler, _controller  # noqa: E402

MODERATOR = "pbem@games.test"
EMAILS = dict(PLAYERS)
PLAYER_COUNT = 3
WAIT = 120.0  # seconds: the longest any one wait may take before the benchmark gives up
HELPER_READY = "the picture helper is ready"  # logged by a moderator whose picture helper has warmed up
HELPER_WAIT = 10.0  # seconds: the longest the benchmark waits for that (see Moderator._await_helpers)


# --- the relay: aiosmtpd, noting when each mail was accepted ---------------------------------------------


class TimedHandler(RecordingHandler):
    """Keeps every mail (as the tests' handler does) and the monotonic time each Message-ID was accepted;
    ``pipelining``: offers PIPELINING, as Postfix does (``RecordingHandler``)."""

    def __init__(self, pipelining: bool = False) -> None:
        super().__init__(pipelining=pipelining)
        self.accepted: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        answer = await super().handle_DATA(server, session, envelope)
        now = time.monotonic()
        content = bytes(envelope.content)
        end = content.find(b"\r\n\r\n")  # the header is all it reads: not the picture's 80 KB of text
        head = content if end < 0 else content[:end + 4]
        message_id = str(BytesHeaderParser().parsebytes(head)["Message-ID"]).strip()
        with self._lock:
            self.accepted.setdefault(message_id, []).append(now)
        return answer

    def first(self, message_id: str) -> float | None:
        with self._lock:
            times = self.accepted.get(message_id)
            return times[0] if times else None

    def count(self) -> int:
        with self._lock:
            return sum(len(t) for t in self.accepted.values())

    def repeated(self) -> dict[str, int]:
        """Message-ID -> times accepted, of the mails accepted more than once."""
        with self._lock:
            return {mid: len(t) for mid, t in self.accepted.items() if len(t) > 1}


@contextmanager
def relay(pipelining: bool = False) -> Iterator[tuple[int, TimedHandler]]:
    handler = TimedHandler(pipelining)
    controller = _controller(handler, free_port())
    controller.start()
    try:
        yield controller.port, handler
    finally:
        controller.stop()


@contextmanager
def dovecot() -> Iterator[DovecotServer]:
    binary = shutil.which("dovecot", path=DOVECOT_SEARCH_PATH)
    if binary is None:
        sys.exit("dovecot is not installed (apt-get install dovecot-imapd)")
    server = DovecotServer(binary)
    try:
        server.start()
        yield server
    finally:
        server.stop()


# --- one moderator: a database, an inbox account, a pbem run process ------------------------------------


def config_text(server: DovecotServer | None, user: str, password: str, smtp_port: int, url: str,
                poll_interval: float) -> str:
    """The moderator's configuration; without ``server`` no [imap] (``pbem lmtp`` needs none)."""
    imap = "" if server is None else f'''
[imap]
host = "{server.host}"
port = {server.port}
security = "none"
username = "{user}"
password = "{password}"
timeout = 10
poll_interval = {poll_interval}
'''
    return f'''
[moderator]
address = "{MODERATOR}"

[database]
url = "{url}"
{imap}
[smtp]
host = "127.0.0.1"
port = {smtp_port}
security = "none"
timeout = 10
'''


def wait_until(condition: Callable[[], Any], what: str, timeout: float = WAIT, every: float = 0.02) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise SystemExit(f"gave up after {timeout:.0f} s waiting for {what}")
        time.sleep(every)


class Moderator:
    """A fresh database and inbox account; ``start()`` runs ``pbem run`` on them (``processes`` of them),
    ``start_lmtp()`` runs ``pbem lmtp``.

    The database is SQLite in ``directory`` unless ``url`` names another (an empty PostgreSQL database);
    without ``server`` there is no inbox account and no [imap] in the configuration (for ``pbem lmtp``).
    """

    def __init__(self, directory: Path, server: DovecotServer | None, smtp_port: int, handler: TimedHandler, *,
                 poll_interval: float = 60.0, url: str | None = None) -> None:
        self.directory = directory
        self.handler = handler
        self.user, self.password = server.new_account() if server is not None else ("", "")
        self.server = server
        self.url = url or f"sqlite:///{directory / 'pbem.db'}"
        self.config_path = directory / "pbem.toml"
        self.config_path.write_text(config_text(server, self.user, self.password, smtp_port, self.url,
                                                poll_interval))
        self.config = load_config(self.config_path, {})
        self.db = Database(self.url)
        self.processes: list[subprocess.Popen[bytes]] = []
        self.logs: list[Path] = []  # each process's standard error, in the order started
        self.commands: list[str] = []  # each process's command line (``pbem …``), for the report
        self.imap: Any = None

    def table(self, name: str) -> Table:
        return Table(self.db, self.config, name)

    def _spawn(self, command: list[str]) -> None:
        """Start ``pbem --config … <command>`` in a process of its own, its standard error to a log file."""
        environment = {**os.environ, "PYTHONPATH": str(ROOT), "PBEM_CONFIG": "", "PBEM_DATABASE_URL": ""}
        environment.pop("PBEM_CRASH_AT", None)
        args = [sys.executable, "-m", "pbem.cli", "--config", str(self.config_path), *command]
        path = self.directory / ("pbem-run.log" if not self.logs else f"pbem-run-{len(self.logs) + 1}.log")
        with path.open("wb") as log:
            process = subprocess.Popen(args, cwd=ROOT, env=environment, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=log)
        self.processes.append(process)
        self.logs.append(path)
        self.commands.append(" ".join(["pbem", "--config", "CONFIG", *command]))

    def start(self, *, idle: bool, workers: int | None = None, processes: int = 1, log_level: str = "WARNING") -> None:
        """``processes`` times ``pbem run`` (``--workers`` when given); at INFO (or DEBUG) log level, wait until
        every one has said that it started."""
        for _ in range(processes):
            args = ["run", "--log-level", log_level]
            if not idle:
                args.append("--no-idle")
            if workers is not None:
                args += ["--workers", str(workers)]
            self._spawn(args)
        if log_level.upper() in ("INFO", "DEBUG"):
            wait_until(lambda: self._logged("pbem moderator started"), "every pbem run to start")
        self._await_helpers(log_level)
        if self.server is not None:
            from imapclient import IMAPClient

            self.imap = IMAPClient(self.server.host, port=self.server.port, ssl=False, timeout=10)
            self.imap.login(self.user, self.password)

    def start_lmtp(self, port: int, *, workers: int | None = None, log_level: str = "WARNING") -> None:
        """``pbem lmtp --listen 127.0.0.1:port``; returns once it takes connections."""
        import socket

        args = ["lmtp", "--listen", f"127.0.0.1:{port}", "--log-level", log_level]
        if workers is not None:
            args += ["--workers", str(workers)]
        self._spawn(args)

        def listening() -> bool:
            self.alive()
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                    return sock.recv(64).startswith(b"220")
            except OSError:
                return False

        wait_until(listening, "pbem lmtp to listen", every=0.05)
        self._await_helpers(log_level)

    def _await_helpers(self, log_level: str) -> None:
        """Wait, for at most ``HELPER_WAIT`` seconds, until every process's picture helper has warmed up
        (``pbem.moderator.notify.pictures``: about a second of a core, once, when a moderator starts), so that what is
        timed is a moderator at work, not its first second. A version without a helper, or a one-core
        machine, just costs the wait."""
        if log_level.upper() not in ("INFO", "DEBUG"):
            return
        deadline = time.monotonic() + HELPER_WAIT
        while time.monotonic() < deadline and not self._logged(HELPER_READY):
            time.sleep(0.05)

    def _logged(self, text: str) -> bool:
        """Whether every process's log has a line with ``text``."""
        self.alive()
        return all(text in path.read_text(errors="replace") for path in self.logs)

    def stop(self) -> None:
        if self.imap is not None:
            try:
                self.imap.logout()
            except Exception:
                pass
            self.imap = None
        running, self.processes = self.processes, []
        for process in running:  # all told first: they stop side by side
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in running:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.db.dispose()

    def alive(self) -> None:
        for process, path, command in zip(self.processes, self.logs, self.commands, strict=True):
            if process.poll() is not None:
                log = path.read_text(errors="replace")
                raise SystemExit(f"{command} exited with {process.returncode}:\n{log[-3000:]}")

    def append(self, raw: bytes) -> None:
        self.imap.append("INBOX", raw)

    # --- the database, as the benchmark watches it -----------------------------------------------

    def handled(self) -> int:
        """How many mails were handled (the daemons checked first: a dead one ends the wait at once)."""
        self.alive()
        with self.db.transaction() as session:
            return session.exec(select(func.count(col(InboundRow.id)))).one()

    def outbox(self) -> list[tuple[int, str, str]]:
        """(id, Message-ID, status) of every outbox row."""
        with self.db.transaction() as session:
            return [tuple(r) for r in session.exec(  # type: ignore[misc]
                select(OutboxRow.id, OutboxRow.message_id, OutboxRow.status).order_by(col(OutboxRow.id))).all()]

    def all_sent(self) -> list[tuple[int, str, str]] | None:
        """The outbox when every move's mail is written (no move left to tell: a move's mail is written just
        after the move's commit) and every row is sent and accepted by the relay, else None.

        Cheap while mail is still queued (one count), so that watching costs the moderator little.
        """
        self.alive()
        with self.db.transaction() as session:
            queued = session.exec(select(func.count(col(OutboxRow.id))).where(col(OutboxRow.status) != OutboxStatus.SENT)).one()
            untold = session.exec(select(func.count(col(MoveToTellRow.id)))).one()
        if queued or untold:
            return None
        rows = self.outbox()
        if all(status == OutboxStatus.SENT for _, _, status in rows) and \
                all(self.handler.first(mid) is not None for _, mid, _ in rows):
            return rows
        return None

    def outcomes(self) -> dict[str, int]:
        with self.db.transaction() as session:
            rows = session.exec(select(InboundRow.outcome)).all()
        counts: dict[str, int] = {}
        for outcome in rows:
            counts[outcome] = counts.get(outcome, 0) + 1
        return counts

    def tokens(self) -> dict[tuple[int, str], str]:
        """(game id, seat address) -> the seat's reply token, from the welcome mails' Reply-To."""
        with self.db.transaction() as session:
            rows = session.exec(select(OutboxRow).where(OutboxRow.purpose == "welcome")).all()
        found = {}
        for row in rows:
            token = token_of_address(row.headers.get("reply_to", ""), MODERATOR)
            if token and row.game_id is not None:
                found[(row.game_id, row.recipient)] = token
        return found


def without_board(table: Table) -> None:
    """The game's mail without the board and its picture (``pbem game set NAME board=off``)."""
    with table.db.transaction() as session:
        game = find_game(session, table.name)
        settings = load_settings(session, game)
        settings.board_default = False
        save_settings(session, game, settings)


def answered_after(moderator: Moderator, handler: TimedHandler, n: int, known: set[int], start: float,
                   what: str) -> float:
    """Seconds from ``start`` until the relay took the last mail order ``n`` (the n+1-th) caused; ``known``: the
    outbox rows before it."""
    wait_until(functools.partial(lambda n: moderator.handled() > n, n), f"order {n + 1} to be handled", every=0.005)
    rows = wait_until(moderator.all_sent, f"the mail caused by order {n + 1}", every=0.005)
    new = [mid for row_id, mid, _ in rows if row_id not in known]
    if not new:
        raise SystemExit(f"order {n + 1} ({what}) caused no mail: {moderator.outcomes()}")
    return max(handler.first(mid) or 0.0 for mid in new) - start


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def pick(state: Any, player: str) -> str:
    """A legal order of ``player``, avoiding the investor space (keeps the game in its opening moves)."""
    orders = legal_orders(state, player)
    return ([o for o in orders if "investor" not in o.lower()] or orders)[0]


# --- (a) latency ------------------------------------------------------------------------------------------


def idle_notify_delay(server: DovecotServer, samples: int = 5) -> list[float]:
    """Seconds from an APPEND to Dovecot announcing it to another client in IDLE (no pbem involved)."""
    from imapclient import IMAPClient

    user, password = server.new_account()
    watcher = IMAPClient(server.host, port=server.port, ssl=False, timeout=10)
    writer = IMAPClient(server.host, port=server.port, ssl=False, timeout=10)
    delays = []
    try:
        watcher.login(user, password)
        writer.login(user, password)
        watcher.select_folder("INBOX")
        for n in range(samples):
            watcher.idle()
            time.sleep(0.1)
            start = time.monotonic()
            writer.append("INBOX", f"Subject: probe {n}\r\n\r\nprobe\r\n".encode())
            while not any(r[1:] == (b"EXISTS",) for r in watcher.idle_check(timeout=5)):
                if time.monotonic() - start > 5:
                    raise SystemExit("Dovecot announced no new mail in IDLE within 5 s")
            delays.append(time.monotonic() - start)
            watcher.idle_done()
    finally:
        for client in (watcher, writer):
            try:
                client.logout()
            except Exception:
                pass
    return delays


# --- (a) latency, through pbem run --------------------------------------------------------------------------


def latency(server: DovecotServer, smtp_port: int, handler: TimedHandler, *, idle: bool, orders: int,
            poll_interval: float, rng: random.Random) -> list[float]:
    """Seconds from each order mail's APPEND to the last mail it caused accepted by the relay."""
    with tempfile.TemporaryDirectory(prefix="pbem-bench-") as directory:
        moderator = Moderator(Path(directory), server, smtp_port, handler, poll_interval=poll_interval)
        try:
            table = moderator.table("idle" if idle else "polling")  # Message-IDs differ from the other run's
            table.create(players=PLAYER_COUNT, now=_now())
            moderator.start(idle=idle)
            wait_until(moderator.all_sent, "the welcome mails")
            results = []
            for n in range(orders):
                player = table.decider()
                order = pick(table.state(), player)
                raw = table.mail_from(player, order + "\n", message_id=f"<lat-{idle}-{n}@clients.example>")
                known = {row_id for row_id, _, _ in moderator.outbox()}
                time.sleep(rng.uniform(0.0, poll_interval if not idle else 0.05))
                start = time.monotonic()
                moderator.append(raw)
                results.append(answered_after(moderator, handler, n, known, start, f"{order!r} from {player}"))
            outcomes = moderator.outcomes()
            if outcomes != {"applied": orders}:
                raise SystemExit(f"latency run: not every order was applied: {outcomes}")
            return results
        finally:
            moderator.stop()


# --- (b) throughput ---------------------------------------------------------------------------------------


def throughput(server: DovecotServer, smtp_port: int, handler: TimedHandler, *, games: int,
               steps: int, url: str | None = None, processes: int = 1, workers: int | None = None,
               log_level: str = "WARNING", pictures: bool = True) -> dict[str, Any]:
    """The throughput run (see the module docstring): ``processes`` times ``pbem run`` (``--workers``), on the
    database at ``url`` (an empty one; default: SQLite in a temporary directory).

    ``pictures`` off: the games' reports go without the board and its picture (``pbem game set NAME board=off``).
    Also returned: ``applied_by``, how many orders each process applied (from its log: at INFO level only),
    ``queue``, what is left in the inbound queue by status (nothing, when all went well), ``commands``, and
    ``cpu``: where the CPU went meanwhile, per order (``cpushare.summary``; None without /proc).
    """
    with tempfile.TemporaryDirectory(prefix="pbem-bench-") as directory:
        moderator = Moderator(Path(directory), server, smtp_port, handler, url=url)
        try:
            tables = [moderator.table(f"t{i:02d}") for i in range(games)]
            for table in tables:
                table.create(players=PLAYER_COUNT, now=_now())
                if not pictures:
                    without_board(table)
            # the orders, planned ahead on the states in memory (one line each: applied as the moderator does)
            tokens = moderator.tokens()
            with moderator.db.transaction() as session:
                ids = {t.name: int(find_game(session, t.name).id or 0) for t in tables}
            plan: list[list[bytes]] = [[] for _ in range(steps)]
            for table in tables:
                state = table.state()
                for step in range(steps):
                    player = pending(state)[0].player
                    order = pick(state, player)
                    result = apply_message(state, player, order, end_maneuver=True)
                    assert result.state.version > state.version, (table.name, order)
                    state = result.state
                    to = f"pbem+{tokens[(ids[table.name], EMAILS[player])]}@games.test"
                    plan[step].append(raw_mail(EMAILS[player], to, order + "\n", subject=f"Re: [{table.name}] move",
                                               message_id=f"<tp-{table.name}-{step}@clients.example>"))
            mails = [raw for step in plan for raw in step]
            moderator.start(idle=True, workers=workers, processes=processes, log_level=log_level)
            welcomes = len(moderator.outbox())
            wait_until(moderator.all_sent, f"the {welcomes} welcome mails")
            before = {row_id for row_id, _, _ in moderator.outbox()}
            cpu_before = cpushare.read()
            start = time.monotonic()
            for raw in mails:
                moderator.append(raw)
            appended = time.monotonic() - start
            wait_until(lambda: moderator.handled() >= len(mails), "every order to be handled")
            handled = time.monotonic() - start
            rows = wait_until(moderator.all_sent, "every resulting mail", every=0.05)
            cpu_after = cpushare.read()
            cpu = cpushare.summary(cpu_before, cpu_after, cpu_roles(moderator, server, url, cpu_after), len(mails))
            new = [mid for row_id, mid, _ in rows if row_id not in before]
            last = max(handler.first(mid) or 0.0 for mid in new) - start
            outcomes = moderator.outcomes()
            with moderator.db.transaction() as session:
                replayed = 0
                for table in tables:
                    game = find_game(session, table.name)
                    state = load_state(session, game)
                    replayed += replay(default_board(), game_setup(game), load_log(session, game)) == state
            with moderator.db.transaction() as session:
                queue = queue_counts(session)
            applied_by = [path.read_text(errors="replace").count(" applied (") for path in moderator.logs]
            return {"orders": len(mails), "appended": appended, "handled": handled, "last": last,
                    "mails": len(new), "welcomes": welcomes, "outcomes": outcomes, "replayed": replayed,
                    "applied_by": applied_by, "queue": queue, "commands": list(moderator.commands), "cpu": cpu}
        finally:
            moderator.stop()


def cpu_roles(moderator: Moderator, server: DovecotServer, url: str | None,
              reading: cpushare.Reading) -> dict[str, cpushare.Role]:
    """The processes of a run by role, for ``cpushare.summary`` (Dovecot's as ``reading`` finds them)."""
    daemons = {process.pid for process in moderator.processes}
    dovecot_pids = cpushare.descendants(reading, [server.process.pid] if server.process else [])
    database = make_url(url).database if url and url.startswith("postgresql") else None
    return {
        "moderator": lambda pid, reading: pid in daemons,
        "picture helpers": lambda pid, reading: reading.parent.get(pid) in daemons,
        "Dovecot": lambda pid, reading: pid in dovecot_pids,
        "PostgreSQL": lambda pid, reading: database is not None and f" {database} " in reading.command.get(pid, ""),
        "this benchmark (its relay, the appends, watching)": lambda pid, reading: pid == os.getpid(),
    }


def _now() -> Any:
    from datetime import UTC, datetime

    return datetime.now(UTC)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--orders", type=int, default=30, help="order mails per latency run (default 30)")
    parser.add_argument("--poll-interval", type=float, default=1.0,
                        help="[imap] poll_interval of the polling run, seconds (default 1.0)")
    parser.add_argument("--games", type=int, default=50, help="games of the throughput run (default 50)")
    parser.add_argument("--steps", type=int, default=4, help="order mails per game in the throughput run")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random pauses")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    began = time.monotonic()
    with dovecot() as server, relay() as (smtp_port, handler):
        print(f"Dovecot {server.host}:{server.port}, aiosmtpd 127.0.0.1:{smtp_port}, "
              f"moderator: pbem run (SQLite), {PLAYER_COUNT}-player games", flush=True)
        probe = idle_notify_delay(server)
        print(f"dovecot alone: an APPEND is announced to an IDLE client after {statistics.median(probe) * 1000:.0f} ms "
              f"(median of {len(probe)}; its notify delay, the floor of any IDLE latency here)", flush=True)
        idle = latency(server, smtp_port, handler, idle=True, orders=args.orders, poll_interval=args.poll_interval,
                       rng=rng)
        print(f"latency idle: median {statistics.median(idle) * 1000:.0f} ms, "
              f"p95 {percentile(idle, 95) * 1000:.0f} ms ({len(idle)} orders; min {min(idle) * 1000:.0f} ms, "
              f"max {max(idle) * 1000:.0f} ms)", flush=True)
        polled = latency(server, smtp_port, handler, idle=False, orders=args.orders,
                         poll_interval=args.poll_interval, rng=rng)
        print(f"latency polling (interval {args.poll_interval:g} s): median {statistics.median(polled) * 1000:.0f} ms, "
              f"p95 {percentile(polled, 95) * 1000:.0f} ms ({len(polled)} orders; min {min(polled) * 1000:.0f} ms, "
              f"max {max(polled) * 1000:.0f} ms)", flush=True)
        result = throughput(server, smtp_port, handler, games=args.games, steps=args.steps)
        orders = result["orders"]
        sending = result["mails"] / (result["last"] - result["handled"])
        print(f"throughput: {args.games} games x {args.steps} steps = {orders} order mails appended in "
              f"{result['appended']:.2f} s; all applied after {result['handled']:.2f} s "
              f"({orders / result['handled']:.1f} orders/s); the {result['mails']} resulting mails accepted "
              f"by the relay after {result['last']:.2f} s ({sending:.0f} mails/s after the last order)", flush=True)
        if result["cpu"]:
            print(f"throughput: {result['cpu']}", flush=True)
        print(f"checks: outcomes {result['outcomes']}; state = replay of the log for "
              f"{result['replayed']}/{args.games} games", flush=True)
        print(f"orders per second ({args.games} games): {orders / result['last']:.1f}")
    print(f"(benchmark ran {time.monotonic() - began:.0f} s)")


if __name__ == "__main__":
    main()
