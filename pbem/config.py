"""Configuration: a TOML file (``--config FILE`` or ``PBEM_CONFIG``) read with ``tomllib`` into a typed ``Config``.

Sections (``config.example.toml`` lists every accepted key; anything else is an error, so a typo is
never silently ignored):

``[moderator]``  ``address`` (required in the section: From of every mail, ``local@host`` without '+';
                 replies go to ``local+TOKEN@host``), ``name`` (display name), ``game_master`` (an
                 address that gets alerts, optional)
``[database]``   ``url``
``[imap]``       as ``pbem.mail.settings.imap_settings`` accepts: host, port, security
                 (none|starttls|ssl), username, one of password, password_env and password_command,
                 auth (password|xoauth2), mailbox, processed_folder, failed_folder, timeout, poll_interval,
                 idle_refresh
``[smtp]``       as ``pbem.mail.settings.smtp_settings`` accepts: host, port, security, username,
                 one of password, password_env and password_command, auth, timeout, local_hostname
``[maildir]``    instead of ``[imap]``: a local Maildir as the inbox (``pbem.mail.settings.maildir_settings``:
                 path, processed_folder, failed_folder, poll_interval, fsync; a relative path is taken
                 from the config file's directory)
``[deadlines]``  hours per kind of decision (``rondel = 72``, ``bid = 24`` … any decision a game kind
                 names: ``pbem.store.settings.DEFAULT_DEADLINE_HOURS`` and each kind's ``deadline_hours``),
                 ``default`` (hours for every decision not named, of every kind), ``reminder_hours`` (a
                 list: remind that many hours before a deadline)
``[metrics]``    ``listen`` (``HOST:PORT``): where ``pbem run``, ``pbem lmtp`` and ``pbem poll`` show their
                 metrics to a monitor such as Prometheus (``pbem.daemon.metrics``); absent: nowhere
``[limits]``     ``max_message_bytes`` (larger mail is not read; the sender is told),
                 ``replies_per_sender_per_hour`` and ``replies_per_sender_per_day`` (direct replies to a
                 player's mail; 0: never reply), ``replies_to_strangers_per_hour`` (all replies to mail
                 without a seat's token, together) and ``replies_per_domain_per_hour`` (those to one
                 domain): see ``pbem.moderator.inbound.handler`` for who is charged what; ``max_mails_per_hour``
                 and ``max_mails_per_day`` (what the mail provider lets the account send; 0: no limit;
                 mail beyond waits in the outbox: ``pbem.daemon.sendlimits``), ``keep_sent_mail_days`` (a sent
                 mail's text is kept that long, then only who, when and what about; 0: for ever;
                 ``pbem.store.outbox.forget_sent_texts``), ``bounces_to_unreachable`` (hard bounces in a row
                 after which a seat is unreachable: ``pbem.moderator.inbound.bounces``; 0: never)
``[site]``       ``dir`` (the moderator writes every game's public pages there after each move:
                 ``pbem.moderator.site``; a relative path is taken from the config file's directory),
                 ``url`` (where that folder is served: seats' mail links to their game's page)
``[log]``        ``file``: where ``pbem run``, ``lmtp`` and ``poll`` write their log instead of standard error
                 (``--log-file`` wins; reopened on SIGHUP: ``pbem.daemon.logfile``; a relative path is
                 taken from the config file's directory)
``[senders]``    ``allow`` and ``deny``: lists of addresses (``x@y.org``) and domains (``spam.example``, its
                 subdomains too) that may, or may not, write to this moderator (``pbem.moderator.senders``)

Precedence for the database URL: ``--database URL``, then ``PBEM_DATABASE_URL``, then ``[database] url``,
then ``sqlite:///./pbem.db``.

Secrets: passwords (``password``, or better ``password_env`` naming an environment variable) live only
in the ``ImapSettings``/``SmtpSettings`` objects, whose ``repr`` hides them; the raw TOML is kept out of
``repr`` too, and no error message quotes a value of a password key. A ``password_command`` is not run
when the file is read, only at each login (``pbem.mail.credentials``): its output is never stored here.
A ``password_env`` whose variable is not set is not an error when the file is read (``pbem game list``
needs no mail password) but when the mail settings are asked for (``Config.require_imap`` /
``require_smtp``).
"""
from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem.errors import ConfigError
from pbem.games import KINDS
from pbem.mail.errors import MailConfigError
from pbem.mail.settings import (
    IMAP_KEYS,
    MAILDIR_KEYS,
    SMTP_KEYS,
    ImapSettings,
    SmtpSettings,
    imap_settings,
    maildir_settings,
    smtp_settings,
)
from pbem.store.settings import DEFAULT_DEADLINE_HOURS, DEFAULT_REMINDER_HOURS, FALLBACK_DECISION

DEFAULT_DATABASE_URL = "sqlite:///./pbem.db"
ENV_DATABASE_URL = "PBEM_DATABASE_URL"
ENV_CONFIG = "PBEM_CONFIG"

DEFAULT_MODERATOR_NAME = "Play-by-email moderator"
DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024
DEFAULT_REPLIES_PER_SENDER_PER_HOUR = 10

SECTIONS = ("moderator", "database", "imap", "maildir", "smtp", "deadlines", "limits", "site", "log", "metrics",
            "senders", "judge")
METRICS_KEYS = ("listen",)
MODERATOR_KEYS = ("address", "name", "game_master")
DATABASE_KEYS = ("url",)
LOG_KEYS = ("file",)
DEADLINE_KEYS = ("default", "reminder_hours", *DEFAULT_DEADLINE_HOURS)  # and every kind's decisions: decision_names()
DEFAULT_KEEP_SENT_MAIL_DAYS = 30
LIMIT_KEYS = ("max_message_bytes", "replies_per_sender_per_hour", "replies_per_sender_per_day",
              "replies_to_strangers_per_hour", "replies_per_domain_per_hour", "max_mails_per_hour", "max_mails_per_day",
              "keep_sent_mail_days", "bounces_to_unreachable")
SITE_KEYS = ("dir", "url")
SENDER_KEYS = ("allow", "deny")
DEFAULT_BOUNCES_TO_UNREACHABLE = 3
JUDGE_KEYS = ("creators", "open_create")


def accepted_keys() -> dict[str, tuple[str, ...]]:
    """Every key the reader accepts, per table: what config.example.toml must list (a test checks it)."""
    return {"moderator": MODERATOR_KEYS, "database": DATABASE_KEYS, "imap": IMAP_KEYS, "maildir": MAILDIR_KEYS,
            "smtp": SMTP_KEYS, "deadlines": (*DEADLINE_KEYS, *decision_names()), "limits": LIMIT_KEYS,
            "site": SITE_KEYS, "log": LOG_KEYS,
            "metrics": METRICS_KEYS, "senders": SENDER_KEYS, "judge": JUDGE_KEYS}


def decision_names() -> tuple[str, ...]:
    """The decisions of the registered game kinds beyond Imperial's defaults: keys ``[deadlines]`` accepts."""
    names: dict[str, None] = {}
    for kind in KINDS.values():
        names.update(dict.fromkeys(k for k in kind.info.deadline_hours if k not in DEFAULT_DEADLINE_HOURS))
    return tuple(names)


@dataclass(frozen=True)
class SiteSettings:
    """The games' public pages (``[site]``): the folder they are written to, and the address it is served at.

    ``dir`` alone: the pages are kept up to date and served by whatever the
    host likes; ``url`` alone: mail links to pages another process writes
    (``pbem site DIR`` from cron). Both empty is no site at all.
    """

    dir: Path | None = None
    url: str | None = None  # ends without '/': a game's page is f"{url}/games/<game>/"


@dataclass(frozen=True)
class JudgeSettings:
    """Who may create a game by mail (``CREATE``, ``pbem.moderator.inbound.judge``): the addresses in
    ``creators`` (lowercased) and the host's ``[moderator] game_master``; anyone when ``open_create``. Off by
    default: a game by mail costs the host mail to people it never met."""

    creators: frozenset[str] = frozenset()
    open_create: bool = False

    def may_create(self, address: str, game_master: str | None = None) -> bool:
        return self.open_create or self.named(address, game_master)

    def named(self, address: str, game_master: str | None = None) -> bool:
        """Whether the host named ``address`` (a creator, or the game master): trusted with more replies."""
        address = address.strip().lower()
        return address in self.creators or (game_master is not None and address == game_master.strip().lower())


@dataclass(frozen=True)
class ModeratorSettings:
    """Who the moderator is in mail: ``address`` (``local@host``, no '+'), a display ``name``; and what it
    publishes (``site``), which travels with it to every stage that tells a move (the pages refreshed after
    the mail is written, the link in the mail)."""

    address: str
    name: str = DEFAULT_MODERATOR_NAME
    game_master: str | None = None
    site: SiteSettings = field(default_factory=SiteSettings)

    @property
    def domain(self) -> str:
        """The host part: the right-hand side of our Message-IDs and List-Ids."""
        return self.address.rpartition("@")[2].lower()


@dataclass(frozen=True)
class DeadlineSettings:
    """Hours per kind of decision (the kinds' decision names) and reminder times before a deadline.

    ``default`` (when given) is the hours of every decision not named, of any
    game kind: a new game gets it for its kind's own decisions and as the
    fallback ``*`` for decisions its kind does not declare.
    """

    hours: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_DEADLINE_HOURS))
    reminder_hours: tuple[float, ...] = DEFAULT_REMINDER_HOURS
    default: float | None = None

    def for_kind(self, kind_hours: Mapping[str, float], decisions: Iterable[str]) -> dict[str, float]:
        """A new game's hours: the kind's own, the configured default over them, then the hours named of its
        ``decisions`` (the kind's).

        Only the kind's own decisions (and the fallback ``*``) are stored: the
        configuration names every kind's (``rondel`` beside ``bid``), and an hour
        stored for a decision the game never asks would make ``pbem game set``
        take a key of another game. A kind may leave its hours to the
        configuration (Imperial 2030: its decisions are the built-in
        ``[deadlines]`` keys), so the decisions, not ``kind_hours``, say which.
        """
        own = set(decisions)
        hours = dict(kind_hours)
        if self.default is not None:
            hours = {**dict.fromkeys(hours, self.default), FALLBACK_DECISION: self.default}
        return {**hours, **{name: value for name, value in self.hours.items() if name in own}}


@dataclass(frozen=True)
class Limits:
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    replies_per_sender_per_hour: int = DEFAULT_REPLIES_PER_SENDER_PER_HOUR
    replies_per_sender_per_day: int = 40
    replies_to_strangers_per_hour: int = 20
    replies_per_domain_per_hour: int = 5
    max_mails_per_hour: int = 0  # what the provider lets an account send; 0: no limit (pbem.daemon.sendlimits)
    max_mails_per_day: int = 0
    keep_sent_mail_days: int = DEFAULT_KEEP_SENT_MAIL_DAYS  # then a sent mail keeps its envelope only; 0: for ever
    bounces_to_unreachable: int = DEFAULT_BOUNCES_TO_UNREACHABLE  # hard bounces in a row; 0: a seat stays reachable


@dataclass(frozen=True)
class Senders:
    """``[senders]``: who may write to the moderator at all (addresses and domains, lowercased)."""

    allow: tuple[str, ...] = ()  # when not empty: only these
    deny: tuple[str, ...] = ()


@dataclass(frozen=True)
class MetricsSettings:
    """Where the daemon's processes show their metrics to a monitor (``pbem.daemon.metrics``)."""

    host: str
    port: int

    @property
    def listen(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def metrics_listen(value: Any, where: str = "configuration") -> MetricsSettings:
    """``HOST:PORT`` (``[::1]:9464`` for an IPv6 address) as :class:`MetricsSettings`."""
    text = value.strip() if isinstance(value, str) else ""
    host, _, port = text.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"{where}: [metrics] listen must be HOST:PORT, e.g. \"127.0.0.1:9464\", not {value!r}")
    return MetricsSettings(host, int(port))


@dataclass(frozen=True)
class Config:
    """The parsed configuration file (empty, with defaults, when there is none)."""

    path: Path | None = None
    data: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)
    database_url: str | None = None
    moderator: ModeratorSettings | None = None
    imap: ImapSettings | None = None
    smtp: SmtpSettings | None = None
    maildir: Any = None  # pbem.mail.settings.MaildirSettings when the inbox is a local Maildir
    deadlines: DeadlineSettings = field(default_factory=DeadlineSettings)
    limits: Limits = field(default_factory=Limits)
    site: SiteSettings = field(default_factory=SiteSettings)
    metrics: MetricsSettings | None = None  # None: no process listens for a monitor (the default)
    senders: Senders = field(default_factory=Senders)
    missing_secrets: Mapping[str, str] = field(default_factory=dict)  # section -> why its password is missing
    log_file: Path | None = None  # [log] file: where pbem run, lmtp and poll log (None: standard error)
    judge: JudgeSettings = field(default_factory=JudgeSettings)  # [judge]: who may create games by mail

    def section(self, name: str) -> Mapping[str, Any]:
        """The raw table ``[name]`` (empty when absent). Holds secrets: never log it."""
        value = self.data.get(name, {})
        if not isinstance(value, Mapping):
            raise ConfigError(f"{self._where()}: [{name}] must be a table")
        return value

    @property
    def mail_enabled(self) -> bool:
        """Whether games get mail: a moderator address and an SMTP relay are configured."""
        return self.moderator is not None and self.smtp is not None

    def require_moderator(self) -> ModeratorSettings:
        if self.moderator is None:
            raise ConfigError(f"{self._where()}: [moderator] address is needed for mail")
        return self.moderator

    @property
    def inbox_configured(self) -> bool:
        return self.imap is not None or self.maildir is not None

    def require_imap(self) -> ImapSettings:
        if self.imap is None:
            raise ConfigError(f"{self._where()}: no [imap] section: the moderator cannot read its mail")
        if "imap" in self.missing_secrets:
            raise ConfigError(self.missing_secrets["imap"])
        return self.imap

    def require_smtp(self) -> SmtpSettings:
        if self.smtp is None:
            raise ConfigError(f"{self._where()}: no [smtp] section: the moderator cannot send mail")
        if "smtp" in self.missing_secrets:
            raise ConfigError(self.missing_secrets["smtp"])
        return self.smtp

    def _where(self) -> str:
        return str(self.path) if self.path else "configuration"


def load_config(path: str | Path | None = None, env: Mapping[str, str] | None = None) -> Config:
    """Read the config file named by ``path`` or ``PBEM_CONFIG``; no file named means an empty config.

    A file that is named but missing is an error, never silently ignored.
    """
    env = os.environ if env is None else env
    named = path if path is not None else env.get(ENV_CONFIG) or None
    if named is None:
        return Config()
    source = Path(named).expanduser()
    try:
        data = tomllib.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {source}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {source}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    return parse_config(data, source, env)


def parse_config(data: Mapping[str, Any], source: Path | None = None,
                 env: Mapping[str, str] | None = None) -> Config:
    """A ``Config`` from already parsed TOML (``source`` names it in errors)."""
    env = os.environ if env is None else env
    where = str(source) if source else "configuration"
    unknown = sorted(set(data) - set(SECTIONS))
    if unknown:
        raise ConfigError(f"{where}: unknown section(s) {', '.join(unknown)}; known: {', '.join(SECTIONS)}")
    for name in SECTIONS:
        if name in data and not isinstance(data[name], Mapping):
            raise ConfigError(f"{where}: [{name}] must be a table")
    missing: dict[str, str] = {}
    try:
        imap = _mail_section(data, "imap", imap_settings, env, missing, where)
        smtp = _mail_section(data, "smtp", smtp_settings, env, missing, where)
        maildir = _maildir(data["maildir"], source) if "maildir" in data else None
    except MailConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    if imap is not None and maildir is not None:
        raise ConfigError(f"{where}: give [imap] or [maildir] (where the moderator's mail arrives), not both")
    site = _site(data.get("site", {}), source, where)
    return Config(
        path=source,
        data=data,
        database_url=_database_url(data.get("database", {}), where),
        moderator=_moderator(data["moderator"], where, site) if data.get("moderator") else None,  # empty: none
        imap=imap,
        smtp=smtp,
        maildir=maildir,
        deadlines=_deadlines(data.get("deadlines", {}), where),
        limits=_limits(data.get("limits", {}), where),
        site=site,
        metrics=_metrics(data.get("metrics", {}), where),
        senders=_senders(data.get("senders", {}), where),
        missing_secrets=missing,
        log_file=_log_file(data.get("log", {}), source, where),
        judge=_judge(data.get("judge", {}), where),
    )


def database_url(
    option: str | None = None,
    config_path: str | Path | None = None,
    env: Mapping[str, str] | None = None,
) -> str:
    """The database URL by the precedence above."""
    env = os.environ if env is None else env
    config = load_config(config_path, env)  # a named but broken file is an error even when overridden
    return resolve_database_url(config, option, env)


def resolve_database_url(config: Config, option: str | None = None, env: Mapping[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    if option:
        return option
    if env.get(ENV_DATABASE_URL):
        return env[ENV_DATABASE_URL]
    return config.database_url or DEFAULT_DATABASE_URL


# --- sections ------------------------------------------------------------------------------------------


def _reject_unknown(section: Mapping[str, Any], name: str, known: tuple[str, ...], where: str) -> None:
    unknown = sorted(set(section) - set(known))
    if unknown:
        raise ConfigError(f"{where}: [{name}] unknown setting(s) {', '.join(unknown)}; "
                          f"known: {', '.join(sorted(known))}")


def _database_url(section: Mapping[str, Any], where: str) -> str | None:
    _reject_unknown(section, "database", DATABASE_KEYS, where)
    url = section.get("url")
    if url is not None and (not isinstance(url, str) or not url.strip()):
        raise ConfigError(f"{where}: [database] url must be a non-empty string")
    return url


def _moderator(section: Mapping[str, Any], where: str, site: SiteSettings | None = None) -> ModeratorSettings:
    _reject_unknown(section, "moderator", MODERATOR_KEYS, where)
    address = section.get("address")
    if not isinstance(address, str) or not address.strip():
        raise ConfigError(f"{where}: [moderator] address is required (e.g. moderator@example.org)")
    address = address.strip()
    local, at, host = address.rpartition("@")
    if not at or not local or not host or "+" in local or any(c.isspace() or c in "<>,;\"" for c in address):
        raise ConfigError(f"{where}: [moderator] address must be local@host without '+', not {address!r}")
    name = section.get("name", DEFAULT_MODERATOR_NAME)
    if not isinstance(name, str) or "\n" in name or "\r" in name:
        raise ConfigError(f"{where}: [moderator] name must be a one-line string")
    game_master = section.get("game_master", "")
    if not isinstance(game_master, str) or (game_master.strip() and "@" not in game_master):
        raise ConfigError(f"{where}: [moderator] game_master must be an e-mail address")
    return ModeratorSettings(address, name.strip() or DEFAULT_MODERATOR_NAME, game_master.strip() or None,
                             site or SiteSettings())


def _site(section: Mapping[str, Any], source: Path | None, where: str) -> SiteSettings:
    _reject_unknown(section, "site", SITE_KEYS, where)
    folder, url = section.get("dir", ""), section.get("url", "")
    if not isinstance(folder, str):
        raise ConfigError(f"{where}: [site] dir must be a path (a string)")
    if not isinstance(url, str) or (url.strip() and not url.strip().startswith(("http://", "https://"))) \
            or any(c.isspace() or c in "<>\"'" for c in url.strip()):
        raise ConfigError(f"{where}: [site] url must be an http:// or https:// address, not {url!r}")
    path = Path(folder.strip()).expanduser() if folder.strip() else None
    if path is not None and not path.is_absolute() and source is not None:
        path = source.parent / path
    return SiteSettings(path, url.strip().rstrip("/") or None)


def _mail_section(data: Mapping[str, Any], name: str, parse: Any, env: Mapping[str, str],
                  missing: dict[str, str], where: str) -> Any:
    """Parse ``[imap]``/``[smtp]``; an unset ``password_env`` variable is remembered, not raised (see above)."""
    if name not in data:
        return None
    section = data[name]
    variable = section.get("password_env")
    if (isinstance(variable, str) and variable and variable not in env
            and "password" not in section and "password_command" not in section):
        missing[name] = (f"{where}: [{name}] the environment variable {variable} (password_env) is not set")
        env = {**env, variable: ""}
    return parse(section, env)


def _log_file(section: Mapping[str, Any], source: Path | None, where: str) -> Path | None:
    """``[log] file``: a path, taken from the config file's directory when relative."""
    _reject_unknown(section, "log", LOG_KEYS, where)
    value = section.get("file")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}: [log] file must be a path (a non-empty string)")
    path = Path(value).expanduser()
    return path if path.is_absolute() or source is None else source.parent / path


def _judge(section: Mapping[str, Any], where: str) -> JudgeSettings:
    _reject_unknown(section, "judge", JUDGE_KEYS, where)
    creators = section.get("creators", [])
    if not isinstance(creators, list) or not all(isinstance(c, str) and "@" in c for c in creators):
        raise ConfigError(f"{where}: [judge] creators must be a list of addresses, e.g. [\"ann@example.org\"]")
    open_create = section.get("open_create", False)
    if not isinstance(open_create, bool):
        raise ConfigError(f"{where}: [judge] open_create must be true or false")
    return JudgeSettings(frozenset(c.strip().lower() for c in creators), open_create)


def _maildir(section: Mapping[str, Any], source: Path | None) -> Any:
    return maildir_settings(section, base=source.parent if source is not None else None)


def _number(value: Any, key: str, section: str, where: str, *, integer: bool = False, zero: bool = False) -> Any:
    kinds = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or value < 0 or (value == 0 and not zero):
        what = "a whole number" if integer else "a number"
        raise ConfigError(f"{where}: [{section}] {key} must be {what} {'>= 0' if zero else '> 0'}, not {value!r}")
    return value


def _deadlines(section: Mapping[str, Any], where: str) -> DeadlineSettings:
    known = DEADLINE_KEYS if set(section) <= set(DEADLINE_KEYS) else (*DEADLINE_KEYS, *decision_names())
    _reject_unknown(section, "deadlines", known, where)
    hours = dict(DEFAULT_DEADLINE_HOURS)
    default = None
    if "default" in section:
        default = float(_number(section["default"], "default", "deadlines", where))
        hours = dict.fromkeys(hours, default)
    for kind in section:
        if kind not in ("default", "reminder_hours"):
            hours[kind] = float(_number(section[kind], kind, "deadlines", where))
    reminders = section.get("reminder_hours", list(DEFAULT_REMINDER_HOURS))
    if isinstance(reminders, int | float) and not isinstance(reminders, bool):
        reminders = [reminders]
    if not isinstance(reminders, list):
        raise ConfigError(f"{where}: [deadlines] reminder_hours must be a list of hours, e.g. [24, 2]")
    reminder_hours = tuple(sorted((float(_number(h, "reminder_hours", "deadlines", where)) for h in reminders),
                                  reverse=True))
    return DeadlineSettings(hours, reminder_hours, default)


def _limits(section: Mapping[str, Any], where: str) -> Limits:
    _reject_unknown(section, "limits", LIMIT_KEYS, where)
    size = _number(section.get("max_message_bytes", DEFAULT_MAX_MESSAGE_BYTES), "max_message_bytes", "limits",
                   where, integer=True)
    counts = {key: _number(section.get(key, getattr(Limits, key)), key, "limits", where, integer=True, zero=True)
              for key in LIMIT_KEYS if key != "max_message_bytes"}
    return Limits(size, **counts)


def _metrics(section: Mapping[str, Any], where: str) -> MetricsSettings | None:
    _reject_unknown(section, "metrics", METRICS_KEYS, where)
    return metrics_listen(section["listen"], where) if "listen" in section else None


def _senders(section: Mapping[str, Any], where: str) -> Senders:
    _reject_unknown(section, "senders", SENDER_KEYS, where)
    lists: dict[str, tuple[str, ...]] = {}
    for key in SENDER_KEYS:
        value = section.get(key, [])
        if not isinstance(value, list) or not all(isinstance(entry, str) and entry.strip() for entry in value):
            raise ConfigError(f'{where}: [senders] {key} must be a list of addresses and domains, '
                              f'e.g. ["spam.example", "x@y.org"]')
        lists[key] = tuple(entry.strip().lower().lstrip("@") for entry in value)
    return Senders(**lists)
