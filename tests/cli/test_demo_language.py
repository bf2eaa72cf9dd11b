"""``pbem demo --language [NAME=]LANG`` from the command line (issue 30): every seat's language, one seat's,
the bots of both games in every language, and a whole Russian game."""
from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from pbem.cli.demo import parse_languages
from pbem.demo import Demo, DemoOptions, bot_languages
from pbem.errors import BadSetup
from pbem.games import kind_named
from pbem.languages import Language


def test_issue30_language_is_every_seats_or_one_seats() -> None:
    assert parse_languages(()) == (Language.EN, ())
    assert parse_languages(("ru", "bot2=pl", "ann=Español")) == (Language.RU, (("bot2", "pl"), ("ann", "es")))
    for wrong in ("klingon", "=ru", "bot2=", "bot2=xx"):
        with pytest.raises(BadSetup, match="--language must be LANG or NAME=LANG"):
            parse_languages((wrong,))


def test_issue30_imperials_bots_are_seated_in_russian(tmp_path: Path) -> None:
    demo = Demo(DemoOptions(players=3, language="ru", directory=tmp_path / "d"))
    assert set(demo.languages.values()) == {Language.RU}
    assert bot_languages(kind_named("imperial2030").bot) == tuple(Language)


def test_issue30_demo_help_tells_the_language_option() -> None:
    result = CliRunner().invoke(app, ["demo", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    text = " ".join(result.output.replace("\u2502", " ").split())  # the help's text, without its box
    assert "NAME=LANG for one seat" in text and "The bots read and answer in their seat's language" in text


@pytest.mark.slow
def test_issue30_a_russian_eight_minute_empire_demo_from_the_command_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["demo", "--kind", "eight-minute-empire", "--players", "2", "--seed", "2",
                                      "--language", "ru", "--dir", str(tmp_path / "d"), "--timeout", "300"])
    assert result.exit_code == 0, result.output
    assert "The final state equals the replay of the game's log." in result.output
    assert "mail in Russian" in result.output


def test_issue30_pbem_bot_reads_the_languages_its_game_reads(tmp_path: Path) -> None:
    common = ["bot", "--maildir", str(tmp_path / "box"), "--smtp", "127.0.0.1:1", "--address", "a@b.org", "--once"]
    russian = CliRunner().invoke(app, [*common, "--language", "ru"])
    assert russian.exit_code == 0 and "0 replies sent" in russian.output
    wrong = CliRunner().invoke(app, [*common, "--kind", "eight-minute-empire", "--language", "xx"])
    assert wrong.exit_code == 2 and "Eight-Minute Empire's bot reads en, ru, pl, es, it" in wrong.output
