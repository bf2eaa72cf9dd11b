"""The metrics page (``[metrics] listen``): what a monitor scrapes from ``pbem lmtp``, ``pbem run`` and
``pbem poll``, read over HTTP and parsed with ``prometheus_client``'s own parser, as Prometheus reads it.

What must hold: a game played by mail moves the counts (mails handled, mails
sent, the order-to-mail latency) and leaves the queue and the outbox empty;
the shared figures come from the database, so any process shows them; a relay
or a database that cannot be reached shows as down; nothing listens unless
asked; no token, address, password or game name is ever on the page.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import generate_latest
from prometheus_client.openmetrics.parser import text_string_to_metric_families as openmetrics_families
from prometheus_client.parser import text_string_to_metric_families
from typer.testing import CliRunner

from pbem.cli import app
from pbem.cli import mailserver as mailserver_module
from pbem.config import Limits, MetricsSettings, load_config
from pbem.counters import REGISTRY, Answers, move_key
from pbem.daemon import MailFlow
from pbem.daemon.metrics import CannotServeMetrics, registry_for, serve_metrics
from pbem.daemon.outages import Outages
from pbem.errors import ConfigError
from pbem.store import Database
from tests.loopback import free_port, lmtp_delivered
from tests.mailflowkit import PLAYERS, Table, config_for, wait_until
from tests.smtpservers import SmtpServer

ROOT = Path(__file__).resolve().parents[2]
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def parse(text: str) -> Samples:
    """Every sample of a page: (name, its labels sorted) -> value."""
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def value(samples: Samples, name: str, **labels: str) -> float:
    """A sample's value; 0 when the series is not there yet (a counter's label set not seen so far)."""
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def scrape(port: int, accept: str | None = None) -> str:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/metrics", headers={"Accept": accept} if accept else {})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return str(answer.read().decode("utf-8"))


def answers(port: int) -> bool:
    try:
        scrape(port)
        return True
    except OSError:
        return False


def config_text(url: str, smtpd: SmtpServer, metrics: int | None) -> str:
    text = (f'[moderator]\naddress = "pbem@games.test"\n\n[database]\nurl = "{url}"\n\n'
            f'[smtp]\nhost = "{smtpd.host}"\nport = {smtpd.port}\nsecurity = "none"\n')
    return text + (f'\n[metrics]\nlisten = "127.0.0.1:{metrics}"\n' if metrics is not None else "")


# --- a real daemon, played by mail ----------------------------------------------------------------------


@pytest.fixture
def lmtp_daemon(tmp_path: Path, smtpd: SmtpServer) -> Iterator[tuple[Table, int, int, subprocess.Popen[str]]]:
    """``pbem lmtp`` with ``[metrics] listen`` on a free port, one game of two created (its welcomes sent)."""
    url = f"sqlite:///{tmp_path / 'metrics.db'}"
    metrics, lmtp = free_port(), free_port()
    config = tmp_path / "pbem.toml"
    config.write_text(config_text(url, smtpd, metrics))
    table = Table(Database(url), config_for(smtp={"host": smtpd.host, "port": smtpd.port, "security": "none"}))
    table.create(players=2, now=datetime.now(UTC))
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "PBEM_CONFIG": "", "PBEM_DATABASE_URL": ""}
    process = subprocess.Popen([sys.executable, "-m", "pbem.cli", "--config", str(config), "lmtp", "--listen",
                                f"127.0.0.1:{lmtp}", "--outbox-interval", "1"], cwd=ROOT, env=environment,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: len(smtpd.received) >= 2, what="the welcomes")
        wait_until(lambda: answers(metrics), what="the metrics page")
        yield table, lmtp, metrics, process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()
        table.db.dispose()


@pytest.mark.slow
def test_a_game_played_by_mail_moves_the_counts_of_pbem_lmtps_page(
        lmtp_daemon: tuple[Table, int, int, subprocess.Popen[str]], smtpd: SmtpServer) -> None:
    table, lmtp, metrics, _ = lmtp_daemon
    wait_until(lambda: value(parse(scrape(metrics)), "pbem_outbox_mails", state="sent_recently") >= 2)
    before = parse(scrape(metrics))
    orders = 3
    for number in range(1, orders + 1):
        player, order = table.an_order()
        mails = len(smtpd.received)
        assert lmtp_delivered(lmtp, table.mail_from(player, order + "\n"), table.reply_to(player))
        wait_until(lambda n=number: table.log_length() == n)  # bound per order
        wait_until(lambda m=mails: len(smtpd.received) > m)
    wait_until(lambda: value(parse(scrape(metrics)), "pbem_order_to_mail_seconds_count") - value(
        before, "pbem_order_to_mail_seconds_count") >= orders)
    sent = len(smtpd.received)
    wait_until(lambda: value(parse(scrape(metrics)), "pbem_outbox_mails", state="due") == 0)
    after = parse(scrape(metrics))

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("pbem_mails_handled_total", kind="imperial2030", outcome="applied") == orders
    assert moved("pbem_mails_handled_total", kind="imperial2030", outcome="refused") == 0
    assert moved("pbem_order_to_mail_seconds_count") == orders  # the first answer of each order, once
    assert value(after, "pbem_order_to_mail_seconds_bucket", le="+Inf") == value(after,
                                                                                 "pbem_order_to_mail_seconds_count")
    assert value(after, "pbem_mails_sent_total", kind="imperial2030") == sent  # every mail was of the game
    assert value(after, "pbem_inbound_queue_messages", state="waiting") == 0
    assert value(after, "pbem_inbound_queue_messages", state="claimed") == 0
    assert value(after, "pbem_inbound_queue_oldest_age_seconds") == 0
    assert value(after, "pbem_inbound_set_aside_messages") == 0
    assert value(after, "pbem_outbox_mails", state="sent_recently") == sent
    assert value(after, "pbem_outbox_mails", state="failed") == 0
    assert value(after, "pbem_database_up") == 1 and value(after, "pbem_relay_up") == 1
    assert value(after, "pbem_send_failures_total", failure="permanent") == 0


@pytest.mark.slow
def test_the_page_names_no_token_address_or_game(
        lmtp_daemon: tuple[Table, int, int, subprocess.Popen[str]], smtpd: SmtpServer) -> None:
    table, lmtp, metrics, _ = lmtp_daemon
    player, order = table.an_order()
    tokens = [table.token(name) for name, _ in PLAYERS[:2]]
    assert lmtp_delivered(lmtp, table.mail_from(player, order + "\n"), table.reply_to(player))
    wait_until(lambda: value(parse(scrape(metrics)), "pbem_mails_handled_total", kind="imperial2030",
                             outcome="applied") == 1)
    page = scrape(metrics) + scrape(metrics, "application/openmetrics-text")
    secrets = [*tokens, *(address for _, address in PLAYERS), "pbem@games.test", "games.test", table.name + "\"",
               str(smtpd.port)]
    assert [secret for secret in secrets if secret in page] == []


@pytest.mark.slow
def test_a_scraper_that_asks_for_openmetrics_gets_it(
        lmtp_daemon: tuple[Table, int, int, subprocess.Popen[str]]) -> None:
    _, _, metrics, _ = lmtp_daemon
    request = urllib.request.Request(f"http://127.0.0.1:{metrics}/metrics",
                                     headers={"Accept": "application/openmetrics-text; version=1.0.0"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        kind = answer.headers["Content-Type"]
        text = answer.read().decode("utf-8")
    assert kind.startswith("application/openmetrics-text")
    families = {family.name: family for family in openmetrics_families(text)}  # the strict parser: it must pass
    assert families["pbem_mails_sent"].type == "counter"
    assert families["pbem_order_to_mail_seconds"].type == "histogram"
    assert families["pbem_inbound_queue_messages"].type == "gauge"


@pytest.mark.slow
def test_pbem_run_serves_the_page_too(tmp_path: Path, smtpd: SmtpServer) -> None:
    """``pbem run`` (here without an inbox: it handles what LMTP queues, the deadlines and the outbox)."""
    url = f"sqlite:///{tmp_path / 'run.db'}"
    metrics = free_port()
    config = tmp_path / "pbem.toml"
    config.write_text(config_text(url, smtpd, metrics))
    table = Table(Database(url), config_for(smtp={"host": smtpd.host, "port": smtpd.port, "security": "none"}))
    table.create(players=2, now=datetime.now(UTC))
    welcomes = len(table.outbox())
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "PBEM_CONFIG": "", "PBEM_DATABASE_URL": ""}
    process = subprocess.Popen([sys.executable, "-m", "pbem.cli", "--config", str(config), "run",
                                "--outbox-interval", "1"], cwd=ROOT, env=environment,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: answers(metrics), what="the metrics page")
        wait_until(lambda: value(parse(scrape(metrics)), "pbem_mails_sent_total", kind="imperial2030") == welcomes)
        page = parse(scrape(metrics))
        assert value(page, "pbem_database_up") == 1 and value(page, "pbem_outbox_mails", state="due") == 0
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
        table.db.dispose()
    assert process.returncode == 0, stderr
    assert f"metrics served on http://127.0.0.1:{metrics}/metrics" in stderr
    assert not answers(metrics)


# --- pbem poll, and nothing unless asked ----------------------------------------------------------------


def _poll(tmp_path: Path, smtpd: SmtpServer, monkeypatch: pytest.MonkeyPatch, metrics: int | None, look_at: int,
          option: tuple[str, ...] = ()) -> tuple[Any, list[bool]]:
    """``pbem poll`` of a config with or without ``[metrics]``: whether ``look_at`` answered during its pass."""
    url = f"sqlite:///{tmp_path / 'poll.db'}"
    config = tmp_path / "pbem.toml"
    config.write_text(config_text(url, smtpd, metrics))
    table = Table(Database(url), load_config(config, {}))
    table.create(players=2, now=datetime.now(UTC))
    seen: list[bool] = []
    real = mailserver_module.poll_once

    def looking(flow: MailFlow) -> Any:
        seen.append(answers(look_at))
        return real(flow)

    monkeypatch.setattr(mailserver_module, "poll_once", looking)
    result = CliRunner().invoke(app, ["--config", str(config), "poll", *option],
                                env={"PBEM_CONFIG": "", "PBEM_DATABASE_URL": ""})
    table.db.dispose()
    return result, seen


def test_pbem_poll_serves_the_page_during_its_pass(tmp_path: Path, smtpd: SmtpServer,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    port = free_port()
    result, seen = _poll(tmp_path, smtpd, monkeypatch, port, port)
    assert result.exit_code == 0, result.output
    assert seen == [True]
    assert not answers(port)  # and stops with the pass


def test_without_a_metrics_section_nothing_listens(tmp_path: Path, smtpd: SmtpServer,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_config(None, {}).metrics is None
    result, seen = _poll(tmp_path, smtpd, monkeypatch, None, 9464)
    assert result.exit_code == 0, result.output
    assert seen == [False]  # not on the port the documentation suggests either


def test_metrics_listen_off_overrides_the_file(tmp_path: Path, smtpd: SmtpServer,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    port = free_port()
    result, seen = _poll(tmp_path, smtpd, monkeypatch, port, port, ("--metrics-listen", "off"))
    assert result.exit_code == 0, result.output
    assert seen == [False] and not answers(port)


def test_metrics_listen_gives_another_address(tmp_path: Path, smtpd: SmtpServer,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    other = free_port()
    result, seen = _poll(tmp_path, smtpd, monkeypatch, free_port(), other, ("--metrics-listen", f"127.0.0.1:{other}"))
    assert result.exit_code == 0, result.output
    assert seen == [True]


def test_a_bad_metrics_address_is_refused_in_one_line(tmp_path: Path) -> None:
    config = tmp_path / "pbem.toml"
    config.write_text('[moderator]\naddress = "pbem@games.test"\n\n[metrics]\nlisten = "9464"\n')
    with pytest.raises(ConfigError, match=r"\[metrics\] listen must be HOST:PORT"):
        load_config(config, {})
    config.write_text('[moderator]\naddress = "pbem@games.test"\n\n[metrics]\nport = 9464\n')
    with pytest.raises(ConfigError, match="unknown"):
        load_config(config, {})


def test_a_bad_metrics_listen_option_is_refused_in_one_line(tmp_path: Path, smtpd: SmtpServer) -> None:
    config = tmp_path / "pbem.toml"
    config.write_text(config_text(f"sqlite:///{tmp_path / 'bad.db'}", smtpd, None))
    result = CliRunner().invoke(app, ["--config", str(config), "poll", "--metrics-listen", "9464"],
                                env={"PBEM_CONFIG": "", "PBEM_DATABASE_URL": ""})
    assert result.exit_code == 2
    assert "error: --metrics-listen must be HOST:PORT" in result.output and "Traceback" not in result.output


def test_an_address_in_use_is_said_in_one_line(tmp_path: Path) -> None:
    port = free_port()
    db = Database(f"sqlite:///{tmp_path / 'busy.db'}")
    first = serve_metrics(MetricsSettings("127.0.0.1", port), registry_for(db, config_for().limits))
    try:
        with pytest.raises(CannotServeMetrics, match=f"127.0.0.1:{port}: the address is in use"):
            serve_metrics(MetricsSettings("127.0.0.1", port), registry_for(db, config_for().limits))
    finally:
        first.stop()
        db.dispose()


def test_pbem_run_on_a_busy_metrics_address_stops_saying_so_in_one_line(tmp_path: Path, smtpd: SmtpServer) -> None:
    """A daemon whose page cannot be served does not run unwatched: it stops at once, before any mail."""
    config = tmp_path / "pbem.toml"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config.write_text(config_text(f"sqlite:///{tmp_path / 'busy.db'}", smtpd, port))
        result = CliRunner().invoke(app, ["--config", str(config), "run"],
                                    env={"PBEM_CONFIG": "", "PBEM_DATABASE_URL": ""})
    assert result.exit_code == 2
    assert f"cannot serve metrics on 127.0.0.1:{port}: the address is in use" in result.output
    assert smtpd.received == []


# --- what the page says when things go wrong -----------------------------------------------------------


def page_of(db: Database, outages: Outages | None = None, limits: Limits | None = None) -> Samples:
    """The page of a process with ``outages`` and ``limits``, as the HTTP server would serve it."""
    return parse(generate_latest(registry_for(db, limits or Limits(), outages)).decode("utf-8"))


def test_a_database_that_cannot_be_read_shows_as_down_and_its_figures_as_unknown(tmp_path: Path) -> None:
    folder = tmp_path / "disk"
    folder.mkdir()
    db = Database(f"sqlite:///{folder / 'gone.db'}")
    db.dispose()
    shutil.rmtree(folder)  # the disk went away: the file can be neither opened nor made again
    page = page_of(db)
    assert value(page, "pbem_database_up") == 0
    assert not any(name.startswith(("pbem_inbound", "pbem_outbox")) for name, _ in page)  # unknown, not 0
    assert value(page, "pbem_mails_sent_total", kind="none") >= 0  # the process's own counts are still there
    db.dispose()


def test_a_relay_that_cannot_be_reached_shows_as_down_and_counts_a_failure(tmp_path: Path) -> None:
    nobody = free_port()
    config = config_for(smtp={"host": "127.0.0.1", "port": nobody, "security": "none", "timeout": 5})
    table = Table(Database(f"sqlite:///{tmp_path / 'relay.db'}"), config)
    table.create(players=2, now=datetime.now(UTC))
    flow = MailFlow(config, table.db, moderator=table.moderator)
    welcomes = len(table.outbox())
    before = page_of(table.db, flow.outages)
    assert value(before, "pbem_relay_up") == 1 and value(before, "pbem_outbox_mails", state="due") == welcomes
    report = flow.deliver()
    assert report.unavailable is not None
    after = page_of(table.db, flow.outages)
    assert value(after, "pbem_relay_up") == 0
    assert value(after, "pbem_outbox_mails", state="due") == welcomes  # nothing was tried: still due
    assert (value(after, "pbem_send_failures_total", failure="unreachable")
            - value(before, "pbem_send_failures_total", failure="unreachable")) == 1
    other = page_of(table.db, Outages())  # another process: the database records the relay's outage
    assert value(other, "pbem_relay_up") == 0
    table.db.dispose()


def test_a_mail_refused_for_good_counts_as_a_permanent_failure_and_a_failed_mail(
        tmp_path: Path, smtpd: SmtpServer) -> None:
    config = config_for(smtp={"host": smtpd.host, "port": smtpd.port, "security": "none", "timeout": 10})
    table = Table(Database(f"sqlite:///{tmp_path / 'refused.db'}"), config)
    table.create(players=2, now=datetime.now(UTC))
    flow = MailFlow(config, table.db, moderator=table.moderator)
    welcomes = len(table.outbox())
    before = page_of(table.db, flow.outages)
    smtpd.reply("DATA", "550 5.7.1 not here")
    flow.deliver()
    after = page_of(table.db, flow.outages)
    assert (value(after, "pbem_send_failures_total", failure="permanent")
            - value(before, "pbem_send_failures_total", failure="permanent")) == welcomes
    assert value(after, "pbem_outbox_mails", state="failed") == welcomes
    assert value(after, "pbem_relay_up") == 1  # it answered: the relay is up, the mails are refused
    table.db.dispose()


def test_a_sending_limit_counts_one_hold_while_it_lasts_and_shows_the_outbox_held(
        tmp_path: Path, smtpd: SmtpServer) -> None:
    config = config_for(smtp={"host": smtpd.host, "port": smtpd.port, "security": "none", "timeout": 10},
                        limits={"max_mails_per_hour": 1})
    table = Table(Database(f"sqlite:///{tmp_path / 'limit.db'}"), config)
    table.create(players=2, now=datetime.now(UTC))
    flow = MailFlow(config, table.db, moderator=table.moderator)
    before = page_of(table.db, flow.outages, config.limits)
    assert value(before, "pbem_outbox_held") == 0
    flow.deliver()  # one mail, then the hour's limit
    flow.deliver()  # still held: the same hold
    after = page_of(table.db, flow.outages, config.limits)
    assert len(smtpd.received) == 1
    assert value(after, "pbem_sending_holds_total", by="limit") - value(before, "pbem_sending_holds_total",
                                                                         by="limit") == 1
    assert value(after, "pbem_outbox_held") == 1
    assert value(after, "pbem_outbox_mails", state="due") == len(table.outbox()) - 1
    table.db.dispose()


def test_a_relay_that_says_we_send_too_much_counts_a_provider_hold(tmp_path: Path, smtpd: SmtpServer) -> None:
    config = config_for(smtp={"host": smtpd.host, "port": smtpd.port, "security": "none", "timeout": 10})
    table = Table(Database(f"sqlite:///{tmp_path / 'slow.db'}"), config)
    table.create(players=2, now=datetime.now(UTC))
    flow = MailFlow(config, table.db, moderator=table.moderator)
    before = page_of(table.db, flow.outages)
    smtpd.reply("DATA", "452 4.5.3 Too many messages, slow down")
    flow.deliver()
    after = page_of(table.db, flow.outages)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("pbem_sending_holds_total", by="provider") == 1
    assert moved("pbem_send_failures_total", failure="transient") == 1
    assert value(after, "pbem_outbox_held") == 1
    assert value(after, "pbem_outbox_mails", state="later") == len(table.outbox())  # each waits for the hold's end
    table.db.dispose()


# --- the order-to-mail latency ----------------------------------------------------------------------------


def timings() -> float:
    """How many orders this process has timed (``pbem_order_to_mail_seconds_count``)."""
    return REGISTRY.get_sample_value("pbem_order_to_mail_seconds_count") or 0.0


def test_only_the_first_mail_of_an_order_is_timed() -> None:
    timed = Answers()
    arrived = datetime(2026, 1, 1, tzinfo=UTC)
    before = timings()
    timed.expect(arrived, ["<a@x>", "<b@x>"])
    assert len(timed) == 1
    timed.sent(["<a@x>"], arrived + timedelta(seconds=2))
    timed.sent(["<b@x>"], arrived + timedelta(seconds=3))  # the second answer of the same order: not again
    assert len(timed) == 0 and timings() - before == 1


def test_an_answer_sent_before_its_order_was_noted_is_timed_too() -> None:
    """The sender found the answer due in the moment between its commit and the worker's note of it."""
    timed = Answers()
    arrived = datetime(2026, 1, 1, tzinfo=UTC)
    before = timings()
    timed.sent(["<a@x>"], arrived + timedelta(seconds=1))
    timed.expect(arrived, ["<a@x>", "<b@x>"])
    assert len(timed) == 0  # timed at once, not waiting for <b@x>
    assert timings() - before == 1


def test_a_move_told_by_the_next_orders_worker_is_timed_for_its_own_order() -> None:
    """Two orders of one game in quick succession: the second's worker tells both moves, so the first order's
    Message-IDs hold the second move's mail; the second order is known by its move and timed by its mail."""
    timed = Answers()
    arrived = datetime(2026, 1, 1, tzinfo=UTC)
    before = timings()
    timed.expect(arrived, ["<2a@x>", "<3a@x>", move_key(7, 2)])  # order 2 (v1->2): its mail and move 3's
    timed.expect(arrived + timedelta(seconds=1), [move_key(7, 3)])  # order 3 (v2->3): none of its own
    timed.sent(["<2a@x>", move_key(7, 2)], arrived + timedelta(seconds=2))
    timed.sent(["<3a@x>", move_key(7, 3)], arrived + timedelta(seconds=2))
    assert len(timed) == 0 and timings() - before == 2


def test_the_latency_memory_is_bounded() -> None:
    timed = Answers(keep=3)
    arrived = datetime(2026, 1, 1, tzinfo=UTC)
    for number in range(10):
        timed.expect(arrived, [f"<{number}@x>"])
    assert len(timed) == 3
    timed.sent(["<0@x>"], arrived)  # forgotten: nothing to time, no error
    assert len(timed) == 3
