"""Where the mail secrets come from: ``password_command`` (run with /bin/sh at each login) and ``auth``.

The servers are not needed here: the IMAP and SMTP logins that use these are in test_mail_imap.py and
test_mail_smtp.py. What matters besides getting the secret: a failure says which section and which
exit status, and never anything the command printed.
"""
from __future__ import annotations

import base64
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from pbem.errors import ConfigError
from pbem.mail import ImapSettings, MailConfigError, SmtpSettings, imap_settings, smtp_settings
from pbem.mail.credentials import (
    AuthMethod,
    CredentialError,
    SmtpXoauth2,
    login_secret,
    mask,
    run_password_command,
    xoauth2_string,
)
from tests.mailservers import secret_command

LEAK = "Printed-Not-Shown-31"  # something a failing command prints: it must never appear in a message


@pytest.mark.parametrize(("command", "secret"), [
    ("printf %s 'the-password'", "the-password"),
    ("printf 'with spaces kept \\n'", "with spaces kept "),
    ("printf 'first\\r\\nsecond\\n'", "first"),  # the first line only, CRLF removed
    ("echo token-1 | tr 1 2", "token-2"),  # shell syntax works, as with msmtp's passwordeval
    ("printf 'Zürich-πw\\n'", "Zürich-πw"),
])
def test_the_secret_is_the_first_line_printed(command: str, secret: str) -> None:
    assert run_password_command(command, "[imap]") == secret


@pytest.mark.parametrize(("command", "reason"), [
    (f"echo {LEAK}; exit 3", r"\[smtp\] password_command failed: exit status 3 \(run it by hand"),
    (f"echo {LEAK} >&2; no-such-command-pbem", r"exit status 127 \(command not found\)"),
    (f"echo {LEAK}; kill -9 $$", r"killed by signal 9 \(SIGKILL\)"),
    ("true", r"\[smtp\] password_command printed nothing"),
    (f"printf '\\n{LEAK}\\n'", "printed nothing"),  # an empty first line is no secret
    ("printf '\\377\\376'", "not UTF-8"),
])
def test_a_failing_command_is_a_config_error_naming_the_section_and_status(command: str, reason: str) -> None:
    with pytest.raises(CredentialError, match=reason) as caught:
        run_password_command(command, "[smtp]")
    assert isinstance(caught.value, MailConfigError) and isinstance(caught.value, ConfigError)
    assert LEAK not in str(caught.value)
    assert caught.value.__cause__ is None  # no chained exception carries the output either
    assert caught.value.__context__ is None or caught.value.__suppress_context__


@pytest.mark.slow
def test_a_command_that_hangs_is_stopped_with_everything_it_started(tmp_path: Path) -> None:
    marker = tmp_path / "survived"
    started = time.monotonic()
    with pytest.raises(CredentialError, match=r"\[imap\] password_command did not finish within 0.3 s") as caught:
        # A child that keeps the output pipe open must not keep us waiting either.
        run_password_command(f"(sleep 1; touch {marker}) & echo {LEAK}; sleep 5", "[imap]", timeout=0.3)
    assert time.monotonic() - started < 1
    assert LEAK not in str(caught.value)
    time.sleep(1.3)
    assert not marker.exists()  # the whole process group was stopped


def test_login_secret_runs_the_command_each_time_and_otherwise_takes_the_password(tmp_path: Path) -> None:
    helper = secret_command(tmp_path, "token-1")
    assert login_secret("ignored", "", "[imap]") == "ignored"
    assert helper.runs == 0
    assert login_secret("", helper.command, "[imap]") == "token-1"
    helper.hand_out("token-2")  # the helper refreshed its token
    assert login_secret("", helper.command, "[imap]") == "token-2"
    assert helper.runs == 2


def test_xoauth2_responses() -> None:
    assert xoauth2_string("ann@example.org", "ya29.t") == "user=ann@example.org\x01auth=Bearer ya29.t\x01\x01"
    respond = SmtpXoauth2("ann@example.org", "ya29.Secret-token")
    assert respond() == xoauth2_string("ann@example.org", "ya29.Secret-token")  # the initial response
    error = base64.b64decode(base64.b64encode(b'{"status":"401","schemes":"bearer"}'))
    assert respond(error) == ""  # the server's error report is answered with an empty response
    assert "Secret-token" not in repr(respond)


def test_mask() -> None:
    assert mask("refused pw-Secret and pw-Secret", "pw-Secret", "") == "refused *** and ***"
    assert mask("a b", "a") == "a b"  # too short to mask without mangling the text


# --- settings ---------------------------------------------------------------------------------------------


def test_password_command_and_auth_are_read_but_nothing_is_run(tmp_path: Path) -> None:
    helper = secret_command(tmp_path, "never-read")
    imap = imap_settings({"host": "h", "username": "u", "password_command": f"  {helper.command}  ",
                          "auth": "XOAUTH2"}, env={})
    assert imap.password_command == helper.command and imap.password == "" and imap.auth is AuthMethod.XOAUTH2
    smtp = smtp_settings({"host": "h", "username": "u", "password_command": helper.command}, env={})
    assert smtp.auth is AuthMethod.PASSWORD
    assert helper.runs == 0  # run at each login, never when the file is read
    for settings in (imap, smtp):
        assert helper.command not in repr(settings)  # a command line may hold a path or a key id: not shown


@pytest.mark.parametrize(("section", "env", "reason"), [
    ({"host": "h", "password": "x", "password_command": "c"}, {},
     r"give one of password, password_env or password_command, not password and password_command"),
    ({"host": "h", "password_env": "V", "password_command": "c"}, {"V": "y"}, "not password_env and password_command"),
    ({"host": "h", "password_command": ""}, {}, "password_command must be a command line"),
    ({"host": "h", "password_command": ["pass", "show"]}, {}, "password_command must be a command line"),
    ({"host": "h", "auth": "oauth"}, {}, r"auth must be one of password\|xoauth2, not 'oauth'"),
    ({"host": "h", "auth": "xoauth2", "password_command": "c"}, {}, r'auth = "xoauth2" needs username'),
    ({"host": "h", "auth": "xoauth2", "username": "u"}, {}, r'auth = "xoauth2" needs password_command'),
])
@pytest.mark.parametrize("parse", [imap_settings, smtp_settings])
def test_secret_and_auth_mistakes(parse: Callable[..., object], section: dict[str, object], env: dict[str, str],
                                  reason: str) -> None:
    with pytest.raises(MailConfigError, match=reason):
        parse(section, env=env)


def test_settings_built_in_code_are_checked_too() -> None:
    with pytest.raises(MailConfigError, match="not several"):
        ImapSettings(host="h", password="p", password_command="c")
    with pytest.raises(MailConfigError, match="needs username"):
        SmtpSettings(host="h", auth="xoauth2", password_command="c")
    assert SmtpSettings(host="h", username="u", auth="XOAuth2", password_command="c").auth is AuthMethod.XOAUTH2
