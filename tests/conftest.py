"""What every test shares: the fixture modules, and logging set up by a CLI call must not outlive the call.

The fixtures of the modules named in ``pytest_plugins`` are there for every
test to take by name, none imported: databases (``db_url``, ``postgres_url``),
the loopback certificate (``tls_files``), the SMTP relay (``smtpd``,
``smtpd_tls``) and Dovecot (``dovecot``, ``dovecot_tls``, ``dovecot_oauth2``).
Their classes and functions are imported from those modules as from any other.

Commands such as `pbem poll` configure logging onto the CliRunner's stderr,
which is closed when the call returns; a later log record from a server thread
would then fail with "I/O operation on closed file". Each test gets the root
logger back as it found it.
"""
from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

pytest_plugins = ["tests.dbfixtures", "tests.loopback", "tests.smtpservers", "tests.mailservers"]


@pytest.fixture(autouse=True)
def root_logging_restored() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)

