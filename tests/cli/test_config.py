"""The configuration file: typed sections, strict keys, secrets kept out of repr and errors."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from pbem.config import (
    SECTIONS,
    Config,
    DeadlineSettings,
    Limits,
    ModeratorSettings,
    accepted_keys,
    load_config,
    parse_config,
)
from pbem.errors import ConfigError
from pbem.games import KINDS
from pbem.mail import AuthMethod, Security
from pbem.store.settings import DEFAULT_DEADLINE_HOURS, DEFAULT_REMINDER_HOURS

EXAMPLE = Path(__file__).resolve().parents[2] / "config.example.toml"

FULL = '''
[moderator]
address = "pbem@games.example"
name = "The Moderator"
game_master = "gm@example.org"

[database]
url = "sqlite:///games.db"

[imap]
host = "imap.example.org"
security = "starttls"
username = "pbem"
password_env = "PBEM_TEST_IMAP_PW"
processed_folder = "done"

[smtp]
host = "smtp.example.org"
port = 2525
security = "none"
password = "smtp-Secret-77"
username = "pbem"

[deadlines]
default = 96
battle = 12
reminder_hours = [2, 24]

[limits]
max_message_bytes = 50000
replies_per_sender_per_hour = 3
'''


def write(tmp_path: Path, text: str, name: str = "pbem.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_full_config_is_typed(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, FULL), {"PBEM_TEST_IMAP_PW": "imap-Secret-88"})
    assert config.moderator == ModeratorSettings("pbem@games.example", "The Moderator", "gm@example.org")
    assert config.moderator.domain == "games.example"
    assert config.database_url == "sqlite:///games.db"
    assert config.imap is not None and config.imap.security is Security.STARTTLS
    assert config.imap.password == "imap-Secret-88" and config.imap.processed_folder == "done"
    assert config.smtp is not None and config.smtp.effective_port == 2525 and config.smtp.password == "smtp-Secret-77"
    assert config.deadlines.hours["battle"] == 12.0
    assert config.deadlines.hours["rondel"] == 96.0  # default for every kind not named
    assert set(config.deadlines.hours) == set(DEFAULT_DEADLINE_HOURS)
    assert config.deadlines.reminder_hours == (24.0, 2.0)
    assert config.limits == Limits(50000, 3)
    assert config.mail_enabled and config.inbox_configured
    assert config.require_imap() is config.imap and config.require_smtp() is config.smtp


def test_secrets_never_in_repr(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, FULL), {"PBEM_TEST_IMAP_PW": "imap-Secret-88"})
    text = repr(config) + str(config)
    assert "imap-Secret-88" not in text and "smtp-Secret-77" not in text
    assert "smtp.example.org" in text  # the rest is there


def test_no_file_means_defaults() -> None:
    config = load_config(None, {})
    assert config == Config()
    assert config.moderator is None and config.imap is None and config.smtp is None
    assert not config.mail_enabled
    assert config.deadlines == DeadlineSettings() and config.deadlines.reminder_hours == DEFAULT_REMINDER_HOURS
    assert config.limits == Limits()
    with pytest.raises(ConfigError, match=r"\[moderator\] address is needed"):
        config.require_moderator()
    with pytest.raises(ConfigError, match=r"no \[imap\] section"):
        config.require_imap()


def test_an_unset_password_env_is_an_error_only_when_mail_is_needed(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, FULL), {})
    assert config.database_url == "sqlite:///games.db"  # pbem game list works without the mail password
    with pytest.raises(ConfigError, match=r"PBEM_TEST_IMAP_PW \(password_env\) is not set"):
        config.require_imap()
    assert config.require_smtp().password == "smtp-Secret-77"


@pytest.mark.parametrize(("text", "message"), [
    ("[modrator]\naddress = 'a@b'\n", r"unknown section\(s\) modrator"),
    ("[moderator]\naddress = 'a+b@c'\n", r"local@host without '\+'"),
    ("[moderator]\nname = 'x'\n", r"\[moderator\] address is required"),
    ("[moderator]\naddress = 'a@b'\ncolour = 'red'\n", r"\[moderator\] unknown setting\(s\) colour"),
    ("[moderator]\naddress = 'a@b'\ngame_master = 'nobody'\n", "game_master must be an e-mail address"),
    ("[database]\nurl = ''\n", "url must be a non-empty string"),
    ("[database]\npath = 'x'\n", r"\[database\] unknown setting"),
    ("[imap]\nhost = 'h'\nsecurity = 'tls'\n", r"security must be one of none\|starttls\|ssl"),
    ("[imap]\nhost = 'h'\nfolder = 'x'\n", r"unknown setting\(s\) folder"),
    ("[smtp]\nport = 25\n", r"\[smtp\] host is required"),
    ("[deadlines]\nrondel = -1\n", r"\[deadlines\] rondel must be a number > 0"),
    ("[deadlines]\nbogus = 3\n", r"\[deadlines\] unknown setting\(s\) bogus"),
    ("[deadlines]\nreminder_hours = 'soon'\n", "reminder_hours must be a list"),
    ("[limits]\nmax_message_bytes = 0\n", "max_message_bytes must be a whole number > 0"),
    ("[limits]\nreplies_per_sender_per_hour = 1.5\n", "replies_per_sender_per_hour must be a whole number"),
    ("imap = 3\n", r"\[imap\] must be a table"),
])
def test_mistakes_are_clear_errors(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(write(tmp_path, text), {})


def test_a_password_command_is_kept_for_the_login_not_run(tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    text = FULL.replace('password_env = "PBEM_TEST_IMAP_PW"', f'password_command = "touch {ran}; echo t0ken"\n'
                                                              'auth = "xoauth2"')
    config = load_config(write(tmp_path, text), {})  # no PBEM_TEST_IMAP_PW needed any more
    imap = config.require_imap()
    assert imap.password_command == f"touch {ran}; echo t0ken" and imap.auth is AuthMethod.XOAUTH2
    assert not ran.exists()  # run at each login (pbem check, run, poll), never when the file is read
    assert "touch" not in repr(config)


def test_only_one_secret_source_per_server(tmp_path: Path) -> None:
    text = FULL.replace('password_env = "PBEM_TEST_IMAP_PW"', 'password_env = "PBEM_TEST_IMAP_PW"\n'
                                                              'password_command = "pass show mail/pbem"')
    with pytest.raises(ConfigError, match=r"\[imap\]: give one of password, password_env or password_command"):
        load_config(write(tmp_path, text), {})  # even though the variable is unset: the file is wrong


def test_error_messages_never_quote_a_password(tmp_path: Path) -> None:
    text = "[smtp]\nhost = 'h'\npassword = 'Top-Secret-99'\nport = 'x'\n"
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text), {})
    assert "Top-Secret-99" not in str(info.value)


def test_an_empty_moderator_section_is_no_moderator(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, "[moderator]\n"), {}).moderator is None


def test_reminder_hours_may_be_one_number(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "[deadlines]\nreminder_hours = 6\n"), {})
    assert config.deadlines.reminder_hours == (6.0,)


def test_deadlines_name_the_decisions_of_every_game_kind(tmp_path: Path) -> None:
    """Eight-Minute Empire's bid and turn hours are keys as Imperial's are; a typo still is an error."""
    config = load_config(write(tmp_path, "[deadlines]\nbid = 24\ntake = 12\n"), {})
    assert config.deadlines.for_kind({"bid": 48.0, "take": 48.0, "action": 48.0}, ("bid", "take", "action")) == {
        "bid": 24.0, "take": 12.0, "action": 48.0}
    with pytest.raises(ConfigError, match=r"unknown setting\(s\) bdi"):
        load_config(write(tmp_path, "[deadlines]\nbdi = 24\n"), {})


def test_the_deadline_default_covers_every_decision_of_a_new_game(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "[deadlines]\ndefault = 10\nbid = 5\n"), {})
    hours = config.deadlines.for_kind({"bid": 48.0, "take": 48.0}, ("bid", "take"))
    assert hours == {"bid": 5.0, "take": 10.0, "*": 10.0}


@pytest.mark.parametrize("kind_name", list(KINDS))
def test_a_new_game_takes_its_own_kinds_decisions_from_the_configuration_and_no_other(tmp_path: Path,
                                                                                     kind_name: str) -> None:
    """Imperial 2030's hours are the configuration's (its kind names none of its own): each of its decisions
    keeps one; Eight-Minute Empire's rondel hours are not stored in it (where `pbem game set
    deadline.rondel=5` would then be taken), nor its bid hours in an Imperial game."""
    kind = KINDS[kind_name]
    config = load_config(write(tmp_path, "[deadlines]\nbid = 24\nrondel = 12\n"), {})
    hours = config.deadlines.for_kind(kind.info.deadline_hours, kind.info.decisions)
    assert set(hours) == set(kind.info.decisions)  # every decision has its hours, and no other game's decision
    expected = {"imperial2030": ("rondel", 12.0), "eight-minute-empire": ("bid", 24.0)}[kind_name]
    assert hours[expected[0]] == expected[1]


def test_the_config_file_comes_from_the_environment(tmp_path: Path) -> None:
    path = write(tmp_path, "[moderator]\naddress = 'm@x.example'\n")
    assert load_config(None, {"PBEM_CONFIG": str(path)}).moderator.address == "m@x.example"


def test_parse_config_takes_parsed_toml() -> None:
    config = parse_config({"moderator": {"address": "m@x.example"}, "smtp": {"host": "localhost"}}, None, {})
    assert config.mail_enabled and not config.inbox_configured


# --- config.example.toml lists exactly the accepted keys ----------------------------------------------


def _example_keys() -> dict[str, set[str]]:
    """Every key of the example, the commented ones included (a '# key = value' line)."""
    keys: dict[str, set[str]] = {}
    section = ""
    for line in EXAMPLE.read_text(encoding="utf-8").splitlines():
        header = re.match(r"^#?\s*\[(\w+)\]\s*$", line)
        if header:
            section = header.group(1)
            keys.setdefault(section, set())
            continue
        key = re.match(r"^#?\s*([a-z_]+)\s*=", line)
        if key and section:
            keys[section].add(key.group(1))
    return keys


ACCEPTED = {table: set(keys) for table, keys in accepted_keys().items()}  # read from the reader itself


def test_the_example_lists_exactly_the_accepted_keys() -> None:
    """config.example.toml says it lists every accepted key: so it does, [maildir] included."""
    assert _example_keys() == ACCEPTED
    assert "maildir" in ACCEPTED
    assert set(ACCEPTED) <= set(SECTIONS)


def test_the_example_loads_and_so_does_every_commented_key(tmp_path: Path) -> None:
    config = load_config(EXAMPLE, {})
    assert config.moderator is not None and config.imap is not None and config.smtp is not None
    assert config.database_url == "sqlite:///./pbem.db"
    # uncomment every optional line (one value per key: the first wins) and load again
    seen: set[tuple[str, str]] = set()
    lines, section = [], ""
    alternative = False  # a commented-out table ([maildir], instead of [imap]) stays out
    for line in EXAMPLE.read_text(encoding="utf-8").splitlines():
        header = re.match(r"^(#?)\s*\[(\w+)\]", line)
        if header:
            section, alternative = header.group(2), bool(header.group(1))
        if alternative:
            continue
        match = re.match(r"^#\s*([a-z_]+\s*=.*)$", line)
        candidate = match.group(1) if match else line
        key = re.match(r"^\s*([a-z_]+)\s*=", candidate)
        if key:
            if (section, key.group(1)) in seen:
                continue
            seen.add((section, key.group(1)))
            candidate = candidate.split("  #")[0]
            if section in ("imap", "smtp") and key.group(1) in ("password", "password_command"):
                continue  # password, password_env and password_command exclude each other
        lines.append(candidate)
    tomllib.loads("\n".join(lines))
    config = load_config(write(tmp_path, "\n".join(lines)), {"PBEM_IMAP_PASSWORD": "x", "PBEM_SMTP_PASSWORD": "y"})
    assert config.moderator.game_master == "gm@example.org"
    assert config.imap.auth is AuthMethod.PASSWORD and config.smtp.auth is AuthMethod.PASSWORD
    assert config.imap.idle_refresh == 540 and config.limits.max_message_bytes == 1048576

