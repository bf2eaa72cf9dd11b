"""Soak benchmark: many demo games at once through one moderator, all by email.

One mail hub (``pbem.mail.hub``) and every game's bots run in this process;
the moderator is the real daemon, ``pbem run``, in a process of its own, with
a ``[maildir]`` inbox in the hub and the hub as its SMTP relay, so that its
memory can be measured apart. Games are created with their welcome mails as
``pbem game new`` does with a mail configuration; each game has its own bots
(``g3bot1@soak.pbem`` …). When every game is over (or the time limit is
reached) the moderator is stopped with SIGTERM. Printed at the end:

    games finished: 10/10
    mails exchanged: 12345 (…)
    mails per second: 123.4
    moderator peak memory: 98.7 MiB (peak resident set of the pbem run process)

Usage:

    python benchmarks/soak.py [--games 10] [--players 2-6 | --players 4] [--seed 1]
                              [--strategy sensible|random] [--dir DIR] [--timeout 1800]
                              [--database URL] [--verify]

``--players 2-6`` (the default) gives the games 2, 3, … 6 players in turn.
The SQLite database uses the store's own settings (what a deployment gets);
``--database`` points the moderator at another (e.g. PostgreSQL).
``--verify`` replays every game's log at the end and compares it with its state.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pbem.bots.player import BotPlayer, BotPool
from pbem.config import parse_config
from pbem.demo.results import write_toml
from pbem.mail.hub import MailHub
from pbem.moderator import Moderator
from pbem.moderator.gamemaster.newgame import create_game_with_mail
from pbem.store import Database

DOMAIN = "soak.pbem"
MODERATOR = f"moderator@{DOMAIN}"
ROOT = Path(__file__).resolve().parent.parent


def player_counts(text: str, games: int) -> list[int]:
    if "-" in text:
        low, high = (int(part) for part in text.split("-", 1))
        return [low + i % (high - low + 1) for i in range(games)]
    return [int(text)] * games


def peak_rss_of(pid: int) -> int | None:
    """The peak resident set (bytes) of a running process, from /proc (Linux)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--players", default="2-6")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--strategy", default="sensible", choices=("sensible", "random"))
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--database", default=None)
    parser.add_argument("--verify", action="store_true")
    args = parser.parse_args()

    directory = (args.dir or Path(tempfile.mkdtemp(prefix="pbem-soak-"))).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    mail_root = directory / "mail"
    url = args.database or f"sqlite:///{directory / 'pbem.db'}"
    counts = player_counts(args.players, args.games)

    pool: BotPool | None = None

    def delivered(name: str, path: Path) -> None:
        if pool is not None:
            pool.notify(name)

    hub = MailHub(mail_root, fsync=False, on_delivery=delivered).start()
    data = {
        "moderator": {"address": MODERATOR, "name": "Imperial 2030 soak moderator"},
        "database": {"url": url},
        "maildir": {"path": str(mail_root / MODERATOR), "poll_interval": 0.02, "fsync": False},
        "smtp": {"host": "127.0.0.1", "port": hub.port, "security": "none", "local_hostname": "localhost"},
        "limits": {"replies_per_sender_per_hour": 100000},
    }
    config_path = directory / "pbem.toml"
    write_toml(config_path, data)
    config = parse_config(data, config_path)

    db = Database(url)
    moderator = Moderator(db)
    bots: list[BotPlayer] = []
    games = []
    for index, players in enumerate(counts, start=1):
        name = f"soak{index}"
        seats = [(f"g{index}bot{k}", f"g{index}bot{k}@{DOMAIN}") for k in range(1, players + 1)]
        setup = moderator.make_setup(name, seats, (), args.seed + index, ())
        create_game_with_mail(moderator, config, name, setup)
        games.append(name)
        for player, address in seats:
            hub.ensure_maildir(address)
            bots.append(BotPlayer(address, hub.maildir_for(address), ("127.0.0.1", hub.port),
                                  strategy=args.strategy, seed=f"{args.seed + index}:{player}", name=player))
    hub.ensure_maildir(MODERATOR)
    print(f"soak: {len(games)} games ({', '.join(map(str, counts))} players), {len(bots)} bots, "
          f"strategy {args.strategy}; files in {directory}", flush=True)

    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    command = [sys.executable, "-m", "pbem.cli", "--config", str(config_path), "run", "--log-level", "WARNING",
               "--outbox-interval", "1"]
    log = open(directory / "moderator.log", "w")
    started = time.monotonic()
    moderator_process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    pool = BotPool(bots).start("soak-bots")
    peak = 0
    finished = 0
    try:
        next_report = started + 5
        while True:
            if moderator_process.poll() is not None:
                print(f"the moderator stopped (exit {moderator_process.returncode}); see {directory / 'moderator.log'}")
                break
            peak = max(peak, peak_rss_of(moderator_process.pid) or 0)
            finished = sum(1 for g in games if moderator.state(g).finished)
            if finished == len(games) and pool.finished:
                break
            now = time.monotonic()
            if now - started > args.timeout:
                print(f"time limit of {args.timeout:.0f} s reached")
                break
            if now >= next_report:
                print(f"  {now - started:6.0f} s: {finished}/{len(games)} games over, {hub.delivered} mails",
                      flush=True)
                next_report = now + 5
            time.sleep(0.5)
    finally:
        elapsed = time.monotonic() - started
        mails = hub.delivered
        peak = max(peak, peak_rss_of(moderator_process.pid) or 0)
        if moderator_process.poll() is None:
            moderator_process.send_signal(signal.SIGTERM)
            try:
                moderator_process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                moderator_process.kill()
                moderator_process.wait()
        log.close()
        children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024  # Linux: KiB
        peak = max(peak, children)
        pool.stop()
        hub.stop()

    replies = pool.replies
    print(f"games finished: {finished}/{len(games)}")
    print(f"mails exchanged: {mails} ({replies} from the bots to the moderator, {mails - replies} from the "
          f"moderator to the players) in {elapsed:.1f} s")
    print(f"mails per second: {mails / elapsed:.1f}")
    print(f"moderator peak memory: {peak / (1024 * 1024):.1f} MiB (peak resident set of the pbem run process)")
    if args.verify:
        from engine.imperial2030.serialize import state_to_json

        bad = [g for g in games if state_to_json(moderator.verify(g)) != state_to_json(moderator.state(g))]
        print("replay: every game's state equals the replay of its log" if not bad
              else f"replay MISMATCH in: {', '.join(bad)}")
    (directory / "soak.json").write_text(json.dumps({
        "games": len(games), "finished": finished, "mails": mails, "bot_replies": replies,
        "elapsed": round(elapsed, 2), "mails_per_second": round(mails / elapsed, 2),
        "moderator_peak_bytes": peak, "players": counts,
    }, indent=2) + "\n")
    db.dispose()


if __name__ == "__main__":
    threading.current_thread().name = "soak"
    main()
