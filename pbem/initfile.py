"""The text of the commented ``pbem.toml`` that ``pbem init`` writes, from a provider preset and the answers.

Why a module of its own: the file is the first thing a new host reads about
pbem, so it explains each table in a few sentences and carries the provider's
pitfalls next to the keys they concern; and the text must stay a file that
``pbem.config`` accepts, which tests check for every preset. Rendering is pure
(no prompts, no files), so it can be tested without the CLI.

Secrets: a password is written only when the caller passes one
(``pbem init --write-password``); otherwise the file names the environment
variable that holds it. Keys that another part of pbem is still adding (OAuth2
sign-in, the sending limits) appear only commented out, so the file stays
valid for the pbem that wrote it.
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

from pbem.config import DEFAULT_DATABASE_URL, DEFAULT_MODERATOR_NAME
from pbem.mail.providers import Auth, ProviderPreset
from pbem.mail.settings import Security

WIDTH = 100
COMMENT_COLUMN = 44
DEFAULT_PASSWORD_ENV = "PBEM_IMAP_PASSWORD"


@dataclass(frozen=True)
class Server:
    """A server as it will be written: host, port and security all known."""

    host: str
    port: int
    security: Security


@dataclass(frozen=True)
class Credentials:
    """Who logs in and where the password comes from; ``username`` "" means no login (an open relay)."""

    username: str
    password_env: str = DEFAULT_PASSWORD_ENV
    password: str | None = field(default=None, repr=False)  # written into the file only when given


@dataclass(frozen=True)
class InitAnswers:
    """Everything ``pbem init`` asked or was given."""

    preset: ProviderPreset
    address: str
    imap: Server
    smtp: Server
    imap_login: Credentials
    smtp_login: Credentials
    name: str = DEFAULT_MODERATOR_NAME
    database: str = DEFAULT_DATABASE_URL

    @property
    def holds_secret(self) -> bool:
        """Whether the file will hold a password (then it must be readable by its owner only)."""
        return any(login.password is not None for login in (self.imap_login, self.smtp_login)) \
            or url_has_password(self.database)


def toml_string(value: str) -> str:
    """``value`` as a TOML basic string: quotes, backslashes and control characters escaped."""
    escapes = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
    out = []
    for char in value:
        if char in escapes:
            out.append(escapes[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def render(answers: InitAnswers) -> str:
    """The whole ``pbem.toml``: a header, then [moderator], [database], [imap], [smtp], [limits]."""
    blocks = [_header(answers), _moderator(answers), _database(answers), _imap(answers), _smtp(answers),
              _limits(answers)]
    return "\n".join(blocks)


# --- the tables ----------------------------------------------------------------------------------------------


def _header(answers: InitAnswers) -> str:
    preset = answers.preset
    lines = [
        f"# pbem configuration for the moderator {answers.address}.",
        f"# Written by `pbem init` for {preset.title}.",
        "#",
        "# Use it with `pbem --config <this file> COMMAND`, or `export PBEM_CONFIG=<this file>`.",
        "# Lines starting with '#' are comments; a commented key shows an optional setting. pbem refuses",
        "# keys it does not know, so a typo is reported instead of being ignored. docs/configuration.md",
        "# describes every key.",
    ]
    if answers.holds_secret:
        lines += ["#", "# This file holds a password: keep it readable by you alone (chmod 600) and out of backups",
                  "# and version control that others can read."]
    notes = (*preset.setup_notes, *preset.auth_notes)
    if notes:
        lines += ["#", f"# Before the first run, at {preset.name}:"]
        lines += [line for note in notes for line in _comment(note, bullet=True)]
    return "\n".join(lines) + "\n"


def _moderator(answers: InitAnswers) -> str:
    lines = [
        "[moderator]",
        *_comment("The mailbox the moderator reads and sends from: the From of every mail it sends. Each "
                  "player gets a private reply address, moderator+<token>@host, that tells pbem which seat "
                  "wrote; the mail server must deliver those addresses to this mailbox."),
        *[line for note in answers.preset.address_notes for line in _comment(note)],
        _key("address", toml_string(answers.address)),
        _key("name", toml_string(answers.name), "the display name in From"),
        _key("# game_master", toml_string("you@example.org"), "hears about a game stuck on a decision"),
    ]
    return "\n".join(lines) + "\n"


def _database(answers: InitAnswers) -> str:
    lines = [
        "[database]",
        *_comment("Where the games are kept. A relative SQLite path is taken from the directory pbem runs "
                  "in, so run pbem from the same place every time, or give an absolute path "
                  "(sqlite:////home/you/pbem/pbem.db). The database holds every seat's reply token: keep it "
                  "as private as the mailbox. --database and PBEM_DATABASE_URL take precedence over this."),
        _key("url", toml_string(answers.database)),
    ]
    if answers.database == DEFAULT_DATABASE_URL:
        lines.append(_key("# url", toml_string("postgresql+psycopg://pbem@127.0.0.1:5432/pbem"), "PostgreSQL"))
    return "\n".join(lines) + "\n"


def _imap(answers: InitAnswers) -> str:
    preset = answers.preset
    lines = [
        "[imap]",
        *_comment("Where the moderator's mail arrives. pbem reads new mail in the mailbox below, answers "
                  "it, and moves each handled message to processed_folder (or to failed_folder when it "
                  "could not be read at all), so the inbox only ever holds what is still to do."),
        *_server_lines(answers.imap, "993 with ssl, 143 otherwise"),
        *_login_lines(answers.imap_login, preset),
        _key("# mailbox", toml_string("INBOX")),
        *[line for note in preset.folder_notes for line in _comment(note)],
        _key("processed_folder", toml_string(preset.processed_folder)),
        _key("failed_folder", toml_string(preset.failed_folder)),
        *_idle_lines(preset),
    ]
    return "\n".join(lines) + "\n"


def _smtp(answers: InitAnswers) -> str:
    preset, login = answers.preset, answers.smtp_login
    lines = [
        "[smtp]",
        *_comment("How mail goes out. pbem hands every mail to this server once the game has moved on, "
                  "and keeps it for a later try while the server is away, so nothing is lost."),
        *_server_lines(answers.smtp, "587 with starttls, 465 with ssl, 25 with none"),
        *[line for note in preset.server_notes for line in _comment(note)],
    ]
    if login.username:
        lines += _login_lines(login, preset)
    else:
        lines += _comment("No login: the server takes mail from this machine without one. Add username and "
                          "password_env if it asks for them.")
    lines.append(_key("# local_hostname", toml_string("pbem.example.org"), "the name pbem greets the server with"))
    return "\n".join(lines) + "\n"


def _limits(answers: InitAnswers) -> str:
    preset = answers.preset
    lines = [
        "[limits]",
        *_comment("How much the moderator may send and answer. The defaults (docs/configuration.md) suit a "
                  "few games among friends: nothing here needs changing to start."),
    ]
    figures = [f"about {limit.per_day:,} a day for {limit.account}" for limit in preset.sending if limit.per_day]
    if figures:
        lines += _comment(f"{preset.name} limits what one account may send: {'; '.join(figures)}. These figures "
                          "are approximate and change: check your provider. A mail to three people counts as "
                          f"three. {preset.sending_note}")
    else:
        lines += _comment(preset.sending_note)
    suggested = preset.suggested_limits()
    lines += _comment("A cap of pbem's own keeps a busy day from using up the account: mail beyond it waits in "
                      "the outbox (never dropped) and goes out when the hour or the day leaves room again.")
    if suggested is not None:
        hour, day = suggested
        lines += [_key("max_mails_per_hour", str(hour), "suggested for this provider"),
                  _key("max_mails_per_day", str(day), "a fifth below the smallest figure above")]
    else:
        lines += [_key("# max_mails_per_hour", "50", "an example: stay below your provider's figures"),
                  _key("# max_mails_per_day", "200")]
    return "\n".join(lines) + "\n"


# --- pieces ----------------------------------------------------------------------------------------------------


def _server_lines(server: Server, defaults: str) -> list[str]:
    lines = [
        _key("host", toml_string(server.host)),
        _key("port", str(server.port), f"the usual: {defaults}"),
        _key("security", toml_string(server.security.value), "none | starttls | ssl"),
    ]
    if server.security is Security.NONE:
        lines += _comment('security = "none": the password crosses the network unencrypted. Use it only '
                          "for a server on this machine or a test.")
    return lines


def _login_lines(login: Credentials, preset: ProviderPreset) -> list[str]:
    lines = [_key("username", toml_string(login.username))]
    if login.password is not None:
        lines += _comment("The password is written here because you asked for it (pbem init --write-password); "
                          "password_env instead keeps it out of the file.")
        lines.append(_key("password", toml_string(login.password)))
    else:
        what = "the app password" if preset.auth is Auth.APP_PASSWORD else "the password"
        lines.append(_key("password_env", toml_string(login.password_env), f"{what} is read from this variable"))
        lines.append(_key("# password", toml_string("..."), "or written here (then chmod 600); not both"))
    if preset.auth is Auth.OAUTH2:
        lines += _comment("OAuth2 sign-in: replace password_env by these two lines; the command prints a "
                          "current access token for this mailbox.")
        lines += [_key("# auth", toml_string(Auth.OAUTH2.value)),
                  _key("# password_command", toml_string("..."), "your token helper")]
    return lines


def _idle_lines(preset: ProviderPreset) -> list[str]:
    if preset.idle:
        text = (f"{preset.name} offers IDLE: `pbem run` sees new mail at once instead of looking every "
                "poll_interval seconds.")
    else:
        text = ("With IDLE `pbem run` sees new mail at once; without, it looks every poll_interval seconds. "
                "`pbem check` tells which this server does.")
    return [*_comment(text), _key("# poll_interval", "60", "seconds"), _key("# idle_refresh", "540", "seconds")]


def _key(key: str, value: str, comment: str | None = None) -> str:
    """``key = value``, with ``comment`` lined up after it when given."""
    line = f"{key} = {value}"
    return f"{line.ljust(COMMENT_COLUMN - 1)} # {comment}" if comment else line


def _comment(text: str, *, bullet: bool = False) -> list[str]:
    """``text`` as wrapped comment lines (``bullet``: a list item under a heading)."""
    first, rest = ("# - ", "#   ") if bullet else ("# ", "# ")
    return textwrap.wrap(text, WIDTH, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False,
                         break_long_words=False)


def url_has_password(url: str) -> bool:
    """Whether a database URL carries a password (``scheme://user:secret@host``)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return bool(make_url(url).password)
    except ArgumentError:
        return False
