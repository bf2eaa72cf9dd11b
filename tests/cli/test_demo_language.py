"""``pbem demo --language [NAME=]LANG`` from the command line (issue 30): every seat's language, one seat's,
the refusal of Imperial 2030's bots in another language than English, and a whole Russian game."""
from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from pbem.cli.demo import parse_languages
from pbem.errors import BadSetup
from pbem.languages import Language


def test_issue30_language_is_every_seats_or_one_seats() -> None:
    assert parse_languages(()) == (Language.EN, ())
    assert parse_languages(("ru", "bot2=pl", "ann=Español")) == (Language.RU, (("bot2", "pl"), ("ann", "es")))
    for wrong in ("klingon", "=ru", "bot2=", "bot2=xx"):
        with pytest.raises(BadSetup, match="--language must be LANG or NAME=LANG"):
            parse_languages((wrong,))


def test_issue30_imperials_bots_in_russian_are_refused_with_exit_code_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["demo", "--players", "3", "--language", "ru", "--dir", str(tmp_path / "d")])
    assert result.exit_code == 2, result.output
    assert "Imperial 2030's bots read English only for now; use --humans for the seats in ru" in result.output
    assert not (tmp_path / "d").exists()


def test_issue30_demo_help_tells_the_language_option() -> None:
    result = CliRunner().invoke(app, ["demo", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert "NAME=LANG for one seat" in text and "Imperial 2030's bots read English only" in text


@pytest.mark.slow
def test_issue30_a_russian_eight_minute_empire_demo_from_the_command_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["demo", "--kind", "eight-minute-empire", "--players", "2", "--seed", "2",
                                      "--language", "ru", "--dir", str(tmp_path / "d"), "--timeout", "300"])
    assert result.exit_code == 0, result.output
    assert "The final state equals the replay of the game's log." in result.output
    assert "mail in Russian" in result.output


def test_issue30_pbem_bot_reads_the_languages_its_game_reads(tmp_path: Path) -> None:
    common = ["bot", "--maildir", str(tmp_path / "box"), "--smtp", "127.0.0.1:1", "--address", "a@b.org", "--once"]
    refused = CliRunner().invoke(app, [*common, "--language", "ru"])
    assert refused.exit_code == 2 and "Imperial 2030's bot reads en" in refused.output
    wrong = CliRunner().invoke(app, [*common, "--kind", "eight-minute-empire", "--language", "xx"])
    assert wrong.exit_code == 2 and "Eight-Minute Empire's bot reads en, ru, pl, es, it" in wrong.output
