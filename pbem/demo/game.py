"""The demo itself: the mail hub, the moderator's daemon and the bots in threads of one process, one game
played by mail to its end (see the package's docstring)."""
from __future__ import annotations

import json
import logging
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from sqlmodel import col

from pbem.bots.player import BotPlayer, BotPool
from pbem.config import parse_config
from pbem.daemon.loop import MailFlow
from pbem.daemon.service import Daemon
from pbem.demo.results import DOMAIN, MODERATOR, STATE_FILE, DemoOptions, DemoResult, Progress, write_result, write_toml
from pbem.games import kind_named
from pbem.languages import SOURCE, Language
from pbem.mail.hub import MailHub, mailbox_name
from pbem.mail.maildir import MaildirInbox
from pbem.mail.settings import MaildirSettings
from pbem.moderator.gamemaster.newgame import create_game_with_mail
from pbem.moderator.games import GAME_NAME, Moderator
from pbem.store import Database
from pbem.store.inbound import InboundRow
from pbem.store.mailprefs import MailMode
from pbem.store.outbox import OutboxRow
from pbem.store.weight import bytes_once_forgotten

log = logging.getLogger("pbem.demo")


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


def _seat_languages(options: DemoOptions, players: list[tuple[str, str, bool]]) -> dict[str, Language]:
    """Each seat's mail language: its own when ``options.languages`` names the seat, else the demo's."""
    names = {name.casefold(): name for name, _, _ in players}
    own: dict[str, Language] = {}
    for seat, code in options.languages:
        if seat.casefold() not in names:
            raise ValueError(f"--language {seat}={code}: {seat!r} has no seat; the seats: {', '.join(names.values())}")
        own[names[seat.casefold()]] = Language(code)
    return {name: own.get(name, Language(options.language)) for name, _, _ in players}


def bot_languages(bot: object) -> tuple[Language, ...]:
    """The languages a game's bot reads: those its ``languages`` names, else English only (the seam's ``Bot``
    asks no game for more; both games' bots read every language)."""
    languages = getattr(bot, "languages", (SOURCE,))
    return tuple(languages)


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
        self.players = _player_table(total, tuple(options.humans))
        self.languages = _seat_languages(options, self.players)
        refused = sorted({self.languages[name].value for name, _, human in self.players
                          if not human and self.languages[name] not in bot_languages(self.kind.bot)})
        if refused:
            raise ValueError(f"{info.title}'s bots read English only for now; use --humans for the seats in "
                             f"{', '.join(refused)} (--language NAME={refused[0]} gives one seat a language)")
        self.temporary = options.directory is None
        self.directory = Path(options.directory or tempfile.mkdtemp(prefix="pbem-demo-")).resolve()
        self.mail_root = self.directory / "mail"
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
        write_toml(self.directory / "pbem.toml", data)
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
                              mail=MailMode(self.options.mail), languages=self.seat_languages())

    def seat_languages(self) -> dict[str, Language]:
        """The languages the game is told: every person's, and a bot's when it is not English (an English bot
        seat keeps no language of its own, as before the bots read other languages)."""
        return {name: self.languages[name] for name, _, human in self.players
                if human or self.languages[name] is not SOURCE}

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
                                       name=name, bot=self.kind.bot, language=self.languages[name]))
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


