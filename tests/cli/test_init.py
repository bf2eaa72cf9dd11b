"""`pbem init`: every preset writes a file that pbem accepts, no password unless asked, no file overwritten.

The files are checked the way `pbem check` loads them (`load_config`, then
`require_moderator`, `require_imap`, `require_smtp`) with the password's
environment variable set, so no network is needed; one test points the
generic preset at the test Dovecot and aiosmtpd and runs `pbem check` itself.
"""
from __future__ import annotations

import stat
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from pbem.config import load_config
from pbem.errors import ConfigError
from pbem.initfile import toml_string
from pbem.mail.providers import GENERIC, PRESETS, guess_provider, preset
from pbem.mail.settings import Security
from tests.mailservers import DovecotAccount
from tests.smtpservers import SMTP_PASSWORD, SMTP_USER, SmtpServer

SECRET = "Very-Secret-Pass-42"
ENV = {"PBEM_CONFIG": "", "PBEM_DATABASE_URL": ""}
GENERIC_FLAGS = ["--imap-host", "mail.example.org", "--smtp-host", "mail.example.org"]


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def init(runner: CliRunner, *args: str, input: str | None = None):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["init", *args], input=input, env=ENV)


def flags(provider: str, path: Path, *extra: str) -> list[str]:
    more = GENERIC_FLAGS if provider == "generic" else []
    return ["--provider", provider, "--address", "moderator@example.org", "--output", str(path), *more, *extra]


def as_check_loads(path: Path, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    """The configuration as `pbem check` takes it: every section it needs, or ConfigError."""
    config = load_config(path, {"PBEM_IMAP_PASSWORD": SECRET} if env is None else env)
    config.require_moderator()
    return config, config.require_imap(), config.require_smtp()


def prose(text: str) -> str:
    """The file's comments as running text: the wrapping between lines undone."""
    return text.replace("\n#   ", " ").replace("\n# ", " ")


@pytest.fixture
def at_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pbem.cli.init.stdin_is_terminal", lambda: True)


# --- every preset --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", list(PRESETS))
def test_each_preset_writes_a_config_that_check_accepts(runner: CliRunner, tmp_path: Path, provider: str) -> None:
    path = tmp_path / "pbem.toml"
    result = init(runner, *flags(provider, path))
    assert result.exit_code == 0, result.output
    config, imap, smtp = as_check_loads(path)
    chosen = PRESETS[provider]
    assert config.moderator is not None and config.moderator.address == "moderator@example.org"
    assert config.database_url == "sqlite:///./pbem.db"
    assert imap.host == (chosen.imap.host or "mail.example.org") and imap.port == chosen.imap.port
    assert imap.security is chosen.imap.security and smtp.security is chosen.smtp.security
    assert smtp.host == (chosen.smtp.host or "mail.example.org") and smtp.port == chosen.smtp.port
    assert imap.username == smtp.username == "moderator@example.org"
    assert imap.password == smtp.password == SECRET  # from the environment, not the file
    assert (imap.processed_folder, imap.failed_folder) == (chosen.processed_folder, chosen.failed_folder)
    assert imap.mailbox == "INBOX"
    text = path.read_text()
    assert SECRET not in text and "\npassword =" not in text
    assert 'password_env = "PBEM_IMAP_PASSWORD"' in text
    assert "max_mails_per_hour = " in text and "max_mails_per_day = " in text  # the provider's caps, a little less
    limits = load_config(path).limits
    if chosen.suggested_limits() is not None:  # set for a provider with known figures, an example otherwise
        assert (limits.max_mails_per_hour, limits.max_mails_per_day) == chosen.suggested_limits()
    else:
        assert (limits.max_mails_per_hour, limits.max_mails_per_day) == (0, 0)
    for step in ("pbem --config", "check --send-test", "game new"):
        assert step in result.stdout


@pytest.mark.parametrize("provider", list(PRESETS))
def test_without_the_password_variable_the_file_still_loads_and_check_names_the_variable(
        runner: CliRunner, tmp_path: Path, provider: str) -> None:
    path = tmp_path / "pbem.toml"
    assert init(runner, *flags(provider, path)).exit_code == 0
    config = load_config(path, {})  # pbem game list needs no mail password
    with pytest.raises(ConfigError, match="PBEM_IMAP_PASSWORD"):
        config.require_imap()


def test_gmail_says_what_gmail_needs(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "pbem.toml"
    result = init(runner, *flags("gmail", path))
    text = prose(path.read_text())
    assert "2-Step Verification" in text and "app password" in text and "[Gmail]/All Mail" in text
    assert 'processed_folder = "[Gmail]' not in text and 'mailbox = "[Gmail]' not in text
    assert "about 500 a day" in text and "check your provider" in text
    assert "app password" in result.stdout


def test_outlook_offers_oauth2_commented_out(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "pbem.toml"
    assert init(runner, *flags("outlook", path)).exit_code == 0
    text = path.read_text()
    assert text.count('# auth = "xoauth2"') == 2 and text.count("# password_command = ") == 2
    assert "auth" not in tomllib.loads(text)["imap"] and "password sign-in (basic authentication)" in prose(text)


def test_flags_override_a_preset(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "pbem.toml"
    result = init(runner, *flags("gmail", path, "--smtp-security", "ssl", "--name", "The Referee",
                                 "--database", "postgresql+psycopg://pbem@db.example.org/pbem"))
    assert result.exit_code == 0, result.output
    config, _, smtp = as_check_loads(path)
    assert (smtp.host, smtp.port, smtp.security) == ("smtp.gmail.com", 465, Security.SSL)  # the port follows
    assert config.moderator is not None and config.moderator.name == "The Referee"
    assert config.database_url == "postgresql+psycopg://pbem@db.example.org/pbem"


def test_a_separate_smtp_login_and_a_relay_without_login(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "a.toml"
    assert init(runner, *flags("generic", path, "--smtp-username", "relay", "--smtp-password-env",
                               "PBEM_SMTP_PASSWORD")).exit_code == 0
    _, imap, smtp = as_check_loads(path, {"PBEM_IMAP_PASSWORD": "i", "PBEM_SMTP_PASSWORD": "s"})
    assert (imap.password, smtp.username, smtp.password) == ("i", "relay", "s")
    path = tmp_path / "b.toml"
    assert init(runner, *flags("generic", path, "--no-smtp-login")).exit_code == 0
    _, _, smtp = as_check_loads(path)
    assert smtp.username == "" and "username" not in tomllib.loads(path.read_text())["smtp"]


# --- passwords -----------------------------------------------------------------------------------------------


def test_write_password_writes_it_owner_only(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "pbem.toml"
    tricky = SECRET + ' "quoted" \\ back'
    result = init(runner, *flags("fastmail", path, "--write-password"), input=tricky + "\n")
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    _, imap, smtp = as_check_loads(path, env={})  # no environment variable needed any more
    assert imap.password == smtp.password == tricky
    assert "password_env" not in tomllib.loads(path.read_text())["imap"]
    assert tricky not in result.output and "readable by you alone" in result.stdout


def test_write_password_over_an_existing_file_is_owner_only_too(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "pbem.toml"
    path.write_text("old\n")
    path.chmod(0o644)
    result = init(runner, *flags("gmail", path, "--write-password", "--force"), input=SECRET + "\n")
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and SECRET in path.read_text()
    assert [p.name for p in tmp_path.iterdir()] == ["pbem.toml"]  # no temporary file left behind


def test_an_empty_password_is_refused(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "pbem.toml"
    result = init(runner, *flags("gmail", path, "--write-password"), input="\n")
    assert result.exit_code == 2 and "no password given" in result.stderr and not path.exists()


def test_a_database_password_is_not_written_unless_asked(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "pbem.toml"
    url = "postgresql+psycopg://pbem:DbSecret99@db.example.org/pbem"
    result = init(runner, *flags("gmail", path, "--database", url))
    assert result.exit_code == 2 and "--database holds a password" in result.stderr
    assert "DbSecret99" not in result.output and not path.exists()
    result = init(runner, *flags("gmail", path, "--database", url, "--write-password"), input=SECRET + "\n")
    assert result.exit_code == 0 and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "DbSecret99" not in result.output


# --- refusals ------------------------------------------------------------------------------------------------


def test_an_existing_file_is_kept_without_force(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "pbem.toml"
    path.write_text("# mine\n")
    result = init(runner, *flags("gmail", path))
    assert result.exit_code == 2 and "exists" in result.stderr and "--force" in result.stderr
    assert path.read_text() == "# mine\n"
    result = init(runner, *flags("gmail", path, "--force"))
    assert result.exit_code == 0 and "imap.gmail.com" in path.read_text()


def test_missing_flags_without_a_terminal_are_listed(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "pbem.toml"
    result = init(runner, "--output", str(path))
    assert result.exit_code == 2
    assert "needs --provider, --address" in result.stderr and "not a terminal" in result.stderr
    result = init(runner, "--provider", "generic", "--address", "m@example.org", "--output", str(path))
    assert result.exit_code == 2 and "needs --imap-host, --smtp-host" in result.stderr
    assert not path.exists()


@pytest.mark.parametrize(("args", "message"), [
    (["--provider", "yahoo"], "no provider 'yahoo'; the providers are gmail, fastmail, outlook, generic"),
    (["--address", "moderator+x@example.org"], "without '+'"),
    (["--database", "garbage"], "not a database URL"),
    (["--password-env", "not a name"], "environment variable's name"),
    (["--imap-host", "imap://x"], "a host name"),
])
def test_bad_values_are_refused_repeating_them(runner: CliRunner, tmp_path: Path, args: list[str],
                                               message: str) -> None:
    path = tmp_path / "pbem.toml"
    base = {"--provider": "gmail", "--address": "m@example.org"}
    base.update(dict(zip(args[::2], args[1::2], strict=True)))
    result = init(runner, *[item for pair in base.items() for item in pair], "--output", str(path))
    assert result.exit_code == 2 and message in result.stderr, result.output
    assert not path.exists()


# --- at a terminal -------------------------------------------------------------------------------------------


def test_interactive_asks_and_guesses_the_provider(runner: CliRunner, tmp_path: Path, at_a_terminal: None) -> None:
    path = tmp_path / "pbem.toml"
    answers = ["bad+plus@gmail.com", "moderator@gmail.com", "", "", ""]  # address again, then the defaults
    result = init(runner, "--output", str(path), input="\n".join(answers) + "\n")
    assert result.exit_code == 0, result.output
    assert "without '+'" in result.output  # the bad address was refused and asked again
    assert "Provider [gmail]" in result.output  # guessed from the address
    _, imap, smtp = as_check_loads(path)
    assert (imap.host, smtp.host, imap.username) == ("imap.gmail.com", "smtp.gmail.com", "moderator@gmail.com")


def test_interactive_generic_asks_for_the_servers(runner: CliRunner, tmp_path: Path, at_a_terminal: None) -> None:
    path = tmp_path / "pbem.toml"
    answers = ["pbem@games.example", "Generic", "Referee", f"sqlite:///{tmp_path / 'g.db'}",
               "imap.games.example", "", "", "smtp.games.example", "SSL", "", "pbem"]
    result = init(runner, "--output", str(path), input="\n".join(answers) + "\n")
    assert result.exit_code == 0, result.output
    config, imap, smtp = as_check_loads(path)
    assert (imap.host, imap.port, imap.security) == ("imap.games.example", 993, Security.SSL)
    assert (smtp.host, smtp.port, smtp.security) == ("smtp.games.example", 465, Security.SSL)
    assert imap.username == smtp.username == "pbem"
    assert config.moderator is not None and config.moderator.name == "Referee"


def test_interactive_password_is_hidden_and_confirmed(runner: CliRunner, tmp_path: Path, at_a_terminal: None) -> None:
    path = tmp_path / "pbem.toml"
    result = init(runner, *flags("outlook", path, "--name", "M", "--database", "sqlite:///./x.db",
                                 "--write-password"), input=f"{SECRET}\nmistyped\n{SECRET}\n{SECRET}\n")
    assert result.exit_code == 0, result.output
    assert "do not match" in result.output and SECRET not in result.output
    _, imap, _ = as_check_loads(path, env={})
    assert imap.password == SECRET


# --- the pieces ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["plain", 'a "quote"', "back\\slash", "tab\tnew\nline", "\x00\x1f\x7f",
                                   "ünïcödé ☃", "'single'", "\\u0041 stays"])
def test_toml_strings_read_back_as_written(value: str) -> None:
    assert tomllib.loads(f"k = {toml_string(value)}")["k"] == value


def test_presets_are_consistent() -> None:
    for key, chosen in PRESETS.items():
        assert chosen.key == key and chosen.plus_separator == "+"
        assert "All Mail" not in chosen.processed_folder and chosen.processed_folder != chosen.failed_folder
        suggested = chosen.suggested_limits()
        daily = chosen.lowest_daily_limit()
        if suggested is not None:
            assert daily is not None and suggested[1] < daily and suggested[0] <= suggested[1]
    assert preset("GMAIL") is PRESETS["gmail"] and GENERIC.imap.host is None
    assert [guess_provider(a) for a in ("x@gmail.com", "x@Hotmail.com", "x@fastmail.com", "x@corp.example")] \
        == ["gmail", "outlook", "fastmail", None]


# --- against real servers ------------------------------------------------------------------------------------


def test_generic_preset_passes_check_against_the_test_servers(runner: CliRunner, tmp_path: Path,
                                                              dovecot: DovecotAccount,
                                                              smtpd: SmtpServer) -> None:
    path = tmp_path / "pbem.toml"
    result = init(runner, "--provider", "generic", "--address", "pbem@games.test", "--output", str(path),
                  "--database", f"sqlite:///{tmp_path / 'pbem.db'}",
                  "--imap-host", dovecot.host, "--imap-port", str(dovecot.port), "--imap-security", "none",
                  "--username", dovecot.user,
                  "--smtp-host", smtpd.host, "--smtp-port", str(smtpd.port), "--smtp-security", "none",
                  "--smtp-username", SMTP_USER, "--smtp-password-env", "PBEM_SMTP_PASSWORD")
    assert result.exit_code == 0, result.output
    assert "not encrypted" not in result.stderr  # loopback: nothing crosses a network
    env = {**ENV, "PBEM_IMAP_PASSWORD": dovecot.password, "PBEM_SMTP_PASSWORD": SMTP_PASSWORD}
    result = runner.invoke(app, ["--config", str(path), "check"], env=env)
    assert result.exit_code == 0, result.output
    assert f"login ok as {dovecot.user}" in result.stdout and f"login ok as {SMTP_USER}" in result.stdout
    assert "IMAP and SMTP work." in result.stdout
    assert dovecot.password not in path.read_text() and SMTP_PASSWORD not in path.read_text()
