"""The moderator's inbox as a local Maildir: the same interface as :class:`~pbem.mail.imap.ImapInbox`.

For servers with local delivery (Postfix, Exim, OpenSMTPD writing into
``~/Maildir``) and for the embedded demo (``pbem mailhub`` delivers into one
Maildir per address), the daemon reads a directory instead of an IMAP server.
:class:`MaildirInbox` offers exactly what the daemon uses of ``ImapInbox``:
``connect``/``close`` (and ``with``), :meth:`~MaildirInbox.fetch_new` taking and
returning a :class:`~pbem.mail.imap.MailboxPosition`,
:meth:`~MaildirInbox.move_to_processed`, :meth:`~MaildirInbox.move_to_failed` and
:meth:`~MaildirInbox.wait_for_mail`.

UIDs. Maildir names messages by file name, and a file's name changes when a
client flags it. IMAP bookkeeping needs numbers that only grow, so the inbox
keeps a small index, ``.pbem-uids`` in the Maildir's root (like Dovecot's
``dovecot-uidlist``): its UIDVALIDITY, the next UID, and ``uid key`` lines
mapping each message still in the inbox to its UID, where the key is the
file's unique part (the name before ``:2,``). New messages get UIDs in order of
delivery (modification time, then name). The index is written atomically
(temporary file, fsync, rename) *before* the UIDs are handed out, so a
message keeps its UID across restarts and crashes. UIDVALIDITY is fixed when
the index is created (a random non-zero number, kept in the index); when
the index is lost, a new one starts with a new UIDVALIDITY, and the caller
then rereads the whole inbox and skips what it already recorded by
Message-ID, exactly as with an IMAP server whose UIDVALIDITY changed.

Reading moves a message from ``new/`` to ``cur/`` (it has been seen), as mail
clients do; so ``new/`` holding a file means mail has arrived since the last
fetch, and :meth:`MaildirInbox.wait_for_mail` only has to look at that
directory (and at ``cur/``, for files another program put there directly)
every ``poll_interval`` seconds: a directory listing, no file is read.

Folders are Maildir++ subfolders: ``processed`` is ``<maildir>/.processed/``
with its own ``cur/ new/ tmp/`` and a ``maildirfolder`` marker, which Dovecot
and Courier show as an IMAP folder. Moved messages go to the folder's
``cur/``; moving a UID that is no longer in the inbox does nothing, so a move
repeated after a crash is harmless.

Two processes reading one Maildir (``pbem poll --once`` from cron while
``pbem run`` runs) are kept apart by an advisory lock (``fcntl.flock``) on
``.pbem-uids.lock`` around every index update.
"""
from __future__ import annotations

import errno
import fcntl
import os
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from pbem.mail.errors import MailboxError
from pbem.mail.imap import FetchedMessage, FetchResult, MailboxPosition
from pbem.mail.settings import MaildirSettings
from pbem.privatefiles import create_private_file, make_private_dirs, open_private

INDEX_NAME = ".pbem-uids"
LOCK_NAME = ".pbem-uids.lock"
_INDEX_MAGIC = "pbem-uids 1"
_SUBDIRS = ("cur", "new", "tmp")


def message_key(filename: str) -> str:
    """The unique part of a Maildir file name: everything before the ``:2,`` info (or ``!2,`` on Windows)."""
    for separator in (":", "!"):
        head, sep, _ = filename.partition(separator + "2,")
        if sep:
            return head
    return filename


def folder_dirname(folder: str) -> str:
    """The Maildir++ directory of ``folder``: ``processed`` -> ``.processed``, ``a/b`` -> ``.a.b``."""
    parts = [p for p in folder.replace("\\", "/").split("/") if p]
    if not parts or any(p in (".", "..") for p in parts):
        raise MailboxError(f"not a folder name: {folder!r}")
    return "." + ".".join(parts)


def make_maildir(path: Path, *, folder: bool = False) -> None:
    """Create ``path`` as a Maildir (``cur``, ``new``, ``tmp``), mode 0700; a Maildir++ folder gets its marker."""
    for sub in _SUBDIRS:
        make_private_dirs(path / sub)  # the mails carry token addresses: owner-only (pbem.privatefiles)
    if folder:
        create_private_file(path / "maildirfolder")


@dataclass(frozen=True)
class MaildirLook:
    """What :func:`look_at_maildir` saw of a Maildir, without creating or changing anything (``pbem check``).

    ``problem`` says why the moderator could not use it (None: it can, creating
    what is missing on first use); ``folders`` tells which of the processed and
    failed folders exist.
    """

    exists: bool
    problem: str | None
    messages: int = 0  # in new/ and cur/
    folders: tuple[tuple[str, bool], ...] = ()  # (folder, exists)


def look_at_maildir(settings: MaildirSettings) -> MaildirLook:
    """Look at the Maildir of ``settings`` as this user (read-only: :meth:`MaildirInbox.connect` creates it).

    Why not connect: a check "changes nothing", and run as another user than
    the moderator's it would leave directories that the moderator cannot use.
    """
    path = settings.path
    folders = tuple((folder, (path / folder_dirname(folder)).is_dir())
                    for folder in (settings.processed_folder, settings.failed_folder))
    if not path.exists():
        parent = next((p for p in path.parents if p.exists()), None)
        if parent is None or not os.access(parent, os.W_OK | os.X_OK):
            return MaildirLook(False, f"missing, and cannot be created: {parent} is not writable by this user")
        return MaildirLook(False, None, folders=folders)
    if not path.is_dir():
        return MaildirLook(True, "not a directory")
    if not os.access(path, os.R_OK | os.W_OK | os.X_OK):
        return MaildirLook(True, "not readable and writable by this user", folders=folders)
    try:
        messages = sum(len(os.listdir(path / sub)) for sub in ("new", "cur") if (path / sub).is_dir())
    except OSError as exc:
        return MaildirLook(True, f"cannot be read: {exc.strerror}", folders=folders)
    return MaildirLook(True, None, messages, folders)


def _new_uidvalidity() -> int:
    """A UIDVALIDITY for a new index: a random non-zero 31-bit number.

    Not the clock (an index lost and recreated within the same second would
    get the old value back, and the caller would skip every new message) and
    not the path alone (it would never change): a new index must differ from
    the one it replaces, which the caller only compares for equality.
    """
    return secrets.randbelow(0x7FFFFFFF) + 1


class _Index:
    """The ``.pbem-uids`` file: UIDVALIDITY, the next UID, and key -> UID of the messages in the inbox."""

    def __init__(self, uidvalidity: int, next_uid: int, uids: dict[str, int]) -> None:
        self.uidvalidity = uidvalidity
        self.next_uid = next_uid
        self.uids = uids

    @classmethod
    def load(cls, path: Path) -> _Index | None:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise MailboxError(f"cannot read the UID index {path}: {exc.strerror}") from None
        lines = text.splitlines()
        try:
            head = lines[0].split()
            if " ".join(head[:2]) != _INDEX_MAGIC:
                raise ValueError("bad header")
            fields = {f[0]: int(f[1:]) for f in head[2:]}
            uidvalidity, next_uid = fields["V"], fields["N"]
            uids: dict[str, int] = {}
            for line in lines[1:]:
                if line.strip():
                    uid, key = line.split(" ", 1)
                    uids[key] = int(uid)
        except (ValueError, KeyError, IndexError):
            return None  # unreadable: start a new index with a new UIDVALIDITY (the caller rereads all)
        if uidvalidity <= 0 or next_uid <= 0:
            return None
        return cls(uidvalidity, next_uid, uids)

    def save(self, path: Path, *, fsync: bool) -> None:
        lines = [f"{_INDEX_MAGIC} V{self.uidvalidity} N{self.next_uid}"]
        lines += [f"{uid} {key}" for key, uid in sorted(self.uids.items(), key=lambda item: item[1])]
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            with open_private(temporary, "w") as handle:
                handle.write("\n".join(lines) + "\n")
                if fsync:
                    handle.flush()
                    os.fsync(handle.fileno())
            if not fsync:
                # Without fsync, renaming over the old index makes ext4 flush the new one anyway
                # (auto_da_alloc): milliseconds per fetch. Removing it first avoids that; a crash in
                # between leaves no index, which starts a new one with a new UIDVALIDITY, and the
                # caller rereads the inbox and skips what it recorded (the documented recovery).
                try:
                    os.unlink(path)
                except FileNotFoundError:
                    pass
            os.replace(temporary, path)
        except OSError as exc:
            raise MailboxError(f"cannot write the UID index {path}: {exc.strerror}") from None


class MaildirInbox:
    """The moderator's mailbox as a Maildir directory. Not thread-safe: one per thread.

    ``MaildirInbox(path)`` or ``MaildirInbox(MaildirSettings(path, ...))``.
    The directory is created (with its processed and failed folders) by
    :meth:`connect` when missing.
    """

    uses_idle = False  # the daemon's question "IDLE or polling?": a Maildir is polled, cheaply
    supports_idle = False
    supports_move = True

    def __init__(self, settings: MaildirSettings | str | os.PathLike[str]) -> None:
        if not isinstance(settings, MaildirSettings):
            settings = MaildirSettings(path=Path(settings))
        self.settings = settings
        self.path = Path(settings.path).expanduser()
        self._connected = False
        self._index: _Index | None = None
        self._seen_uid: int | None = None  # fetch_new has handed out everything up to this UID ...
        self._seen_validity = 0  # ... of this UIDVALIDITY
        self._names: dict[int, str] = {}  # UID -> file name in cur/, as of the last fetch
        self._folders: set[str] = set()  # folders known to exist

    def __repr__(self) -> str:
        return f"MaildirInbox({str(self.path)!r}, {'connected' if self._connected else 'closed'})"

    # connection ----------------------------------------------------------------------------

    def connect(self) -> None:
        """Make sure the Maildir and its folders exist and read (or start) the UID index."""
        if self._connected:
            return
        try:
            make_maildir(self.path)
            for folder in (self.settings.processed_folder, self.settings.failed_folder):
                make_maildir(self.path / folder_dirname(folder), folder=True)
        except OSError as exc:
            raise MailboxError(f"cannot create the Maildir {self.path}: {exc.strerror}") from None
        with self._locked():
            self._index = self._load_or_create()
        self._connected = True

    def close(self) -> None:
        self._connected = False

    def __enter__(self) -> MaildirInbox:
        self.connect()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    @property
    def connected(self) -> bool:
        return self._connected

    @property
    def uidvalidity(self) -> int:
        """The UIDVALIDITY of the Maildir's index (0 before :meth:`connect`)."""
        return self._index.uidvalidity if self._index is not None else 0

    @property
    def mailbox(self) -> str:
        """The name under which messages of this inbox are recorded (``maildir:<path>``)."""
        return self.settings.mailbox

    # reading -------------------------------------------------------------------------------

    def fetch_new(self, since: MailboxPosition | None = None, *, limit: int | None = None) -> FetchResult:
        """The messages above ``since`` (all of them when ``since`` is None or of another UIDVALIDITY).

        Oldest first, at most ``limit`` of them; same contract as
        :meth:`ImapInbox.fetch_new <pbem.mail.imap.ImapInbox.fetch_new>`.
        Messages found in ``new/`` are moved to ``cur/`` and given their UIDs
        first (the index is on disk before anything is returned).
        """
        self._need()
        with self._locked():
            index = self._load_or_create()
            present = self._scan(index)
            self._index = index
        changed = since is not None and since.uidvalidity != index.uidvalidity
        start = 1 if since is None or changed else since.last_uid + 1
        wanted = sorted((uid, name) for name, uid in present if uid >= start)
        more = limit is not None and len(wanted) > limit
        if limit is not None:
            wanted = wanted[:limit]
        messages: list[FetchedMessage] = []
        cur = self.path / "cur"
        for uid, name in wanted:
            try:
                messages.append(FetchedMessage(uid, (cur / name).read_bytes()))
            except FileNotFoundError:
                continue  # moved away meanwhile by another reader
            except OSError as exc:
                raise MailboxError(f"cannot read {cur / name}: {exc.strerror}") from None
        last_uid = max([start - 1, *(uid for uid, _ in wanted)])
        if not more:
            last_uid = max(last_uid, index.next_uid - 1)
        if changed or self._seen_validity != index.uidvalidity:
            self._seen_uid = last_uid
        else:
            self._seen_uid = max(self._seen_uid or 0, last_uid)
        self._seen_validity = index.uidvalidity
        return FetchResult(tuple(messages), MailboxPosition(index.uidvalidity, last_uid), changed, more)

    def _scan(self, index: _Index) -> list[tuple[str, int]]:
        """Move ``new/`` to ``cur/``, give unknown messages UIDs, forget gone ones; (file name, UID) of each.

        Called with the lock held; writes the index when it changed.
        """
        new, cur = self.path / "new", self.path / "cur"
        try:
            for entry in os.scandir(new):
                if entry.name.startswith(".") or not entry.is_file():
                    continue
                target = entry.name if ":2," in entry.name else entry.name + ":2,"
                try:
                    os.rename(entry.path, cur / target)
                except FileNotFoundError:
                    continue  # taken by another reader
            files: dict[str, tuple[str, int]] = {}  # key -> (file name, mtime)
            for entry in os.scandir(cur):
                if entry.name.startswith(".") or not entry.is_file():
                    continue
                try:
                    mtime = entry.stat().st_mtime_ns
                except FileNotFoundError:
                    continue
                files[message_key(entry.name)] = (entry.name, mtime)
        except OSError as exc:
            raise MailboxError(f"cannot read the Maildir {self.path}: {exc.strerror}") from None
        dirty = False
        for key in list(index.uids):
            if key not in files:
                del index.uids[key]
                dirty = True
        unknown = sorted((mtime, key) for key, (_, mtime) in files.items() if key not in index.uids)
        for _, key in unknown:
            index.uids[key] = index.next_uid
            index.next_uid += 1
            dirty = True
        if dirty:
            index.save(self.path / INDEX_NAME, fsync=self.settings.fsync)
        found = [(name, index.uids[key]) for key, (name, _) in files.items()]
        self._names = {uid: name for name, uid in found}
        return found

    # moving --------------------------------------------------------------------------------

    def move(self, uid: int, folder: str) -> None:
        """Move message ``uid`` into the Maildir++ ``folder`` (created when missing); a UID not there does nothing.

        The index is not rewritten: the next fetch forgets UIDs whose files are gone.
        """
        self._need()
        target = Path(self.ensure_folder(folder))
        with self._locked():
            try:
                name = self._names.pop(uid, None)
                if name is not None:
                    try:
                        os.rename(self.path / "cur" / name, target / "cur" / name)
                        return
                    except FileNotFoundError:
                        pass  # renamed by a client (flags changed) or moved by another reader: look below
                index = self._load_or_create()
                self._index = index
                key = next((k for k, u in index.uids.items() if u == uid), None)
                if key is None:
                    return
                for sub in ("cur", "new"):
                    for entry in os.scandir(self.path / sub):
                        if message_key(entry.name) == key:
                            name = entry.name if ":2," in entry.name else entry.name + ":2,"
                            os.rename(entry.path, target / "cur" / name)
                            return
            except FileNotFoundError:
                return  # moved by another reader meanwhile
            except OSError as exc:
                raise MailboxError(f"cannot move message {uid} to {target}: {exc.strerror}") from None

    def move_to_processed(self, *uids: int) -> None:
        """Move ``uids`` to the processed folder."""
        for uid in uids:
            self.move(uid, self.settings.processed_folder)

    def move_to_failed(self, uid: int) -> None:
        """Move ``uid`` to the failed folder (mail that could not be handled, for a human)."""
        self.move(uid, self.settings.failed_folder)

    def ensure_folder(self, folder: str) -> str:
        """The directory of ``folder``, created if missing."""
        target = self.path / folder_dirname(folder)
        if folder not in self._folders:
            try:
                make_maildir(target, folder=True)
            except OSError as exc:
                raise MailboxError(f"cannot create the folder {target}: {exc.strerror}") from None
            self._folders.add(folder)
        return str(target)

    # waiting -------------------------------------------------------------------------------

    def wait_for_mail(self, timeout: float) -> bool:
        """Block until new mail may be there (True) or ``timeout`` seconds passed quietly (False).

        Looks at ``new/`` (and ``cur/``) every ``poll_interval`` seconds;
        mail that arrived since the last :meth:`fetch_new` is seen at once.
        """
        self._need()
        deadline = time.monotonic() + max(0.0, timeout)
        while True:
            if self._mail_waiting():
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            time.sleep(min(self.settings.poll_interval, remaining))

    def has_mail(self) -> bool:
        """Whether mail waits that :meth:`fetch_new` has not handed out (a look, no lock, no wait)."""
        self._need()
        return self._mail_waiting()

    def _mail_waiting(self) -> bool:
        try:
            with os.scandir(self.path / "new") as entries:
                if any(not e.name.startswith(".") for e in entries):
                    return True
            known = self._index.uids if self._index is not None else {}
            seen = self._seen_uid if self._seen_validity == self.uidvalidity else None
            with os.scandir(self.path / "cur") as entries:
                for entry in entries:
                    if entry.name.startswith("."):
                        continue
                    uid = known.get(message_key(entry.name))
                    if uid is None or seen is None or uid > seen:
                        return True
        except FileNotFoundError:
            raise MailboxError(f"the Maildir {self.path} is gone") from None
        except OSError as exc:
            raise MailboxError(f"cannot read the Maildir {self.path}: {exc.strerror}") from None
        return False

    # internals -----------------------------------------------------------------------------

    def _need(self) -> None:
        if not self._connected:
            raise MailboxError(f"the Maildir {self.path} is not open (call connect() first)")

    def _load_or_create(self) -> _Index:
        """The index on disk; a new one (new UIDVALIDITY, next UID 1) when there is none. Lock held."""
        path = self.path / INDEX_NAME
        index = _Index.load(path)
        if index is None:
            index = _Index(_new_uidvalidity(), 1, {})
            if self._index is not None and index.uidvalidity == self._index.uidvalidity:
                index.uidvalidity = index.uidvalidity % 0x7FFFFFFF + 1
            index.save(path, fsync=self.settings.fsync)
        return index

    @contextmanager
    def _locked(self) -> Iterator[None]:
        try:
            create_private_file(self.path / LOCK_NAME)
            handle = open(self.path / LOCK_NAME, "a+")
        except OSError as exc:
            raise MailboxError(f"cannot open the lock file in {self.path}: {exc.strerror}") from None
        try:
            while True:
                try:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
                    break
                except OSError as exc:  # pragma: no cover - EINTR on old Pythons
                    if exc.errno != errno.EINTR:
                        raise MailboxError(f"cannot lock {self.path / LOCK_NAME}: {exc.strerror}") from None
            yield
        finally:
            handle.close()  # releases the lock
