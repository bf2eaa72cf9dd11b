"""``pbem init``: write a first, commented ``pbem.toml`` for a mail provider, asking for what is missing.

Why: the way from "I have a mailbox" to "pbem check says yes" should not need
docs/configuration.md open beside an editor. ``pbem init`` takes the provider
(a preset from ``pbem.mail.providers``: Gmail, Fastmail, Microsoft 365 and
Outlook.com, or any other server), the moderator's address and the database,
as flags for scripts or by asking when a person sits at a terminal, and
writes a file that ``pbem.config`` accepts (it is parsed before it is
written), then says what to do next.

Secrets: the password is never asked for nor written unless
``--write-password`` is given; then it is read without echo and the file is
created readable by its owner only. A database URL holding a password is
refused without ``--write-password`` for the same reason. An existing file is
never replaced without ``--force``.
"""
from __future__ import annotations

import os
import shlex
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated

import typer

from pbem.cli.base import EXIT_ERROR, app, echo, fail, handled
from pbem.config import DEFAULT_DATABASE_URL, DEFAULT_MODERATOR_NAME, parse_config
from pbem.errors import ConfigError, PbemError
from pbem.initfile import DEFAULT_PASSWORD_ENV, Credentials, InitAnswers, Server, render, url_has_password
from pbem.mail.providers import PRESETS, Auth, Endpoint, Login, ProviderPreset, guess_provider, preset
from pbem.mail.settings import IMAP_DEFAULT_PORTS, SMTP_DEFAULT_PORTS, Security
from pbem.privatefiles import create_private_file
from pbem.store import normalise_url

DEFAULT_OUTPUT = Path("pbem.toml")


def stdin_is_terminal() -> bool:
    """Whether a person can answer questions (tests replace this to drive the questions through CliRunner)."""
    return sys.stdin.isatty()


@dataclass
class _Given:
    """The flags as given (None: not given), filled in by questions or defaults."""

    provider: str | None
    address: str | None
    name: str | None
    database: str | None
    imap_host: str | None
    imap_port: int | None
    imap_security: Security | None
    smtp_host: str | None
    smtp_port: int | None
    smtp_security: Security | None
    username: str | None
    smtp_username: str | None


@app.command("init")
@handled
def init_command(
    provider: Annotated[
        str | None,
        typer.Option("--provider", metavar="gmail|fastmail|outlook|generic", show_default=False,
                     help="Where the moderator's mailbox is: sets the servers, ports and security "
                          "(outlook: Microsoft 365 and Outlook.com; generic: any other server)."),
    ] = None,
    address: Annotated[
        str | None,
        typer.Option("--address", metavar="ADDR", show_default=False,
                     help="The moderator's address (local@host, no '+'): the From of its mails."),
    ] = None,
    name: Annotated[
        str | None,
        typer.Option("--name", metavar="NAME", show_default=False,
                     help=f"The display name in From (default: {DEFAULT_MODERATOR_NAME})."),
    ] = None,
    database: Annotated[
        str | None,
        typer.Option("--database", metavar="URL", show_default=False,
                     help=f"Where games are kept (default: {DEFAULT_DATABASE_URL})."),
    ] = None,
    imap_host: Annotated[str | None, typer.Option("--imap-host", metavar="HOST", show_default=False,
                                                  help="The IMAP server (needed for generic).")] = None,
    imap_port: Annotated[int | None, typer.Option("--imap-port", metavar="N", min=1, max=65535, show_default=False,
                                                  help="Its port (default: the usual one for the security).")]
    = None,
    imap_security: Annotated[Security | None, typer.Option("--imap-security", show_default=False,
                                                           help="How IMAP is secured (generic default: ssl).")]
    = None,
    smtp_host: Annotated[str | None, typer.Option("--smtp-host", metavar="HOST", show_default=False,
                                                  help="The SMTP server (needed for generic).")] = None,
    smtp_port: Annotated[int | None, typer.Option("--smtp-port", metavar="N", min=1, max=65535, show_default=False,
                                                  help="Its port (default: the usual one for the security).")]
    = None,
    smtp_security: Annotated[Security | None, typer.Option("--smtp-security", show_default=False,
                                                           help="How SMTP is secured (generic default: starttls).")]
    = None,
    username: Annotated[str | None, typer.Option("--username", metavar="U", show_default=False,
                                                 help="The login, for IMAP and SMTP (default: the address).")]
    = None,
    smtp_username: Annotated[str | None, typer.Option("--smtp-username", metavar="U", show_default=False,
                                                      help="Another login for SMTP, when it differs.")] = None,
    no_smtp_login: Annotated[bool, typer.Option("--no-smtp-login",
                                                help="The SMTP server takes mail without a login.")] = False,
    password_env: Annotated[str, typer.Option("--password-env", metavar="VAR",
                                              help="The environment variable that will hold the password.")]
    = DEFAULT_PASSWORD_ENV,
    smtp_password_env: Annotated[str | None, typer.Option("--smtp-password-env", metavar="VAR", show_default=False,
                                                          help="Another variable for the SMTP password "
                                                               "(default: the same as --password-env).")] = None,
    write_password: Annotated[bool, typer.Option("--write-password",
                                                 help="Ask for the password (not shown) and write it into the "
                                                      "file, which is then readable by you alone.")] = False,
    output: Annotated[Path, typer.Option("--output", "-o", metavar="FILE",
                                         help="The file to write.")] = DEFAULT_OUTPUT,
    force: Annotated[bool, typer.Option("--force", help="Replace FILE when it exists.")] = False,
) -> None:
    """Write a commented pbem.toml for your mail provider: asks for what the flags leave out."""
    if output.exists() and not force:
        fail(f"{output} exists; nothing was written. Give --force to replace it, or --output FILE.")
    for flag, variable in (("--password-env", password_env), ("--smtp-password-env", smtp_password_env)):
        if variable is not None and not _is_variable_name(variable):
            fail(f"{flag} must be an environment variable's name (letters, digits, '_'), not {variable!r}")
    given = _Given(provider, address, name, database, imap_host, imap_port, imap_security, smtp_host, smtp_port,
                   smtp_security, username, smtp_username)
    interactive = stdin_is_terminal()
    if interactive:
        _ask(given)
    else:
        _require(given)
    answers = _answers(given, no_smtp_login=no_smtp_login, password_env=password_env,
                       smtp_password_env=smtp_password_env or password_env)
    if url_has_password(answers.database) and not write_password:
        fail("--database holds a password, which would be written into the file: leave it out of the URL and "
             "set PBEM_DATABASE_URL (or PGPASSWORD) when running pbem, or give --write-password")
    if write_password:
        answers = _with_passwords(answers, interactive)
    text = render(answers)
    _check(text, answers, output)
    _write(output, text, private=answers.holds_secret, force=force)
    _next_steps(answers, output, write_password)


# --- asking ------------------------------------------------------------------------------------------------


def _ask(given: _Given) -> None:
    """Ask at the terminal for everything the flags left out, with the usual answer offered."""
    if given.address is None:
        given.address = typer.prompt("The moderator's address (a mailbox for pbem alone is best)",
                                     value_proc=_checked(_address_problem))
    if given.provider is None:
        echo("Providers:")
        for key, offered in PRESETS.items():
            echo(f"  {key:<9} {offered.title}")
        given.provider = typer.prompt("Provider", default=guess_provider(given.address or "") or "generic",
                                      value_proc=_checked(_one_of(tuple(PRESETS)), lowercase=True))
    chosen = _preset(given.provider)
    if given.name is None:
        given.name = typer.prompt("Display name in From", default=DEFAULT_MODERATOR_NAME)
    if given.database is None:
        given.database = typer.prompt("Database URL", default=DEFAULT_DATABASE_URL,
                                      value_proc=_checked(_database_problem))
    if chosen.imap.host is None:
        given.imap_host, given.imap_security, given.imap_port = _ask_server(
            "IMAP", given.imap_host, given.imap_security, given.imap_port, chosen.imap, IMAP_DEFAULT_PORTS)
        given.smtp_host, given.smtp_security, given.smtp_port = _ask_server(
            "SMTP", given.smtp_host, given.smtp_security, given.smtp_port, chosen.smtp, SMTP_DEFAULT_PORTS)
    if chosen.login is Login.ASK and given.username is None:
        given.username = typer.prompt("Login name", default=given.address)


def _ask_server(what: str, host: str | None, security: Security | None, port: int | None, usual: Endpoint,
                ports: dict[Security, int]) -> tuple[str, Security, int]:
    if host is None:
        host = str(typer.prompt(f"{what} server (host name)", value_proc=_checked(_host_problem)))
    if security is None:
        security = Security(typer.prompt(f"{what} security (none, starttls, ssl)", default=usual.security.value,
                                         value_proc=_checked(_one_of(tuple(s.value for s in Security)), lowercase=True)))
    if port is None:
        port = int(typer.prompt(f"{what} port", default=str(ports[security]), value_proc=_checked(_port_problem)))
    return host, security, port


def _checked(problem: Callable[[str], str | None], *, lowercase: bool = False) -> Callable[[str], str]:
    """A prompt's ``value_proc``: the answer stripped, or the question again with the problem said."""

    def proc(value: str) -> str:
        value = str(value).strip()
        trouble = problem(value)
        if trouble:
            raise typer.BadParameter(trouble)
        return value.lower() if lowercase else value

    return proc


def _require(given: _Given) -> None:
    """Without a terminal nothing can be asked: every missing flag is named at once, exit 2."""
    missing = [flag for flag, value in (("--provider", given.provider), ("--address", given.address))
               if value is None]
    if given.provider is not None and given.provider.strip().lower() == "generic":
        missing += [flag for flag, value in (("--imap-host", given.imap_host), ("--smtp-host", given.smtp_host))
                    if value is None]
    if missing:
        typer.echo(f"error: pbem init needs {', '.join(missing)} when it cannot ask (standard input is not a "
                   "terminal). Example: pbem init --provider gmail --address moderator@gmail.com", err=True)
        raise typer.Exit(EXIT_ERROR)


# --- from the answers to the file ---------------------------------------------------------------------------


def _answers(given: _Given, *, no_smtp_login: bool, password_env: str, smtp_password_env: str) -> InitAnswers:
    chosen = _preset(given.provider or "")
    address = (given.address or "").strip()
    trouble = _address_problem(address)
    if trouble:
        fail(f"--address: {trouble}")
    imap = _server("--imap", given.imap_host, given.imap_security, given.imap_port, chosen.imap, IMAP_DEFAULT_PORTS)
    smtp = _server("--smtp", given.smtp_host, given.smtp_security, given.smtp_port, chosen.smtp, SMTP_DEFAULT_PORTS)
    database = (given.database or "").strip() or DEFAULT_DATABASE_URL
    trouble = _database_problem(database)
    if trouble:
        fail(f"--database: {trouble}")
    login = (given.username or "").strip() or chosen.username_for(address)
    smtp_login = "" if no_smtp_login else ((given.smtp_username or "").strip() or login)
    return InitAnswers(
        preset=chosen, address=address, imap=imap, smtp=smtp,
        imap_login=Credentials(login, password_env),
        smtp_login=Credentials(smtp_login, smtp_password_env),
        name=(given.name or "").strip() or DEFAULT_MODERATOR_NAME,
        database=database,
    )


def _server(flag: str, host: str | None, security: Security | None, port: int | None, usual: Endpoint,
            ports: dict[Security, int]) -> Server:
    """The preset's server with the flags over it; a changed security brings its usual port along."""
    name = (host or "").strip() or usual.host
    if not name:
        fail(f"{flag}-host is needed for this provider")
    trouble = _host_problem(name)
    if trouble:
        fail(f"{flag}-host: {trouble}")
    mode = security or usual.security
    number = port or (usual.port if mode is usual.security else ports[mode])
    return Server(name, number, mode)


def _with_passwords(answers: InitAnswers, interactive: bool) -> InitAnswers:
    """Read the password(s) without echo: one for IMAP, a second only when SMTP logs in otherwise."""
    imap, smtp = answers.imap_login, answers.smtp_login
    imap_password = _read_password(f"Password of {imap.username} (not shown)", interactive)
    smtp_password: str | None = None
    if smtp.username and (smtp.username, smtp.password_env) != (imap.username, imap.password_env):
        smtp_password = _read_password(f"SMTP password of {smtp.username} (not shown)", interactive)
    elif smtp.username:
        smtp_password = imap_password
    return replace(answers, imap_login=replace(imap, password=imap_password),
                   smtp_login=replace(smtp, password=smtp_password))


def _read_password(question: str, interactive: bool) -> str:
    """At a terminal: asked twice, hidden. From a script: one line of standard input."""
    if interactive:
        value = str(typer.prompt(question, hide_input=True, confirmation_prompt=True))
    else:
        value = sys.stdin.readline().rstrip("\r\n")
    if not value:
        fail("--write-password: no password given (at a terminal type it; from a script give it on standard input)")
    return value


def _check(text: str, answers: InitAnswers, output: Path) -> None:
    """Parse the text as ``pbem.config`` will, before anything is written: a file init wrote always loads."""
    import tomllib

    variables = {login.password_env: "x" for login in (answers.imap_login, answers.smtp_login)}
    try:
        config = parse_config(tomllib.loads(text), output, variables)
        config.require_moderator()
        config.require_imap()
        config.require_smtp()
    except (ConfigError, tomllib.TOMLDecodeError) as exc:
        fail(f"nothing was written: {exc}")


def _write(path: Path, text: str, *, private: bool, force: bool) -> None:
    """Write ``text`` to ``path``, owner-only when ``private``; an existing file only with ``force``, atomically."""
    target = path if not force else path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        if private:
            if not create_private_file(target):
                raise FileExistsError(target)
            with target.open("w", encoding="utf-8") as handle:
                handle.write(text)
        else:
            with target.open("x", encoding="utf-8") as handle:
                handle.write(text)
        if force:
            os.replace(target, path)
    except FileExistsError:
        fail(f"{path} exists; nothing was written. Give --force to replace it, or --output FILE.")
    except OSError as exc:
        if force:
            target.unlink(missing_ok=True)
        fail(f"cannot write {path}: {exc.strerror or exc}")


def _next_steps(answers: InitAnswers, output: Path, wrote_password: bool) -> None:
    chosen = answers.preset
    config = shlex.quote(str(output))
    echo(f"Wrote {output} for {chosen.name}: IMAP {answers.imap.host}:{answers.imap.port} "
         f"({answers.imap.security}), SMTP {answers.smtp.host}:{answers.smtp.port} ({answers.smtp.security})"
         + (", readable by you alone (it holds a password)." if answers.holds_secret else "."))
    steps: list[str] = [f"At {chosen.name}: {step}." for step in chosen.first_steps]
    if not wrote_password:
        variables = dict.fromkeys(login.password_env for login in (answers.imap_login, answers.smtp_login)
                                  if login.username)
        what = "app password" if chosen.auth is Auth.APP_PASSWORD else "password"
        steps += [f"Put the {what} into {variable} without it landing in your shell's history: "
                  f"read -rs {variable} && export {variable}" for variable in variables]
    steps += [
        f"Check that pbem can log in: pbem --config {config} check",
        f"Send yourself a test mail: pbem --config {config} check --send-test you@example.org",
        f"Start a game: pbem --config {config} game new NAME --player ann:ann@example.org "
        "--player bob:bob@example.org",
        f"Run the moderator: pbem --config {config} run",
    ]
    for what, server in (("IMAP", answers.imap), ("SMTP", answers.smtp)):
        if server.security is Security.NONE and not _is_loopback(server.host):
            typer.echo(f"warning: {what} to {server.host} is not encrypted (security none): the password and the "
                       "players' mail cross the network readable by anyone on the way", err=True)
    echo("Next:")
    for number, step in enumerate(steps, start=1):
        echo(textwrap.fill(step, 78, initial_indent=f"  {number}. ", subsequent_indent="     ",
                           break_on_hyphens=False, break_long_words=False))


# --- checks -------------------------------------------------------------------------------------------------


def _preset(key: str) -> ProviderPreset:
    try:
        return preset(key)
    except KeyError as exc:
        fail(f"--provider: {exc.args[0]}")


def _address_problem(address: str) -> str | None:
    """Why ``address`` cannot be the moderator's, in pbem.config's own words; None when it can."""
    try:
        parse_config({"moderator": {"address": address}})
    except ConfigError as exc:
        return str(exc).removeprefix("configuration: ")
    return None


def _one_of(choices: tuple[str, ...]) -> Callable[[str], str | None]:
    """A check that the answer is one of ``choices``, upper or lower case."""

    def problem(value: str) -> str | None:
        return None if value.lower() in choices else f"one of {', '.join(choices)}, please"

    return problem


def _port_problem(value: str) -> str | None:
    return None if value.isdigit() and 0 < int(value) < 65536 else "a port number from 1 to 65535"


def _host_problem(host: str) -> str | None:
    if not host or any(c.isspace() or c in "/:@" for c in host):
        return f"a host name such as imap.example.org, not {host!r}"
    return None


def _is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine, where an unencrypted connection stays inside it."""
    import ipaddress

    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _is_variable_name(name: str) -> bool:
    return bool(name) and not name[0].isdigit() and all(c.isalnum() or c == "_" for c in name) and name.isascii()


def _database_problem(url: str) -> str | None:
    """Why ``url`` is no database URL (the store's own message, password masked); None when it is one."""
    try:
        normalise_url(url)
    except PbemError as exc:
        return str(exc)
    return None
