"""Files and folders only their owner may read: the database and the mail hold every seat's reply token.

Whoever reads the database (its outbox keeps the mails sent, token addresses
in them) or a Maildir of the moderator can play every seat. So what pbem
creates is owner-only from the first byte, whatever the umask: folders 0700,
files 0600 (SQLite gives its -wal, -shm and -journal files the mode of the
database file). Existing files keep their mode: changing it behind the
owner's back could break a setup that shares them on purpose; instead
``exposure_warnings`` names each one that others can read, with the command
that fixes it, and ``pbem run``/``pbem poll`` log those warnings at start.
"""
from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

FOLDER_MODE = 0o700
FILE_MODE = 0o600


def make_private_dirs(path: Path) -> None:
    """``mkdir -p path`` where every folder it creates is 0700 (``Path.mkdir``'s parents follow the umask)."""
    missing: list[Path] = []
    current = path
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=FOLDER_MODE)
        except FileExistsError:  # another process made it meanwhile: leave its mode alone
            continue
        os.chmod(folder, FOLDER_MODE)  # mkdir's mode is masked by the umask; this one is not


def create_private_file(path: Path) -> bool:
    """Create ``path`` empty and 0600 if it does not exist yet; True when it was created here."""
    try:
        handle = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, FILE_MODE)
    except FileExistsError:
        return False
    os.close(handle)
    os.chmod(path, FILE_MODE)
    return True


def open_private(path: Path, mode: str = "wb") -> IO[Any]:
    """``open(path, mode)`` for writing a new file, created 0600 (a mail, an index)."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if "a" in mode else os.O_TRUNC)
    return os.fdopen(os.open(path, flags, FILE_MODE), mode, encoding=None if "b" in mode else "utf-8")


def readable_by_others(path: Path) -> bool:
    """Whether users other than the owner may read ``path`` (or enter it, for a folder)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return bool(mode & (stat.S_IRWXG | stat.S_IRWXO))


def exposure_warnings(paths: Iterable[Path]) -> Iterator[str]:
    """One sentence per path that others can read, with the ``chmod`` that makes it private."""
    for path in paths:
        if readable_by_others(path):
            mode = stat.S_IMODE(path.stat().st_mode)
            fix = f"chmod -R go-rwx {path}" if path.is_dir() else f"chmod 600 {path}"
            yield (f"{path} can be read by other users of this machine (mode {mode:o}) and holds the players' "
                   f"reply tokens; make it private: {fix}")
