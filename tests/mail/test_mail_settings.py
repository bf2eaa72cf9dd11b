"""Mail settings from the [imap] and [smtp] tables of the config file; secrets stay out of repr and errors."""
from __future__ import annotations

import tomllib

import pytest

from pbem.errors import ConfigError
from pbem.mail import (
    AuthMethod,
    ImapSettings,
    MailConfigError,
    Security,
    SmtpSettings,
    imap_settings,
    smtp_settings,
)

CONFIG = tomllib.loads('''
[imap]
host = "imap.example.org"
security = "SSL"
username = "pbem@example.org"
password_env = "PBEM_IMAP_PASSWORD"
mailbox = "INBOX"
processed_folder = "pbem/processed"
failed_folder = "pbem/failed"
poll_interval = 30

[smtp]
host = "smtp.example.org"
port = 2525
username = "pbem@example.org"
password = "smtp-Secret-1"
''')


def test_imap_settings_from_config() -> None:
    settings = imap_settings(CONFIG["imap"], env={"PBEM_IMAP_PASSWORD": "imap-Secret-1"})
    assert settings == ImapSettings(
        host="imap.example.org", security=Security.SSL, username="pbem@example.org", password="imap-Secret-1",
        processed_folder="pbem/processed", failed_folder="pbem/failed", poll_interval=30.0,
    )
    assert settings.effective_port == 993
    assert settings.auth is AuthMethod.PASSWORD and settings.password_command == ""
    assert "imap-Secret-1" not in repr(settings)


def test_smtp_settings_from_config() -> None:
    settings = smtp_settings(CONFIG["smtp"], env={})
    assert settings.security is Security.STARTTLS and settings.effective_port == 2525
    assert settings.password == "smtp-Secret-1"
    assert "smtp-Secret-1" not in repr(settings)
    assert SmtpSettings(host="h", security="ssl").effective_port == 465
    assert SmtpSettings(host="h", security="none").effective_port == 25
    assert ImapSettings(host="h", security="starttls").effective_port == 143


@pytest.mark.parametrize(("section", "env", "reason"), [
    ({}, {}, r"\[imap\] host is required"),
    ({"host": "h", "security": "tls"}, {}, r"\[imap\] security must be one of none\|starttls\|ssl, not 'tls'"),
    ({"host": "h", "port": "993"}, {}, r"\[imap\] port must be a number"),
    ({"host": "h", "port": 70000}, {}, r"port must be a number from 1 to 65535"),
    ({"host": "h", "password_env": "NOPE_VAR"}, {}, r"the environment variable NOPE_VAR \(password_env\) is not set"),
    ({"host": "h", "password": "x", "password_env": "V"}, {"V": "y"}, "not password and password_env"),
    ({"host": "h", "password": "x", "password_command": "c"}, {}, "not password and password_command"),
    ({"host": "h", "auth": "cram-md5"}, {}, r"\[imap\] auth must be one of password\|xoauth2"),
    ({"host": "h", "poll_interval": 0}, {}, "positive number of seconds"),
    ({"host": "h", "folder": "INBOX"}, {}, r"unknown setting\(s\) folder"),
])
def test_imap_settings_errors(section: dict[str, object], env: dict[str, str], reason: str) -> None:
    with pytest.raises(MailConfigError, match=reason) as caught:
        imap_settings(section, env=env)
    assert isinstance(caught.value, ConfigError)  # the CLI prints it like any configuration error
