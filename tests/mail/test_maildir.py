"""MaildirInbox: the moderator's inbox as a local Maildir, with the interface of ImapInbox.

UIDs in delivery order, stable across restarts; positions as with IMAP
(UIDVALIDITY + last UID); a lost index means a new UIDVALIDITY and a full
reread; moves into Maildir++ folders; waiting for mail by looking at new/.
"""
from __future__ import annotations

import os
import threading
import time
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem.config import load_config
from pbem.mail import (
    MailboxError,
    MailboxPosition,
    MaildirInbox,
    MaildirSettings,
    maildir_settings,
)
from pbem.mail.errors import MailConfigError
from pbem.mail.maildir import INDEX_NAME, folder_dirname, make_maildir, message_key

_counter = iter(range(1, 1_000_000))


def mail(subject: str, *, to: str = "moderator+tok123@example.org") -> bytes:
    message = EmailMessage()
    message["From"] = "ann@example.org"
    message["To"] = to
    message["Subject"] = subject
    message["Message-ID"] = f"<{subject.replace(' ', '-')}@example.org>"
    message.set_content(f"RONDEL investor\n# {subject}\n")
    return bytes(message)


def deliver(maildir: Path, raw: bytes, *, into: str = "new", name: str | None = None) -> Path:
    """What an MTA does: write into tmp/, rename into new/ (or cur/)."""
    make_maildir(maildir)
    unique = name or f"{int(time.time())}.M{next(_counter)}P{os.getpid()}.testhost"
    temporary = maildir / "tmp" / unique
    temporary.write_bytes(raw)
    target = maildir / into / (unique + (":2,S" if into == "cur" else ""))
    os.rename(temporary, target)
    return target


def subjects(messages) -> list[str]:  # type: ignore[no-untyped-def]
    found = []
    for _, raw in messages:
        for line in raw.decode().splitlines():
            if line.startswith("Subject: "):
                found.append(line[len("Subject: "):])
    return found


@pytest.fixture
def maildir(tmp_path: Path) -> Path:
    return tmp_path / "Maildir"


def test_fetch_hands_out_messages_in_delivery_order_with_growing_uids(maildir: Path) -> None:
    for i in range(3):
        deliver(maildir, mail(f"m{i}"))
    with MaildirInbox(maildir) as inbox:
        result = inbox.fetch_new(None)
        assert subjects(result.messages) == ["m0", "m1", "m2"]
        assert [m.uid for m in result.messages] == [1, 2, 3]
        assert result.position == MailboxPosition(inbox.uidvalidity, 3)
        assert not result.uidvalidity_changed and not result.more
        assert inbox.uidvalidity > 0
        # read mail leaves new/ for cur/ (seen), like a mail client
        assert not os.listdir(maildir / "new")
        assert all(name.endswith(":2,") for name in os.listdir(maildir / "cur"))
        assert inbox.fetch_new(result.position).messages == ()
        deliver(maildir, mail("m3"))
        later = inbox.fetch_new(result.position)
        assert [(m.uid, s) for m, s in zip(later.messages, subjects(later.messages), strict=True)] == [(4, "m3")]
        assert later.position.last_uid == 4


def test_the_same_raw_bytes_come_back(maildir: Path) -> None:
    raw = mail("exact")
    deliver(maildir, raw)
    with MaildirInbox(maildir) as inbox:
        assert inbox.fetch_new(None).messages[0].raw == raw


def test_uids_and_uidvalidity_survive_a_restart(maildir: Path) -> None:
    deliver(maildir, mail("a"))
    deliver(maildir, mail("b"))
    with MaildirInbox(maildir) as first:
        result = first.fetch_new(None)
        validity = first.uidvalidity
    deliver(maildir, mail("c"))
    with MaildirInbox(MaildirSettings(maildir)) as second:
        assert second.uidvalidity == validity
        again = second.fetch_new(None)
        assert [(m.uid, s) for m, s in zip(again.messages, subjects(again.messages), strict=True)] \
            == [(1, "a"), (2, "b"), (3, "c")]
        newer = second.fetch_new(result.position)
        assert [m.uid for m in newer.messages] == [3]


def test_mail_put_straight_into_cur_is_found_too(maildir: Path) -> None:
    deliver(maildir, mail("in new"))
    deliver(maildir, mail("in cur"), into="cur")
    with MaildirInbox(maildir) as inbox:
        assert sorted(subjects(inbox.fetch_new(None).messages)) == ["in cur", "in new"]


def test_a_limit_leaves_the_rest_for_the_next_call(maildir: Path) -> None:
    for i in range(5):
        deliver(maildir, mail(f"m{i}"))
    with MaildirInbox(maildir) as inbox:
        first = inbox.fetch_new(None, limit=2)
        assert [m.uid for m in first.messages] == [1, 2] and first.more
        assert first.position.last_uid == 2
        second = inbox.fetch_new(first.position, limit=10)
        assert [m.uid for m in second.messages] == [3, 4, 5] and not second.more


def test_moving_to_the_processed_and_failed_folders(maildir: Path) -> None:
    deliver(maildir, mail("good"))
    deliver(maildir, mail("bad"))
    with MaildirInbox(maildir) as inbox:
        result = inbox.fetch_new(None)
        good, bad = (m.uid for m in result.messages)
        inbox.move_to_processed(good)
        inbox.move_to_failed(bad)
        inbox.move_to_processed(good)  # again (a crash after the move): nothing happens
        inbox.move_to_failed(999)  # an unknown UID: nothing happens
        assert not os.listdir(maildir / "cur") and not os.listdir(maildir / "new")
        for folder, subject in ((".processed", "good"), (".failed", "bad")):
            files = os.listdir(maildir / folder / "cur")
            assert len(files) == 1
            assert f"Subject: {subject}" in (maildir / folder / "cur" / files[0]).read_text()
            assert (maildir / folder / "maildirfolder").exists()
            assert {"cur", "new", "tmp"} <= set(os.listdir(maildir / folder))
        # the inbox holds nothing now; UIDs are never reused
        assert inbox.fetch_new(None).messages == ()
        deliver(maildir, mail("next"))
        assert [m.uid for m in inbox.fetch_new(result.position).messages] == [3]


def test_a_message_renamed_by_a_client_is_still_moved(maildir: Path) -> None:
    deliver(maildir, mail("flagged"))
    with MaildirInbox(maildir) as inbox:
        uid = inbox.fetch_new(None).messages[0].uid
        name = os.listdir(maildir / "cur")[0]
        os.rename(maildir / "cur" / name, maildir / "cur" / (name + "RS"))  # the client adds flags
        inbox.move_to_processed(uid)
        assert os.listdir(maildir / ".processed" / "cur") == [name + "RS"]


def test_folder_names_follow_maildir_plus_plus() -> None:
    assert folder_dirname("processed") == ".processed"
    assert folder_dirname("games/done") == ".games.done"
    with pytest.raises(MailboxError):
        folder_dirname("../x")
    assert message_key("123.M4P5.host:2,RS") == "123.M4P5.host"
    assert message_key("123.M4P5.host") == "123.M4P5.host"


def test_a_lost_index_gives_a_new_uidvalidity_and_a_full_reread(maildir: Path) -> None:
    deliver(maildir, mail("a"))
    with MaildirInbox(maildir) as inbox:
        old = inbox.fetch_new(None)
    (maildir / INDEX_NAME).unlink()
    deliver(maildir, mail("b"))
    with MaildirInbox(maildir) as inbox:
        assert inbox.uidvalidity != old.position.uidvalidity
        again = inbox.fetch_new(old.position)
        assert again.uidvalidity_changed
        assert sorted(subjects(again.messages)) == ["a", "b"]


def test_a_garbled_index_is_replaced_like_a_lost_one(maildir: Path) -> None:
    deliver(maildir, mail("a"))
    with MaildirInbox(maildir) as inbox:
        old = inbox.fetch_new(None)
    (maildir / INDEX_NAME).write_text("nonsense\n")
    with MaildirInbox(maildir) as inbox:
        again = inbox.fetch_new(old.position)
        assert again.uidvalidity_changed and subjects(again.messages) == ["a"]


def test_two_readers_of_one_maildir_agree_on_uids(maildir: Path) -> None:
    deliver(maildir, mail("a"))
    with MaildirInbox(maildir) as one, MaildirInbox(maildir) as two:
        first = one.fetch_new(None)
        deliver(maildir, mail("b"))
        second = two.fetch_new(None)
        assert one.uidvalidity == two.uidvalidity
        assert [m.uid for m in first.messages] == [1]
        assert [(m.uid, s) for m, s in zip(second.messages, subjects(second.messages), strict=True)] == [(1, "a"), (2, "b")]


def test_wait_for_mail(maildir: Path) -> None:
    with MaildirInbox(MaildirSettings(maildir, poll_interval=0.01)) as inbox:
        inbox.fetch_new(None)
        started = time.monotonic()
        assert inbox.wait_for_mail(0.15) is False
        assert time.monotonic() - started >= 0.14
        assert not inbox.has_mail()

        timer = threading.Timer(0.1, deliver, (maildir, mail("late")))
        timer.start()
        started = time.monotonic()
        assert inbox.wait_for_mail(5.0) is True
        assert time.monotonic() - started < 2.0
        timer.join()
        # mail that is there and not yet fetched is told at once, however often one asks
        assert inbox.wait_for_mail(5.0) is True and inbox.has_mail()
        result = inbox.fetch_new(None)
        assert subjects(result.messages) == ["late"]
        assert inbox.wait_for_mail(0.05) is False
        # fetched but not moved is no news
        assert not inbox.has_mail()


def test_mail_in_cur_that_was_not_handed_out_wakes_the_waiter(maildir: Path) -> None:
    with MaildirInbox(MaildirSettings(maildir, poll_interval=0.01)) as inbox:
        inbox.fetch_new(None)
        deliver(maildir, mail("direct"), into="cur")
        assert inbox.wait_for_mail(1.0) is True


def test_durable_index_writes(maildir: Path) -> None:
    deliver(maildir, mail("a"))
    with MaildirInbox(MaildirSettings(maildir, fsync=True)) as inbox:
        assert [m.uid for m in inbox.fetch_new(None).messages] == [1]
    with MaildirInbox(MaildirSettings(maildir, fsync=False)) as inbox:
        deliver(maildir, mail("b"))
        assert [m.uid for m in inbox.fetch_new(None).messages] == [1, 2]


def test_using_it_closed_is_an_error(maildir: Path) -> None:
    inbox = MaildirInbox(maildir)
    with pytest.raises(MailboxError):
        inbox.fetch_new(None)
    inbox.connect()
    assert inbox.connected and inbox.mailbox == f"maildir:{maildir}"
    inbox.close()
    with pytest.raises(MailboxError):
        inbox.wait_for_mail(0)


def test_the_maildir_section_of_the_config(tmp_path: Path) -> None:
    settings = maildir_settings({"path": "mail/moderator", "poll_interval": 2, "fsync": False}, base=tmp_path)
    assert settings.path == tmp_path / "mail" / "moderator"
    assert settings.poll_interval == 2.0 and settings.fsync is False
    assert settings.processed_folder == "processed" and settings.failed_folder == "failed"
    assert maildir_settings({"path": "~/Maildir"}).path == Path("~/Maildir").expanduser()
    with pytest.raises(MailConfigError, match="unknown setting"):
        maildir_settings({"path": "x", "folder": "INBOX"})
    with pytest.raises(MailConfigError, match="path is required"):
        maildir_settings({})
    with pytest.raises(MailConfigError, match="poll_interval"):
        maildir_settings({"path": "x", "poll_interval": 0})
    with pytest.raises(MailConfigError, match="fsync"):
        maildir_settings({"path": "x", "fsync": "yes"})


def test_the_config_file_takes_a_maildir_instead_of_imap(tmp_path: Path) -> None:
    path = tmp_path / "pbem.toml"
    path.write_text('[moderator]\naddress = "moderator@example.org"\n[maildir]\npath = "inbox"\n'
                    '[smtp]\nhost = "127.0.0.1"\nport = 2525\nsecurity = "none"\n')
    config = load_config(path, env={})
    assert config.maildir.path == tmp_path / "inbox"
    assert config.inbox_configured
