"""``pbem demo``: a whole game played by email on a bare machine, with bot players.

With no configuration at all, :class:`Demo`

1. makes a directory (``--dir``, or a temporary one) holding an SQLite
   database (``pbem.db``), the mail of every address (``mail/<address>/``,
   Maildirs) and a configuration file (``pbem.toml``) that points at both;
2. starts the mail hub (``pbem.mail.hub``) on a free loopback port;
3. creates a game for bots ``bot1@demo.pbem`` … (and the people named by
   ``--humans``), queueing the welcome mails with each seat's token in the
   ``Reply-To``, as ``pbem game new`` does with a mail configuration;
4. runs the moderator (``pbem.daemon`` over a
   :class:`pbem.mail.MaildirInbox` reading ``mail/moderator@demo.pbem/``,
   sending through the hub by SMTP) and the bots (``pbem.bots``, reading
   their Maildirs, answering by SMTP through the hub) in threads of this
   process;
5. shows progress on one line (round, leading nation, mails exchanged) until
   the game ends by the rules, then prints the final scores and where the
   mailboxes are.

Everything goes through real mail: SMTP into the hub, Maildir files out, the
same inbound pipeline (tokens, sender check, one transaction per mail) and
outbox as with IMAP in production. People given by ``--humans`` answer with
``pbem mail reply --dir DIR --as NAME "ORDERS"`` or any mail client pointed
at the hub (SMTP on the port printed, their Maildir to read).
"""
from __future__ import annotations

import json
import logging
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from sqlmodel import col

from pbem.bots.player import BotPlayer, BotPool
from pbem.config import parse_config
from pbem.daemon.loop import MailFlow
from pbem.daemon.service import Daemon
from pbem.games import DEFAULT_KIND, kind_named
from pbem.mail.hub import MailHub, mailbox_name
from pbem.mail.maildir import MaildirInbox
from pbem.mail.settings import MaildirSettings
from pbem.moderator.gamemaster.newgame import create_game_with_mail
from pbem.moderator.games import GAME_NAME, Moderator
from pbem.store import Database
from pbem.store.inbound import InboundRow
from pbem.store.mailprefs import NEW_GAME_MAIL, MailMode
from pbem.store.outbox import OutboxRow
from pbem.store.weight import bytes_once_forgotten

log = logging.getLogger("pbem.demo")

DOMAIN = "demo.pbem"
MODERATOR = f"moderator@{DOMAIN}"
GAME = "demo"
STATE_FILE = "demo.json"
POWER_TO_WIN = 25
LINE_WIDTH = 78  # the progress line, as wide as a mail's line: it fits any terminal people read mail in


@dataclass
class DemoOptions:
    players: int = 4
    seed: int = 1
    humans: tuple[str, ...] = ()
    directory: Path | None = None
    strategy: str = "sensible"
    port: int = 0
    game: str = GAME
    timeout: float | None = None  # seconds; None: bots only -> 20 minutes, with humans -> no limit
    keep: bool = True  # keep a temporary directory after the demo (to read the mail)
    poll_interval: float = 0.01
    kind: str = DEFAULT_KIND  # which game the bots play
    variants: tuple[str, ...] = ()  # the game's rule variants
    mail: str = NEW_GAME_MAIL.value  # every seat's mail mode (pbem.store.mailprefs.MailMode), a new game's own
    moves: int | None = None  # stop once this many moves are played (tests: the start of a game); None: the end


@dataclass
class DemoResult:
    directory: Path
    game: str
    state: Any
    finished: bool
    scores: tuple[tuple[str, int], ...]
    elapsed: float
    mails_delivered: int  # copies the hub wrote into Maildirs
    delivered_to: dict[str, int]  # mailbox -> copies
    outbox_sent: int
    outbox_queued: int
    outbox_failed: int
    inbound: dict[str, int]  # outcome -> messages the moderator recorded
    bot_replies: int
    replay_matches: bool | None = None
    timed_out: bool = False
    messages: int = 0  # messages the moderator handled (its inbound records)
    players: tuple[tuple[str, str, bool], ...] = ()  # (name, address, human)
    rounds: int = 0  # rounds played
    ending: tuple[str, ...] = ()  # how the game ended, in the game's words
    delivered_bytes: dict[str, int] = field(default_factory=dict)  # mailbox -> bytes of the copies delivered
    database_bytes: int = 0  # the database's files on disk at the end (pbem.db and its write-ahead log)
    kept_bytes: int = 0  # what the database keeps of the game once sent mail has lost its texts (pbem.store.weight)


@dataclass
class Progress:
    round: int = 0
    version: int = 0
    leader: str = ""
    power: int = 0
    mails: int = 0
    waiting: str = ""
    finished: bool = False
    goal: int = POWER_TO_WIN  # the score that ends the game
    unit: str = "power"  # what the score counts
    filled: float | None = None  # the bar's fill, when the score does not fill it toward the goal


def _player_table(count: int, humans: tuple[str, ...]) -> list[tuple[str, str, bool]]:
    """(name, address, human) per seat: the humans first, then bots up to ``count`` seats."""
    seats: list[tuple[str, str, bool]] = []
    taken: set[str] = set()
    for human in humans:
        name = human.strip()
        if not name or name.lower() in taken:
            continue
        taken.add(name.lower())
        seats.append((name, f"{name.lower()}@{DOMAIN}", True))
    index = 1
    while len(seats) < count:
        name = f"bot{index}"
        index += 1
        if name in taken:
            continue
        seats.append((name, f"{name}@{DOMAIN}", False))
    return seats


class Demo:
    """One demo: directory, hub, moderator, bots. ``run()`` plays to the end; or ``start()``/``stop()``."""

    def __init__(self, options: DemoOptions, *, out: TextIO | None = None,
                 progress: Callable[[Progress], None] | None = None) -> None:
        self.kind = kind_named(options.kind)
        total = max(options.players, len(options.humans))
        info = self.kind.info
        if not info.min_players <= total <= info.max_players:
            raise ValueError(f"{info.title} needs {info.min_players} to {info.max_players} players, not {total}")
        if not GAME_NAME.match(options.game):
            raise ValueError(f"bad game name {options.game!r}")
        self.options = options
        self.out = out if out is not None else sys.stdout
        self.progress = progress
        self.temporary = options.directory is None
        self.directory = Path(options.directory or tempfile.mkdtemp(prefix="pbem-demo-")).resolve()
        self.mail_root = self.directory / "mail"
        self.players = _player_table(total, tuple(options.humans))
        self.hub: MailHub | None = None
        self.db: Any = None
        self.moderator: Any = None
        self.daemon: Any = None
        self.bots: list[BotPlayer] = []
        self._threads: list[threading.Thread] = []
        self._halted = False
        self._failures: list[str] = []
        self._deliveries: dict[str, int] = {}
        self._delivered_bytes: dict[str, int] = {}
        self.pool: BotPool | None = None
        self._delivery_lock = threading.Lock()
        self._switch_interval: float | None = None
        self.started = 0.0

    # --- setting up -----------------------------------------------------------------------------

    @property
    def database_url(self) -> str:
        return f"sqlite:///{self.directory / 'pbem.db'}"

    def maildir_of(self, address: str) -> Path:
        name = mailbox_name(address)
        assert name is not None
        return self.mail_root / name

    def _on_delivery(self, name: str, path: Path) -> None:
        with self._delivery_lock:
            self._deliveries[name] = self._deliveries.get(name, 0) + 1
            self._delivered_bytes[name] = self._delivered_bytes.get(name, 0) + path.stat().st_size
        if self.pool is not None:
            self.pool.notify(name)

    def _config_data(self) -> dict[str, Any]:
        assert self.hub is not None
        return {
            "moderator": {"address": MODERATOR, "name": f"{self.kind.info.title} demo moderator"},
            "database": {"url": self.database_url},
            "maildir": {"path": str(self.maildir_of(MODERATOR)), "poll_interval": self.options.poll_interval,
                        "fsync": False},
            "smtp": {"host": "127.0.0.1", "port": self.hub.port, "security": "none", "local_hostname": "localhost"},
            "limits": {"replies_per_sender_per_hour": 1000},
        }

    def setup(self) -> None:
        """Directory, hub, configuration, database and the game with its welcome mails queued."""

        self.directory.mkdir(parents=True, exist_ok=True)
        if (self.directory / "pbem.db").exists():
            raise ValueError(f"{self.directory} already holds a demo (pbem.db); choose another --dir")
        self.hub = MailHub(self.mail_root, port=self.options.port, fsync=False, on_delivery=self._on_delivery)
        self.hub.start()
        for _, address, _ in self.players:
            self.hub.ensure_maildir(address)
        self.hub.ensure_maildir(MODERATOR)
        data = self._config_data()
        self.config = parse_config(data)
        _write_toml(self.directory / "pbem.toml", data)
        (self.directory / STATE_FILE).write_text(json.dumps({
            "smtp_host": "127.0.0.1", "smtp_port": self.hub.port, "moderator": MODERATOR, "game": self.options.game,
            "mail": str(self.mail_root), "database": self.database_url,
            "players": [{"name": n, "address": a, "human": h} for n, a, h in self.players],
        }, indent=2) + "\n", encoding="utf-8")
        self.db = Database(self.database_url)
        _fast_sqlite(self.db)
        self.moderator = Moderator(self.db)
        self._create_game()

    def _create_game(self) -> None:
        """The game and its welcome mails (each seat's token in the Reply-To), as ``pbem game new`` with mail."""
        setup = self.moderator.make_setup(self.options.game, [(n, a) for n, a, _ in self.players], (),
                                          self.options.seed, self.options.variants, kind=self.kind.info.name)
        create_game_with_mail(self.moderator, self.config, self.options.game, setup, kind=self.kind.info.name,
                              mail=MailMode(self.options.mail))

    # --- running --------------------------------------------------------------------------------

    def start(self) -> None:
        """The moderator's daemon and the bots, each in a thread of this process."""
        settings = MaildirSettings(self.maildir_of(MODERATOR), poll_interval=self.options.poll_interval, fsync=False)
        flow = MailFlow(self.config, self.db, moderator=self.moderator,
                        inbox_factory=lambda: MaildirInbox(settings))
        self.daemon = Daemon(flow, outbox_interval=1.0, min_backoff=0.2, max_backoff=2.0, wait_slice=0.5)
        assert self.hub is not None
        for name, address, human in self.players:
            if human:
                continue
            self.bots.append(BotPlayer(address, self.maildir_of(address), ("127.0.0.1", self.hub.port),
                                       strategy=self.options.strategy, seed=f"{self.options.seed}:{name}",
                                       name=name, bot=self.kind.bot))
        self.pool = BotPool(self.bots)
        self.started = time.monotonic()
        # Moderator, hub and bots share one interpreter; every SMTP round trip hands the GIL between two of
        # them. The default switch interval (5 ms) would make each hand-over wait for a busy third thread.
        self._switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(min(self._switch_interval, 0.0005))
        self._spawn("pbem-demo-moderator", self._run_moderator)
        self.pool.start("pbem-demo-bots")

    def _spawn(self, name: str, target: Callable[[], None]) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _run_moderator(self) -> None:
        try:
            self.daemon.run()
        except Exception as exc:  # reported by the main thread
            log.exception("the moderator stopped")
            self._failures.append(f"moderator: {type(exc).__name__}: {exc}")

    def halt(self) -> None:
        """Stop everything that moves the game (the daemon, the bots, the mail hub), keeping the database
        open: a result taken after this reads one position, not one that a bot's next move changes between
        reading the state and replaying the log (``--moves`` stops a game that is still being played)."""
        if self._halted:
            return
        self._halted = True
        if self.daemon is not None:
            self.daemon.stop()
        if self.pool is not None:
            self.pool.stop()
        for thread in self._threads:
            thread.join(timeout=10)
        self._threads = []
        if self.hub is not None:
            self.hub.stop()

    def stop(self) -> None:
        self.halt()
        if self.db is not None:
            self.db.dispose()
        if self._switch_interval is not None:
            sys.setswitchinterval(self._switch_interval)
            self._switch_interval = None

    # --- watching -------------------------------------------------------------------------------

    def state(self) -> Any:
        return self.moderator.state(self.options.game)

    def snapshot(self) -> Progress:
        state = self.state()
        race = self.kind.race(state)
        waiting = ""
        if not state.finished:
            deciders = sorted({d.player for d in self.kind.pending(state)})
            waiting = ", ".join(deciders)
        return Progress(race.round, state.version, race.leader, race.score, self.hub.delivered if self.hub else 0,
                        waiting, state.finished, race.goal, race.unit, race.filled)

    def _outbox_counts(self) -> dict[str, int]:
        from sqlalchemy import func
        from sqlmodel import select

        with self.db.transaction() as session:
            rows = session.exec(select(OutboxRow.status, func.count(col(OutboxRow.id)))
                                .group_by(col(OutboxRow.status))).all()
        return {status: count for status, count in rows}

    def _inbound_counts(self) -> dict[str, int]:
        from sqlalchemy import func
        from sqlmodel import select

        with self.db.transaction() as session:
            rows = session.exec(select(InboundRow.outcome, func.count(col(InboundRow.id)))
                                .group_by(col(InboundRow.outcome))).all()
        return {outcome: count for outcome, count in rows}

    def _quiet(self) -> bool:
        """The game is over and every mail is through: outbox empty, inboxes read, bots told."""
        counts = self._outbox_counts()
        if counts.get("queued", 0):
            return False
        if self._has_new(self.maildir_of(MODERATOR)):
            return False
        return self.pool is None or self.pool.finished

    @staticmethod
    def _has_new(maildir: Path) -> bool:
        try:
            return any(not e.name.startswith(".") for e in os.scandir(maildir / "new"))
        except FileNotFoundError:
            return False

    def wait(self, *, tick: float = 0.2) -> bool:
        """Until the game is over and all its mail is through, or ``moves`` moves are played (True); or the
        timeout (False)."""
        timeout = self.options.timeout
        if timeout is None:
            timeout = None if any(h for _, _, h in self.players) else 1200.0
        deadline = None if timeout is None else time.monotonic() + timeout
        last_waiting = ""
        while True:
            if self._failures:
                raise RuntimeError("; ".join(self._failures))
            progress = self.snapshot()
            if self.progress is not None:
                self.progress(progress)
            humans = {n for n, _, h in self.players if h}
            waiting_humans = [w for w in progress.waiting.split(", ") if w in humans]
            if waiting_humans and progress.waiting != last_waiting:
                self._tell_humans(waiting_humans)
            last_waiting = progress.waiting
            if progress.finished and self._quiet():
                return True
            if self.options.moves is not None and progress.version >= self.options.moves:
                return True
            if deadline is not None and time.monotonic() > deadline:
                return False
            time.sleep(tick)

    def _tell_humans(self, names: list[str]) -> None:
        for name in names:
            self.out.write(f"\n  The game waits for {name}: read the prompt with\n"
                           f"    pbem mail reply --dir {self.directory} --as {name}\n"
                           f"  and answer with\n"
                           f"    pbem mail reply --dir {self.directory} --as {name} \"ORDERS\"\n")
            self.out.flush()

    def result(self, timed_out: bool = False) -> DemoResult:
        state = self.state()
        outbox = self._outbox_counts()
        inbound = self._inbound_counts()
        try:
            replayed = self.moderator.verify(self.options.game)
            matches = self.kind.state_to_json(replayed) == self.kind.state_to_json(state)
        except Exception:  # reported as a mismatch
            log.exception("replay failed")
            matches = False
        with self._delivery_lock:
            delivered_to, delivered_bytes = dict(self._deliveries), dict(self._delivered_bytes)
        database_bytes = sum(path.stat().st_size for path in (self.directory / "pbem.db", self.directory / "pbem.db-wal")
                             if path.exists())
        kept_bytes = bytes_once_forgotten(self.directory / "pbem.db") if database_bytes else 0
        return DemoResult(
            directory=self.directory, game=self.options.game, state=state, finished=state.finished,
            scores=self.kind.final_scores(state), elapsed=time.monotonic() - self.started,
            mails_delivered=self.hub.delivered if self.hub else 0, delivered_to=delivered_to,
            outbox_sent=outbox.get("sent", 0), outbox_queued=outbox.get("queued", 0),
            outbox_failed=outbox.get("failed", 0), inbound=inbound, bot_replies=sum(b.stats.replies for b in self.bots),
            replay_matches=matches, timed_out=timed_out, messages=sum(inbound.values()),
            players=tuple(self.players), rounds=self.kind.race(state).round,
            ending=tuple(self.kind.end_lines(state)) if state.finished else (),
            delivered_bytes=delivered_bytes, database_bytes=database_bytes, kept_bytes=kept_bytes)

    def run(self) -> DemoResult:
        """Set up, play to the end, stop; the result (the directory is kept unless ``keep`` is off)."""
        try:
            self.setup()
            self.start()
            finished = self.wait()
            self.halt()
            result = self.result(timed_out=not finished)
            write_result(result)
            return result
        finally:
            self.stop()
            if self.temporary and not self.options.keep:
                shutil.rmtree(self.directory, ignore_errors=True)


# --- text for the terminal ------------------------------------------------------------------------


class ProgressLine:
    """One line updated in place on a terminal (``\\r``); on anything else a plain line per round.

    A line holds at most :data:`LINE_WIDTH` columns, so the terminal's line
    never wraps (a wrapped line cannot be rewritten in place): the round and
    move, the leader once anyone has scored (nobody "leads with 0 points"),
    the mails, and at the end "game over"; a leader's name too long for the
    line leaves out the mails, then the leader. Whom the game waits for is
    not on the line: it changes with every move among bots, and a person
    the game waits for is told in lines of their own (``_tell_humans``).
    """

    def __init__(self, out: TextIO, *, tty: bool | None = None, width: int = 12) -> None:
        self.out = out
        self.tty = out.isatty() if tty is None else tty
        self.width = width
        self._last_round = -1
        self._last_text = ""

    def text(self, progress: Progress) -> str:
        share = progress.filled if progress.filled is not None else progress.power / max(1, progress.goal)
        filled = min(self.width, round(self.width * share))
        head = f"[{'#' * filled}{'-' * (self.width - filled)}] round {progress.round:>2}, move {progress.version:>4}"
        leader = f"{progress.leader} leads with {progress.power} {progress.unit}" if progress.power > 0 else ""
        end = "game over" if progress.finished else ""
        for parts in ([head, leader, f"{progress.mails} mails", end], [head, leader, end], [head, end]):
            text = " | ".join(part for part in parts if part)
            if len(text) <= LINE_WIDTH:
                return text
        return text[:LINE_WIDTH]

    def __call__(self, progress: Progress) -> None:
        text = self.text(progress)
        if self.tty:
            if text != self._last_text:
                self.out.write("\r" + text.ljust(len(self._last_text)))
                self.out.flush()
                self._last_text = text
        elif progress.round != self._last_round or progress.finished and not self._last_text.endswith("game over"):
            self.out.write(text + "\n")
            self.out.flush()
            self._last_round = progress.round
            self._last_text = text

    def done(self) -> None:
        if self.tty and self._last_text:
            self.out.write("\n")
            self.out.flush()


def seat_mailbox(directory: Path, address: str, human: bool) -> Path:
    """Where a seat's mail is after the demo: a bot moves each mail it read into ``.processed``."""
    box = directory / "mail" / address
    return box if human else box / ".processed"


def summary_lines(result: DemoResult) -> list[str]:
    lines: list[str] = []
    state = result.state
    if result.finished and state is not None:
        lines.append(f"Game {result.game} is over after {result.rounds} rounds and {state.version} moves "
                     f"({result.elapsed:.1f} s).")
        lines.extend(result.ending)
        if not _ranks_everyone(result.ending, [player for player, _ in result.scores]):
            lines.append("Final scores:")
            humans = {n for n, _, h in result.players if h}
            for rank, (player, score) in enumerate(result.scores, start=1):
                tag = " (human)" if player in humans else ""
                lines.append(f"  {rank}. {player:<10} {score:>4}{tag}")
    elif result.timed_out:
        lines.append(f"The demo stopped after {result.elapsed:.0f} s before the game ended.")
    lines.append(f"Mail: the moderator handled {result.messages} mails with orders and sent {result.outbox_sent}; "
                 f"the hub delivered {result.mails_delivered}.")
    lines.extend(weight_lines(result))
    if result.replay_matches is not None:
        lines.append("The final state equals the replay of the game's log."
                     if result.replay_matches else "WARNING: the final state differs from the replay of the log!")
    lines.append(f"Mailboxes (Maildir, one per address) to read: {result.directory / 'mail'}/")
    for name, address, human in result.players:
        where = "new mail stays here" if human else "a bot files what it read in .processed"
        lines.append(f"  {name:<10} {seat_mailbox(result.directory, address, human)}/ ({where})")
    lines.append(f"  moderator  {result.directory / 'mail' / MODERATOR / '.processed'}/ (every order it handled)")
    name, address, human = next((p for p in result.players if p[2]), result.players[0])
    lines.append(f"  e.g. {name}'s mail: mutt -f {seat_mailbox(result.directory, address, human)}/")
    lines.append(f"The game in the database: pbem --config {result.directory / 'pbem.toml'} game show {result.game}")
    return lines


def weight_lines(result: DemoResult) -> list[str]:
    """What the game weighed: each seat's mails and their bytes as delivered, and the database on disk."""
    lines = ["Each seat received:"] if result.players else []
    for name, address, _ in result.players:
        box = mailbox_name(address) or address
        lines.append(f"  {name:<10} {result.delivered_to.get(box, 0):>5} mails, "
                     f"{_megabytes(result.delivered_bytes.get(box, 0))}")
    if result.database_bytes:
        lines.append(f"The database: {_megabytes(result.database_bytes)} on disk for this game.")
    if result.kept_bytes:
        lines.append(f"  Kept for good once sent mail loses its texts (keep_sent_mail_days): "
                     f"{_megabytes(result.kept_bytes)}.")
    return lines


def _megabytes(count: int) -> str:
    return f"{count / 1_000_000:.1f} MB" if count >= 100_000 else f"{count / 1000:.0f} KB"


def _ranks_everyone(ending: tuple[str, ...], players: list[str]) -> bool:
    """Whether the game's own ending names every player: a score sheet (Eight-Minute Empire's, with its
    arithmetic), after which the demo's plain list of the same scores would only repeat it."""
    words = set(re.findall(r"[\w.+-]+", " ".join(ending)))
    return bool(players) and all(player in words for player in players)


def _fast_sqlite(db: Any) -> None:
    """WAL and ``synchronous=NORMAL`` for the demo's SQLite file: commits without fsync.

    Safe against the process dying (the demo's only risk); a power cut may lose
    the last transactions, which a demo can afford. Production databases keep
    the store's settings.
    """
    from sqlalchemy import event

    def pragmas(connection: Any, _record: Any) -> None:
        cursor = connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    event.listen(db.engine, "connect", pragmas)
    db.engine.dispose()  # connections opened before (the migration) get the pragmas when reopened


def _write_toml(path: Path, data: dict[str, Any]) -> None:
    """A small TOML writer for the demo's flat configuration (strings, numbers, booleans)."""
    out = ["# Written by pbem demo: the demo's moderator configuration (the hub ran on the port below).", ""]
    for section, values in data.items():
        out.append(f"[{section}]")
        for key, value in values.items():
            if isinstance(value, bool):
                text = "true" if value else "false"
            elif isinstance(value, int | float):
                text = repr(value)
            else:
                text = json.dumps(str(value))
            out.append(f"{key} = {text}")
        out.append("")
    path.write_text("\n".join(out), encoding="utf-8")


def load_demo(directory: str | Path) -> dict[str, Any]:
    """What ``pbem mail reply`` needs to know about a demo: the hub's port, the players, the mail root."""
    path = Path(directory).expanduser() / STATE_FILE
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return data
    except FileNotFoundError:
        raise ValueError(f"{directory} holds no demo (no {STATE_FILE}); start one with: pbem demo --dir "
                         f"{directory}") from None


def main_text(options: DemoOptions, out: TextIO) -> DemoResult:
    """The demo as ``pbem demo`` prints it."""
    line = ProgressLine(out)
    demo = Demo(options, out=out, progress=line)
    humans = [n for n, _, h in demo.players if h]
    out.write(f"pbem demo: {len(demo.players)} players ({', '.join(n for n, _, _ in demo.players)}), seed "
              f"{options.seed}, strategy {options.strategy}; files in {demo.directory}\n")
    out.flush()
    try:
        demo.setup()
        assert demo.hub is not None
        out.write(f"Mail hub: SMTP on 127.0.0.1:{demo.hub.port}, Maildirs under {demo.mail_root}/\n")
        if humans:
            out.write("People play with: pbem mail reply --dir " + str(demo.directory) + " --as NAME [\"ORDERS\"]\n"
                      "(or any mail client: SMTP 127.0.0.1:" + str(demo.hub.port) + ", reading the Maildir of "
                      "NAME@" + DOMAIN + ")\n")
        out.flush()
        demo.start()
        finished = demo.wait()
        line.done()
        demo.halt()
        result = demo.result(timed_out=not finished)
    except KeyboardInterrupt:
        line.done()
        out.write("Interrupted.\n")
        demo.halt()
        result = demo.result(timed_out=True)
    finally:
        demo.stop()
    write_result(result)
    for text in summary_lines(result):
        out.write(text + "\n")
    out.flush()
    return result


def write_result(result: DemoResult) -> Path:
    """``DIR/result.json``: what the demo counted, for scripts and tests."""
    path = result.directory / "result.json"
    data = {
        "game": result.game, "finished": result.finished, "timed_out": result.timed_out,
        "round": result.rounds if result.state else None,
        "version": result.state.version if result.state else None,
        "scores": [[player, score] for player, score in result.scores],
        "elapsed": round(result.elapsed, 3), "messages": result.messages, "inbound": result.inbound,
        "bot_replies": result.bot_replies, "mails_delivered": result.mails_delivered,
        "delivered_to": result.delivered_to, "delivered_bytes": result.delivered_bytes,
        "database_bytes": result.database_bytes, "kept_bytes": result.kept_bytes, "outbox_sent": result.outbox_sent,
        "outbox_queued": result.outbox_queued, "outbox_failed": result.outbox_failed,
        "replay_matches": result.replay_matches,
        "players": [{"name": n, "address": a, "human": h} for n, a, h in result.players],
    }
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path


__all__ = ["Demo", "DemoOptions", "DemoResult", "Progress", "ProgressLine", "load_demo", "main_text",
           "summary_lines"]
