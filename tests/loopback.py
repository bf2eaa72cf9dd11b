"""What the loopback servers of the tests share: free ports, a throw-away TLS certificate, and the rule for a
server that is missing (skipped on a user's own machine, a failure under ``CI=true``)."""
from __future__ import annotations

import os
import shutil
import smtplib
import socket
import ssl
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def lmtp_delivered(port: int, raw: bytes, to: str) -> bool:
    """``raw`` handed to the LMTP server on ``port`` for ``to``; False while nothing listens there yet."""
    try:
        client = smtplib.LMTP("127.0.0.1", port)
    except OSError:  # not listening yet
        return False
    try:
        return client.sendmail("ann@example.org", [to], raw) == {}
    finally:
        client.quit()


def unavailable(what: str, reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} is required under CI=true: {reason}")
    pytest.skip(f"{what}: {reason}; set CI=true to make this a failure")


# TLS ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TlsFiles:
    """A self-signed certificate for 127.0.0.1/localhost and the contexts that use it."""

    cert: Path
    key: Path

    def client_context(self) -> ssl.SSLContext:
        """A verifying client context that trusts exactly this certificate."""
        return ssl.create_default_context(cafile=str(self.cert))

    def server_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(str(self.cert), str(self.key))
        return context


@pytest.fixture(scope="session")
def tls_files() -> Iterator[TlsFiles]:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("the openssl command is not installed: no certificate for the TLS tests")
    directory = Path(tempfile.mkdtemp(prefix="pbem-tls-"))
    directory.chmod(0o755)
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )
    key.chmod(0o644)  # read by Dovecot's config process, which may not run as us
    try:
        yield TlsFiles(cert, key)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
