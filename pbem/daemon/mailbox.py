"""The inbox as the mail flow needs it: :class:`pbem.mail.ImapInbox` plus a few read-only looks.

``uids`` and ``fetch_uids`` find mail that was recorded but not moved
(a crash between the commit and the move); ``has_folder`` and ``info`` are for
``pbem check``, which must look without creating anything.
"""
from __future__ import annotations

from dataclasses import dataclass

from pbem.mail import FetchedMessage, ImapInbox


@dataclass(frozen=True)
class MailboxInfo:
    messages: int
    uidvalidity: int
    uidnext: int | None


class Mailbox(ImapInbox):
    def uids(self) -> list[int]:
        """The UIDs of every message in the mailbox, ascending."""
        client = self._need()
        with self._errors("search"):
            self._select()
            return sorted(int(uid) for uid in client.search(["ALL"]))

    def fetch_uids(self, uids: list[int]) -> list[FetchedMessage]:
        """The raw bytes of the given messages (those still there), by UID order."""
        if not uids:
            return []
        client = self._need()
        with self._errors("fetch"):
            response = client.fetch(sorted(uids), ["BODY.PEEK[]"])
        found = []
        for uid in sorted(uids):
            raw = response.get(uid, {}).get(b"BODY[]")
            if raw is not None:
                found.append(FetchedMessage(uid, bytes(raw)))
        return found

    def with_message_id(self, message_id: str) -> list[int]:
        """The UIDs of the messages in the mailbox whose Message-ID is ``message_id`` (``pbem check --send-test``)."""
        client = self._need()
        with self._errors("search"):
            self._select()
            return sorted(int(uid) for uid in client.search(["HEADER", "Message-ID", message_id]))

    def has_folder(self, folder: str) -> bool:
        """Whether ``folder`` exists on the server (nothing is created)."""
        client = self._need()
        with self._errors(f"look for folder {folder!r}"):
            return bool(client.folder_exists(self._server_name(folder)))

    def info(self) -> MailboxInfo:
        with self._errors("select"):
            data = self._select()
        uidnext = data.get(b"UIDNEXT")
        return MailboxInfo(int(data.get(b"EXISTS", 0)), int(data[b"UIDVALIDITY"]),
                           int(uidnext) if isinstance(uidnext, int) else None)
