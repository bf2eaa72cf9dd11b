"""One word for one thing, wherever players and game masters read it.

"Move N" counts the actions applied (reports say "after move N"); the first action of a game is
move 1. The CLI, HISTORY and the mail subjects all say so; nothing says "version" or "v16".
"""
from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine.imperial2030.actions import ArmyMove, Fight
from engine.imperial2030.model import Stance
from pbem import store
from pbem.cli import app
from pbem.games import kind_of
from pbem.games.imperial2030.mails import render_report
from pbem.games.imperial2030.narrate import narrate
from pbem.games.imperial2030.orders import Query, QueryKind
from pbem.games.imperial2030.queries import answer
from pbem.moderator import Moderator
from pbem.moderator.notify.subjects import prompt_subject
from pbem.store import Database
from tests.helpers import maneuver_turn, play, play_all, position, standard_game, with_units


def cli(tmp_path: Path, *args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(app, ["--database", f"sqlite:///{tmp_path / 'pbem.db'}", *args])


def test_history_numbers_moves_as_reports_do(tmp_path: Path) -> None:
    """The action that leads to the report "after move 1" is move 1 in HISTORY."""
    mod = Moderator(Database(f"sqlite:///{tmp_path / 'pbem.db'}"))
    mod.create_game("g1", [("ann", "ann@example.org"), ("bob", "bob@example.org")], deal=[("russia", "ann")],
                    seed=1)
    mod.submit("g1", "ann", "RONDEL investor")
    state = mod.state("g1")
    with mod.db.transaction() as session:
        log = store.load_log(session, store.find_game(session, "g1"))
    history = answer(state, "ann", Query(QueryKind.HISTORY), log=log, game="g1")
    assert "move 1, ann: RONDEL investor" in history
    assert "after move 1" in render_report(state, "ann", (), game="g1")
    assert "v0" not in history and "v1" not in history


def test_the_cli_says_move_never_version(tmp_path: Path) -> None:
    cli(tmp_path, "game", "new", "g1", "--player", "ann:ann@example.org", "--player", "bob:bob@example.org",
        "--deal", "russia=ann", "--seed", "1")
    outputs = [cli(tmp_path, "order", "g1", "--as", "ann", "RONDEL investor").stdout,
               cli(tmp_path, "state", "g1").stdout, cli(tmp_path, "game", "show", "g1").stdout,
               cli(tmp_path, "game", "list").stdout, cli(tmp_path, "undo", "g1").stdout]
    for text in outputs:
        assert "version" not in text.lower(), text
    assert "orders of ann: move 0 -> 1." in outputs[0]


@pytest.mark.slow
def test_the_investors_decision_is_not_called_out_of_turn(tmp_path: Path) -> None:
    cli(tmp_path, "game", "new", "g1", "--player", "ann:ann@example.org", "--player", "bob:bob@example.org",
        "--deal", "russia=ann", "--seed", "1")
    text = cli(tmp_path, "order", "g1", "--as", "ann", "RONDEL investor").stdout
    assert "Waiting for bob (investment" in text
    assert "out of turn" not in text and "in turn" not in text
    assert "out of turn" not in cli(tmp_path, "game", "show", "g1").stdout


def test_the_cli_lists_what_is_legal_once_and_spells_it_as_mail_does(tmp_path: Path) -> None:
    cli(tmp_path, "game", "new", "g1", "--player", "ann:ann@example.org", "--player", "bob:bob@example.org",
        "--deal", "russia=ann", "--seed", "1")
    text = cli(tmp_path, "order", "g1", "--as", "ann", "RONDEL nowhere").stdout
    assert "  Legal now:" in text and "legal now" not in text
    assert text.count("RONDEL taxation") == 1


def test_the_power_column_says_what_it_holds() -> None:
    text = render_report(standard_game(), "Anna", (), game="g1")
    assert "0 (x0)" in text and " x0 " not in text
    assert "Power: power points, and in brackets the multiplier" in " ".join(text.split())


def test_r_battle_1_a_defender_who_chooses_to_fight_fought_it_did_not_attack() -> None:
    """R-BATTLE-3 with the FAQ: Russia's fleet in Murmansk fights the European army that enters."""
    state = position(standard_game(), "russia", factories=["moscow", "vladivostok", "murmansk"])
    state = with_units(with_units(state, "russia", fleets={"murmansk": 1}), "europe", armies={"berlin": 1})
    state = maneuver_turn(state, "europe")
    state, _ = play(state, ArmyMove("berlin", "murmansk", Stance.HOSTILE))
    _, events = play(state, Fight(True), "Anna")
    text = " ".join(narrate(state.board, events))
    assert "Russia fought Europe's arriving army" in text and "Russia attacked" not in text


def test_r_battle_1_a_mover_who_attacks_attacked() -> None:
    state = position(standard_game(), "russia", factories=["moscow", "vladivostok", "murmansk"])
    state = with_units(with_units(state, "russia", fleets={"murmansk": 1}), "europe", armies={"berlin": 1})
    state = maneuver_turn(state, "europe")
    _, events = play_all(state, ArmyMove("berlin", "murmansk", Stance.HOSTILE, attack="russia"))
    assert "Europe attacked Russia" in " ".join(narrate(state.board, events))


def test_prompt_subjects_read_as_a_sentence() -> None:
    state = standard_game()
    kind = kind_of("imperial2030")
    subject = prompt_subject(kind, "g1", state, kind.rules.pending(state)[0])
    assert subject == "[g1] Move 0: please choose a rondel space for Russia"
