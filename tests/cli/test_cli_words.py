"""The CLI reads like a person wrote it: plain placeholders, grouped commands, errors that repeat the input."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from pbem import __version__
from pbem.cli import PANELS, app
from pbem.games import BUILT_IN, KINDS

runner = CliRunner()




def all_commands() -> list[list[str]]:
    """Every command path of the CLI: ['game', 'new'], ['order'], ..."""
    root = typer.main.get_command(app)
    paths: list[list[str]] = [[]]
    for name, command in root.commands.items():  # type: ignore[attr-defined]
        sub = getattr(command, "commands", None)
        paths += [[name, s] for s in sub] if sub else [[name]]
    return paths


@pytest.mark.parametrize("path", all_commands(), ids=lambda p: " ".join(p) or "pbem")
def test_help_shows_plain_placeholders(path: list[str]) -> None:
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    text = result.output
    assert not re.search(r"<(?:bool|str|int|float|path|list)[^>]*>", text), text
    assert not re.search(r"\{[a-z_]+\}", text), text  # no {name} in the usage line
    assert " ." not in text.replace("...", ""), text  # no space before a full stop (a swallowed [default])


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.startswith(f"pbem {__version__} (database schema ")


def test_commands_are_grouped_in_panels_in_the_order_of_use() -> None:
    text = runner.invoke(app, ["--help"], env={"COLUMNS": "100"}).output
    positions = [text.index(panel) for panel in PANELS]
    assert positions == sorted(positions)
    assert text.index(" order ") < text.index(" state ") < text.index(" force ") < text.index(" run ")


def test_game_says_what_it_holds() -> None:
    text = " ".join(runner.invoke(app, ["--help"], env={"COLUMNS": "100"}).output.split())
    assert "Create, list and show games, and set a running game's settings." in text


def test_pbem_help_names_every_game_it_runs_and_where_they_are_listed() -> None:
    """Not "Imperial 2030 today": every built-in kind by its title, and `pbem kinds` that lists them."""
    text = " ".join(runner.invoke(app, ["--help"], env={"COLUMNS": "100"}).output.split())
    assert "today" not in text and "pbem kinds" in text
    assert [name for name in BUILT_IN if KINDS[name].info.title not in text] == []


def test_game_help_lists_set_among_its_commands_in_the_order_of_use() -> None:
    result = runner.invoke(app, ["game", "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0
    listed = re.findall(r"^\W (new|list|show|set)  ", result.output, re.MULTILINE)
    assert listed == ["new", "list", "show", "set"], result.output
    assert "set a running game's settings" in " ".join(result.output.split())


def test_no_help_pads_a_placeholder_with_dots() -> None:
    """`pbem game set NAME KEY=VALUE...`, not `KEY=VALUE......` (Typer adds the dots of a repeated argument)."""
    for path in all_commands():
        text = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "100"}).output
        assert "...." not in text, (path, text)
    usage = runner.invoke(app, ["game", "set", "--help"], env={"COLUMNS": "100"}).output
    assert "Usage: pbem game set [OPTIONS] NAME KEY=VALUE..." in usage


def one_line_error(result: Any, command: str) -> str:
    """The usage error of ``result``: exit 2, one line on stderr naming the command's --help, no frame."""
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and result.stdout == "", result.stderr
    assert lines[0].startswith("error: ") and lines[0].endswith(f"Try '{command} --help'."), lines[0]
    assert lines[0].isascii(), lines[0]  # no Rich frame around it
    return lines[0]


@pytest.mark.parametrize("path", all_commands(), ids=lambda p: " ".join(p) or "pbem")
def test_an_unknown_option_is_one_line_for_every_command(path: list[str]) -> None:
    result = runner.invoke(app, [*path, "--no-such-option"], env={"COLUMNS": "100"})
    line = one_line_error(result, " ".join(["pbem", *path]))
    assert "No such option: --no-such-option" in line


@pytest.mark.parametrize(("args", "command", "words"), [
    (["game", "new"], "pbem game new", "Missing argument 'NAME'."),
    (["game", "new", "g"], "pbem game new", "Missing option '--player'."),
    (["game", "set"], "pbem game set", "Missing argument 'NAME'."),
    (["game", "nosuch"], "pbem game", "No such command 'nosuch'."),
    (["gmae"], "pbem", "Did you mean 'game'?"),
    (["--nosuch"], "pbem", "No such option: --nosuch."),
    (["demo", "--players", "many"], "pbem demo", "Invalid value for '--players'"),
    (["order", "g"], "pbem order", "Missing argument 'TEXT'."),
    (["deadlines", "tack"], "pbem deadlines", "No such command 'tack'."),
])
def test_usage_errors_are_one_line_with_the_help_to_read(args: list[str], command: str, words: str) -> None:
    """The README's promise for exit 2: one line on stderr, no traceback (and no framed panel)."""
    assert words in one_line_error(runner.invoke(app, args, env={"COLUMNS": "100"}), command)


def test_a_usage_error_is_one_line_from_the_installed_command_too(tmp_path: Path) -> None:
    """The installed ``pbem`` script in its own process, not only the test runner's call."""
    pbem = Path(sys.executable).with_name("pbem")
    done = subprocess.run([str(pbem), "game", "new"], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "COLUMNS": "100", "TERM": "xterm-256color"}, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == ["error: Missing argument 'NAME'. Try 'pbem game new --help'."]


def test_a_bad_variant_is_refused_repeating_it(tmp_path: Path) -> None:
    result = runner.invoke(app, ["--database", f"sqlite:///{tmp_path / 'db'}", "game", "new", "g1", "--player",
                                 "a:a@x.org", "--player", "b:b@x.org", "--variant", "bogus"])
    assert result.exit_code == 2
    assert result.stderr.strip() == ("error: --variant 'bogus' is no variant; the variants are expert, "
                                     "no_investor_card, tax_increase_bonus")


def test_a_bad_database_url_is_repeated_as_given() -> None:
    result = runner.invoke(app, ["--database", "garbage", "game", "list"])
    assert result.exit_code == 2 and "not a database URL: 'garbage'" in result.stderr


def test_a_bad_database_url_never_shows_its_password() -> None:
    result = runner.invoke(app, ["--database", "not a url://me:secret@host", "game", "list"])
    assert "secret" not in result.output


def mail_config(tmp_path: Path) -> Path:
    path = tmp_path / "pbem.toml"
    path.write_text(f'[moderator]\naddress = "pbem@games.test"\n[imap]\nhost = "127.0.0.1"\nport = 9\n'
                    'security = "none"\nusername = "u"\npassword = "p"\ntimeout = 2\n'
                    '[smtp]\nhost = "127.0.0.1"\nport = 9\nsecurity = "none"\ntimeout = 2\n'
                    f'[database]\nurl = "sqlite:///{tmp_path / "pbem.db"}"\n')
    return path


def test_poll_does_one_pass_without_once_and_tells_an_error_once(tmp_path: Path) -> None:
    result = runner.invoke(app, ["--config", str(mail_config(tmp_path)), "poll"])
    assert result.exit_code == 1, result.output
    assert result.stderr.count("cannot connect to the IMAP server 127.0.0.1:9") == 1, result.stderr
    assert runner.invoke(app, ["--config", str(mail_config(tmp_path)), "poll", "--once"]).exit_code == 1


def test_starting_the_moderator_prints_no_migration_chatter(tmp_path: Path) -> None:
    result = runner.invoke(app, ["--config", str(mail_config(tmp_path)), "poll", "--log-level", "INFO"])
    assert "alembic" not in result.stderr.lower() and "Context impl" not in result.stderr
