"""ImapInbox against a real Dovecot: fetch by UID, bookkeeping, moves, UIDVALIDITY, IDLE and polling;
logging in with a password_command and with XOAUTH2."""
from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from pbem.mail import (
    AuthMethod,
    ImapInbox,
    MailboxError,
    MailboxLoginError,
    MailboxPosition,
    Security,
    parse_message,
)
from tests.loopback import free_port
from tests.mailservers import DovecotAccount, secret_command


def mail(number: int) -> bytes:
    return (
        f"From: Ann <ann@example.org>\r\n"
        f"To: pbem+tok{number:04d}@games.example\r\n"
        f"Subject: order {number}\r\n"
        f"Message-ID: <order-{number}@example.org>\r\n"
        f"Date: Mon, 3 Jun 2030 10:00:0{number % 10} +0000\r\n"
        f"\r\n"
        f"RONDEL investor\r\n"
    ).encode()


def test_fetch_new_returns_appended_messages_by_uid_and_the_position(dovecot: DovecotAccount) -> None:
    uids = [dovecot.append(mail(n)) for n in (1, 2, 3)]
    with ImapInbox(dovecot.settings()) as inbox:
        result = inbox.fetch_new(None)
    assert [m.uid for m in result.messages] == uids
    assert [parse_message(m.raw).subject for m in result.messages] == ["order 1", "order 2", "order 3"]
    assert result.messages[0].raw == mail(1)  # byte for byte
    assert result.position == MailboxPosition(inbox.uidvalidity, uids[-1])
    assert result.uidvalidity_changed is False and result.more is False


def test_fetch_new_returns_only_messages_above_the_stored_position(dovecot: DovecotAccount) -> None:
    first = [dovecot.append(mail(n)) for n in (1, 2)]
    with ImapInbox(dovecot.settings()) as inbox:
        position = inbox.fetch_new(None).position
        assert inbox.fetch_new(position).messages == ()  # nothing new: "UID n:*" quirk filtered
        third = dovecot.append(mail(3))
        result = inbox.fetch_new(position)
    assert [m.uid for m in result.messages] == [third]
    assert result.position == MailboxPosition(position.uidvalidity, third)
    assert third > first[-1]


def test_position_survives_a_new_connection(dovecot: DovecotAccount) -> None:
    dovecot.append(mail(1))
    with ImapInbox(dovecot.settings()) as inbox:
        stored = inbox.fetch_new(None).position  # the moderator persists this
    uid = dovecot.append(mail(2))
    with ImapInbox(dovecot.settings()) as inbox:
        result = inbox.fetch_new(stored)
    assert [m.uid for m in result.messages] == [uid]


def test_limit_returns_the_oldest_and_says_there_is_more(dovecot: DovecotAccount) -> None:
    uids = [dovecot.append(mail(n)) for n in (1, 2, 3)]
    with ImapInbox(dovecot.settings()) as inbox:
        first = inbox.fetch_new(None, limit=2)
        second = inbox.fetch_new(first.position, limit=2)
    assert [m.uid for m in first.messages] == uids[:2] and first.more is True
    assert first.position.last_uid == uids[1]
    assert [m.uid for m in second.messages] == uids[2:] and second.more is False


def test_fetching_does_not_mark_messages_seen(dovecot: DovecotAccount) -> None:
    uid = dovecot.append(mail(1))
    with ImapInbox(dovecot.settings()) as inbox:
        inbox.fetch_new(None)
    with dovecot.client() as client:
        client.select_folder("INBOX", readonly=True)
        assert client.get_flags([uid])[uid] == ()


@pytest.mark.parametrize("use_move", [None, False], ids=["MOVE", "COPY+EXPUNGE"])
def test_move_to_processed_and_failed_creates_the_folders(dovecot: DovecotAccount, use_move: bool | None) -> None:
    uids = [dovecot.append(mail(n)) for n in (1, 2, 3)]
    settings = dovecot.settings(processed_folder="pbem/processed", failed_folder="pbem/failed")
    with ImapInbox(settings, use_move=use_move) as inbox:
        position = inbox.fetch_new(None).position
        inbox.move_to_processed(uids[0])
        inbox.move_to_failed(uids[1])
        inbox.move_to_processed(uids[0])  # again, as after a crash before the move was recorded: harmless
        assert [m.uid for m in inbox.fetch_new(None).messages] == [uids[2]]
        assert inbox.fetch_new(position).messages == ()
    assert dovecot.uids("INBOX") == [uids[2]]
    assert dovecot.subjects("pbem.processed") == ["order 1"]  # "/" became Dovecot's "." separator
    assert dovecot.subjects("pbem.failed") == ["order 2"]


@pytest.mark.parametrize("use_move", [None, False], ids=["MOVE", "COPY+EXPUNGE"])
@pytest.mark.slow
def test_a_batch_is_moved_to_processed_in_one_call_and_again_harmlessly(dovecot: DovecotAccount,
                                                                         use_move: bool | None) -> None:
    """The daemon moves a fetched batch in one command once it is queued; a repeat after a crash does nothing."""
    uids = [dovecot.append(mail(n)) for n in (1, 2, 3, 4)]
    with ImapInbox(dovecot.settings(), use_move=use_move) as inbox:
        inbox.fetch_new(None)
        inbox.move_to_processed(*uids[:3])
        inbox.move_to_processed(*uids[:3])
        inbox.move_to_processed()  # an empty batch: no command at all
    assert dovecot.uids("INBOX") == [uids[3]]
    assert dovecot.subjects("processed") == ["order 1", "order 2", "order 3"]


def test_uidvalidity_change_refetches_everything(dovecot: DovecotAccount) -> None:
    dovecot.append(mail(1), folder="Orders")
    settings = dovecot.settings(mailbox="Orders")
    with ImapInbox(settings) as inbox:
        stored = inbox.fetch_new(None).position
    # The mailbox is deleted and recreated (a server migration, a rebuilt index): a new UIDVALIDITY.
    with dovecot.client() as client:
        client.delete_folder("Orders")
    dovecot.append(mail(1), folder="Orders")
    dovecot.append(mail(2), folder="Orders")
    with ImapInbox(settings) as inbox:
        result = inbox.fetch_new(stored)
    assert result.uidvalidity_changed is True
    assert result.position.uidvalidity != stored.uidvalidity
    assert [parse_message(m.raw).message_id for m in result.messages] == ["<order-1@example.org>", "<order-2@example.org>"]
    assert result.position.last_uid == max(m.uid for m in result.messages)


@pytest.mark.slow
def test_wait_for_mail_with_idle_wakes_on_a_message_from_another_connection(dovecot: DovecotAccount) -> None:
    with ImapInbox(dovecot.settings()) as inbox:
        assert inbox.uses_idle
        inbox.fetch_new(None)
        assert inbox.wait_for_mail(0.3) is False  # nothing arrived
        timer = threading.Timer(0.5, dovecot.append, args=(mail(7),))
        started = time.monotonic()
        timer.start()
        try:
            woke = inbox.wait_for_mail(20)
        finally:
            timer.join()
        elapsed = time.monotonic() - started
        assert woke is True
        assert elapsed < 5, f"IDLE took {elapsed:.1f}s to notice the new mail"
        assert [parse_message(m.raw).subject for m in inbox.fetch_new(None).messages] == ["order 7"]


@pytest.mark.slow
def test_idle_is_renewed_within_one_wait(dovecot: DovecotAccount) -> None:
    with ImapInbox(dovecot.settings(idle_refresh=0.3)) as inbox:
        inbox.fetch_new(None)
        timer = threading.Timer(1.0, dovecot.append, args=(mail(8),))
        timer.start()
        try:
            assert inbox.wait_for_mail(15) is True  # across several IDLE commands
        finally:
            timer.join()


def test_wait_for_mail_sees_mail_that_arrived_before_waiting(dovecot: DovecotAccount) -> None:
    with ImapInbox(dovecot.settings()) as inbox:
        position = inbox.fetch_new(None).position
        dovecot.append(mail(9))  # between the fetch and the wait: must not be missed
        started = time.monotonic()
        assert inbox.wait_for_mail(10) is True
        assert time.monotonic() - started < 3  # no IDLE round: the reselect saw it
        assert len(inbox.fetch_new(position).messages) == 1


def test_wait_for_mail_polls_when_idle_is_off(dovecot: DovecotAccount) -> None:
    with ImapInbox(dovecot.settings(poll_interval=0.2), use_idle=False) as inbox:
        assert not inbox.uses_idle
        inbox.fetch_new(None)
        started = time.monotonic()
        assert inbox.wait_for_mail(0.5) is False
        assert 0.4 < time.monotonic() - started < 5
        timer = threading.Timer(0.3, dovecot.append, args=(mail(5),))
        timer.start()
        try:
            started = time.monotonic()
            assert inbox.wait_for_mail(10) is True
            assert time.monotonic() - started < 3
        finally:
            timer.join()


def test_wrong_password_is_a_login_error_without_the_password(dovecot: DovecotAccount) -> None:
    settings = dovecot.settings(password="not-the-Password-123")
    with pytest.raises(MailboxLoginError) as caught:
        ImapInbox(settings).connect()
    text = str(caught.value)
    assert dovecot.user in text and "refused the login" in text
    assert "not-the-Password-123" not in text and dovecot.password not in text
    assert "not-the-Password-123" not in repr(settings)


def test_unreachable_server_is_a_mailbox_error(dovecot: DovecotAccount) -> None:
    port = free_port()
    with pytest.raises(MailboxError, match=rf"cannot connect to the IMAP server 127.0.0.1:{port} \(none\): connection refused"):
        ImapInbox(dovecot.settings(port=port)).connect()


def test_missing_mailbox_is_a_mailbox_error(dovecot: DovecotAccount) -> None:
    with pytest.raises(MailboxError, match="IMAP session with .* failed"):
        ImapInbox(dovecot.settings(mailbox="NoSuchBox")).connect()


def test_using_a_closed_inbox_is_a_mailbox_error(dovecot: DovecotAccount) -> None:
    inbox = ImapInbox(dovecot.settings())
    with pytest.raises(MailboxError, match="not connected"):
        inbox.fetch_new(None)


@pytest.mark.parametrize("security", [Security.STARTTLS, Security.SSL])
def test_tls_modes(dovecot_tls: DovecotAccount, security: Security) -> None:
    assert dovecot_tls.tls is not None
    port = dovecot_tls.ssl_port if security is Security.SSL else dovecot_tls.port
    uid = dovecot_tls.append(mail(1))
    settings = dovecot_tls.settings(security=security, port=port)
    with ImapInbox(settings, ssl_context=dovecot_tls.tls.client_context()) as inbox:
        assert [m.uid for m in inbox.fetch_new(None).messages] == [uid]


def test_tls_with_an_untrusted_certificate_fails_clearly(dovecot_tls: DovecotAccount) -> None:
    settings = dovecot_tls.settings(security=Security.SSL, port=dovecot_tls.ssl_port)
    with pytest.raises(MailboxError, match="TLS error: CERTIFICATE_VERIFY_FAILED"):
        ImapInbox(settings).connect()  # the system trust store does not know our test certificate


def test_starttls_against_a_server_without_it_fails_clearly(dovecot: DovecotAccount) -> None:
    with pytest.raises(MailboxError, match="does not offer STARTTLS"):
        ImapInbox(dovecot.settings(security=Security.STARTTLS)).connect()


# --- password_command and XOAUTH2 ---------------------------------------------------------------------


def test_password_command_runs_at_every_login(tmp_path: Path, dovecot: DovecotAccount) -> None:
    helper = secret_command(tmp_path, dovecot.password)
    settings = dovecot.settings(password="", password_command=helper.command)
    assert helper.runs == 0
    uid = dovecot.append(mail(1))
    with ImapInbox(settings) as inbox:
        assert [m.uid for m in inbox.fetch_new(None).messages] == [uid]
        inbox.fetch_new(None)
        assert helper.runs == 1  # once for the login, not per command
    with ImapInbox(settings):
        pass
    assert helper.runs == 2  # a new connection asks again: nothing is cached


def test_a_failing_password_command_is_a_login_error_naming_the_status(tmp_path: Path,
                                                                        dovecot: DovecotAccount) -> None:
    settings = dovecot.settings(password="", password_command="echo Half-A-Secret-55; exit 4")
    with pytest.raises(MailboxLoginError) as caught:
        ImapInbox(settings).connect()
    text = str(caught.value)
    assert "[imap] password_command failed: exit status 4" in text
    assert "Half-A-Secret-55" not in text and "Half-A-Secret-55" not in repr(settings)


def test_a_wrong_secret_from_the_command_is_masked(tmp_path: Path, dovecot: DovecotAccount) -> None:
    helper = secret_command(tmp_path, "Wrong-From-Helper-77")
    with pytest.raises(MailboxLoginError, match="refused the login") as caught:
        ImapInbox(dovecot.settings(password="", password_command=helper.command)).connect()
    assert "Wrong-From-Helper-77" not in str(caught.value)


def test_xoauth2_with_a_token_from_the_helper(tmp_path: Path, dovecot_oauth2: DovecotAccount) -> None:
    """Dovecot checks the token for real (signature, expiry, subject): see tests/mailservers.py."""
    helper = secret_command(tmp_path, dovecot_oauth2.access_token())
    settings = dovecot_oauth2.settings(password="", password_command=helper.command, auth=AuthMethod.XOAUTH2)
    uid = dovecot_oauth2.append(mail(1))
    with ImapInbox(settings) as inbox:
        assert [m.uid for m in inbox.fetch_new(None).messages] == [uid]
    helper.hand_out(dovecot_oauth2.access_token(lifetime=600))  # the helper refreshed the token
    with ImapInbox(settings) as inbox:
        assert inbox.fetch_new(None).messages[0].uid == uid
    assert helper.runs == 2


@pytest.mark.parametrize("token", ["expired", "another user's", "the password", "no token"])
@pytest.mark.slow
def test_a_refused_token_is_a_login_error_with_a_hint(tmp_path: Path, dovecot_oauth2: DovecotAccount,
                                                       token: str) -> None:
    secret = {"expired": dovecot_oauth2.access_token(lifetime=-30),
              "another user's": dovecot_oauth2.access_token(user="u9999"),
              "the password": dovecot_oauth2.password,  # a password is no access token
              "no token": "not-a-token"}[token]
    helper = secret_command(tmp_path, secret)
    settings = dovecot_oauth2.settings(password="", password_command=helper.command, auth="xoauth2")
    with pytest.raises(MailboxLoginError) as caught:
        ImapInbox(settings).connect()
    text = str(caught.value)
    assert f"refused the XOAUTH2 login of {dovecot_oauth2.user!r}" in text and "may have expired" in text
    assert secret not in text and helper.runs == 1


def test_xoauth2_against_a_server_without_it_says_so(tmp_path: Path, dovecot: DovecotAccount) -> None:
    helper = secret_command(tmp_path, "Some-Token-123")
    settings = dovecot.settings(password="", password_command=helper.command, auth="xoauth2")
    with pytest.raises(MailboxLoginError, match=r"does not offer AUTH=XOAUTH2"):
        ImapInbox(settings).connect()


def test_the_xoauth2_server_still_takes_passwords(dovecot_oauth2: DovecotAccount) -> None:
    with ImapInbox(dovecot_oauth2.settings()) as inbox:
        assert inbox.fetch_new(None).messages == ()
