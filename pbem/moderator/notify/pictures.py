"""Board pictures drawn by a helper process while the move's mail is written.

Why a process: a changed board takes 10-25 ms of a core to draw, most of
what telling a move costs. The daemon's threads share one interpreter lock,
so a thread would not draw meanwhile; a process does, on the machine's other
core, while the moderator writes every seat's text. The move's mail is
written after the move has committed (``pbem.moderator.notify.telling``):
the composer asks for the picture when the first mail that carries the
board is written, goes on with the other seats' texts, and waits for the
answer before it writes the mail (``MailComposer.finish``). So a picture is
drawn only for a move some reader takes the board of, and the move itself,
committed before, waits for none.

``pbem run`` and ``pbem lmtp`` start the helper (:func:`start`) on a machine
with more than one core; everything else (the command line, tests, a
one-core machine) draws in its own thread, as before. One helper serves the
whole daemon, one picture at a time: a picture asked while it draws another
is drawn by the asker.

The helper is a new interpreter (not a fork: the daemon has threads, and a
fork would copy their locks) that imports only what drawing needs. It first
draws a new game of every kind (:func:`warm_up`: a process's first picture
takes many times the time of the next), and the daemon draws itself until
it has. It ends with the daemon, or by itself when the daemon is gone (its
input closes). A picture that has not begun to come back after
``DRAW_HERE_AFTER`` (half a second: a helper stuck, not one slowed by a busy
machine) is drawn here, and the late answer dropped. Should the helper die, hang (``ANSWER_WITHIN``) or
answer nonsense, it is stopped, that picture is drawn here, and a new
helper starts for a later picture, at most once per ``RESTART_AFTER``.
"""
from __future__ import annotations

import ctypes
import logging
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

from engine.core.seats import Seat
from pbem.games import KINDS, GameKind, SetupChoices, kind_of
from pbem.languages import SOURCE, Language, speaking
from pbem.mail.picture import MAX_PICTURE_BYTES
from pbem.render.env import render_phrase
from pbem.render.picture import render_png

log = logging.getLogger(__name__)

Drawn = tuple[bytes, str] | None  # the PNG and its alt text; None: no picture (``board_picture``)
ANSWER_WITHIN = 30.0  # seconds: a helper slower than this is taken for hung
# Seconds a handler waits for the helper's picture before it draws the picture itself. Why not less: on a machine
# busy to its last core the helper is slow because the cores are, and drawing here as well did the picture twice
# on the same cores (and the next move's too: the helper still owed the last one), when they were scarcest. At
# 50 ms, order_cpu.py on a loaded machine drew 6-9 ms per order here besides the helper's 16; the wait is what a
# helper stuck for good (``ANSWER_WITHIN``) costs a move's mail, not what a busy one does.
DRAW_HERE_AFTER = 0.5
WARM_WITHIN = 300.0  # seconds: a helper that has not warmed up by then is taken for hung
RESTART_AFTER = 60.0  # seconds between starting helpers after one failed
READY = "ready"  # the helper's first word: it has warmed up (until then the daemon draws itself)
PR_SET_NAME = 15  # prctl(2): set the calling thread's name, the process's own for its main thread
PROCESS_NAME = "pbem-pictures"  # what ``ps`` and ``top`` call the helper (docs/hosting.md)
ALT_TEXT = "core/picture_alt.j2"  # the words of the picture's alternative text


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
    return png, render_phrase(ALT_TEXT, move=kind.shown_move(state), title=scene.title.strip().rstrip("."))


def draw_here(kind: str, game: str, state: Any, language: Language = SOURCE) -> Drawn:
    """The picture drawn in this process, its words in ``language`` (:func:`board_picture`: None when it cannot
    be)."""
    with speaking(language):
        return board_picture(kind_of(kind), game, state)


class Drawing:
    """A picture asked of the helper; :meth:`result` waits for it, once, and draws here should the helper fail."""

    def __init__(self, helper: Helper, kind: str, game: str, state: Any, language: Language = SOURCE) -> None:
        self._helper = helper
        self.kind, self.game, self.state, self.language = kind, game, state, language
        self._done = False
        self._drawn: Drawn = None

    def result(self) -> Drawn:
        if not self._done:
            self._drawn = self._helper.answer(self)
            self._done = True
        return self._drawn


class Helper:
    """The helper process and the pipes to it (see the module docstring)."""

    def __init__(self, command: Sequence[str] | None = None) -> None:
        self._command = list(command or [sys.executable, "-c", f"from {__name__} import helper_main; helper_main()",
                                         PROCESS_NAME])  # an argument the code ignores: ``ps aux`` shows it
        self._lock = threading.Lock()  # held while asking, and while the busy flag or the process change
        self._busy = False  # a question is out: the helper answers one at a time
        self._process: subprocess.Popen[bytes] | None = None
        self._warm = False  # the helper said it has warmed up (until then, pictures are drawn here)
        self._failed = -RESTART_AFTER  # time.monotonic() of the last failure
        self._warming: threading.Thread | None = None  # waits for the helper's first word
        self._owed: float | None = None  # since when an answer no one waits for is due (see answer)

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
        warming, self._warming = self._warming, None
        if warming is not None and warming is not threading.current_thread():
            warming.join(timeout=2.0)  # it reads the end of the helper's output, and returns
        if process.stdout is not None:
            process.stdout.close()

    def ask(self, kind: str, game: str, state: Any, language: Language = SOURCE) -> Drawing | None:
        """Start drawing; None when the helper is busy or down (the caller draws itself)."""
        with self._lock:
            if self._owed is not None:
                self._collect_owed()
            if self._busy or not self._ready():
                return None
            drawing = Drawing(self, kind, game, state, language)
            self._busy = True
            try:
                assert self._process is not None and self._process.stdin is not None
                write_message(self._process.stdin.fileno(), (kind, game, state, language.value))
            except Exception as exc:  # a state that does not pickle, a helper gone: draw here
                self._busy = False
                self._fail(f"cannot ask the picture helper: {exc}")
                return None
        return drawing

    def answer(self, drawing: Drawing) -> Drawn:
        """The helper's answer to ``drawing``, or the picture drawn here.

        Why not wait for it however long it takes: a helper that has stopped
        answering would hold the move's mail until ``ANSWER_WITHIN``; after
        ``DRAW_HERE_AFTER`` the asker draws the picture itself, and the
        helper's answer, owed, is read and dropped before its next question.
        """
        try:
            drawn = self._read(self._process)
        except _Late:
            with self._lock:
                self._owed = time.monotonic()
            return draw_here(drawing.kind, drawing.game, drawing.state, drawing.language)
        except Exception as exc:
            self._fail(f"the picture helper failed ({type(exc).__name__}: {exc}); drawing here")
            self._free()
            return draw_here(drawing.kind, drawing.game, drawing.state, drawing.language)
        self._free()
        return drawn

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
        self._busy = False

    @staticmethod
    def _read(process: subprocess.Popen[bytes] | None) -> Drawn:
        """``process``'s answer, once it begins to come within ``DRAW_HERE_AFTER`` (else :class:`_Late`:
        nothing of it has been read, so the whole of it can be dropped later)."""
        if process is None or process.stdout is None:
            raise EOFError("the helper was stopped")
        source = process.stdout.fileno()
        if not select.select([source], [], [], DRAW_HERE_AFTER)[0]:
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

    def _free(self) -> None:
        with self._lock:
            self._busy = False


class _Late(Exception):
    """The helper's answer has not begun to come yet."""


def warm_up() -> None:
    """Draw a new game of every kind once, so that the first move's picture finds the map's places, lines
    and letters drawn already: the first picture of a process takes many times the time of the next."""
    for name in KINDS:
        try:
            kind = KINDS[name]
            players = tuple(Seat(f"p{n}") for n in range(kind.info.max_players))
            state, _ = kind.new_game(kind.make_setup(SetupChoices(players, seed=1)))
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
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # the daemon's log rotation (a HUP to the whole unit) is not ours
    warm_up()
    write_message(sink, READY)
    while True:
        try:
            kind, game, state, language = read_message(source)
        except (EOFError, OSError):
            return
        write_message(sink, draw_here(kind, game, state, Language(language)))


_HELPER: Helper | None = None


def start() -> None:
    """Start the daemon's helper, on a machine with more than one core (see the module docstring)."""
    global _HELPER
    if _HELPER is None and (os.cpu_count() or 1) > 1:
        _HELPER = Helper()
        _HELPER.start()


def stop() -> None:
    global _HELPER
    helper, _HELPER = _HELPER, None
    if helper is not None:
        helper.stop()


def ask(kind: str, game: str, state: Any, language: Language = SOURCE) -> Drawing | None:
    """A picture being drawn by the helper; None when there is no helper or it is busy (draw it yourself)."""
    return _HELPER.ask(kind, game, state, language) if _HELPER is not None else None


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
