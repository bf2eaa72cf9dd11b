"""The mail server's commands: ``pbem run``, ``pbem lmtp``, ``pbem poll --once``, ``pbem check``, ``pbem inbox``.

``run``, ``lmtp`` and ``poll`` log to standard error, or to the file of
``--log-file`` (``[log] file``), as text, or as JSON lines with
``--log-format json`` (``pbem.daemon.logformat``); ``run`` and ``lmtp``
reopen that file on SIGHUP, and without one log SIGHUP and carry on
(``pbem.daemon.logfile``). Exit codes: 0
done; 1 a server or the database could not be used (``poll``: the inbox could
not be read or the outbox could not be delivered; nothing is lost, the next
run goes on; ``check``: a server does not work); 2 a usage or configuration
error.
"""
from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from pbem.cli.base import app, fail, handled, options_of
from pbem.cli.check import check_mail
from pbem.cli.roundtrip import round_trip
from pbem.config import Config, MetricsSettings, load_config, metrics_listen
from pbem.daemon.heartbeat import Heartbeat
from pbem.daemon.lmtp import LmtpHandler, start_lmtp
from pbem.daemon.logfile import Hangup, ReopenedFile
from pbem.daemon.logformat import FORMATS, JsonLines, quiet_libraries
from pbem.daemon.loop import MailFlow, deadline_task, default_inbox_factory, forgetting_task
from pbem.daemon.metrics import CannotServeMetrics, registry_for, serve_metrics
from pbem.daemon.service import Daemon, poll_once
from pbem.daemon.workers import Appliers, QueueListener, Sender
from pbem.errors import ConfigError
from pbem.moderator.notify import pictures
from pbem.privatefiles import exposure_warnings
from pbem.render.env import warm_up_soon
from pbem.store.inqueue import counts, failed_messages, retry_failed

EXIT_UNAVAILABLE = 1
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

# The options that run, lmtp and poll share.
LogLevel = Annotated[str, typer.Option("--log-level", metavar="LEVEL", help="DEBUG, INFO, WARNING or ERROR.")]
LogFormat = Annotated[str, typer.Option("--log-format", metavar="FORMAT",
                                        help="text, or json: one JSON object per line (journald, log shippers).")]
LogFile = Annotated[Path | None, typer.Option(
    "--log-file", metavar="PATH", dir_okay=False,
    help="Append the log to this file instead of standard error ([log] file); reopened on SIGHUP (logrotate).")]
MetricsListen = Annotated[str | None, typer.Option(
    "--metrics-listen", metavar="HOST:PORT",
    help="Serve metrics for a monitor here (overrides [metrics] listen; 'off': not at all).")]
OutboxInterval = Annotated[float, typer.Option(
    "--outbox-interval", metavar="SECONDS", min=1.0,
    help="Deliver the outbox at least this often (mail queued by other commands).")]


def _config(ctx: typer.Context, *, inbox: bool = True, smtp: bool = True) -> Config:
    config = load_config(options_of(ctx).config)
    if config.path is None:
        fail("no configuration file: give --config FILE (before the command) or set PBEM_CONFIG "
             "(see config.example.toml)")
    config.require_moderator()
    if inbox and config.imap is not None and config.maildir is None:  # no inbox at all: mail comes by LMTP
        config.require_imap()
    if smtp:
        config.require_smtp()
    return config


def _logging(level: str, log_format: str = "text", log_file: Path | None = None) -> ReopenedFile | None:
    """The log on standard error, or appended to ``log_file``: text lines for people, or JSON lines
    (``pbem.daemon.logformat``). The file's handler is returned, for SIGHUP to reopen it."""
    value = getattr(logging, level.upper(), None)
    if not isinstance(value, int):
        fail(f"--log-level must be one of DEBUG, INFO, WARNING, ERROR, not {level!r}")
    if log_format.lower() not in FORMATS:
        fail(f"--log-format must be text or json, not {log_format!r}")
    file = None
    if log_file is not None:
        try:
            file = ReopenedFile(log_file)
        except OSError as exc:
            fail(f"cannot open the log file {log_file}: {exc.strerror or exc}")
    handler: logging.Handler = file if file is not None else logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLines() if log_format.lower() == "json" else logging.Formatter(LOG_FORMAT))
    logging.basicConfig(level=value, handlers=[handler], force=True)
    quiet_libraries(value)  # their own logs would show reply tokens (aiosmtpd, imapclient) or only chatter
    return file


def _service_logging(config: Config, level: str, log_format: str, log_file: Path | None) -> None:
    """The log of a service (``run``, ``lmtp``): as :func:`_logging`, and SIGHUP reopens its file, or is
    logged and ignored without one (by default it would end the moderator)."""
    Hangup(_logging(level, log_format, log_file or config.log_file)).install()


def _flow(ctx: typer.Context, config: Config, *, use_idle: bool | None = None) -> MailFlow:
    moderator = options_of(ctx).moderator()
    _warn_if_exposed(config, moderator.db.sqlite_path)
    tasks = [task for task in (deadline_task(config, moderator.db), forgetting_task(config, moderator.db)) if task]
    flow = MailFlow(config, moderator.db, moderator=moderator, tasks=tasks)
    if use_idle is False:
        flow.inbox_factory = default_inbox_factory(config, flow.ssl_context, use_idle=False)
    return flow


def _metrics_settings(config: Config, option: str | None) -> MetricsSettings | None:
    """Where this process serves its metrics: ``--metrics-listen``, else ``[metrics] listen``, else nowhere."""
    if option is None:
        return config.metrics
    if option.strip().lower() == "off":
        return None
    try:
        return metrics_listen(option, "--metrics-listen")
    except ConfigError as exc:
        fail(str(exc).replace("--metrics-listen: [metrics] listen", "--metrics-listen"))


@contextmanager
def _metrics(settings: MetricsSettings | None, flow: MailFlow, *, required: bool = True) -> Iterator[None]:
    """The metrics page (``pbem.daemon.metrics``) while the block runs, when ``settings`` name an address.

    A daemon that cannot serve it stops at once (an error; a monitor that sees nothing must not be the first
    to notice); ``pbem poll`` (not ``required``) says so and goes on: its mail matters more than its page, and
    a ``pbem run`` on the same host most likely holds the address."""
    server = None
    if settings is not None:
        registry = registry_for(flow.db, flow.config.limits, flow.outages, flow.clock)
        try:
            server = serve_metrics(settings, registry)
        except CannotServeMetrics as exc:
            if required:
                raise
            logging.getLogger("pbem").warning("%s; this pass goes on without it", exc)
    try:
        yield
    finally:
        if server is not None:
            server.stop()


def _warn_if_exposed(config: Config, database: Path | None) -> None:
    """At start: say which file holding tokens other users can read (see ``pbem.privatefiles``)."""
    paths = [p for p in (database, config.maildir.path if config.maildir is not None else None) if p is not None]
    for warning in exposure_warnings(paths):
        logging.getLogger("pbem").warning(warning)


class _ErrorsLogged(logging.Handler):
    """Counts the errors logged during a pass, so that ``pbem poll`` does not print them a second time."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


@app.command("run")
@handled
def run_command(
    ctx: typer.Context,
    log_level: LogLevel = "INFO",
    log_format: LogFormat = "text",
    log_file: LogFile = None,
    outbox_interval: OutboxInterval = 60.0,
    no_idle: Annotated[bool, typer.Option("--no-idle", help="Poll even when the IMAP server offers IDLE.")] = False,
    workers: Annotated[int, typer.Option("--workers", metavar="N", min=1, max=64,
                                         help="Threads handling received mail, several games at once "
                                              "(1: the reader handles it itself).")] = 1,
    metrics_listen: MetricsListen = None,
) -> None:
    """Run the moderator: read mail as it arrives (IMAP IDLE, else polling), answer it, deliver the outbox.

    Any number of `pbem run` processes may share one database: one reads the
    inbox, all handle what it received. Without [imap] or [maildir], mail
    comes by LMTP (`pbem lmtp`): it handles what that queued. Stops cleanly
    on SIGTERM or Ctrl-C. Logs go to standard error, or to --log-file (reopened on SIGHUP).
    """
    config = _config(ctx)
    metrics = _metrics_settings(config, metrics_listen)
    _service_logging(config, log_level, log_format, log_file)
    flow = _flow(ctx, config, use_idle=False if no_idle else None)
    with _metrics(metrics, flow):
        _serve(Daemon(flow, outbox_interval=outbox_interval, read_inbox=flow.has_inbox), workers, "run")


def _serve(daemon: Any, workers: int, role: str, before: Callable[[], None] = lambda: None) -> None:
    """Run ``daemon`` with ``workers`` handling the queue (1: inline), until SIGTERM or Ctrl-C; its heartbeat
    (``role``) is written from the moment it serves until it stops."""
    flow = daemon.flow
    heartbeat = Heartbeat(flow.db, role, flow.clock, describe=daemon.describe)
    appliers = None
    sender = Sender(flow, daemon.outbox_interval)
    flow.on_sending(sender.wake)
    sender.start()
    listener = QueueListener(flow) if QueueListener.wanted(flow) else None
    if listener is not None:
        listener.start()
    if workers > 1 or not daemon.read_inbox:
        flow.apply_inline = False
        appliers = Appliers(flow, workers)
        flow.on_queued(appliers.wake)
        appliers.start()
    daemon.install_signal_handlers()
    pictures.start()
    warm_up_soon()  # every template compiled now, not while the first orders wait (pbem.render.env)
    try:
        before()
        heartbeat.start()
        daemon.run()
    finally:
        heartbeat.stop()
        if appliers is not None:
            appliers.stop()
        pictures.stop()  # after the handlers, which may be waiting for a picture
        if listener is not None:
            listener.stop()
        sender.stop()


@app.command("lmtp")
@handled
def lmtp_command(
    ctx: typer.Context,
    listen: Annotated[str, typer.Option("--listen", metavar="HOST:PORT",
                                        help="Where to take LMTP connections (keep it local or private).")]
    = "127.0.0.1:8024",
    workers: Annotated[int, typer.Option("--workers", metavar="N", min=1, max=64,
                                         help="Threads handling received mail.")] = 2,
    log_level: LogLevel = "INFO",
    log_format: LogFormat = "text",
    log_file: LogFile = None,
    outbox_interval: OutboxInterval = 60.0,
    metrics_listen: MetricsListen = None,
) -> None:
    """Take mail from your mail server over LMTP (Postfix, Exim), answer it, deliver the outbox.

    Each mail is stored before the server is told it arrived, so nothing is
    lost; no IMAP mailbox is read. See docs/hosting.md for the Postfix lines.
    """
    host, _, port_text = listen.rpartition(":")
    if not host or not port_text.isdigit():
        fail(f"--listen must be HOST:PORT, not {listen!r}")
    config = _config(ctx, inbox=False)
    metrics = _metrics_settings(config, metrics_listen)
    _service_logging(config, log_level, log_format, log_file)
    flow = _flow(ctx, config)
    daemon = Daemon(flow, outbox_interval=outbox_interval, read_inbox=False)
    servers = []

    def listen_now() -> None:
        handler = LmtpHandler(flow.db, config, flow.clock, flow.wake_workers, flow.outages)
        servers.append(start_lmtp(handler, host.strip("[]"), int(port_text)))
        daemon.listening = f"takes mail by LMTP on {listen}"

    try:
        with _metrics(metrics, flow):
            _serve(daemon, workers, "lmtp", listen_now)
    finally:
        for server in servers:
            server.stop()


@app.command("poll")
@handled
def poll_command(
    ctx: typer.Context,
    once: Annotated[bool, typer.Option("--once", help="One pass, then exit: the default (accepted for cron lines "
                                                      "that give it).")] = True,
    log_level: LogLevel = "WARNING",
    log_format: LogFormat = "text",
    log_file: LogFile = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing when all went well.")] = False,
    metrics_listen: MetricsListen = None,
) -> None:
    """For cron: read the inbox once, answer what came, check deadlines, deliver the outbox once, exit.

    Without [imap] or [maildir], mail comes by LMTP: what `pbem lmtp` queued is answered.
    """
    config = _config(ctx)
    metrics = _metrics_settings(config, metrics_listen)
    _logging(log_level, log_format, log_file or config.log_file)
    errors = _ErrorsLogged()
    logging.getLogger().addHandler(errors)
    try:
        flow = _flow(ctx, config)
        heartbeat = Heartbeat(flow.db, "poll", flow.clock, describe=lambda: "one pass: the inbox, the deadlines, "
                                                                            "the outbox")
        heartbeat.start()
        try:
            with _metrics(metrics, flow, required=False):
                report = poll_once(flow)
        finally:
            heartbeat.stop()
    finally:
        logging.getLogger().removeHandler(errors)
    inbox = report.inbox  # --quiet: nothing when all went well (cron mails whatever a command prints)
    if inbox is not None and (not quiet or inbox.failed):
        counts: dict[str, int] = {}
        for outcome in inbox.outcomes:
            counts[outcome.outcome] = counts.get(outcome.outcome, 0) + 1
        detail = ", ".join(f"{n} {what}" for what, n in sorted(counts.items()))
        handled = (f"inbox: {inbox.handled} message(s) handled" if report.read_inbox else
                   f"inbox: none, mail comes by LMTP; {inbox.handled} queued message(s) handled")
        typer.echo(handled + (f" ({detail})" if detail else "")
                   + (f", {len(inbox.failed)} moved to the failed folder" if inbox.failed else ""))
    out = report.outbox
    if not quiet or out.failed or out.retried or out.unavailable:
        typer.echo(f"outbox: {out.sent} sent, {out.failed} failed, {out.retried + out.waiting} waiting"
                   + (f" (not sent: {out.unavailable})" if out.unavailable else "")  # it names the relay or the database
                   + (f" (held: {out.held})" if out.held else ""))
    if not errors.count:  # each problem is logged where it happens: say it here only if the log did not
        for problem in report.problems:
            if log_format.lower() == "json":  # standard error holds JSON lines only
                logging.getLogger("pbem").error("%s", problem)
            else:
                typer.echo(f"error: {problem}", err=True)
    if not report.ok:
        raise typer.Exit(EXIT_UNAVAILABLE)


@app.command("check")
@handled
def check_command(
    ctx: typer.Context,
    send_test: Annotated[str | None, typer.Option(
        "--send-test", metavar="ADDRESS",
        help="Also send a mail to the moderator's own plus-address, wait for it in the inbox and move it, "
             "then send a test mail to ADDRESS (yours). Exit 0 only if the whole round trip works.")] = None,
    wait: Annotated[float, typer.Option("--wait", metavar="SECONDS", min=1.0,
                                        help="How long to wait for the test mail to arrive.")] = 120.0,
) -> None:
    """Connect to the IMAP and SMTP servers of the configuration and say what works (changes nothing).

    With --send-test, one test mail goes to the moderator itself and one to ADDRESS.
    """
    config = load_config(options_of(ctx).config)
    if config.path is None:
        fail("no configuration file: give --config FILE (before the command) or set PBEM_CONFIG")
    if send_test is not None and not config.inbox_configured:
        fail("--send-test waits for its mail in the moderator's inbox, and here mail comes by LMTP: send a mail "
             "to the moderator's plus-address yourself while pbem lmtp runs, and see its log")
    try:
        moderator = config.require_moderator()
        typer.echo(f"moderator: {moderator.name} <{moderator.address}>; players reply to "
                   f"{moderator.address.replace('@', '+<token>@')}")
    except ConfigError as exc:
        typer.echo(f"FAIL  {exc}")
    report = check_mail(config)
    for line in report.text():
        typer.echo(line)
    typer.echo(report.verdict())
    if not report.ok:
        raise typer.Exit(EXIT_UNAVAILABLE)
    if send_test is not None:
        _send_test(config, send_test, wait)


def _send_test(config: Config, address: str, wait: float) -> None:
    if "@" not in address or address.count("@") != 1 or any(c.isspace() for c in address):
        fail(f"--send-test wants one mail address, not {address!r}")
    typer.echo("Round trip: a mail to the moderator's own plus-address, as a player's reply travels ...")
    trip = round_trip(config, address, wait=wait)
    for line in trip.text():
        typer.echo(line)
    typer.echo("The round trip works: invite your friends." if trip.ok else "The round trip does NOT work.")
    if not trip.ok:
        raise typer.Exit(EXIT_UNAVAILABLE)


inbox_app = typer.Typer(help="Received mail waiting to be handled, and mail whose handling failed (set aside).",
                        no_args_is_help=False, invoke_without_command=True)
app.add_typer(inbox_app, name="inbox")


@inbox_app.callback()
@handled
def inbox_command(ctx: typer.Context) -> None:
    """Show how much received mail waits, and each message set aside (its handling failed)."""
    if ctx.invoked_subcommand is not None:
        return
    db = options_of(ctx).moderator().db
    with db.transaction() as session:
        waiting, kept = counts(session), failed_messages(session)
    typer.echo(f"queue: {waiting.get('waiting', 0)} waiting, {waiting.get('claimed', 0)} being handled, "
               f"{waiting.get('failed', 0)} set aside")
    for row in kept:
        typer.echo(f"  #{row.id} {row.message_key} ({row.source}, received {row.received:%Y-%m-%d %H:%M}): "
                   f"{row.last_error.splitlines()[0] if row.last_error else 'failed'}")
    if kept:
        typer.echo("Try them again with: pbem inbox retry [ID]")


@inbox_app.command("retry")
@handled
def inbox_retry_command(ctx: typer.Context,
                        message: Annotated[int | None, typer.Argument(metavar="[ID]", help="One message "
                                                                      "(default: every one set aside).")] = None,
                        ) -> None:
    """Put messages set aside back in line: the next pass of `pbem run` or `pbem poll` handles them again."""
    db = options_of(ctx).moderator().db
    with db.transaction() as session:
        number = retry_failed(session, message)
    if message is not None and number == 0:
        fail(f"no message #{message} is set aside (see: pbem inbox)")
    typer.echo(f"{number} message(s) back in line")
