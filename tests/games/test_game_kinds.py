"""Each game records its kind; the game master picks it from the games this moderator knows."""
from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from engine.core.seats import Seat
from pbem.cli import app
from pbem.games import KINDS, SetupChoices, UnknownKind, kind_named
from pbem.games.basekind import REQUIRED, BaseKind

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


def test_every_legal_order_of_every_kind_is_an_order_the_game_takes() -> None:
    """The interface's promise (``GameKind.legal_orders``): each entry is an order to copy (or a pattern to
    fill in, its blanks in <...>), never a heading for a reader: Eight-Minute Empire's 'BID 0 to 11 ...,
    for example:' is shown by its OPTIONS and refusals, not listed as an order."""
    for kind in (kind_named(name) for name in KINDS):
        seats = (Seat("ann", "a@x.org"), Seat("bob", "b@x.org"))
        state, _ = kind.rules.new_game(kind.make_setup(SetupChoices(seats, 1, (), {})))
        deciders = [d.player for d in kind.rules.pending(state) if not d.answered]
        for order in (o for o in kind.legal_orders(state, deciders[0]) if "<" not in o):
            outcome = kind.run_message(state, deciders[0], order, {})
            assert outcome.refusal is None and outcome.applied, (kind.info.name, order)


def test_a_game_writes_at_most_twenty_members_of_its_kind() -> None:
    """Issue 28: everything else has a default in ``BaseKind``; every built-in kind is written on it."""
    assert len(REQUIRED) <= 20, REQUIRED
    assert set(REQUIRED) >= set(BaseKind.__abstractmethods__)
    assert all(isinstance(KINDS[name], BaseKind) for name in KINDS)
