"""A private Postfix for the tests: its own configuration, queue and log in a temporary folder, listening for
SMTP on a free loopback port; the system's Postfix (if any runs) is not touched.

Postfix's master runs as root and hands the work to its services as the
``postfix`` user, so this needs root and the ``postfix`` package (the Debian
package with debconf's "No configuration" is enough). Missing either, the
test is skipped with the reason on a user's machine, and fails under
``CI=true`` (``tests.loopback.unavailable``).
"""
from __future__ import annotations

import os
import pwd
import shutil
import smtplib
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from tests.loopback import free_port, unavailable
from tests.mailflowkit import wait_until

# The services a relay to LMTP needs (master.cf); no chroot, so the temporary paths are the same for each.
MASTER_CF = """\
{listen} inet n - n - - smtpd
pickup    unix  n       -       n       60      1       pickup
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       300     1       qmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
proxymap  unix  -       -       n       -       -       proxymap
smtp      unix  -       -       n       -       -       smtp
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
lmtp      unix  -       -       n       -       -       lmtp
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
"""


def postfix_binaries() -> tuple[str, str]:
    """(postfix, postmap), or the test is skipped (a failure under CI=true) saying what is missing."""
    postfix = shutil.which("postfix") or ("/usr/sbin/postfix" if Path("/usr/sbin/postfix").exists() else None)
    postmap = shutil.which("postmap") or ("/usr/sbin/postmap" if Path("/usr/sbin/postmap").exists() else None)
    if postfix is None or postmap is None:
        unavailable("Postfix", "not installed (apt-get install postfix, with debconf's \"No configuration\")")
    if os.geteuid() != 0:
        unavailable("Postfix", "its master process must start as root, and these tests do not run as root")
    try:
        pwd.getpwnam("postfix")
    except KeyError:
        unavailable("Postfix", "the system user postfix is missing (is the postfix package installed?)")
    assert postfix is not None and postmap is not None
    return postfix, postmap


class PostfixServer:
    """``main_cf`` lines (the maps under test) on top of a private instance's own settings."""

    def __init__(self, main_cf: Sequence[str]) -> None:
        self.postfix, self.postmap = postfix_binaries()
        self.root = Path(tempfile.mkdtemp(prefix="pbem-postfix-"))
        self.root.chmod(0o755)  # the postfix user walks through it
        self.config = self.root / "conf"
        self.log = self.root / "postfix.log"
        self.port = free_port()
        for folder in ("conf", "queue", "data"):
            (self.root / folder).mkdir()
        shutil.chown(self.root / "data", user="postfix")
        (self.config / "master.cf").write_text(MASTER_CF.format(listen=f"127.0.0.1:{self.port}"))
        own = [
            "compatibility_level = 3.6",
            f"queue_directory = {self.root / 'queue'}",
            f"data_directory = {self.root / 'data'}",
            "myhostname = mx.pbem-test.invalid",
            "mydestination =",
            "inet_interfaces = 127.0.0.1",
            "inet_protocols = ipv4",
            "mynetworks = 127.0.0.0/8",
            "smtpd_relay_restrictions = permit_mynetworks, reject_unauth_destination",
            "alias_maps =",
            "alias_database =",
            "local_recipient_maps =",
            f"maillog_file_prefixes = {self.root}",
            f"maillog_file = {self.log}",
            "syslog_name = pbem-test-postfix",
            "lmtp_connect_timeout = 5s",
            "biff = no",
        ]
        (self.config / "main.cf").write_text("\n".join([*own, *main_cf]) + "\n")

    def postmap_files(self, *files: Path) -> None:
        done = subprocess.run([self.postmap, "-c", str(self.config), *map(str, files)], capture_output=True,
                              text=True, timeout=30)
        assert done.returncode == 0, done.stderr

    def start(self) -> None:
        done = subprocess.run([self.postfix, "-c", str(self.config), "start"], capture_output=True, text=True,
                              timeout=60)
        if done.returncode != 0:
            unavailable("Postfix", f"the private instance would not start: {done.stderr.strip()} {self.log_text()}")
        wait_until(self._greets, 30, "Postfix's SMTP greeting")

    def _greets(self) -> bool:
        try:
            with smtplib.SMTP("127.0.0.1", self.port, timeout=5) as client:
                return client.noop()[0] == 250
        except OSError:
            return False

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def stop(self) -> None:
        subprocess.run([self.postfix, "-c", str(self.config), "stop"], capture_output=True, timeout=60)
        shutil.rmtree(self.root, ignore_errors=True)
