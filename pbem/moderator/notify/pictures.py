"""Board pictures drawn by a helper process while the move's other work goes on.

Why a process: a changed board takes 10-25 ms of a core to draw, most of
what an order costs before its first mail can go. The daemon's threads share
one interpreter lock, so a thread would not draw meanwhile; a process does,
on the machine's other core, while the moderator writes the move's log, its
snapshot and every seat's text. The outbox rows get the picture just before
the transaction commits (``MailComposer.finish``), so a mail is never queued
without the picture it should have, nor sent before it has it.

``pbem run`` and ``pbem lmtp`` start the helper (:func:`start`) on a machine
with more than one core; everything else (the command line, tests, a
one-core machine) draws in its own thread, as before. One helper serves the
whole daemon. A worker with mail waiting behind its message (:func:`busy`)
does not wait for the picture at all (:class:`LaterDrawing`): its move
commits without it and goes on to the next message, and the picture reaches
the move's mail afterwards (``pbem.moderator.notify.latepictures``). Such pictures
queue up in the helper, ``LATER_DEPTH`` at most: the next message's picture
is asked while the last one's is still being drawn, so that the worker, the
daemon's busiest thread, draws none of them. A worker that would wait for
its picture and finds the helper with such pictures in hand does not wait
either: its picture joins them. A worker that finds the helper's hands full
draws itself.

The helper is a new interpreter (not a fork: the daemon has threads, and a
fork would copy their locks) that imports only what drawing needs. It first
draws a new game of every kind (:func:`warm_up`: a process's first picture
takes many times the time of the next), and the daemon draws itself until
it has. It ends with the daemon, or by itself when the daemon is gone (its
input closes). A picture that has not begun to come back after
``DRAW_HERE_AFTER`` (a machine busy to its last core) is drawn here, and
the late answer dropped. Should the helper die, hang (``ANSWER_WITHIN``) or
answer nonsense, it is stopped, that picture is drawn here, and a new
helper starts for a later picture, at most once per ``RESTART_AFTER``.
"""
from __future__ import annotations

import ctypes
import itertools
import logging
import os
import pickle
import queue
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from engine.core.seats import Seat
from pbem.games import KINDS, GameKind, SetupChoices, kind_of
from pbem.holders import holder_name
from pbem.mail.picture import MAX_PICTURE_BYTES
from pbem.render.picture import render_png

log = logging.getLogger(__name__)

Drawn = tuple[bytes, str] | None  # the PNG and its alt text; None: no picture (``board_picture``)
ANSWER_WITHIN = 30.0  # seconds: a helper slower than this is taken for hung
DRAW_HERE_AFTER = 0.05  # seconds a handler waits for the helper's picture before it draws the picture itself
WARM_WITHIN = 300.0  # seconds: a helper that has not warmed up by then is taken for hung
RESTART_AFTER = 60.0  # seconds between starting helpers after one failed
LATER_DEPTH = 3  # pictures no one waits for that the helper may have in hand at once (asked, not yet answered)
READY = "ready"  # the helper's first word: it has warmed up (until then the daemon draws itself)
PR_SET_NAME = 15  # prctl(2): set the calling thread's name, the process's own for its main thread
PROCESS_NAME = "pbem-pictures"  # what ``ps`` and ``top`` call the helper (docs/hosting.md)


def board_picture(kind: GameKind, game: str, state: Any) -> tuple[bytes, str] | None:
    """The board of ``state`` as a PNG and its alt text; None when it cannot be drawn or is too big for a mail.

    Why None rather than an error: the picture repeats what the text says; a
    drawing bug must not cost a player their report (nor the game its move).
    """
    try:
        scene = kind.picture(state, game=game)
        png = render_png(scene)
    except Exception:  # any failure to draw leaves the mail as plain text
        log.exception("cannot draw the board of game %s; the mail goes without its picture", game)
        return None
    if len(png) > MAX_PICTURE_BYTES:
        log.warning("the picture of game %s is %d bytes, too big for a mail; left out", game, len(png))
        return None
    return png, f"Picture of the board after move {kind.shown_move(state)} - {scene.title.strip().rstrip('.')}"


def draw_here(kind: str, game: str, state: Any) -> Drawn:
    """The picture drawn in this process (:func:`board_picture`: None when it cannot be)."""
    return board_picture(kind_of(kind), game, state)


class Drawing:
    """A picture asked of the helper; :meth:`result` waits for it, once, and draws here should the helper fail."""

    def __init__(self, helper: Helper, kind: str, game: str, state: Any) -> None:
        self._helper = helper
        self.kind, self.game, self.state = kind, game, state
        self._done = False
        self._drawn: Drawn = None

    def result(self) -> Drawn:
        if not self._done:
            self._drawn = self._helper.answer(self)
            self._done = True
        return self._drawn


class LaterDrawing:
    """A picture asked of the helper that no one waits for: the helper's collector thread takes the answer
    as soon as it comes (the helper is free again at once), then waits for the asker to say where it goes.

    Why wait for the asker: the picture belongs in mail that its transaction
    has not yet committed. ``deliver`` (after the commit) hands it over; ``drop``
    (a rollback, or no mail wanted it) forgets it. An asker that says neither
    within ``ANSWER_WITHIN`` is taken to have dropped it. ``holder`` names the
    rows that wait for it (``pbem.holders``: a process that dies leaves them to
    be taken back), one name per picture.
    """

    _serial = itertools.count(1)

    def __init__(self, kind: str, game: str, state: Any, asked_of: subprocess.Popen[bytes] | None) -> None:
        self.kind, self.game, self.state = kind, game, state
        self.asked_of = asked_of  # the helper process that has the question (its answer comes from no other)
        self.holder = f"{holder_name('picture')}:{next(self._serial)}"[:64]
        self._said = threading.Event()
        self._done = threading.Event()
        self._to: Callable[[Drawn], None] | None = None

    def deliver(self, to: Callable[[Drawn], None]) -> None:
        self._to = to
        self._said.set()

    def drop(self) -> None:
        self._said.set()

    def join(self, timeout: float) -> None:
        self._done.wait(timeout)

    def alive(self) -> bool:
        """Whether its answer has still to come, or to go where it goes."""
        return not self._done.is_set()

    def settle(self, drawn: Drawn) -> None:
        """In the collector thread: the answer, once the asker has said where it goes."""
        try:
            if not self._said.wait(ANSWER_WITHIN):
                log.warning("a picture of game %s was drawn for mail that never said where it goes", self.game)
            elif self._to is not None:
                self._to(drawn)
                log.debug("the picture of game %s reached the mail that waited for it", self.game)
                _WAKE()
        except Exception:  # its mail waits out the picture's hold and goes without it
            log.exception("the picture of game %s could not be given to its mail", self.game)
        finally:
            self._done.set()


class Helper:
    """The helper process and the pipes to it (see the module docstring)."""

    def __init__(self, command: Sequence[str] | None = None) -> None:
        self._command = list(command or [sys.executable, "-c", f"from {__name__} import helper_main; helper_main()",
                                         PROCESS_NAME])  # an argument the code ignores: ``ps aux`` shows it
        self._lock = threading.Lock()
        self._busy = False
        self._process: subprocess.Popen[bytes] | None = None
        self._warm = False  # the helper said it has warmed up (until then, pictures are drawn here)
        self._failed = -RESTART_AFTER  # time.monotonic() of the last failure
        self._warming: threading.Thread | None = None  # waits for the helper's first word
        self._owed: float | None = None  # since when an answer no one waits for is due (see answer)
        self._collector: threading.Thread | None = None  # takes the answers no one waits for (LaterDrawing)
        self._later: queue.SimpleQueue[LaterDrawing | None] = queue.SimpleQueue()  # the collector's questions
        self._in_hand: set[LaterDrawing] = set()  # asked and not yet answered (LATER_DEPTH at most)
        # ``_busy`` and ``_in_hand`` have a lock of their own, never held for long: the collector frees its
        # pictures under it, and must never wait for ``_lock``, which ``ask`` holds while it stops a dead
        # helper, joining the collector (each such stop waited out the join's two seconds).
        self._hands = threading.Lock()
        self._asking = threading.Lock()  # a question is written and handed to its reader at once: in order

    def start(self) -> None:
        """A new interpreter that imports only what drawing needs (:func:`helper_main`)."""
        self._process = subprocess.Popen(self._command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0,
                                         close_fds=True)
        self._warm = False
        self._warming = threading.Thread(target=self._await_warm, args=(self._process,), name="pbem-pictures-warm",
                                         daemon=True)
        self._warming.start()

    def _await_warm(self, process: subprocess.Popen[bytes]) -> None:
        """Wait for the helper's word that it has warmed up (:func:`serve`); the pictures are its from then on."""
        assert process.stdout is not None
        try:
            word = read_message(process.stdout.fileno(), time.monotonic() + WARM_WITHIN)
        except Exception as exc:
            word = f"nothing ({type(exc).__name__}: {exc})"
        if process is not self._process:
            return  # stopped meanwhile
        if word != READY:
            self._fail(f"the picture helper did not warm up: it said {word!r}")
            return
        self._warm = True
        log.info("the picture helper is ready (process %d)", process.pid)

    def stop(self) -> None:
        """End the helper: its input closes, so it leaves; killed should it not. Its output is closed last,
        once nothing reads it any more."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()
        try:
            process.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=2.0)
        collector, self._collector = self._collector, None
        if collector is not None:
            self._later.put(None)  # after the answers it waits for, written before the helper left
            if collector is not threading.current_thread():
                collector.join(timeout=2.0)
        warming, self._warming = self._warming, None
        if warming is not None and warming is not threading.current_thread():
            warming.join(timeout=2.0)  # it reads the end of the helper's output, and returns
        if process.stdout is not None:
            process.stdout.close()

    def ask(self, kind: str, game: str, state: Any, *, later: bool = False) -> Drawing | LaterDrawing | None:
        """Start drawing; None when the helper is busy or down (the caller draws itself). ``later``: no one
        will wait for the answer (:class:`LaterDrawing`): it may queue behind others (see the module doc).
        A picture asked while others no one waits for are in hand is one of them, ``later`` or not."""
        with self._lock:
            if self._owed is not None:
                self._collect_owed()
            with self._hands:
                full = self._busy or len(self._in_hand) >= LATER_DEPTH
            if full or not self._ready():  # not holding ``_hands``: ``_ready`` may stop a helper, see __init__
                return None
            with self._hands:  # only ``ask`` takes, under ``_lock``: there is still room
                if later or self._in_hand:
                    drawing: Drawing | LaterDrawing = LaterDrawing(kind, game, state, self._process)
                else:
                    drawing = Drawing(self, kind, game, state)
                self._take(drawing)
        try:
            with self._asking:
                assert self._process is not None and self._process.stdin is not None
                write_message(self._process.stdin.fileno(), (kind, game, state))
                if isinstance(drawing, LaterDrawing):
                    self._hand_to_collector(drawing)
        except Exception as exc:  # a state that does not pickle, a helper gone: draw here
            self._fail(f"cannot ask the picture helper: {exc}")
            self._free(drawing)
            return None
        return drawing

    def _hand_to_collector(self, drawing: LaterDrawing) -> None:
        if self._collector is None:
            self._later = queue.SimpleQueue()
            self._collector = threading.Thread(target=self._collect_later, args=(self._later,),
                                               name="pbem-pictures-later", daemon=True)
            self._collector.start()
        self._later.put(drawing)

    def answer(self, drawing: Drawing | LaterDrawing, within: float | None = None) -> Drawn:
        """The helper's answer to ``drawing`` (it answers in the order asked), or the picture drawn here.

        Why not wait for it however long it takes: on a machine busy to its
        last core the helper, sharing it, may draw slowly; after
        ``DRAW_HERE_AFTER`` the handler draws the picture itself, and the
        helper's answer, owed, is read and dropped before its next question.
        ``within`` (a picture no one waits for): a helper that has not begun
        to answer by then is taken for hung.
        """
        try:
            process = drawing.asked_of if isinstance(drawing, LaterDrawing) else self._process
            if process is not self._process:
                raise _Gone
            drawn = self._read(process, within)
        except Exception as exc:
            if isinstance(exc, _Late) and within is None:
                with self._lock:
                    self._owed = time.monotonic()
            else:
                if not isinstance(exc, _Gone):  # that helper's failure has been told already
                    self._fail(f"the picture helper failed ({type(exc).__name__}: {exc}); drawing here")
                self._free(drawing)
            return draw_here(drawing.kind, drawing.game, drawing.state)
        self._free(drawing)
        return drawn

    def _collect_later(self, asked: queue.SimpleQueue[LaterDrawing | None]) -> None:
        """The collector thread: each answer no one waits for, in the order asked, till ``None``."""
        while (drawing := asked.get()) is not None:
            drawing.settle(self.collect(drawing))

    def collect(self, drawing: LaterDrawing) -> Drawn:
        """The answer to a picture no one waits for, however long it takes (up to ``ANSWER_WITHIN``)."""
        return self.answer(drawing, ANSWER_WITHIN)

    def _collect_owed(self) -> None:
        """Drop the owed answer once it has come (the helper is free again); a helper that owes one for
        ``ANSWER_WITHIN`` seconds is taken for hung. Called holding the lock."""
        assert self._owed is not None
        process = self._process
        try:
            if process is not None and process.stdout is not None:
                if not select.select([process.stdout.fileno()], [], [], 0)[0]:
                    if time.monotonic() - self._owed < ANSWER_WITHIN:
                        return  # not yet: still busy
                    raise TimeoutError(f"no answer within {ANSWER_WITHIN:.0f} s")
                read_message(process.stdout.fileno(), time.monotonic() + ANSWER_WITHIN)
        except Exception as exc:
            self._fail(f"the picture helper failed ({type(exc).__name__}: {exc})")
        self._owed = None
        with self._hands:
            self._busy = False

    @staticmethod
    def _read(process: subprocess.Popen[bytes] | None, within: float | None = None) -> Drawn:
        """``process``'s answer, once it begins to come within ``within`` (``DRAW_HERE_AFTER`` unless said;
        else :class:`_Late`: nothing of it has been read, so the whole of it can be dropped later)."""
        if process is None or process.stdout is None:
            raise EOFError("the helper was stopped")
        source = process.stdout.fileno()
        if not select.select([source], [], [], DRAW_HERE_AFTER if within is None else within)[0]:
            raise _Late
        drawn = read_message(source, time.monotonic() + ANSWER_WITHIN)
        if drawn is not None and not (isinstance(drawn, tuple) and len(drawn) == 2
                                      and isinstance(drawn[0], bytes) and isinstance(drawn[1], str)):
            raise ValueError(f"an answer that is no picture: {type(drawn).__name__}")
        return drawn

    def _ready(self) -> bool:
        """Whether a helper runs and has warmed up, starting one if none runs (unless one failed lately)."""
        if self._process is not None and self._process.poll() is None:
            return self._warm
        if time.monotonic() - self._failed < RESTART_AFTER:
            return False
        self.stop()
        try:
            self.start()
        except Exception as exc:  # no processes to be had: draw here
            self._fail(f"cannot start the picture helper: {exc}")
        return False

    def _fail(self, why: str) -> None:
        log.warning("%s", why)
        self._failed = time.monotonic()
        self.stop()

    def _take(self, drawing: Drawing | LaterDrawing) -> None:
        """The question is the helper's. Called holding ``_hands``."""
        if isinstance(drawing, LaterDrawing):
            self._in_hand.add(drawing)
        else:
            self._busy = True

    def _free(self, drawing: Drawing | LaterDrawing) -> None:
        with self._hands:
            if isinstance(drawing, LaterDrawing):
                self._in_hand.discard(drawing)
            else:
                self._busy = False


class _Late(Exception):
    """The helper's answer has not begun to come yet."""


class _Gone(Exception):
    """The helper that was asked has been stopped (a failure, told when it happened)."""


def warm_up() -> None:
    """Draw a new game of every kind once, so that the first move's picture finds the map's places, lines
    and letters drawn already: the first picture of a process takes many times the time of the next."""
    for name in KINDS:
        try:
            kind = KINDS[name]
            players = tuple(Seat(f"p{n}") for n in range(kind.max_players))
            state, _ = kind.rules.new_game(kind.make_setup(SetupChoices(players, seed=1)))
            draw_here(name, "warm-up", state)
        except Exception:  # a kind that cannot be warmed up is drawn cold, that is all
            log.exception("the picture helper could not warm up for %s", name)


# --- the pipes: a pickle after its length (4 bytes, big-endian) -----------------------------------------


def write_message(fd: int, value: Any) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(struct.pack(">I", len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def read_message(fd: int, deadline: float | None = None) -> Any:
    """The next message from ``fd``; EOFError at its end, TimeoutError when not whole by ``deadline``."""
    size = struct.unpack(">I", _read_exactly(fd, 4, deadline))[0]
    return pickle.loads(_read_exactly(fd, size, deadline))


def _read_exactly(fd: int, size: int, deadline: float | None) -> bytes:
    chunks: list[bytes] = []
    while size:
        if deadline is not None:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise TimeoutError("no whole message in time")
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            raise EOFError("the pipe was closed")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def serve(source: int, sink: int) -> None:
    """The helper's life: warm up, then read a question, draw, answer, until its input ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the daemon, which stops the helper itself
    warm_up()
    write_message(sink, READY)
    while True:
        try:
            kind, game, state = read_message(source)
        except (EOFError, OSError):
            return
        write_message(sink, draw_here(kind, game, state))


_HELPER: Helper | None = None


def _no_one() -> None:
    """Whom a picture that reached its mail wakes when no daemon's sender listens."""


_WAKE: Callable[[], None] = _no_one  # told when a picture reached its mail (the daemon's sender)


def start(wake: Callable[[], None] = _no_one) -> None:
    """Start the daemon's helper, on a machine with more than one core (see the module docstring); ``wake``
    is told whenever a :class:`LaterDrawing` has given its mail the picture (that mail is due now)."""
    global _HELPER, _WAKE
    _WAKE = wake
    if _HELPER is None and (os.cpu_count() or 1) > 1:
        _HELPER = Helper()
        _HELPER.start()


def stop() -> None:
    """Stop the helper, once the pictures no one waited for have reached their mail."""
    global _HELPER, _WAKE
    helper, _HELPER = _HELPER, None
    if helper is not None:
        helper.stop()
    _WAKE = _no_one


_BUSY: ContextVar[bool] = ContextVar("pbem_drawing_busy", default=False)


@contextmanager
def busy(backlog: bool) -> Iterator[None]:
    """Within: this thread has mail waiting behind the message it handles (``backlog``), so it does not wait
    for the helper's picture (:class:`LaterDrawing`).

    Why: waiting, the handler would sit inside its transaction (on SQLite,
    holding the write lock) while the next message waits; drawing itself, it
    would keep the machine's other core idle. Without waiting, the helper
    draws one move's board while the handler goes on to the next message.
    When mail comes now and then, the handler waits (at most
    ``DRAW_HERE_AFTER``): its mail goes in one commit, the quickest answer.
    """
    token = _BUSY.set(backlog)
    try:
        yield
    finally:
        _BUSY.reset(token)


def ask(kind: str, game: str, state: Any) -> Drawing | LaterDrawing | None:
    """A picture being drawn by the helper (one no one will wait for when this thread is :func:`busy`); None
    when there is no helper or it is busy."""
    return _HELPER.ask(kind, game, state, later=_BUSY.get()) if _HELPER is not None else None


def helper_main() -> None:
    """The helper process (:meth:`Helper.start`): its answers go out on a copy of standard output, and whatever
    else might be printed there goes to standard error."""
    _name_process(PROCESS_NAME)
    answers = os.dup(sys.stdout.fileno())
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    serve(sys.stdin.fileno(), answers)


def _name_process(name: str) -> None:
    """Give this process ``name`` where ``ps -e``, ``top`` and ``pgrep`` look (Linux: prctl's PR_SET_NAME,
    at most 15 bytes); elsewhere, or should it fail, the name stays the interpreter's. Why: a host who
    sees a second python process using a core should be able to tell what it is."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_NAME, ctypes.c_char_p(name.encode()[:15]), 0, 0, 0)
    except (OSError, AttributeError):  # no C library to be had: only the name is lost
        pass
