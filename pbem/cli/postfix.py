"""``pbem postfix-maps DIR``: the Postfix lookup tables that hand the moderator's mail to ``pbem lmtp`` and
refuse every other address of its domain while the sender is still connected.

Why: with only ``relay_domains`` and a transport, Postfix accepts any
address at the games' domain, then ``pbem lmtp`` refuses the unknown ones
(``550`` at RCPT), and Postfix, which has already said yes to the sending
server, bounces the mail to its envelope sender: a forged address, often,
so the domain sends backscatter to strangers. ``relay_recipient_maps``
lets Postfix refuse those addresses during the SMTP conversation instead,
as Mailman 3 does by writing such maps itself.

Which addresses: the moderator's (``[moderator] address``), which players
write to as ``local+TOKEN@domain`` (``pbem.mail.outbound.reply_address``):
with ``recipient_delimiter = +``, Postfix looks up ``local+TOKEN@domain``,
then ``local@domain``, so one line covers every seat's token; any other
local part of the domain is refused (``550 5.1.1 User unknown in relay
recipient table``). A token that is no seat's still reaches pbem, which
answers it at most once per address (the tokens are stored hashed: they
cannot be listed here).

The files are plain ``key value`` lines for ``postmap``; they are written
anew each time (into a temporary file, then renamed, so Postfix never reads
half a file). What to add to ``main.cf`` is printed. Host-facing text:
English, not translated.
"""
from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from pbem.cli.base import app, echo, fail, handled, options_of
from pbem.config import ModeratorSettings, load_config
from pbem.errors import ConfigError

TRANSPORT = "transport"
RELAY_RECIPIENTS = "relay_recipients"
DELIMITER = "+"  # how pbem writes a seat's reply address: local+TOKEN@domain


@dataclass(frozen=True)
class PostfixMaps:
    """The two tables' text, and the lines ``main.cf`` needs to use them."""

    transport: str
    relay_recipients: str
    domains: tuple[str, ...]
    addresses: tuple[str, ...]

    def main_cf(self, directory: Path, fallback: str | None) -> list[str]:
        lines = [f"recipient_delimiter = {DELIMITER}",
                 f"relay_domains = {', '.join(self.domains)}",
                 f"transport_maps = hash:{directory / TRANSPORT}",
                 f"relay_recipient_maps = hash:{directory / RELAY_RECIPIENTS}"]
        if fallback is not None:
            lines.append(f"lmtp_fallback_relay = {relay(fallback)}")
        return lines


def inet(listen: str) -> str:
    """``HOST:PORT`` as Postfix's LMTP client names it: ``inet:HOST:PORT``."""
    host, _, port = listen.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"HOST:PORT, not {listen!r}")
    return f"inet:{host}:{port}"


def relay(listen: str) -> str:
    """``HOST:PORT`` as Postfix's relay settings name it (``lmtp_fallback_relay`` takes no ``inet:``):
    ``[HOST]:PORT``, the brackets saying "this address, no MX lookup"."""
    inet(listen)
    host, _, port = listen.rpartition(":")
    return f"[{host.strip('[]')}]:{port}"


def postfix_maps(moderators: Iterable[ModeratorSettings], listen: str, source: str = "") -> PostfixMaps:
    """The tables for ``moderators`` (each one's address, by its domain) handed to ``pbem lmtp`` at ``listen``."""
    addresses = sorted({m.address.lower() for m in moderators})
    domains = sorted({address.rpartition("@")[2] for address in addresses})
    head = [f"# Written by pbem postfix-maps{' from ' + source if source else ''}: run it again rather than edit.",
            "# Postfix reads the .db file that postmap makes of this one."]
    nexthop = f"lmtp:{inet(listen)}"
    transport = [*head, *(f"{domain}\t{nexthop}" for domain in domains)]
    recipients = [*head, f"# With recipient_delimiter = {DELIMITER}, each line also covers local{DELIMITER}TOKEN@domain: "
                  "every seat's reply address.", *(f"{address}\tOK" for address in addresses)]
    return PostfixMaps("\n".join(transport) + "\n", "\n".join(recipients) + "\n", tuple(domains), tuple(addresses))


def write_atomically(path: Path, text: str) -> None:
    """``path`` holds ``text`` whole or its old content: a reader never sees half of it."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.chmod(temporary, 0o644)  # postmap and Postfix read it; it holds no secret
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _lines(files: Sequence[Path]) -> str:
    return " ".join(str(path) for path in files)


@app.command("postfix-maps")
@handled
def postfix_maps_command(
    ctx: typer.Context,
    directory: Annotated[Path, typer.Argument(metavar="DIR", file_okay=False,
                                              help="Where to write the files transport and relay_recipients.")],
    listen: Annotated[str, typer.Option("--listen", metavar="HOST:PORT",
                                        help="Where pbem lmtp listens (its --listen).")] = "127.0.0.1:8024",
    fallback: Annotated[str | None, typer.Option(
        "--fallback", metavar="HOST:PORT",
        help="A second pbem lmtp, for Postfix's lmtp_fallback_relay when the first cannot be reached.")] = None,
) -> None:
    """Write the Postfix maps that hand the moderator's mail to pbem lmtp and refuse other addresses of its domain.

    Postfix then refuses an unknown address at its domain while the sending
    server is connected, instead of accepting the mail and bouncing it to a
    sender that may be forged. Prints the main.cf lines to add. See
    docs/hosting.md.
    """
    config = load_config(options_of(ctx).config)
    if config.path is None:
        fail("no configuration file: give --config FILE (before the command) or set PBEM_CONFIG")
    try:
        moderator = config.require_moderator()
        maps = postfix_maps([moderator], listen, str(config.path))
        if fallback is not None:
            relay(fallback)
    except (ConfigError, ValueError) as exc:
        fail(f"--listen and --fallback want {exc}" if isinstance(exc, ValueError) else str(exc))
    try:
        directory.mkdir(parents=True, exist_ok=True)
        files = [directory / TRANSPORT, directory / RELAY_RECIPIENTS]
        write_atomically(files[0], maps.transport)
        write_atomically(files[1], maps.relay_recipients)
    except OSError as exc:
        fail(f"cannot write into {directory}: {exc.strerror or exc}")
    echo(f"wrote {files[0]} ({', '.join(maps.domains)} to pbem lmtp at {listen}) and {files[1]} "
         f"({', '.join(maps.addresses)}, with every +token)")
    echo("In /etc/postfix/main.cf (a setting you have already takes these values added to its list):")
    for line in maps.main_cf(directory.resolve(), fallback):
        echo(f"    {line}")
    echo(f"Then: postmap {_lines(files)} && postfix reload")
    echo("Run pbem postfix-maps and postmap again when the moderator's address changes.")
