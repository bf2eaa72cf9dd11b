"""The log in a file a host can rotate (``--log-file PATH``, ``[log] file``), reopened on SIGHUP.

Why: without systemd's journal (cron, a plain init script, a container
without a log driver), a host keeps its logs in files and rotates them with
logrotate. logrotate renames the file and tells the process with SIGHUP;
the process must then open the path again, or it goes on writing into the
renamed file (``copytruncate`` avoids that at the price of losing the lines
written between the copy and the truncation). By default SIGHUP ends a
Python process: a moderator stopped by its log rotation. So ``pbem run``
and ``pbem lmtp`` take SIGHUP to reopen the log file, and, when they write
to standard error, log that they received it and carry on.

Why the reopening is done by a thread of its own and not in the signal
handler: the handler runs in the main thread between two of its
instructions, perhaps while that thread is inside the handler's ``emit``
(its lock is re-entrant: the file would be closed under a write). The
signal handler only sets an event; the thread takes the handler's lock like
any writer, so it waits for the line being written.

The file is created owner-only (0600, ``pbem.privatefiles``): the log never
holds a password or a reply token, but it names players' addresses. A file
that exists (logrotate's ``create`` makes the new one) keeps its mode.
"""
from __future__ import annotations

import logging
import signal
import threading
from pathlib import Path
from types import FrameType
from typing import Any

from pbem.privatefiles import create_private_file

log = logging.getLogger("pbem.daemon")


class ReopenedFile(logging.FileHandler):
    """A log file (appended, UTF-8) that :meth:`reopen` opens again at its path."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, mode="a", encoding="utf-8", delay=False)

    def _open(self) -> Any:
        create_private_file(Path(self.baseFilename))
        return super()._open()

    def reopen(self) -> None:
        """Open the path again (a new file when it was renamed: logrotate) and close the old file; an
        ``OSError`` leaves the old file in use."""
        fresh = self._open()
        with self.lock:  # type: ignore[union-attr]  # logging.Handler creates it in __init__
            old, self.stream = self.stream, fresh
        if old is not None:
            old.flush()
            old.close()


class Hangup:
    """SIGHUP: the log file reopened (``file``), or, with none, the signal logged and ignored."""

    def __init__(self, file: ReopenedFile | None) -> None:
        self.file = file
        self._rung = threading.Event()
        self._thread = threading.Thread(target=self._run, name="pbem-sighup", daemon=True)

    def install(self) -> None:
        """Take SIGHUP over; only from the main thread (Python lets only it set signal handlers: a command
        run from another thread, as some tests do, keeps the signal's default)."""
        if threading.current_thread() is not threading.main_thread():
            return
        signal.signal(signal.SIGHUP, self._on_signal)
        self._thread.start()

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self._rung.set()

    def _run(self) -> None:
        while True:
            self._rung.wait()
            self._rung.clear()
            if self.file is None:
                log.info("SIGHUP received: no log file to reopen (the log goes to standard error); ignored")
                continue
            try:
                self.file.reopen()
            except OSError as exc:  # the directory went away, a full disk: say it where the log still goes
                log.error("SIGHUP received: the log file %s cannot be opened again: %s", self.file.baseFilename, exc)
                continue
            log.info("SIGHUP received: log file %s reopened", self.file.baseFilename)
