"""The moderator's own CPU per order, in one process: what ``pbem run`` spends on one order mail.

Why in-process: ``benchmarks/scale.py`` measures the real daemons beside
Dovecot, PostgreSQL and its own relay, on cores that other work shares; its
CPU-per-order lines move by a third from one run to the next. Here one
process does exactly what a ``pbem run`` worker does with an order mail,
and nothing else:

    queue it (``pbem.daemon.intake.receive``, as LMTP does: the header read,
    the token from the envelope) -> handle it (``MailFlow.apply_queue``: the
    mail parsed, the token bound, the order parsed, applied, committed, the
    move's mail to every seat written by the render stage) -> deliver the
    outbox (``MailFlow.deliver``: each mail built as MIME and sent over one
    kept SMTP connection to a relay in a process of its own).

``--games`` three-player games (SQLite in a temporary directory; welcome
mails sent before the timing) get ``--steps`` orders each, planned ahead,
game after game in turn. The CPU of this process (``time.process_time``,
every thread) and of its picture helper (``pbem.moderator.notify.pictures``,
from /proc) is divided by the orders. Printed, for ``board=off`` (the mail
without the board) and then ``board=on`` (text and picture, the default):

``moderator CPU per order, board=off: X ms (helpers Y ms)``

``--profile FILE`` also writes a cProfile of the timed part of each run
(``FILE.off``, ``FILE.on``) and prints each stage's share per order.
Run it several times, old and new code in turn: compare the figures of
runs on the same machine at the same time. Usage:

    python benchmarks/order_cpu.py [--games 10] [--steps 6] [--repeat 1] [--profile /tmp/order]
"""
from __future__ import annotations

import argparse
import cProfile
import logging
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent
ROOT = BENCHMARKS.parent
sys.path.insert(0, str(ROOT))
sys.path.append(str(BENCHMARKS))  # after the project: benchmarks/engine.py is no package

import cpushare  # noqa: E402  (benchmarks/cpushare.py)
from sqlmodel import col, func, select  # noqa: E402

from engine.imperial2030.decisions import pending  # noqa: E402
from pbem.config import load_config  # noqa: E402
from pbem.daemon import sender as sender_module  # noqa: E402
from pbem.daemon.intake import Received, receive  # noqa: E402
from pbem.daemon.logformat import quiet_libraries  # noqa: E402
from pbem.daemon.loop import MailFlow  # noqa: E402
from pbem.games.imperial2030.orders import apply_message, legal_orders  # noqa: E402
from pbem.mail import SmtpSender, token_of_address  # noqa: E402
from pbem.moderator import Moderator  # noqa: E402
from pbem.moderator.inbound import handler  # noqa: E402
from pbem.moderator.notify import boards, pictures  # noqa: E402
from pbem.store import Database, find_game  # noqa: E402
from pbem.store.outbox import OutboxRow, OutboxStatus  # noqa: E402
from pbem.store.settings import load_settings, save_settings  # noqa: E402
from tests.loopback import free_port  # noqa: E402
from tests.mailflowkit import PLAYERS, Table, raw_mail  # noqa: E402

MODERATOR = "pbem@games.test"
EMAILS = dict(PLAYERS)
PLAYER_COUNT = 3



class Stopwatch:
    """CPU seconds (this thread's) spent inside chosen functions, each patched where it is called from.

    Why not the profile: cProfile triples the time of small Python calls; this
    costs two clock reads per call, so the stages add up to the figure printed.
    """

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}
        self.running = False
        self._inner: list[float] = []  # per call open: CPU of the timed calls inside it (theirs, not its own)

    def wrap(self, owner: object, name: str, stage: str) -> None:
        original = getattr(owner, name)

        def timed(*args: object, **kwargs: object) -> object:
            if not self.running:
                return original(*args, **kwargs)
            start = time.thread_time()
            self._inner.append(0.0)
            try:
                return original(*args, **kwargs)
            finally:
                took = time.thread_time() - start
                inner = self._inner.pop()
                self.spent[stage] = self.spent.get(stage, 0.0) + took - inner
                if self._inner:
                    self._inner[-1] += took

        setattr(owner, name, timed)


WATCH = Stopwatch()
WATCH.wrap(handler, "parse_message", "parse the mail")
WATCH.wrap(Moderator, "submit_in", "orders read and applied")
WATCH.wrap(handler, "tell_safely", "tell: every seat's mail written")
WATCH.wrap(boards, "board_picture", "picture drawn here")  # the helper busy or late (DRAW_HERE_AFTER)
WATCH.wrap(pictures, "board_picture", "picture drawn here")
WATCH.wrap(sender_module, "_message", "build each mail (MIME)")
WATCH.wrap(SmtpSender, "send_wire", "SMTP")  # building the next mail meanwhile excluded


@contextmanager
def sink_relay() -> Iterator[int]:
    """An aiosmtpd relay that takes every mail and keeps none, in a process of its own (its CPU is not ours)."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "aiosmtpd", "-n", "-c", "aiosmtpd.handlers.Sink",
                                "-l", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        import socket

        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                    if sock.recv(64).startswith(b"220"):
                        break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("the relay did not start") from None
                time.sleep(0.05)
        yield port
    finally:
        process.terminate()
        process.wait(10)


def config_text(url: str, smtp_port: int) -> str:
    return f'''
[moderator]
address = "{MODERATOR}"

[database]
url = "{url}"

[smtp]
host = "127.0.0.1"
port = {smtp_port}
security = "none"
timeout = 10
'''


def pick(state: object, player: str) -> str:
    """A legal order of ``player``, avoiding the investor space (keeps the game in its opening moves)."""
    orders = legal_orders(state, player)  # type: ignore[arg-type]
    return ([o for o in orders if "investor" not in o.lower()] or orders)[0]


def unsent(db: Database) -> int:
    with db.transaction() as session:
        return session.exec(select(func.count(col(OutboxRow.id))).where(col(OutboxRow.status) != OutboxStatus.SENT)).one()


def helper_cpu() -> float:
    """CPU seconds so far of the picture helper (0 without one)."""
    helper = pictures._HELPER
    process = getattr(helper, "_process", None)
    if process is None:
        return 0.0
    return cpushare.read().cpu.get(process.pid, 0.0)


def run(board: bool, games: int, steps: int, smtp_port: int, profile: str | None) -> tuple[float, float, int]:
    """(this process's CPU seconds, the helper's, orders) for one run."""
    with tempfile.TemporaryDirectory(prefix="pbem-order-cpu-") as directory:
        url = f"sqlite:///{Path(directory) / 'pbem.db'}"
        path = Path(directory) / "pbem.toml"
        path.write_text(config_text(url, smtp_port))
        config = load_config(path, {})
        db = Database(url)
        now = datetime.now(UTC)
        tables = [Table(db, config, f"t{i:02d}") for i in range(games)]
        for table in tables:
            table.create(players=PLAYER_COUNT, now=now)
            if not board:
                with db.transaction() as session:
                    game = find_game(session, table.name)
                    settings = load_settings(session, game)
                    settings.board_default = False
                    save_settings(session, game, settings)
        flow = MailFlow(config, db)
        sender = SmtpSender(config.require_smtp())
        flow.deliver(sender, keep_open=True)  # the welcome mails
        tokens: dict[tuple[int, str], str] = {}
        with db.transaction() as session:
            for row in session.exec(select(OutboxRow).where(OutboxRow.purpose == "welcome")).all():
                token = token_of_address(row.headers.get("reply_to", ""), MODERATOR)
                if token and row.game_id is not None:
                    tokens[(row.game_id, row.recipient)] = token
            ids = {t.name: int(find_game(session, t.name).id or 0) for t in tables}
        plan: list[list[Received]] = [[] for _ in range(steps)]
        for table in tables:
            state = table.state()
            for step in range(steps):
                player = pending(state)[0].player
                order = pick(state, player)
                state = apply_message(state, player, order, end_maneuver=True).state
                token = tokens[(ids[table.name], EMAILS[player])]
                to = f"pbem+{token}@games.test"
                raw = raw_mail(EMAILS[player], to, order + "\n", subject=f"Re: [{table.name}] move",
                               message_id=f"<oc-{table.name}-{step}@clients.example>")
                raw = f"Delivered-To: {to}\r\n".encode() + raw
                plan[step].append(Received(raw, "lmtp", "lmtp", 0, 0, token=token))
        items = [item for step in plan for item in step]
        profiler = cProfile.Profile(time.thread_time) if profile else None  # CPU, not waits
        helpers_before = helper_cpu()
        cpu_before = time.process_time()
        WATCH.spent.clear()
        whole = {"queue": 0.0, "handle": 0.0, "deliver": 0.0}
        if profiler:
            profiler.enable()
        WATCH.running = True
        for item in items:
            start = time.thread_time()
            receive(db, config, [item], datetime.now(UTC))
            queued = time.thread_time()
            outcomes = flow.apply_queue()
            handled = time.thread_time()
            if [o.outcome for o in outcomes] != ["applied"]:
                raise SystemExit(f"an order was not applied: {outcomes}")
            flow.deliver(sender, keep_open=True)
            whole["queue"] += queued - start
            whole["handle"] += handled - queued
            whole["deliver"] += time.thread_time() - handled
        WATCH.running = False
        if profiler:
            profiler.disable()
        cpu = time.process_time() - cpu_before
        helpers = helper_cpu() - helpers_before
        if unsent(db):
            raise SystemExit("mail left unsent")
        sender.close()
        db.dispose()
        if profiler and profile:
            profiler.dump_stats(f"{profile}.{'on' if board else 'off'}")
        stages(whole, dict(WATCH.spent), len(items))
        return cpu, helpers, len(items)


def stages(whole: dict[str, float], inner: dict[str, float], orders: int) -> None:
    """Each stage's CPU per order (this thread's: the profiler, when on, is in it)."""
    def ms(seconds: float) -> str:
        return f"{seconds * 1e3 / orders:.1f} ms"

    parse, orders_applied = inner.get("parse the mail", 0.0), inner.get("orders read and applied", 0.0)
    tell = inner.get("tell: every seat's mail written", 0.0)
    drawn = inner.get("picture drawn here", 0.0)
    build, smtp = inner.get("build each mail (MIME)", 0.0), inner.get("SMTP", 0.0)
    print(f"#   queue {ms(whole['queue'])}; handle {ms(whole['handle'])} = parse {ms(parse)} + orders read and "
          f"applied {ms(orders_applied)} + tell {ms(tell)} + pictures drawn here {ms(drawn)} + the rest "
          f"(bind, database, commit) "
          f"{ms(whole['handle'] - parse - orders_applied - tell - drawn)}; deliver {ms(whole['deliver'])} = build "
          f"{ms(build)} + SMTP {ms(smtp)} + the rest (claims, marks) {ms(whole['deliver'] - build - smtp)}")


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM stops the relay and the helper as Ctrl-C does


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=1, help="runs of each kind (the figure: their least)")
    parser.add_argument("--profile", help="write cProfile data to PROFILE.off / PROFILE.on")
    parser.add_argument("--only", choices=["off", "on"], help="one kind of run only")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, _terminate)
    logging.basicConfig(level=logging.INFO, stream=open(os.devnull, "w"),  # logged at INFO, as pbem run logs
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    quiet_libraries(logging.INFO)
    pictures.start()
    try:
        deadline = time.monotonic() + 30  # the helper warms up (about a second of a core) before the timing
        while pictures._HELPER is not None and not pictures._HELPER._warm and time.monotonic() < deadline:
            time.sleep(0.05)
        with sink_relay() as port:
            for board in (False, True):
                if args.only and args.only != ("on" if board else "off"):
                    continue
                results = [run(board, args.games, args.steps, port, args.profile) for _ in range(args.repeat)]
                cpu, helpers, orders = min(results)
                label = "on" if board else "off"
                print(f"moderator CPU per order, board={label}: {cpu * 1e3 / orders:.1f} ms "
                      f"(helpers {helpers * 1e3 / orders:.1f} ms; {orders} orders; runs: "
                      f"{', '.join(f'{c * 1e3 / n:.1f}' for c, _, n in results)} ms)", flush=True)
    finally:
        pictures.stop()


if __name__ == "__main__":
    main()
