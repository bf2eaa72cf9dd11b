"""A game without a mail configuration queues no mail and speaks of none; mail configured later works.

Also: every mail the game master's commands send to a seat carries that seat's reply token, so
hitting Reply on an undo notice, a resent prompt or a reminder reaches the seat's game.
"""
from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem import store
from pbem.cli import app
from pbem.mail import token_of_address
from pbem.moderator import gamemaster
from pbem.moderator.deadlines import decision_since
from pbem.store import Database
from pbem.store.outbox import OutboxRow
from pbem.store.tokens import seat_for_token

MODERATOR = "pbem@games.example"


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'pbem.db'}"


def cli(url: str, *args: str, config: Path | None = None):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(app, ["--database", url, *(["--config", str(config)] if config else []), *args])


def outbox(url: str) -> list[OutboxRow]:
    from sqlmodel import select

    with Database(url).transaction() as session:
        return list(session.exec(select(OutboxRow).order_by(OutboxRow.id)).all())  # type: ignore[arg-type]


def new_game(url: str) -> None:
    result = cli(url, "game", "new", "g1", "--player", "ann:ann@example.org", "--player", "bob:bob@example.org",
                 "--deal", "russia=ann", "--seed", "1")
    assert result.exit_code == 0, result.output


def test_without_mail_configuration_no_command_queues_mail_or_speaks_of_it(url: str) -> None:
    new_game(url)
    outputs = [cli(url, "force", "g1", "--as", "ann", "RONDEL investor"), cli(url, "undo", "g1"),
               cli(url, "pause", "g1"), cli(url, "resume", "g1"),
               cli(url, "replace", "g1", "bob", "cleo", "--email", "cleo@example.org")]
    for result in outputs:
        assert result.exit_code == 0, result.output
        assert "mail" not in result.stdout.lower() and "token" not in result.stdout.lower(), result.stdout
    assert outbox(url) == []
    assert outputs[-1].stdout.strip() == "Game g1: cleo <cleo@example.org> takes over seat 2 from bob."


def test_resend_without_mail_configuration_says_what_is_missing(url: str) -> None:
    new_game(url)
    result = cli(url, "resend", "g1")
    assert result.exit_code == 2 and "no mail is configured" in result.stderr
    assert outbox(url) == []


def test_mail_configured_later_resend_gives_every_seat_its_token(url: str, tmp_path: Path) -> None:
    new_game(url)
    config = tmp_path / "pbem.toml"
    config.write_text(f'[moderator]\naddress = "{MODERATOR}"\n[smtp]\nhost = "127.0.0.1"\n')
    result = cli(url, "resend", "g1", config=config)
    assert result.exit_code == 0, result.output
    seats_told = set()
    with Database(url).transaction() as session:
        for row in outbox(url):
            token = token_of_address(row.headers["reply_to"], MODERATOR)
            assert token, row.purpose
            seat = seat_for_token(session, token)
            assert seat is not None and seat.email == row.recipient
            seats_told.add(seat.name)
    assert seats_told == {"ann", "bob"}


def test_every_game_master_mail_to_a_seat_carries_its_reply_token(url: str) -> None:
    new_game(url)
    db = Database(url)
    mail = gamemaster.MailContext.make(moderator_address=MODERATOR, game_master="gm@example.org")
    gamemaster.force(db, "g1", "ann", "RONDEL investor", mail=mail)
    gamemaster.undo(db, "g1", mail=mail)
    gamemaster.pause(db, "g1", mail=mail)
    gamemaster.resume(db, "g1", mail=mail)
    gamemaster.resend(db, "g1", mail=mail)
    rows = [row for row in outbox(url) if row.recipient != "gm@example.org"]
    assert {row.purpose for row in rows} >= {"report", "prompt", "undo", "pause", "resume", "resend"}
    with db.transaction() as session:
        for row in rows:
            token = token_of_address(row.headers.get("reply_to") or "", MODERATOR)
            assert token, (row.purpose, row.headers)
            seat = seat_for_token(session, token)
            assert seat is not None and seat.email == row.recipient


def test_without_mail_a_resume_still_restarts_the_deadline_clock(url: str) -> None:
    """The restart was read from the resume notices; without mail there are none to read."""
    new_game(url)
    db = Database(url)
    later = datetime.now(UTC) + timedelta(hours=30)
    gamemaster.pause(db, "g1")
    gamemaster.resume(db, "g1", now=later)
    with db.transaction() as session:
        since = decision_since(session, store.find_game(session, "g1"))
    assert abs((since - later).total_seconds()) < 1
