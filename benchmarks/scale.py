"""Scale benchmark (issue 13): workers, two moderators on one PostgreSQL database, LMTP, the deadline tick.

Everything on loopback: a real Dovecot started as the tests start it
(``tests/mailservers.py``) or ``pbem lmtp`` for the mail in, an aiosmtpd
relay in this process for the mail out (a fresh relay per run, noting when
it accepted each Message-ID), and the real daemons (``pbem run``, ``pbem
lmtp``) in processes of their own. The building blocks are those of
``benchmarks/mail.py`` (imported, not copied). Printed last, in this order:

``orders per second, sqlite, 1 worker: X``
``orders per second, postgresql, 1 worker: X``
``orders per second, postgresql, 2 workers: X``
    The throughput of ``benchmarks/mail.py``: ``--games`` three-player games
    are created (their welcome mails delivered first, outside the timing);
    one order mail per game per step, for ``--steps`` steps, is planned ahead
    (the orders computed on the games' states in memory) and appended all at
    once to Dovecot's INBOX, step after step. X = orders / seconds from the
    first APPEND to the last resulting mail accepted by the relay. "1 worker":
    one ``pbem run --workers 1`` process (it reads the inbox and handles the
    mail itself), on SQLite (a file in a temporary directory) and on
    PostgreSQL. "2 workers": TWO ``pbem run --workers 1`` processes on one
    PostgreSQL database (two cores): one holds the inbox's fetch lease, reads
    it and handles mail, the other handles queued mail and sends the outbox.
    Each PostgreSQL run gets a fresh database (``CREATE DATABASE
    bench_<random>``, dropped afterwards; the server of the tests,
    ``PBEM_TEST_POSTGRES_URL``, default ``postgres@127.0.0.1:5432``). Printed
    before (``#`` lines): the same for one process with ``--workers 2``, and
    per run the time until every order was applied, how many each process
    applied (from its INFO log), where the machine's CPU went per order (the
    moderator, its picture helpers, Dovecot, PostgreSQL, this benchmark with
    its relay; ``cpushare.py``) and so how many orders per second the cores
    could give at most, and the checks (every order applied, state = replay
    of the log for every game, nothing left in the inbound queue).
``duplicate mails: N``
    In the two-process run, how many Message-IDs the relay accepted more than
    once (counted after both processes stopped). Must be 0.
``latency lmtp: median X ms, p95 Y ms``
    One three-player game on SQLite, ``pbem lmtp --workers 2``; ``--orders``
    order mails, one at a time, each from whoever must decide, each in an
    LMTP session of its own (``smtplib.LMTP``) to the seat's reply address,
    after a random pause of up to 50 ms. Measured from the moment the client
    opens the LMTP connection (LHLO, MAIL, RCPT, DATA included) to the moment
    the relay accepted the last mail the order caused (the reports to every
    seat, the next prompt). The 95th percentile is the nearest rank. Printed
    before: how long the ``250`` after DATA took (the message committed to
    the inbound queue).
``deadline tick, 10000 games / 100 games: R``
    ``benchmarks/tick.py``'s ``tick_ratio(small=100, large=10000)``: the
    median deadline tick over 10,000 idle games divided by the one over 100
    (``n/a`` when that script is missing).
``pictures drawn per order, every seat BOARD OFF: X``
``picture bytes stored per move: X KB (Y mails carry it)``
    ``benchmarks/stored.py``: in a game whose default is the board and whose
    seats all answered ``BOARD OFF``, how many board pictures the moderator
    draws per order (must be 0); in a game where every seat takes the board,
    how many bytes of pictures one move stores until its mail is sent.

Every game's mail carries the board as text and as a picture (the default,
``board=on``); two informative ``#`` lines repeat the SQLite throughput and
the LMTP latency with ``board=off`` (text without the board), to show what
drawing and sending the picture costs. The relay is aiosmtpd, which does not
offer PIPELINING; one more informative line repeats the LMTP latency with a
relay that does (as Postfix and the large providers do).

Nothing is timed before every daemon has said that it started and that its
picture helper has warmed up (``pbem.moderator.notify.pictures``: a second of a core,
once, at start; ``mail.Moderator``).

Sizes: 20 games x 4 steps and 30 LMTP orders; ``--quick``: 10 games x 3
steps and 15 orders (about a minute on an idle two-core machine, a few when
it is busy); ``--games``, ``--steps``, ``--orders`` set them explicitly.
``--seed`` seeds the random pauses. Everything (Dovecot, the daemons, the relays, the
temporary directories, the PostgreSQL databases) is stopped and removed at the
end, also on errors, Ctrl-C and SIGTERM. The exit status is 1 when a check
failed or a mail went out twice. Usage:

    python benchmarks/scale.py [--quick] [--games 20] [--steps 4] [--orders 30] [--seed 1]

Needs Debian's ``dovecot-imapd`` (as the mail tests do) and a PostgreSQL server.
"""
from __future__ import annotations

import argparse
import random
import signal
import smtplib
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS))

import mail  # noqa: E402  (benchmarks/mail.py: it also puts the project on the path)
from mail import (  # noqa: E402
    EMAILS,
    PLAYER_COUNT,
    Moderator,
    TimedHandler,
    answered_after,
    dovecot,
    percentile,
    pick,
    relay,
    throughput,
    wait_until,
    without_board,
)

from tests.dbfixtures import ADMIN_URL, fresh_postgres_url  # noqa: E402
from tests.loopback import free_port  # noqa: E402
from tests.mailservers import DovecotServer  # noqa: E402

FULL = {"games": 20, "steps": 4, "orders": 30}
QUICK = {"games": 10, "steps": 3, "orders": 15}
LMTP_WORKERS = 2
LOG_LEVEL = "INFO"  # the daemons' logs say when each started and which process applied what


def note(text: str) -> None:
    """An informative line (``#``: never mistaken for one of the figures printed last)."""
    print(f"# {text}", flush=True)


# --- PostgreSQL: a fresh database per run ------------------------------------------------------------------


def _unusable(reason: str) -> NoReturn:
    raise SystemExit(f"PostgreSQL unusable at {ADMIN_URL} (set PBEM_TEST_POSTGRES_URL): {reason}")


@contextmanager
def postgres_database() -> Iterator[str]:
    """CREATE DATABASE bench_<random> on the tests' server (``tests/dbfixtures.py``); its URL; dropped at the end."""
    yield from fresh_postgres_url("bench", _unusable)


@contextmanager
def database(kind: str) -> Iterator[str | None]:
    """The URL for a run: None (``mail.throughput``'s SQLite in a temporary directory) or a fresh PostgreSQL."""
    if kind == "sqlite":
        yield None
    else:
        with postgres_database() as url:
            yield url


# --- throughput ---------------------------------------------------------------------------------------------


def duplicates(handler: TimedHandler) -> tuple[int, int]:
    """(Message-IDs the relay accepted more than once, extra copies in all)."""
    repeated = handler.repeated()
    return len(repeated), sum(n - 1 for n in repeated.values())


def throughput_run(server: DovecotServer, kind: str, *, processes: int, workers: int, games: int,
                   steps: int, problems: list[str], pictures: bool = True) -> tuple[float, int]:
    """One throughput run with its own relay and database; (orders per second, duplicate mails). Prints its details."""
    label = f"{kind}, {processes} x pbem run --workers {workers}" + ("" if pictures else ", board=off")
    with relay() as (smtp_port, handler), database(kind) as url:
        result = throughput(server, smtp_port, handler, games=games, steps=steps, url=url, processes=processes,
                            workers=workers, log_level=LOG_LEVEL, pictures=pictures)
        dup, copies = duplicates(handler)  # the daemons have stopped: nothing more can come
        received = handler.count()
    orders, rate = result["orders"], result["orders"] / result["last"]
    sending = result["mails"] / max(1e-9, result["last"] - result["handled"])
    note(f"{label}: {games} games x {steps} steps = {orders} order mails appended in {result['appended']:.2f} s; "
         f"all applied after {result['handled']:.2f} s ({orders / result['handled']:.1f} orders/s); the "
         f"{result['mails']} resulting mails accepted by the relay after {result['last']:.2f} s "
         f"({sending:.0f} mails/s after the last order): {rate:.1f} orders/s")
    if result["cpu"]:
        note(f"{label}: {result['cpu']}")
    applied_by = " + ".join(str(n) for n in result["applied_by"])
    note(f"{label}: applied by process {applied_by}; relay received {received} mails "
         f"({result['welcomes']} welcomes first), {dup} Message-IDs more than once ({copies} extra copies); "
         f"outcomes {result['outcomes']}; state = replay for {result['replayed']}/{games} games; "
         f"left in the inbound queue {result['queue'] or 'nothing'}")
    for command in dict.fromkeys(result["commands"]):
        times = result["commands"].count(command)
        note(f"{label}: ran {command}" + (f" ({times} processes)" if times > 1 else ""))
    if result["outcomes"] != {"applied": orders}:
        problems.append(f"{label}: not every order was applied: {result['outcomes']}")
    if result["replayed"] != games:
        problems.append(f"{label}: state != replay of the log for {games - result['replayed']} game(s)")
    if result["queue"]:
        problems.append(f"{label}: left in the inbound queue: {result['queue']}")
    if dup:
        problems.append(f"{label}: {dup} mail(s) accepted by the relay more than once")
    return rate, dup


# --- LMTP latency -----------------------------------------------------------------------------------------


def lmtp_latency(*, orders: int, rng: random.Random, problems: list[str],
                 pictures: bool = True, pipelining: bool = False) -> tuple[list[float], list[float]]:
    """Seconds from opening each order's LMTP session to the last mail it caused accepted by the relay, and
    to the ``250`` after its DATA; ``pictures`` off: the game's mail without the board (``board=off``);
    ``pipelining``: the relay offers PIPELINING."""
    with relay(pipelining) as (smtp_port, handler), tempfile.TemporaryDirectory(prefix="pbem-bench-") as directory:
        moderator = Moderator(Path(directory), None, smtp_port, handler)
        try:
            table = moderator.table("lmtp")
            table.create(players=PLAYER_COUNT, now=mail._now())
            if not pictures:
                without_board(table)
            port = free_port()
            moderator.start_lmtp(port, workers=LMTP_WORKERS, log_level=LOG_LEVEL)
            note(f"lmtp: ran {moderator.commands[0]} (SQLite)")
            wait_until(moderator.all_sent, "the welcome mails")
            totals: list[float] = []
            acks: list[float] = []
            for n in range(orders):
                player = table.decider()
                order = pick(table.state(), player)
                raw = table.mail_from(player, order + "\n", message_id=f"<lmtp-{n}@clients.example>")
                recipient = table.reply_to(player)
                known = {row_id for row_id, _, _ in moderator.outbox()}
                time.sleep(rng.uniform(0.0, 0.05))
                start = time.monotonic()
                with smtplib.LMTP("127.0.0.1", port) as client:
                    client.ehlo_or_helo_if_needed()
                    client.mail(EMAILS[player])
                    code, answer = client.rcpt(recipient)
                    if code != 250:
                        raise SystemExit(f"LMTP refused {recipient}: {code} {answer!r}")
                    code, answer = client.data(raw)
                    acks.append(time.monotonic() - start)
                if code != 250 or b"queued" not in answer:
                    raise SystemExit(f"LMTP answered order {n + 1} with {code} {answer!r}")
                totals.append(answered_after(moderator, handler, n, known, start, f"{order!r} from {player}"))
            outcomes = moderator.outcomes()
            if outcomes != {"applied": orders}:
                problems.append(f"lmtp: not every order was applied: {outcomes}")
            dup, copies = duplicates(handler)
            if dup:
                problems.append(f"lmtp: {dup} mail(s) accepted by the relay more than once")
            return totals, acks
        finally:
            moderator.stop()


# --- the deadline tick (benchmarks/tick.py) -----------------------------------------------------------------


def stored_figures() -> list[str]:
    """``benchmarks/stored.py``'s two lines (run in a process of its own: it puts the code measured first on
    the path); ``n/a (why)`` when it fails."""
    script = BENCHMARKS / "stored.py"
    if not script.exists():
        return ["pictures drawn per order, every seat BOARD OFF: n/a (benchmarks/stored.py missing)"]
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600,
                          cwd=BENCHMARKS.parent)
    found = [line for line in done.stdout.splitlines() if line and not line.startswith("#")]
    if done.returncode != 0 or len(found) != 2:
        return [f"pictures drawn per order, every seat BOARD OFF: n/a (benchmarks/stored.py failed: "
                f"{(done.stderr.strip().splitlines() or ['no output'])[-1]})"]
    return found


def tick_figure() -> str:
    """``tick.tick_ratio(100, 10000)``, formatted; ``n/a (why)`` when benchmarks/tick.py is missing or fails."""
    if not (BENCHMARKS / "tick.py").exists():
        return "n/a (benchmarks/tick.py missing)"
    try:
        from tick import tick_ratio
    except ImportError as exc:
        return f"n/a (benchmarks/tick.py has no tick_ratio: {exc})"
    try:
        return f"{tick_ratio(small=100, large=10000):.2f}"
    except Exception as exc:  # the other figures still count
        return f"n/a (benchmarks/tick.py failed: {type(exc).__name__}: {exc})"


# --- main ---------------------------------------------------------------------------------------------------


def _terminate(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # SIGTERM cleans up as Ctrl-C does


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help=f"smaller runs (default sizes {QUICK} instead of {FULL})")
    parser.add_argument("--games", type=int, help="games of each throughput run")
    parser.add_argument("--steps", type=int, help="order mails per game in each throughput run")
    parser.add_argument("--orders", type=int, help="order mails of the LMTP latency run")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random pauses (default 1)")
    args = parser.parse_args()
    sizes = dict(QUICK if args.quick else FULL)
    for key in sizes:
        if getattr(args, key) is not None:
            sizes[key] = getattr(args, key)
    games, steps, orders = sizes["games"], sizes["steps"], sizes["orders"]
    signal.signal(signal.SIGTERM, _terminate)
    rng = random.Random(args.seed)
    began = time.monotonic()
    problems: list[str] = []
    with dovecot() as server:
        note(f"Dovecot {server.host}:{server.port}; aiosmtpd relays on 127.0.0.1 (one per run); "
             f"{PLAYER_COUNT}-player games; {games} games x {steps} steps, {orders} LMTP orders")
        sqlite1, _ = throughput_run(server, "sqlite", processes=1, workers=1, games=games, steps=steps,
                                    problems=problems)
        postgres1, _ = throughput_run(server, "postgresql", processes=1, workers=1, games=games, steps=steps,
                                      problems=problems)
        postgres2, dup = throughput_run(server, "postgresql", processes=2, workers=1, games=games, steps=steps,
                                        problems=problems)
        try:  # informative: its failure is reported, the figures above still count
            threads2, _ = throughput_run(server, "postgresql", processes=1, workers=2, games=games, steps=steps,
                                         problems=problems)
            note(f"orders per second, postgresql, one process with --workers 2 (informative): {threads2:.1f}")
            textual, _ = throughput_run(server, "sqlite", processes=1, workers=1, games=games, steps=steps,
                                        problems=problems, pictures=False)
            note(f"orders per second, sqlite, 1 worker, board=off: mail without the board and its picture "
                 f"(informative): {textual:.1f}")
        except (Exception, SystemExit) as exc:
            problems.append(f"postgresql, 1 x pbem run --workers 2, or sqlite with board=off: {exc}")
    totals, acks = lmtp_latency(orders=orders, rng=rng, problems=problems)
    note(f"lmtp: the 250 after DATA (committed to the queue) after median {statistics.median(acks) * 1000:.1f} ms, "
         f"p95 {percentile(acks, 95) * 1000:.1f} ms; the last mail caused: min {min(totals) * 1000:.0f} ms, "
         f"max {max(totals) * 1000:.0f} ms ({len(totals)} orders)")
    plain, _ = lmtp_latency(orders=orders, rng=rng, problems=problems, pictures=False)
    note(f"latency lmtp, board=off: mail without the board and its picture (informative): median "
         f"{statistics.median(plain) * 1000:.0f} ms, p95 {percentile(plain, 95) * 1000:.0f} ms")
    piped, _ = lmtp_latency(orders=orders, rng=rng, problems=problems, pipelining=True)
    note(f"latency lmtp, a relay that offers PIPELINING, as Postfix does (informative): median "
         f"{statistics.median(piped) * 1000:.0f} ms, p95 {percentile(piped, 95) * 1000:.0f} ms")
    tick = tick_figure()
    stored = stored_figures()
    for problem in problems:
        note(f"CHECK FAILED: {problem}")
    note(f"benchmark ran {time.monotonic() - began:.0f} s")
    print(f"orders per second, sqlite, 1 worker: {sqlite1:.1f}")
    print(f"orders per second, postgresql, 1 worker: {postgres1:.1f}")
    print(f"orders per second, postgresql, 2 workers: {postgres2:.1f}")
    print(f"duplicate mails: {dup}")
    print(f"latency lmtp: median {statistics.median(totals) * 1000:.0f} ms, p95 {percentile(totals, 95) * 1000:.0f} ms")
    print(f"deadline tick, 10000 games / 100 games: {tick}")
    for line in stored:
        print(line)
    sys.stdout.flush()
    return 1 if problems else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("interrupted; everything started was stopped and removed", file=sys.stderr)
        sys.exit(130)
