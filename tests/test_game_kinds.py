"""Each game records its kind; the game master picks it from the games this moderator knows."""
from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from pbem.cli import app
from pbem.games import KINDS, UnknownKind, kind_named

runner = CliRunner()


def cli(tmp_path: Path, *args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["--database", f"sqlite:///{tmp_path / 'pbem.db'}", *args])


def test_pbem_kinds_lists_each_game_with_its_players_and_variants(tmp_path: Path) -> None:
    result = cli(tmp_path, "kinds")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "imperial2030         Imperial 2030, 2-6 players; variants: expert, no_investor_card, tax_increase_bonus",
        "eight-minute-empire  Eight-Minute Empire, 2-5 players; variants: neutral, long"]


def test_a_new_game_is_of_the_kind_asked_and_says_so(tmp_path: Path) -> None:
    result = cli(tmp_path, "game", "new", "g1", "--kind", "imperial2030", "--player", "a:a@x.org",
                 "--player", "b:b@x.org", "--seed", "1")
    assert result.exit_code == 0, result.output
    listing = cli(tmp_path, "game", "list").stdout.splitlines()
    assert listing[0].split() == ["NAME", "KIND", "STATUS", "MOVE", "PLAYERS"]
    assert listing[1].split()[:2] == ["g1", "imperial2030"]
    assert json.loads(cli(tmp_path, "state", "g1", "--json").stdout)["kind"] == "imperial2030"


def test_an_unknown_kind_is_refused_naming_the_kinds(tmp_path: Path) -> None:
    result = cli(tmp_path, "game", "new", "g1", "--kind", "chess", "--player", "a:a@x.org", "--player", "b:b@x.org")
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: no game of kind 'chess'; the kinds are: imperial2030, eight-minute-empire"
    assert cli(tmp_path, "game", "list").stdout.startswith("No games yet")


def test_kind_names_are_read_forgivingly() -> None:
    assert kind_named("Imperial-2030") is KINDS["imperial2030"]
    try:
        kind_named("risk")
    except UnknownKind as exc:
        assert "imperial2030" in str(exc)
    else:
        raise AssertionError("an unknown kind must be refused")
