"""``pbem game new --mail MODE``: a game master chooses the seats' mail when the game starts (issue 29)."""
from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from pbem.store import Database, find_game
from pbem.store.settings import load_settings

runner = CliRunner()


def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "pbem.toml"
    path.write_text('[moderator]\naddress = "pbem@games.test"\n'
                    '[smtp]\nhost = "127.0.0.1"\nport = 9\nsecurity = "none"\ntimeout = 2\n'
                    f'[database]\nurl = "sqlite:///{tmp_path / "pbem.db"}"\n')
    return path


def mail_default(tmp_path: Path, *options: str) -> str:
    env = {"PBEM_DATABASE_URL": "", "PBEM_CONFIG": ""}
    result = runner.invoke(app, ["--config", str(config_file(tmp_path)), "game", "new", "g", "--player",
                                 "ann:ann@example.org", "--player", "bob:bob@example.org", *options], env=env)
    assert result.exit_code == 0, result.output
    db = Database(f"sqlite:///{tmp_path / 'pbem.db'}")
    try:
        with db.transaction() as session:
            return load_settings(session, find_game(session, "g")).mail_default
    finally:
        db.dispose()


def test_a_new_game_by_mail_is_turn_unless_told(tmp_path: Path) -> None:
    assert mail_default(tmp_path) == "turn"


@pytest.mark.parametrize("mode", ["every", "ROUND", "daily"])
def test_the_game_master_chooses_the_mail(tmp_path: Path, mode: str) -> None:
    assert mail_default(tmp_path, "--mail", mode) == mode.lower()


def test_a_mode_that_is_none_is_refused(tmp_path: Path) -> None:
    result = runner.invoke(app, ["--config", str(config_file(tmp_path)), "game", "new", "g", "--player",
                                 "ann:ann@example.org", "--player", "bob:bob@example.org", "--mail", "weekly"],
                           env={"PBEM_DATABASE_URL": "", "PBEM_CONFIG": ""})
    assert result.exit_code == 2 and "weekly" in result.output
