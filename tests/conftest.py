"""What every test shares: logging set up by a CLI call must not outlive the call.

Commands such as `pbem poll` configure logging onto the CliRunner's stderr,
which is closed when the call returns; a later log record from a server thread
would then fail with "I/O operation on closed file". Each test gets the root
logger back as it found it.
"""
from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def root_logging_restored() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
