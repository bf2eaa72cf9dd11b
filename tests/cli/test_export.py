"""`pbem export`: a game's whole history for every kind, to replay it and to publish it (pbem.moderator.gamemaster.export).

The export is written once in the core; these tests run it on both kinds and
check what it promises: the JSON replays to the stored state, a public export
holds no address and no sealed answer of an open round (nor a sign of one),
the text is mail text, ``--output`` writes the file, an unknown game is a
clear error.
"""
from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import col
from typer.testing import CliRunner

from engine.core.log import LogEntry
from engine.eight_minute_empire.board import default_board
from engine.eight_minute_empire.randomplay import random_move as eme_random_move
from engine.imperial2030.randomplay import random_move as imperial_random_move
from pbem import store
from pbem.cli import app
from pbem.games import kind_of
from pbem.moderator import Moderator
from pbem.moderator.gamemaster import FORMAT, export_game
from pbem.render import problems
from pbem.store import Database, GameStatus
from pbem.store.models import SnapshotRow

EME = "eight-minute-empire"
IMPERIAL = "imperial2030"
PLAYERS = ("ann:ann@example.org", "bob:bob@example.org")
# A few orders each kind takes from a new two-player game (seed 1; Imperial: ann governs Russia and moves first).
OPENINGS: dict[str, tuple[tuple[str, str], ...]] = {
    EME: (("ann", "BID 1"), ("bob", "BID 0"), ("ann", "TAKE 1")),
    IMPERIAL: (("ann", "RONDEL investor"),),
}
NEW_GAME_OPTIONS = {EME: (), IMPERIAL: ("--deal", "russia=ann")}
RandomMove = Callable[[Any, random.Random], tuple[str, Any]]
RANDOM_MOVES: dict[str, RandomMove] = {
    EME: lambda state, rng: eme_random_move(default_board(), state, rng),
    IMPERIAL: imperial_random_move,
}


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'pbem.db'}"


def pbem(url: str, *args: str, code: int = 0) -> str:
    """Run the CLI on the test database; its standard output, after checking the exit code."""
    result = CliRunner().invoke(app, ["--database", url, *args])
    assert result.exit_code == code, result.output
    return result.stdout


def new_game(url: str, kind: str, name: str = "g") -> None:
    pbem(url, "game", "new", name, "--kind", kind, *(part for p in PLAYERS for part in ("--player", p)),
         "--seed", "1", *NEW_GAME_OPTIONS[kind])


def opened(url: str, kind: str, name: str = "g") -> None:
    """A new game of ``kind`` with its opening orders played through the CLI."""
    new_game(url, kind, name)
    for player, text in OPENINGS[kind]:
        pbem(url, "order", name, "--as", player, text)


def played_to_the_end(url: str, kind: str, name: str = "g") -> None:
    """A new game of ``kind`` played to its end by random legal moves, logged straight into the store."""
    new_game(url, kind, name)
    db = Database(url)
    try:
        with db.transaction() as session:
            game = store.find_game(session, name)
            rules = kind_of(kind)
            state, _ = rules.new_game(store.game_setup(game))
            rng, entries = random.Random(7), []
            while not rules.finished(state):
                player, action = RANDOM_MOVES[kind](state, rng)
                entries.append(LogEntry(player, action, rules.version(state)))
                state, _ = rules.apply(state, player, action)
            store.append_actions(session, game, entries)
            store.save_snapshot(session, game, state)
            store.set_status(session, game, GameStatus.FINISHED)
    finally:
        db.dispose()


def exported(url: str, name: str = "g", *options: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(pbem(url, "export", name, *options))
    return data


def stored_state(url: str, name: str = "g") -> Any:
    db = Database(url)
    try:
        return Moderator(db).state(name)
    finally:
        db.dispose()


def replayed(data: dict[str, Any]) -> Any:
    """The state an export leads to, built from its setup and actions by the kind's rules alone."""
    rules = kind_of(data["kind"])
    state, _ = rules.new_game(rules.setup_from_json(data["setup"]))
    for entry in data["actions"]:
        assert entry["version"] == rules.version(state) and entry["move"] == entry["version"] + 1
        state, _ = rules.apply(state, entry["player"], rules.action_from_json(entry["action"]))
    return state


# --- JSON: enough to replay -----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", [EME, IMPERIAL])
def test_the_json_export_replays_to_the_stored_state(url: str, kind: str) -> None:
    opened(url, kind)
    data = exported(url)
    assert (data["format"], data["game"], data["kind"], data["status"]) == (FORMAT, "g", kind, "active")
    assert data["title"] == kind_of(kind).info.title and data["created"].endswith("+00:00")
    assert [(a["player"], a["order"]) for a in data["actions"]] == list(OPENINGS[kind])
    assert all(a["applied"].endswith("+00:00") for a in data["actions"])
    assert [s["email"] for s in data["seats"]] == ["ann@example.org", "bob@example.org"]
    rules = kind_of(kind)
    assert rules.state_to_json(replayed(data)) == rules.state_to_json(stored_state(url))
    assert data["replay_matches"] is True and data["finished"] is False and data["final_scores"] is None


@pytest.mark.parametrize("kind", [EME, IMPERIAL])
def test_a_finished_game_exports_its_final_scores_and_a_public_setup_that_replays(url: str, kind: str) -> None:
    played_to_the_end(url, kind)
    game_kind, state = kind_of(kind), stored_state(url)
    scores = [{"player": p, "score": s} for p, s in game_kind.final_scores(state)]
    own, public = exported(url), exported(url, "g", "--public")
    for data in (own, public):
        assert data["finished"] is True and data["status"] == "finished" and data["replay_matches"] is True
        assert data["final_scores"] == scores
    assert game_kind.rules.state_to_json(replayed(own)) == game_kind.rules.state_to_json(state)
    assert public["setup_withheld"] is False and "@" not in json.dumps(public)
    # the public setup is the same game with its seats at no address: it replays to the same end
    assert game_kind.final_scores(replayed(public)) == game_kind.final_scores(state)


def test_the_game_narrates_each_action_as_every_player_reads_it(url: str) -> None:
    opened(url, EME)
    bids, reveal, take = exported(url)["actions"]
    assert bids["narration"] == []  # a sealed bid tells nobody else anything
    assert reveal["narration"] == ["All bids are in: ann 1, bob 0. ann pays 1 and takes the first turn."]
    assert take["order"] == "TAKE 1" and take["narration"][0].startswith("ann took ")


def test_a_stored_state_that_differs_from_the_replay_is_reported(url: str) -> None:
    opened(url, EME)
    db = Database(url)
    try:
        with db.transaction() as session:
            snapshot = store.latest_snapshot(session, store.find_game(session, "g"))
            assert snapshot is not None
            changed = {**snapshot.state, "coins": {player: 99 for player in snapshot.state["coins"]}}
            session.execute(update(SnapshotRow).where(col(SnapshotRow.id) == snapshot.id).values(state=changed))
        assert export_game(db, "g").replay_matches is False
    finally:
        db.dispose()
    assert "WARNING: the stored state differs from the replay" in pbem(url, "export", "g", "--format", "text")


# --- public: for publishing ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", [EME, IMPERIAL])
def test_a_public_export_holds_no_address(url: str, kind: str) -> None:
    opened(url, kind)
    data = exported(url, "g", "--public")
    assert data["public"] is True and [set(s) for s in data["seats"]] == [{"seat", "name"}] * 2
    assert "@" not in json.dumps(data)
    assert "@" not in pbem(url, "export", "g", "--public", "--format", "text")
    assert "ann@example.org" in pbem(url, "export", "g", "--format", "text")  # the game master's own has them


@pytest.mark.parametrize("kind", [EME, IMPERIAL])
def test_a_public_export_of_a_running_game_withholds_the_setup_and_its_seed(url: str, kind: str) -> None:
    opened(url, kind)
    data = exported(url, "g", "--public")
    assert data["setup"] is None and data["setup_withheld"] is True
    assert exported(url)["setup"]["seed"] == 1


def test_a_public_export_during_the_open_bid_shows_no_bid_nor_that_one_was_given(url: str) -> None:
    new_game(url, EME)
    before = exported(url, "g", "--public")
    before_text = pbem(url, "export", "g", "--public", "--format", "text")
    pbem(url, "order", "g", "--as", "ann", "BID 3")
    during = exported(url, "g", "--public")
    assert during["sealed_round_open"] is True and during["actions"] == []
    assert during == before  # nothing tells that ann has bid
    text = pbem(url, "export", "g", "--public", "--format", "text")
    assert text == before_text and "BID" not in text and "sealed round is open" in text
    assert [a["order"] for a in exported(url)["actions"]] == ["BID 3"]  # the game master's own export has it
    pbem(url, "order", "g", "--as", "bob", "BID 1")
    after = exported(url, "g", "--public")
    assert after["sealed_round_open"] is False and [a["order"] for a in after["actions"]] == ["BID 3", "BID 1"]


# --- text: a chronicle to read ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", [EME, IMPERIAL])
@pytest.mark.slow
def test_the_text_export_is_mail_text(url: str, kind: str) -> None:
    played_to_the_end(url, kind)
    for options in ((), ("--public",)):
        text = pbem(url, "export", "g", "--format", "text", *options)
        assert problems(text) == []  # ASCII, at most 78 columns, no trailing blanks
        assert text.startswith(f"Game g: {kind_of(kind).info.title} ({kind}), finished.")
        assert "move 1  (" in text and "Final scores:\n  1. " in text


@pytest.mark.slow
def test_the_text_export_tells_each_move_with_its_story(url: str) -> None:
    opened(url, EME)
    lines = pbem(url, "export", "g", "--format", "text").splitlines()
    assert lines[1] == "Players (seating order): ann <ann@example.org>, bob <bob@example.org>."
    (reveal,) = [n for n, line in enumerate(lines) if line.startswith("move 2  (")]
    assert lines[reveal].endswith("  bob: BID 0")
    assert lines[reveal + 1] == "    All bids are in: ann 1, bob 0. ann pays 1 and takes the first turn."
    assert lines[reveal + 2] == ""
    assert lines[-1] == "The stored state equals the replay of the log."


# --- the command ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["json", "text"])
def test_output_writes_the_export_to_a_file(url: str, tmp_path: Path, form: str) -> None:
    opened(url, EME)
    target = tmp_path / f"g.{form}"
    said = pbem(url, "export", "g", "--format", form, "--output", str(target))
    assert said == f"Game g exported to {target} ({form}; 3 moves).\n"
    assert target.read_text(encoding="utf-8") == pbem(url, "export", "g", "--format", form)


def test_an_unknown_game_is_a_clear_error(url: str) -> None:
    opened(url, EME)
    result = CliRunner().invoke(app, ["--database", url, "export", "nope"])
    assert result.exit_code == 2  # a usage error, like every command given an unknown game (pbem.cli)
    assert result.stderr == "error: no game named 'nope'; games: g\n" and result.stdout == ""


def test_an_unwritable_output_is_a_clear_error(url: str, tmp_path: Path) -> None:
    opened(url, EME)
    result = CliRunner().invoke(app, ["--database", url, "export", "g", "--output", str(tmp_path / "no" / "g.json")])
    assert result.exit_code == 2 and result.stderr.startswith("error: cannot write ")
