"""``pbem game new --master`` and ``pbem game master add|remove|list``: the host names a game's masters."""
from __future__ import annotations

from pathlib import Path

from sqlmodel import col, select
from typer.testing import CliRunner

from pbem.cli import app
from pbem.store import Database
from pbem.store.outbox import OutboxRow

runner = CliRunner()
ENV = {"PBEM_DATABASE_URL": "", "PBEM_CONFIG": ""}


def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "pbem.toml"
    path.write_text('[moderator]\naddress = "pbem@games.test"\n'
                    '[smtp]\nhost = "127.0.0.1"\nport = 9\nsecurity = "none"\ntimeout = 2\n'
                    f'[database]\nurl = "sqlite:///{tmp_path / "pbem.db"}"\n')
    return path


def pbem(tmp_path: Path, *words: str) -> str:
    result = runner.invoke(app, ["--config", str(config_file(tmp_path)), *words], env=ENV)
    assert result.exit_code == 0, result.output
    return result.output


def master_mail(tmp_path: Path) -> list[OutboxRow]:
    db = Database(f"sqlite:///{tmp_path / 'pbem.db'}")
    try:
        with db.transaction() as session:
            return list(session.exec(select(OutboxRow).where(col(OutboxRow.purpose) == "master")).all())
    finally:
        db.dispose()


def test_a_new_games_master_gets_a_welcome_with_its_token(tmp_path: Path) -> None:
    said = pbem(tmp_path, "game", "new", "g", "--player", "ann:ann@example.org", "--player", "bob:bob@example.org",
                "--master", "gm@example.org")
    assert "gm@example.org is now a master of game g" in said
    [welcome] = master_mail(tmp_path)
    assert welcome.recipient == "gm@example.org" and welcome.headers["reply_to"].startswith("pbem+")


def test_the_host_adds_lists_and_removes_masters(tmp_path: Path) -> None:
    pbem(tmp_path, "game", "new", "g", "--player", "ann:ann@example.org", "--player", "bob:bob@example.org")
    pbem(tmp_path, "game", "master", "add", "g", "gm@example.org")
    assert "gm@example.org (named by host)" in pbem(tmp_path, "game", "master", "list", "g")
    pbem(tmp_path, "game", "master", "remove", "g", "gm@example.org")
    assert "has no master" in pbem(tmp_path, "game", "master", "list", "g")


def test_game_show_names_the_games_masters(tmp_path: Path) -> None:
    pbem(tmp_path, "game", "new", "g", "--player", "ann:ann@example.org", "--player", "bob:bob@example.org")
    assert "Game masters: none (alerts go to [moderator] game_master)" in pbem(tmp_path, "game", "show", "g")
    pbem(tmp_path, "game", "master", "add", "g", "gm@example.org")
    assert "Game masters: gm@example.org" in pbem(tmp_path, "game", "show", "g")
