"""A bot player's mail loop (``pbem bot``): read its Maildir, answer what asks it to decide, by SMTP.

The loop is the I/O around the game's own bot (``GameKind.bot``, Imperial's in
:mod:`pbem.games.imperial2030.bot`):

1. fetch the mail waiting in the bot's Maildir (:class:`pbem.mail.MaildirInbox`;
   handled mail is moved to its ``.processed`` folder, so a restarted bot
   does not answer twice);
2. sort it per seat (the ``Reply-To`` token address: one bot may sit in
   several games) by its headers, the same in every game: what the mail is
   (``X-PBEM-Mail``), the move it is about (``X-PBEM-Move``) and whether it
   asks a decision (``X-PBEM-Decision``). The latest report is kept as what
   the bot knows, a game end closes the seat, a prompt newer than the last
   one answered is answered, never a report that asks nothing; a mail about
   an earlier move than the latest report (an undo) starts a new line of
   play, whose prompts are answered again. Only the game's bot reads the
   text: whether a mail carries its report, and what to answer;
3. an error reply (an order was refused): if it is about a later move than
   the prompt answered, lines of the message stood, the game moved and the
   moderator prompts again, so the bot waits for that prompt; if nothing
   stood, it answers again from the error's ``Legal now``, avoiding what was
   refused, with plainer answers at every retry;
4. replies go to the ``Reply-To`` with ``In-Reply-To``/``References``, through
   the SMTP server given (the demo's hub).

A bot reads and writes its seat's language (``language``): the game's bot is
called under ``speaking(language)``, so it finds the words of the mail (the
options' heading, the report's headings) as the templates write them in that
language and answers with the options as printed there. The mail says no
language of its own; the seat's is the one the bot was given.

Everything is seeded: the same seed plays the same game the same way, in every
mail mode and however fast mail flows. A decision depends only on the bot's
seed and what its prompt says of the position (the game, the seat, the move,
the options, the report the prompt carries), never on when the prompt came,
which reports came before it, or its deadline (see ``_report_for``).
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path

from pbem.bots.mailio import ReadMail, read_mail, reply_message
from pbem.games import DEFAULT_KIND, Bot, kind_of
from pbem.languages import SOURCE, Language, speaking
from pbem.mail.maildir import MaildirInbox
from pbem.mail.settings import MaildirSettings, Security, SmtpSettings
from pbem.mail.smtp import SmtpSender

log = logging.getLogger("pbem.bots")

GAME_END, ERROR = "game_end", "error"  # the X-PBEM-Mail of the mails the loop treats apart (pbem.mail.outbound)
MAX_RETRIES = 6  # answers after refusals of one decision before the bot gives up on it (the deadline decides)


@dataclass
class Seat:
    """What a bot remembers of one seat (one game): keyed by the seat's Reply-To address."""

    reply_to: str
    answered_version: int | None = None
    prompt: ReadMail | None = None  # the last prompt answered
    report: str | None = None
    report_version: int = -1
    attempts: int = 0
    avoid: set[str] = field(default_factory=set)
    finished: bool = False


@dataclass
class BotStats:
    read: int = 0
    replies: int = 0
    retries: int = 0
    errors: int = 0
    skipped: int = 0  # prompts not answered (stale, or the game had moved on)


class BotPlayer:
    """One bot at one address. ``step()`` handles what is in the Maildir now; ``run()`` loops.

    ``send`` replaces SMTP (tests); otherwise ``smtp`` is ``(host, port)`` or
    :class:`SmtpSettings`. ``on_reply(seat, text)`` is told about each answer.
    """

    def __init__(
        self,
        address: str,
        maildir: str | Path,
        smtp: tuple[str, int] | SmtpSettings | None = None,
        *,
        strategy: str = "random",
        seed: int | str = 0,
        name: str = "",
        send: Callable[[EmailMessage], None] | None = None,
        poll_interval: float = 0.2,
        on_reply: Callable[[Seat, str], None] | None = None,
        bot: Bot | None = None,
        language: Language = SOURCE,
    ) -> None:
        self.bot = bot or kind_of(DEFAULT_KIND).bot
        self.language = language
        if strategy not in self.bot.strategies:
            raise ValueError(f"unknown strategy {strategy!r}; strategies: {', '.join(self.bot.strategies)}")
        self.address = address.strip().lower()
        self.name = name or self.address.partition("@")[0]
        self.strategy = strategy
        self.seed = seed
        self.maildir = Path(maildir)
        self.inbox = MaildirInbox(MaildirSettings(self.maildir, poll_interval=poll_interval, fsync=False))
        self.seats: dict[str, Seat] = {}
        self.stats = BotStats()
        self.on_reply = on_reply
        self._lock = threading.Lock()
        if send is not None:
            self._send = send
            self._sender: SmtpSender | None = None
        else:
            if smtp is None:
                raise ValueError("a bot needs an SMTP server (host, port) or a send function")
            settings = smtp if isinstance(smtp, SmtpSettings) else SmtpSettings(
                host=smtp[0], port=smtp[1], security=Security.NONE, timeout=30.0)
            self._sender = SmtpSender(settings)
            self._send = self._smtp_send

    def __repr__(self) -> str:
        return f"BotPlayer({self.address}, {self.strategy}, seed={self.seed})"

    def _smtp_send(self, message: EmailMessage) -> None:
        assert self._sender is not None
        self._sender.send(message)

    def close(self) -> None:
        if self._sender is not None:
            self._sender.close()
        self.inbox.close()

    # --- one pass ----------------------------------------------------------------------------

    def step(self) -> int:
        """Read what is waiting, answer what asks; the number of replies sent."""
        with self._lock:
            self.inbox.connect()
            if not self.inbox.has_mail():
                return 0
            fetched = self.inbox.fetch_new(None).messages
            if not fetched:
                return 0
            latest: dict[str, tuple[str, int | None, ReadMail]] = {}  # seat -> what to answer, last one wins
            for uid, raw in fetched:
                self.stats.read += 1
                try:
                    mail = read_mail(raw)
                except Exception:  # a mail a bot cannot read is not its problem
                    self.inbox.move_to_processed(uid)
                    continue
                self._sort(mail, latest)
                self.inbox.move_to_processed(uid)
            sent = 0
            for key, (what, version, mail) in latest.items():
                seat = self.seats[key]
                if seat.finished:
                    continue
                if what == "prompt":
                    sent += self._answer_prompt(seat, version, mail)
                else:
                    sent += self._answer_error(seat, mail)
            return sent

    def _sort(self, mail: ReadMail, latest: dict[str, tuple[str, int | None, ReadMail]]) -> None:
        """Remember what the mail tells; note it in ``latest`` when it is something to answer."""
        key = (mail.reply_to or "").lower()
        if not key:
            return
        seat = self.seats.setdefault(key, Seat(key))
        version = mail.move
        if mail.purpose == GAME_END:
            seat.finished = True
            return
        if mail.asks:
            if version is not None and seat.answered_version is not None and version <= seat.answered_version:
                self.stats.skipped += 1  # answered already (a resend or a reminder of the same position)
                return
            latest[key] = ("prompt", version, mail)
            return
        if mail.purpose == ERROR:
            latest[key] = ("error", version, mail)
            return
        if version is not None and version < seat.report_version:
            self._line_of_play_went_back(seat, version)
        if version is not None and version >= seat.report_version and self._is_report(mail.body):
            seat.report = mail.body  # parsed only when the bot decides
            seat.report_version = version

    def _line_of_play_went_back(self, seat: Seat, version: int) -> None:
        """A mail about an earlier move than the latest report: the game master took moves back (undo).

        The prompts from ``version`` on belong to a new line of play: forget
        the answers given to them, so the prompt of a move taken back is
        answered again (a reminder or resend of the same position, without an
        undo, still is not).
        """
        if seat.answered_version is not None and seat.answered_version >= version:
            seat.answered_version = version - 1
        seat.report_version = version
        seat.report = None

    # --- answering ---------------------------------------------------------------------------

    def _answer_prompt(self, seat: Seat, version: int | None, mail: ReadMail) -> int:
        seat.attempts = 0
        seat.avoid = set()
        with speaking(self.language):
            answer = self.bot.answer(mail.body, self.strategy, self.seed, self._report_for(seat, version, mail))
        if answer is None:
            return 0
        seat.answered_version = version
        seat.prompt = mail
        return self._reply(seat, mail, answer)

    def _answer_error(self, seat: Seat, mail: ReadMail) -> int:
        self.stats.errors += 1
        if mail.move is not None and seat.answered_version is not None and mail.move > seat.answered_version:
            return 0  # lines of ours stood and the game moved: the moderator prompts again if we still decide
        if seat.attempts >= MAX_RETRIES:
            log.warning("%s: giving up on the decision after %d refusals", self.name, seat.attempts)
            return 0
        seat.attempts += 1
        previous = seat.prompt.body if seat.prompt is not None else None
        report = self._report_for(seat, seat.answered_version, seat.prompt) if seat.prompt is not None else None
        with speaking(self.language):
            answer = self.bot.answer_refusal(mail.body, previous, self.strategy, self.seed, report,
                                             sorted(seat.avoid), seat.attempts)
        if answer is None:
            return 0
        self.stats.retries += 1
        return self._reply(seat, mail, answer)

    def _report_for(self, seat: Seat, version: int | None, prompt: ReadMail) -> str | None:
        """The report a decision weighs: the prompt's own when it carries one, else the one kept of the same
        move, else none (the bot decides from the prompt alone).

        Never a report of another move: which reports a bot has read when a
        prompt comes depends on the seat's mail mode (a report per move, or
        the news folded into the prompt) and on how fast mail flows, and a
        bot that weighed an older report than its prompt's played another
        game with ``--mail turn`` than with ``--mail every``.
        """
        if self._is_report(prompt.body):
            return prompt.body
        return seat.report if version is not None and version == seat.report_version else None

    def _is_report(self, text: str) -> bool:
        """Whether ``text`` carries a report, read in the seat's language (its headings are translated)."""
        with speaking(self.language):
            return self.bot.is_report(text)

    def _reply(self, seat: Seat, mail: ReadMail, answer: str) -> int:
        for line in answer.splitlines():
            seat.avoid.add(line.strip().upper())
        message = reply_message(mail, self.address, answer, from_name=self.name)
        self._send(message)
        self.stats.replies += 1
        if self.on_reply is not None:
            self.on_reply(seat, answer)
        return 1

    # --- the loop ------------------------------------------------------------------------------

    def has_mail(self) -> bool:
        """Whether mail waits that the bot has not read (a look at its Maildir)."""
        with self._lock:
            self.inbox.connect()
            return self.inbox.has_mail()

    def run(self, stop: threading.Event | None = None, *, wake: threading.Event | None = None,
            idle: float = 1.0) -> None:
        """Answer mail until ``stop`` is set: after each pass, wait for ``wake`` or new mail (``idle`` at most)."""
        stop = stop or threading.Event()
        self.inbox.connect()
        while not stop.is_set():
            if wake is not None:
                wake.clear()
            try:
                self.step()
            except Exception:  # one bad pass (SMTP hiccup) must not end the bot
                log.exception("%s: a pass failed; trying again", self.name)
                stop.wait(1.0)
                continue
            if wake is not None:
                wake.wait(idle)
            else:
                self.inbox.wait_for_mail(idle)

    @property
    def finished(self) -> bool:
        """Whether every game this bot has a seat in is over (False before any mail came)."""
        return bool(self.seats) and all(seat.finished for seat in self.seats.values())


class BotPool:
    """Many bots in one thread: each pass steps the bots whose mailbox got mail (``notify``), and every
    ``sweep`` seconds each bot with mail in case a notice was missed; always in seat order. The demo and the
    soak benchmark run their bots so.
    """

    def __init__(self, bots: list[BotPlayer], *, sweep: float = 1.0) -> None:
        self.bots = list(bots)
        self.sweep = sweep
        self._by_mailbox = {_mailbox_key(bot.address): bot for bot in self.bots}
        self._dirty: set[str] = set()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.failures = 0

    def notify(self, mailbox: str) -> None:
        """Mail arrived for ``mailbox`` (``local@host``, lowercased): step its bot soon. Thread-safe."""
        if mailbox in self._by_mailbox:
            with self._lock:
                self._dirty.add(mailbox)
            self._wake.set()

    def run(self) -> None:
        last_sweep = 0.0
        while not self._stop.is_set():
            self._wake.clear()
            with self._lock:
                dirty, self._dirty = self._dirty, set()
            now = time.monotonic()
            if now - last_sweep >= self.sweep:
                chosen, last_sweep = self._with_mail(), now
            else:
                chosen = [bot for bot in self.bots if _mailbox_key(bot.address) in dirty]  # seat order
            for bot in chosen:
                try:
                    bot.step()
                except Exception as exc:  # an SMTP hiccup: the next pass tries again
                    self.failures += 1
                    log.warning("bot %s: %s", bot.name, exc)
                    with self._lock:
                        self._dirty.add(_mailbox_key(bot.address))
            self._wake.wait(0.25)

    def _with_mail(self) -> list[BotPlayer]:
        """The bots that have mail waiting, in seat order, as at one moment: looked at from the last seat.

        Why backwards: prompts mailed at once to several seats (Eight-Minute
        Empire's sealed bids) are delivered in seat order, so when a later
        seat's has come, every earlier seat's has too, and the bots answer in
        seat order. Looked at from the first seat, a sweep could find the first
        bot's mailbox still empty and the second's filled a moment later: the
        second bot's bid went first, and the game's log differed from run to
        run. (The mailboxes ``notify`` names are taken all at once: they keep that order too.)
        """
        return [bot for bot in reversed(self.bots) if bot.has_mail()][::-1]

    def start(self, name: str = "pbem-bots") -> BotPool:
        self._thread = threading.Thread(target=self.run, name=name, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
        for bot in self.bots:
            bot.close()

    @property
    def finished(self) -> bool:
        return all(bot.finished for bot in self.bots)

    @property
    def replies(self) -> int:
        return sum(bot.stats.replies for bot in self.bots)


def _mailbox_key(address: str) -> str:
    local, _, domain = address.strip().lower().rpartition("@")
    return f"{local.split('+', 1)[0]}@{domain}"
