"""Real mail servers on loopback for the mail tests: Dovecot (IMAP) and aiosmtpd (SMTP).

``dovecot``: one Dovecot per test session, started from its own config in a
temporary directory on a free 127.0.0.1 port (Debian's ``dovecot-imapd``;
``.ci/run`` installs it). Every test gets a fresh account (one of the users
written to the passwd-file at start-up, not used before: an empty maildir), so tests never see each other's mail.
When Dovecot is not installed the tests are skipped, saying why, except under
``CI=true``, where they fail: CI must prove the IMAP path.

Dovecot refuses to run its login processes as root and to give mail access to
UID 0. Run as root (our machines, CI in a container) it uses Debian's system
users: ``dovenull`` for the login processes, ``dovecot`` for the internal
ones, and the mail itself is stored as ``dovenull`` (``first_valid_uid`` and
``last_valid_uid`` admit exactly that UID). Run as an ordinary user, every
process runs as that user, without chroot.

``dovecot_tls``: a second Dovecot with a throw-away self-signed certificate
(made with the ``openssl`` command), offering STARTTLS on one port and TLS on
another, for the security modes.

``dovecot_oauth2``: a Dovecot that also accepts AUTHENTICATE XOAUTH2, checking
the bearer token itself as an OAuth2 provider's tokens are checked: its
``oauth2`` passdb validates JWTs locally (``introspection_mode = local``)
against an HMAC key made for the instance, with the signature, the expiry and
the subject (which must be the user logging in) all checked. The account's
``access_token()`` signs one. No OAuth2 server runs; passwords still work by
LOGIN and PLAIN, and a password is no token.

Every instance turns Dovecot's authentication penalty off: it would delay
each login from 127.0.0.1 by up to 15 s after a failed one, and tests fail
logins on purpose.

The fixtures here, of the relay (``smtpd`` / ``smtpd_tls``,
``tests/smtpservers.py``) and of the certificate they share
(``tests/loopback.py``) are pytest plugins (``tests/conftest.py``): a test
names them as arguments and imports none.
"""
from __future__ import annotations

import base64
import grp
import hashlib
import hmac
import json
import os
import pwd
import shlex
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from imapclient import IMAPClient

from pbem.mail.settings import ImapSettings, Security
from tests.loopback import TlsFiles, free_port
from tests.loopback import unavailable as _unavailable

DOVECOT_SEARCH_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/usr/local/sbin", "/sbin"])
START_TIMEOUT = 20.0
ACCOUNTS = 400  # accounts per Dovecot instance: one per test that uses it



# Dovecot -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Users:
    """Who Dovecot's processes and mail files run as."""

    login: str
    internal: str
    mail: pwd.struct_passwd
    as_root: bool

    @classmethod
    def for_us(cls) -> _Users:
        if os.geteuid() == 0:
            try:
                return cls("dovenull", "dovecot", pwd.getpwnam("dovenull"), True)
            except KeyError:
                _unavailable("Dovecot", "the system user dovenull is missing (is dovecot-core installed?)")
        me = pwd.getpwuid(os.geteuid())
        return cls(me.pw_name, me.pw_name, me, False)


class DovecotServer:
    """One Dovecot instance with its own config, runtime and mail directories under one temp dir."""

    def __init__(self, binary: str, tls: TlsFiles | None = None, *, oauth2: bool = False) -> None:
        self.binary = binary
        self.tls = tls
        self.oauth2_key = os.urandom(32) if oauth2 else b""  # signs the access tokens this instance accepts
        self.users = _Users.for_us()
        self.root = Path(tempfile.mkdtemp(prefix="pbem-dovecot-"))
        self.root.chmod(0o755)  # the login and internal users must reach the runtime directory
        self.host = "127.0.0.1"
        self.port = free_port()
        self.ssl_port = free_port() if tls else 0
        self.passwd = self.root / "passwd"
        self.mail_root = self.root / "mail"
        self.log = self.root / "dovecot.log"
        self.process: subprocess.Popen[bytes] | None = None
        self._accounts = iter([(f"u{n:04d}", f"pw-{uuid.uuid4().hex[:12]}") for n in range(ACCOUNTS)])

    def config(self) -> str:
        mail = self.users.mail
        lines = [
            f"# pbem test instance in {self.root}",
            "protocols = imap",
            f"listen = {self.host}",
            f"base_dir = {self.root}/run",
            f"state_dir = {self.root}/state",
            f"instance_name = pbem-test-{self.root.name}",
            f"log_path = {self.log}",
            f"info_log_path = {self.log}",
            f"default_login_user = {self.users.login}",
            f"default_internal_user = {self.users.internal}",
            f"first_valid_uid = {mail.pw_uid}",
            f"last_valid_uid = {mail.pw_uid}",
            f"first_valid_gid = {mail.pw_gid}",
            f"last_valid_gid = {mail.pw_gid}",
            "disable_plaintext_auth = no",  # Dovecot 2.3 name; 2.4 calls it auth_allow_cleartext
            f"auth_mechanisms = plain login{' xoauth2' if self.oauth2_key else ''}",
            "auth_failure_delay = 0 secs",  # a wrong-password test need not wait the default 2 seconds
            "mail_location = maildir:~/Maildir",
            "mailbox_idle_check_interval = 1 secs",  # IDLE notices new mail within a second even without inotify
            "imap_idle_notify_interval = 2 mins",
            "passdb {",
            "  driver = passwd-file",
            *(["  mechanisms = plain login"] if self.oauth2_key else []),  # a password is no access token
            f"  args = scheme=PLAIN username_format=%u {self.passwd}",
            "}",
            *self._oauth2_passdb(),
            "userdb {",
            "  driver = static",
            f"  args = uid={mail.pw_uid} gid={mail.pw_gid} home={self.mail_root}/%u",
            "}",
            "service imap-login {",
            "  inet_listener imap {",
            f"    address = {self.host}",
            f"    port = {self.port}",
            "  }",
            "  inet_listener imaps {",
            f"    address = {self.host}",
            f"    port = {self.ssl_port}",
            "  }",
        ]
        if not self.users.as_root:
            lines.append("  chroot =")
        lines.append("}")
        # No growing delay after failed logins (see the module docstring): without this listener the
        # auth process finds no penalty service and applies none.
        lines += ["service anvil {", "  unix_listener anvil-auth-penalty {", "    mode = 0", "  }", "}"]
        if self.tls:
            lines += ["ssl = yes", f"ssl_cert = <{self.tls.cert}", f"ssl_key = <{self.tls.key}"]
            if Path("/usr/share/dovecot/dh.pem").exists():
                lines.append("ssl_dh = </usr/share/dovecot/dh.pem")
        else:
            lines.append("ssl = no")
        if not self.users.as_root:  # no privileges to drop, no chroot, no chown to other groups possible
            lines.append(f"default_internal_group = {grp.getgrgid(mail.pw_gid).gr_name}")
            for service in ("anvil", "auth-worker", "imap", "stats"):
                lines += [f"service {service} {{", "  chroot =", f"  user = {self.users.internal}", "}"]
        return "\n".join(lines) + "\n"

    def _oauth2_passdb(self) -> list[str]:
        """The ``oauth2`` passdb for XOAUTH2: local JWT validation with this instance's HMAC key."""
        if not self.oauth2_key:
            return []
        # The key dictionary is looked up as <prefix>/<azp>/<alg>/<kid>; our tokens carry neither azp nor kid.
        key_file = self.root / "oauth2-keys" / "default" / "HS256" / "default"
        key_file.parent.mkdir(parents=True)
        key_file.write_text(base64.b64encode(self.oauth2_key).decode())
        for path in (key_file, *list(key_file.parents)[:3]):
            path.chmod(0o755 if path.is_dir() else 0o644)  # read by the auth process, which may not run as us
        settings = self.root / "dovecot-oauth2.conf.ext"
        settings.write_text(f"introspection_mode = local\nlocal_validation_key_dict = fs:posix:prefix="
                            f"{self.root / 'oauth2-keys'}/\nusername_attribute = sub\n")
        settings.chmod(0o644)
        return ["passdb {", "  driver = oauth2", "  mechanisms = xoauth2", f"  args = {settings}", "}"]

    def access_token(self, user: str, lifetime: float = 300.0) -> str:
        """A JWT for ``user`` that this instance accepts for ``lifetime`` seconds (negative: already expired)."""
        assert self.oauth2_key, "this Dovecot was started without XOAUTH2"
        now = int(time.time())
        header = {"typ": "JWT", "alg": "HS256"}
        claims = {"sub": user, "iat": now - 60, "nbf": now - 60, "exp": now + int(lifetime)}
        signed = ".".join(_base64url(json.dumps(part).encode()) for part in (header, claims))
        signature = hmac.new(self.oauth2_key, signed.encode(), hashlib.sha256).digest()
        return f"{signed}.{_base64url(signature)}"

    def start(self) -> None:
        (self.root / "state").mkdir()
        self.mail_root.mkdir()
        if self.users.as_root:
            os.chown(self.mail_root, self.users.mail.pw_uid, self.users.mail.pw_gid)
        # All accounts are written before the start: Dovecot re-reads a changed passwd-file only when
        # its mtime (in seconds) changes, so accounts added during the session would be missed.
        accounts = list(self._accounts)
        self._accounts = iter(accounts)
        self.passwd.write_text("".join(f"{user}:{{PLAIN}}{password}::::::\n" for user, password in accounts))
        self.passwd.chmod(0o644)
        conf = self.root / "dovecot.conf"
        conf.write_text(self.config())
        with (self.root / "dovecot.out").open("wb") as output:  # start-up errors before the log is open
            self.process = subprocess.Popen(
                [self.binary, "-F", "-c", str(conf)], stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                output_text = (self.root / "dovecot.out").read_text(errors="replace")
                raise RuntimeError(f"dovecot exited with {self.process.returncode}:\n{output_text}\n{self._log_text()}")
            if self._greets():
                return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"dovecot did not answer on {self.host}:{self.port} within {START_TIMEOUT}s\n{self._log_text()}")

    def _greets(self) -> bool:
        try:
            with socket.create_connection((self.host, self.port), timeout=1) as sock:
                return sock.recv(64).startswith(b"* OK")
        except OSError:
            return False

    def _log_text(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return "(no log)"

    def new_account(self) -> tuple[str, str]:
        """(user, password) of an account not used before in this session: an empty mailbox."""
        try:
            return next(self._accounts)
        except StopIteration:
            raise RuntimeError(f"all {ACCOUNTS} test accounts of this Dovecot are used; raise ACCOUNTS") from None

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()  # the master stops its children on SIGTERM
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)
        shutil.rmtree(self.root, ignore_errors=True)


def _base64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _dovecot_binary() -> str:
    binary = shutil.which("dovecot", path=DOVECOT_SEARCH_PATH)
    if binary is None:
        _unavailable("Dovecot", "not installed (apt-get install dovecot-imapd)")
    assert binary is not None
    return binary


def _start_dovecot(tls: TlsFiles | None = None, *, oauth2: bool = False) -> Iterator[DovecotServer]:
    server = DovecotServer(_dovecot_binary(), tls, oauth2=oauth2)
    try:
        server.start()
    except RuntimeError as exc:
        _unavailable("Dovecot", f"it would not start: {exc}")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def dovecot_server() -> Iterator[DovecotServer]:
    yield from _start_dovecot()


@pytest.fixture(scope="session")
def dovecot_tls_server(tls_files: TlsFiles) -> Iterator[DovecotServer]:
    yield from _start_dovecot(tls_files)


@pytest.fixture(scope="session")
def dovecot_oauth2_server() -> Iterator[DovecotServer]:
    yield from _start_dovecot(oauth2=True)


@dataclass
class DovecotAccount:
    """A fresh IMAP account on the test Dovecot: where it is, how to log in, how to put mail into it."""

    host: str
    port: int
    user: str
    password: str = field(repr=False)
    ssl_port: int = 0
    tls: TlsFiles | None = None
    server: DovecotServer | None = field(default=None, repr=False)

    def access_token(self, lifetime: float = 300.0, user: str | None = None) -> str:
        """An access token the server accepts for this account (or for ``user``) by XOAUTH2."""
        assert self.server is not None
        return self.server.access_token(user or self.user, lifetime)

    def settings(self, **overrides: Any) -> ImapSettings:
        values: dict[str, Any] = dict(
            host=self.host, port=self.port, security=Security.NONE, username=self.user, password=self.password,
            timeout=10.0, poll_interval=0.2,
        )
        values.update(overrides)
        return ImapSettings(**values)

    def client(self) -> IMAPClient:
        """Another, independent connection (logged in), as a second mail client would be."""
        client = IMAPClient(self.host, port=self.port, ssl=False, timeout=10)
        client.login(self.user, self.password)
        return client

    def append(self, raw: bytes, folder: str = "INBOX") -> int:
        """Deliver ``raw`` into ``folder`` (created if missing) from a separate connection; its UID."""
        with self.client() as client:
            if folder != "INBOX" and not client.folder_exists(folder):
                client.create_folder(folder)
            response = client.append(folder, raw)
        text = response.decode() if isinstance(response, bytes) else str(response)
        # "[APPENDUID <uidvalidity> <uid>] Append completed." (UIDPLUS)
        return int(text.split("APPENDUID", 1)[1].split("]", 1)[0].split()[1])

    def uids(self, folder: str = "INBOX") -> list[int]:
        with self.client() as client:
            if not client.folder_exists(folder):
                return []
            client.select_folder(folder, readonly=True)
            return sorted(client.search("ALL"))

    def subjects(self, folder: str) -> list[str]:
        with self.client() as client:
            if not client.folder_exists(folder):
                return []
            client.select_folder(folder, readonly=True)
            fetched = client.fetch(client.search("ALL"), ["BODY.PEEK[HEADER.FIELDS (SUBJECT)]"])
            out = []
            for data in fetched.values():
                header = data[b"BODY[HEADER.FIELDS (SUBJECT)]"].decode()
                out.append(header.split(":", 1)[1].strip())
            return sorted(out)


@pytest.fixture
def dovecot(dovecot_server: DovecotServer) -> DovecotAccount:
    user, password = dovecot_server.new_account()
    return DovecotAccount(dovecot_server.host, dovecot_server.port, user, password)


@pytest.fixture
def dovecot_oauth2(dovecot_oauth2_server: DovecotServer) -> DovecotAccount:
    """An account on the Dovecot that accepts XOAUTH2 (see ``access_token``) besides passwords."""
    user, password = dovecot_oauth2_server.new_account()
    return DovecotAccount(dovecot_oauth2_server.host, dovecot_oauth2_server.port, user, password,
                          server=dovecot_oauth2_server)


@pytest.fixture
def dovecot_tls(dovecot_tls_server: DovecotServer) -> DovecotAccount:
    user, password = dovecot_tls_server.new_account()
    return DovecotAccount(dovecot_tls_server.host, dovecot_tls_server.port, user, password,
                          dovecot_tls_server.ssl_port, dovecot_tls_server.tls)


# password_command --------------------------------------------------------------------------


@dataclass(frozen=True)
class SecretCommand:
    """A ``password_command`` as a password manager or an OAuth2 helper would be: it prints the secret
    kept in ``store`` and appends a line to ``calls``, so a test can count how often it ran."""

    command: str
    store: Path
    calls: Path

    @property
    def runs(self) -> int:
        return len(self.calls.read_text().splitlines()) if self.calls.exists() else 0

    def hand_out(self, secret: str) -> None:
        """From now on print ``secret`` (as a helper does after refreshing a token)."""
        self.store.write_text(secret + "\n")
        self.store.chmod(0o600)


def secret_command(directory: Path, secret: str, name: str = "secret") -> SecretCommand:
    store, calls = directory / f"{name}.store", directory / f"{name}.calls"
    command = f"echo run >> {shlex.quote(str(calls))} && cat {shlex.quote(str(store))}"
    helper = SecretCommand(command, store, calls)
    helper.hand_out(secret)
    return helper
