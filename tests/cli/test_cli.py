"""The game master's CLI, driven through Typer's CliRunner.

Exit codes: 0 done, 1 an order refused, 2 a usage/setup error (never a traceback).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine.imperial2030.mapfile import default_board
from pbem.cli import app, game_app
from pbem.config import DEFAULT_DATABASE_URL, database_url, load_config
from pbem.errors import ConfigError
from tests.imperialpositions import SUEZ_MOVE, SUEZ_OPENING

BOARD = default_board()
PLAYERS = ["ann:ann@example.org", "bob:bob@example.org", "cy:cy@example.org",
           "dee:dee@example.org", "eve:eve@example.org", "fay:fay@example.org"]

# The keys of shared/design/STATE.md, which is a contract.
STATE_KEYS = {"game", "kind", "version", "finished", "turn", "pending", "investor_card", "nations", "players"}
TURN_KEYS = {"round", "nation"}
PENDING_KEYS = {"player", "nation", "kind", "options", "default"}
NATION_KEYS = {"government", "treasury", "power", "rondel", "factories", "flags", "armies", "fleets", "hostile"}
PLAYER_KEYS = {"email", "cash", "bonds", "swiss_bank", "score"}
BOND_KEYS = {"nation", "value"}
STATE_MD = Path(__file__).resolve().parents[3] / "shared" / "design" / "STATE.md"
if not STATE_MD.exists():  # a copy of the repository elsewhere: the shared folder stays at /work
    STATE_MD = Path("/work/shared/design/STATE.md")


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'cli.db'}"


def run(runner: CliRunner, url: str, *args: str, input: str | None = None, env: dict | None = None):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["--database", url, *args], input=input, env=env)


def new_demo(runner: CliRunner, url: str, count: int = 2, *extra: str):  # type: ignore[no-untyped-def]
    args = ["game", "new", "demo"]
    for p in PLAYERS[:count]:
        args += ["--player", p]
    result = run(runner, url, *args, "--deal", "russia=ann", "--seed", "7", *extra)
    assert result.exit_code == 0, result.output
    return result


def state_of(runner: CliRunner, url: str, name: str = "demo") -> dict:
    result = run(runner, url, "state", name, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# --- game new / list --------------------------------------------------------------------------


@pytest.mark.parametrize("count", [2, 3, 4, 5, 6])
def test_game_new_prints_the_setup(runner: CliRunner, url: str, count: int) -> None:
    out = new_demo(runner, url, count).stdout
    assert f"Game demo created: {count} players, seed 7, rules: standard." in out
    for index, p in enumerate(PLAYERS[:count], start=1):
        name, email = p.split(":")
        assert f"{index}. {name} <{email}>" in out
    assert "flag cards: Russia" in out
    assert "Governments: Russia ann" in out
    assert "cash 2;" in out
    assert re.search(r"Investor card: \w+", out)
    assert "Waiting for ann (rondel for Russia); options:" in out
    assert "RONDEL investor" in out
    data = state_of(runner, url)
    assert list(data["players"]) == [p.split(":")[0] for p in PLAYERS[:count]]
    assert data["nations"]["russia"]["government"] == "ann"


def test_game_new_with_a_random_seed_and_variants(runner: CliRunner, url: str) -> None:
    result = run(runner, url, "game", "new", "x", "--player", PLAYERS[0], "--player", PLAYERS[1],
                 "--player", PLAYERS[2], "--variant", "expert", "--variant", "tax_increase_bonus",
                 "--start-player", "cy")
    assert result.exit_code == 0, result.output
    assert re.search(r"seed \d+, rules: expert, tax_increase_bonus\.", result.stdout)
    assert "Waiting for cy (setup bond for Russia)" in result.stdout
    data = state_of(runner, url, "x")
    assert data["pending"][0]["kind"] == "setup_bond"
    assert not any(p["swiss_bank"] for p in data["players"].values())


def test_game_list(runner: CliRunner, url: str) -> None:
    assert "No games yet" in run(runner, url, "game", "list").stdout
    new_demo(runner, url)
    run(runner, url, "order", "demo", "--as", "ann", "RONDEL taxation")
    out = run(runner, url, "game", "list").stdout
    assert re.search(r"demo\s+imperial2030\s+active\s+1\s+ann, bob", out)


# --- order ----------------------------------------------------------------------------------------


def test_order_prints_what_happened_and_what_is_pending(runner: CliRunner, url: str) -> None:
    new_demo(runner, url)
    result = run(runner, url, "order", "demo", "--as", "ann", "RONDEL investor")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "move 0 -> 1" in out
    assert "line 1: RONDEL investor" in out
    assert "Russia placed its marker on Investor." in out
    assert "bob received 2 with the investor card." in out
    assert "Waiting for bob (investment); options:" in out
    assert re.search(r"BUY Russia 4\s+\(cost 4\)", out)
    assert "default if no answer: PASS" in out
    result = run(runner, url, "order", "demo", "--as", "bob", "BUY russia 4")
    assert result.exit_code == 0, result.output
    assert "bob bought Russia 4." in result.stdout
    assert state_of(runner, url)["version"] == 2


def test_several_lines_and_a_refusal(runner: CliRunner, url: str) -> None:
    new_demo(runner, url)
    text = "DONATE 1 TO russia\nRONDEL nowhere\nRONDEL investor"
    result = run(runner, url, "order", "demo", "--as", "ann", text)
    assert result.exit_code == 1
    out = result.stdout
    assert "line 1: DONATE 1 TO russia" in out and "ann donated 1 to Russia." in out
    assert "REFUSED line 2: RONDEL nowhere" in out
    assert "reason:" in out
    assert "Legal now:" in out and "RONDEL investor" in out
    assert "not applied:\n    line 2: RONDEL nowhere\n    line 3: RONDEL investor" in out
    assert "Traceback" not in result.output
    assert state_of(runner, url)["version"] == 1


def test_an_order_out_of_turn_names_whom_the_game_waits_for(runner: CliRunner, url: str) -> None:
    new_demo(runner, url)
    result = run(runner, url, "order", "demo", "--as", "bob", "RONDEL investor")
    assert result.exit_code == 1
    assert "REFUSED line 1: RONDEL investor" in result.stdout
    assert "the game waits for: ann (rondel for Russia)" in result.stdout
    assert state_of(runner, url)["version"] == 0


def test_orders_from_stdin(runner: CliRunner, url: str) -> None:
    new_demo(runner, url)
    result = run(runner, url, "order", "demo", "--as", "ann", "-", input="RONDEL investor\n-- \nann\n")
    assert result.exit_code == 0, result.output
    assert "Russia placed its marker on Investor." in result.stdout
    result = run(runner, url, "order", "demo", "--as", "bob", "-", input="PASS\n")
    assert result.exit_code == 0, result.output
    assert "bob did not invest." in result.stdout


def test_status_query_prints_the_summary(runner: CliRunner, url: str) -> None:
    new_demo(runner, url)
    result = run(runner, url, "order", "demo", "--as", "ann", "STATUS")
    assert result.exit_code == 0, result.output
    assert "Game demo: move 0, round 1, Russia to play." in result.stdout


# --- state ---------------------------------------------------------------------------------------


def test_state_json_has_exactly_the_keys_of_state_md(runner: CliRunner, url: str) -> None:
    new_demo(runner, url, 3)
    run(runner, url, "order", "demo", "--as", "ann", "RONDEL investor")
    data = state_of(runner, url)
    assert set(data) == STATE_KEYS
    assert data["game"] == "demo" and data["version"] == 1 and data["finished"] is False
    assert set(data["turn"]) == TURN_KEYS and data["turn"] == {"round": 1, "nation": "russia"}
    assert data["pending"]
    for decision in data["pending"]:
        assert set(decision) == PENDING_KEYS
        assert decision["kind"] == "investment" and decision["default"] == "PASS"
        for option in decision["options"]:
            assert {"order", "cost"} <= set(option)
            assert isinstance(option["order"], str) and isinstance(option["cost"], int)
    assert list(data["nations"]) == list(BOARD.nation_ids)
    for nation in data["nations"].values():
        assert set(nation) == NATION_KEYS
    assert data["nations"]["russia"]["rondel"] == "investor"
    assert data["nations"]["china"]["rondel"] is None
    assert data["nations"]["russia"]["factories"] == ["moscow", "vladivostok"]
    for player in data["players"].values():
        assert set(player) == PLAYER_KEYS
        assert player["score"] is None
        for bond in player["bonds"]:
            assert set(bond) == BOND_KEYS
    assert data["players"]["ann"]["email"] == "ann@example.org"
    assert data["investor_card"] in data["players"]


@pytest.mark.skipif(not STATE_MD.exists(), reason=f"{STATE_MD} is not next to the repository")
def test_state_md_still_lists_these_keys() -> None:
    """Keep the constants above in step with the contract document itself."""
    block = STATE_MD.read_text(encoding="utf-8").split("```")[1]
    keys = set(re.findall(r'"(\w+)":', block))
    names_in_example = {"russia", "anton", "iran", "seaofjapan"}
    contract_pending = PENDING_KEYS - {"default"}  # "default" is ours, asked for on top of the contract
    assert keys - names_in_example == (STATE_KEYS | TURN_KEYS | contract_pending | NATION_KEYS | PLAYER_KEYS
                                       | BOND_KEYS)


def test_state_summary(runner: CliRunner, url: str) -> None:
    new_demo(runner, url)
    result = run(runner, url, "state", "demo")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Game demo: move 0, round 1, Russia to play." in out
    assert re.search(r"Russia\s+government ann", out)
    assert re.search(r"ann\s+cash\s+2", out)
    assert "Waiting for ann (rondel for Russia)" in out


# --- errors: exit 2, one clear line, no traceback ------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["state", "nope"], "no game named 'nope'"),
        (["order", "nope", "--as", "ann", "PASS"], "no game named 'nope'"),
        (["game", "new", "g", "--player", "ann", "--player", "bob:bob@x.org"], "--player must be NAME:EMAIL"),
        (["game", "new", "g", "--player", "ann:a@x.org"], "2 to 6 players"),
        (["game", "new", "g", "--player", "ann:a@x.org", "--player", "bob:b@x.org", "--deal", "russia"],
         "--deal must be NATION=PLAYER"),
        (["game", "new", "g", "--player", "ann:a@x.org", "--player", "bob:b@x.org", "--deal", "mars=ann"],
         "unknown nation 'mars'"),
        (["game", "new", "g", "--player", "ann:a@x.org", "--player", "bob:b@x.org", "--deal", "russia=zed"],
         "'zed' is not a player"),
    ],
)
def test_errors_exit_2_with_a_clear_message(runner: CliRunner, url: str, args: list[str], message: str) -> None:
    result = run(runner, url, *args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert result.stderr.startswith("error: ")
    assert "Traceback" not in result.output


def test_unknown_player_and_existing_game_exit_2(runner: CliRunner, url: str) -> None:
    new_demo(runner, url)
    result = run(runner, url, "order", "demo", "--as", "zed", "PASS")
    assert result.exit_code == 2 and "'zed' is not a player" in result.stderr
    result = run(runner, url, "game", "new", "demo", "--player", PLAYERS[0], "--player", PLAYERS[1])
    assert result.exit_code == 2 and "exists already" in result.stderr


def test_bad_variant_is_a_usage_error(runner: CliRunner, url: str) -> None:
    result = run(runner, url, "game", "new", "g", "--player", PLAYERS[0], "--player", PLAYERS[1], "--variant", "x")
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_unreachable_database_is_a_clear_error_without_the_password(runner: CliRunner) -> None:
    result = runner.invoke(app, ["--database", "postgresql+psycopg://gm:hunter2@127.0.0.1:1/x?connect_timeout=2",
                                 "game", "list"])
    assert result.exit_code == 2
    assert "cannot open database" in result.stderr
    assert "hunter2" not in result.output


# --- where the database is -------------------------------------------------------------------------


def test_database_from_environment(runner: CliRunner, url: str) -> None:
    env = {"PBEM_DATABASE_URL": url, "PBEM_CONFIG": ""}
    result = runner.invoke(app, ["game", "new", "envgame", "--player", PLAYERS[0], "--player", PLAYERS[1]], env=env)
    assert result.exit_code == 0, result.output
    assert "envgame" in runner.invoke(app, ["--database", url, "game", "list"]).stdout
    assert "envgame" in runner.invoke(app, ["game", "list"], env=env).stdout


def test_database_from_config_file(runner: CliRunner, url: str, tmp_path: Path) -> None:
    config = tmp_path / "pbem.toml"
    config.write_text(f'[database]\nurl = "{url}"\n', encoding="utf-8")
    env = {"PBEM_DATABASE_URL": "", "PBEM_CONFIG": ""}
    result = runner.invoke(app, ["--config", str(config), "game", "new", "cfg", "--player", PLAYERS[0],
                                 "--player", PLAYERS[1]], env=env)
    assert result.exit_code == 0, result.output
    assert "cfg" in runner.invoke(app, ["game", "list"], env={"PBEM_DATABASE_URL": "",
                                                              "PBEM_CONFIG": str(config)}).stdout


def test_default_database_is_pbem_db_in_the_current_directory(runner: CliRunner, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    env = {"PBEM_DATABASE_URL": "", "PBEM_CONFIG": ""}
    result = runner.invoke(app, ["game", "new", "here", "--player", PLAYERS[0], "--player", PLAYERS[1]], env=env)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "pbem.db").exists()


def test_missing_config_file_is_an_error(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(app, ["--config", str(tmp_path / "nope.toml"), "game", "list"])
    assert result.exit_code == 2
    assert "config file not found" in result.stderr


def test_database_url_precedence(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[database]\nurl = "sqlite:///from-config.db"\n', encoding="utf-8")
    env = {"PBEM_DATABASE_URL": "sqlite:///from-env.db", "PBEM_CONFIG": str(config)}
    assert database_url("sqlite:///from-option.db", None, env) == "sqlite:///from-option.db"
    assert database_url(None, None, env) == "sqlite:///from-env.db"
    assert database_url(None, None, {"PBEM_CONFIG": str(config)}) == "sqlite:///from-config.db"
    assert database_url(None, config, {}) == "sqlite:///from-config.db"
    assert database_url(None, None, {}) == DEFAULT_DATABASE_URL == "sqlite:///./pbem.db"
    empty = tmp_path / "empty.toml"
    empty.write_text("[moderator]\n", encoding="utf-8")
    assert database_url(None, empty, {}) == DEFAULT_DATABASE_URL


def test_broken_config_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[database\nurl=", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(bad, {})
    wrong = tmp_path / "wrong.toml"
    wrong.write_text("[database]\nurl = 5\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="url must be a non-empty string"):
        load_config(wrong, {})


def test_config_example_is_valid(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[2] / "config.example.toml"
    config = load_config(example, {})
    assert config.database_url == "sqlite:///./pbem.db"


def test_help_lists_the_commands(runner: CliRunner) -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for word in ("game", "order", "state", "--database", "--config"):
        assert word in result.stdout


def test_tracebacks_never_show_locals() -> None:
    """A password in a local variable must not reach a terminal or a log through a crash report."""
    assert app.pretty_exceptions_show_locals is False
    assert game_app.pretty_exceptions_show_locals is False


# --- board and report (pbem.render) ----------------------------------------------------------------


def _fits_mail(text: str) -> bool:
    return all(len(line) <= 78 and line.isascii() for line in text.splitlines())


def test_board_prints_the_world_in_three_panels(runner: CliRunner, url: str) -> None:
    new_demo(runner, url)
    result = run(runner, url, "board", "demo")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert 'IMPERIAL 2030 - game "demo" - the world board' in out
    for title in ("-- THE AMERICAS", "-- EUROPE, AFRICA AND THE MIDDLE EAST", "-- ASIA AND THE PACIFIC"):
        assert title in out
    assert "| MOSCOW" in out and "[A]" in out and "Legend:" in out
    assert _fits_mail(out)


def test_report_for_a_player_who_must_decide_includes_the_prompt(runner: CliRunner, url: str) -> None:
    new_demo(runner, url)
    run(runner, url, "order", "demo", "--as", "ann", "RONDEL investor")
    result = run(runner, url, "report", "demo", "--for", "BOB", "--deadline", "Friday 18:00 UTC")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert 'report for bob' in out
    assert "- Russia placed its marker on Investor." in out  # the last message, told since the last report
    assert "Each player received" not in out
    assert "- bob: invest with the investor card (that is you: see the prompt)" in out
    assert "-- ASIA AND THE PACIFIC" in out
    assert "bob, your decision" in out and "Please answer by Friday 18:00 UTC." in out
    assert out.index("bob, your decision") < out.index("report for bob")  # the question first, as mailed
    assert "BUY Russia 4" in out
    assert _fits_mail(out)


def test_report_for_a_waiting_player_has_no_prompt(runner: CliRunner, url: str) -> None:
    new_demo(runner, url)
    run(runner, url, "order", "demo", "--as", "ann", "RONDEL investor")
    result = run(runner, url, "report", "demo", "--for", "ann", "--no-board", "--since", "0")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Each player received 35 starting cash." in out  # --since 0 tells the setup too
    assert "your decision" not in out
    assert "-- THE AMERICAS" not in out
    assert "1 ann (you): governs Russia, India, USA; cash" in out
    assert re.search(r"2 bob: governs [^\n]*; investor card\n", out)  # bob's cash is secret
    assert "investor card; cash" in run(runner, url, "report", "demo", "--for", "ann", "--open-cash",
                                         "--no-board").stdout


def test_report_errors_exit_2(runner: CliRunner, url: str) -> None:
    new_demo(runner, url)
    for args, message in [
        (["report", "demo", "--for", "zed"], "'zed' is not a player of game 'demo'; players: ann, bob"),
        (["report", "nope", "--for", "ann"], "no game named 'nope'"),
        (["report", "demo", "--for", "ann", "--since", "5"], "--since 5: game 'demo' has only 0 moves"),
        (["board", "nope"], "no game named 'nope'"),
    ]:
        result = run(runner, url, *args)
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr.startswith("error: ") and message in result.stderr, result.stderr
        assert "Traceback" not in result.output


# --- the maneuver ---------------------------------------------------------------------------------


def suez_demo(runner: CliRunner, url: str) -> None:
    result = run(runner, url, "game", "new", "demo", "--player", PLAYERS[0], "--player", PLAYERS[1],
                 "--deal", "europe=ann", "--deal", "india=bob", "--seed", "1")
    assert result.exit_code == 0, result.output
    for player, text in SUEZ_OPENING:
        result = run(runner, url, "order", "demo", "--as", player, text)
        assert result.exit_code == 0, result.output
    assert "Waiting for ann (maneuver for Europe); options:" in result.stdout
    assert "FLEET Rome TO Mediterranean Sea" in result.stdout


def test_order_with_maneuver_orders_waits_for_the_canal_answer(runner: CliRunner, url: str) -> None:
    suez_demo(runner, url)
    result = run(runner, url, "order", "demo", "--as", "ann", SUEZ_MOVE)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "line 1: FLEET Rome TO Mediterranean Sea\n  Europe moved a fleet from Rome to Mediterranean Sea." in out
    assert ("waiting for bob (India: allow Europe's fleet through the Suez canal?) \u2014 these lines will be "
            "applied once answered:\n    line 3: ARMY Paris TO Mumbai HOSTILE") in out
    assert "Waiting for bob (canal for India); options:" in out
    assert "default if no answer: ALLOW" in out

    result = run(runner, url, "order", "demo", "--as", "bob", "ALLOW; NO FIGHT; ALLOW")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "bob (India) allowed Europe passage through the Suez canal." in out
    assert "Waiting orders of ann resumed:\n  line 3: ARMY Paris TO Mumbai HOSTILE" in out
    assert "waiting for bob (India: allow Europe's army through the Suez canal?) \u2014 the maneuver ends once answered." in out
    assert ("Europe moved an army from Paris to Mumbai by convoy via Mediterranean Sea and Indian Ocean through "
            "the Suez canal, hostile.") in out
    assert "end of message: DONE" in out
    assert "Waiting for bob (rondel for Russia)" in out
    data = state_of(runner, url)
    assert data["nations"]["europe"]["hostile"] == {"mumbai": 1}


@pytest.mark.slow
def test_order_deny_refuses_the_waiting_line(runner: CliRunner, url: str) -> None:
    suez_demo(runner, url)
    run(runner, url, "order", "demo", "--as", "ann", SUEZ_MOVE)
    result = run(runner, url, "order", "demo", "--as", "bob", "DENY")
    assert result.exit_code == 0, result.output  # bob's own order stands
    out = result.stdout
    assert "bob (India) denied Europe passage through the Suez canal." in out
    assert "Waiting orders of ann resumed:\n  REFUSED line 3: ARMY Paris TO Mumbai HOSTILE" in out
    assert "reason: The army in Paris cannot reach Mumbai" in out
    assert "ann is asked to continue." in out
    assert "Waiting for ann (maneuver for Europe); options:" in out
    result = run(runner, url, "order", "demo", "--as", "ann", "fleet med to north atlantic")
    assert result.exit_code == 0, result.output
    assert ("line 1: fleet med to north atlantic\n"
            "  Europe moved a fleet from Mediterranean Sea to North Atlantic.") in result.stdout
    assert "end of message: DONE" in result.stdout


def test_order_standing_and_answers_out_of_turn(runner: CliRunner, url: str) -> None:
    suez_demo(runner, url)
    result = run(runner, url, "order", "demo", "--as", "bob", "STANDING ALLOW europe SUEZ\nSTANDING NO FIGHT")
    assert result.exit_code == 0, result.output
    assert "bob set a standing order: always allow Europe through Suez." in result.stdout
    result = run(runner, url, "order", "demo", "--as", "bob", "ALLOW")
    assert result.exit_code == 1
    assert "REFUSED line 1: ALLOW" in result.stdout and "the game waits for: ann (maneuver for Europe)" in result.stdout
    result = run(runner, url, "order", "demo", "--as", "ann", SUEZ_MOVE)
    assert result.exit_code == 0, result.output
    assert "waiting for" not in result.stdout
    assert "bob (India) allowed Europe passage through the Suez canal (standing order)." in result.stdout
    assert "end of message: DONE" in result.stdout


def test_issue30_report_for_a_player_is_written_in_the_games_language(runner: CliRunner, url: str) -> None:
    """``pbem game set NAME language=ru``: every seat that chose none reads Russian; the CLI's own words stay
    English."""
    new_demo(runner, url)
    changed = run(runner, url, "game", "set", "demo", "language=ru")
    assert changed.exit_code == 0, changed.output
    result = run(runner, url, "report", "demo", "--for", "ann", "--no-board")
    assert result.exit_code == 0, result.output
    assert re.search("[а-яё]{4,}", result.stdout), result.stdout[:600]
    assert all(len(line) <= 78 for line in result.stdout.splitlines())


def test_issue30_a_players_language_is_checked_when_the_game_is_made(runner: CliRunner, url: str) -> None:
    result = run(runner, url, "game", "new", "demo", "--player", "ann:ann@example.org:xx", "--player", PLAYERS[1])
    assert result.exit_code == 2 and "NAME:EMAIL:LANGUAGE" in result.output
