"""A second game kind through the real moderator and mail flow: sealed answers stay sealed (tests/sealedkind.py).

The kind lives in the tests; the moderator, the store, the mail flow and the
deadline tick it runs on are the product's own, unchanged. SQLite and PostgreSQL.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from dbfixtures import db_url, postgres_url  # noqa: F401  (fixtures)

from pbem.deadlines import tick
from pbem.errors import BadSetup
from pbem.games import registered
from pbem.mailflow import create_game_with_mail
from pbem.mailflow.inbound import process_message
from pbem.moderator import Moderator
from pbem.store import Database, find_game, replay_game
from pbem.store.outbox import OutboxRow
from pbem.store.settings import load_settings, save_settings
from tests.mailflowkit import MODERATOR, NOW, PLAYERS, Table, config_for
from tests.sealedkind import KIND, SealedGuess, State, secret

EMAIL = dict(PLAYERS)


class SealedTable(Table):
    """One game of the sealed guess, created by mail, played by mail."""

    uid = 0

    def create(self, players: int = 3, now=NOW) -> None:  # type: ignore[no-untyped-def]
        setup = self.moderator.make_setup(self.name, PLAYERS[:players], seed=11, kind=KIND)
        create_game_with_mail(self.moderator, self.config, self.name, setup, now, kind=KIND)

    def send(self, player: str, body: str, now=NOW) -> str:  # type: ignore[no-untyped-def]
        self.uid += 1
        return process_message(self.db, self.config, self.mail_from(player, body), "INBOX", 1, self.uid, now,
                               moderator=self.moderator).outcome

    def mails_to(self, player: str, since: int = 0) -> list[OutboxRow]:
        return [row for row in self.outbox()[since:] if row.recipient == EMAIL[player]]

    def sealed_state(self) -> State:
        state = self.state()
        assert isinstance(state, State)
        return state


@pytest.fixture
def table(db_url: str) -> Iterator[SealedTable]:  # noqa: F811
    with registered(SealedGuess()):
        t = SealedTable(Database(db_url), config_for())
        t.create()
        yield t
        t.db.dispose()


def said(rows: list[OutboxRow]) -> str:
    return "\n".join(f"{row.subject}\n{row.body}\n{row.headers}" for row in rows)


def test_a_whole_game_of_the_second_kind_is_played_by_mail_sg_4_sg_5(table: SealedTable) -> None:
    """SG-4/SG-5: three rounds by mail; points as the rules say; the stored state equals the replay."""
    guesses = {"ann": 3, "bob": 7, "cy": 10}
    for _ in range(3):
        for player, number in guesses.items():
            assert table.send(player, f"GUESS {number}\n\n> earlier mail") == "applied"
    state = table.sealed_state()
    assert state.finished and len(state.resolved) == 3
    for resolved in state.resolved:
        target = secret(state.setup, resolved.round)
        best = min(abs(n - target) for n in guesses.values())
        assert resolved.target == target
        assert resolved.scorers == tuple(p for p, n in guesses.items() if abs(n - target) == best)
    assert sum(n for _, n in state.points) >= 3
    with table.db.transaction() as session:
        assert replay_game(session, find_game(session, table.name)) == state
    ends = [row for row in table.outbox() if row.purpose == "game_end"]
    assert sorted(row.recipient for row in ends) == sorted(EMAIL[p] for p in guesses)


def test_a_sealed_guess_shows_nowhere_before_all_are_in_sg_1_sg_2(table: SealedTable) -> None:
    """SG-1/SG-2: after ann's guess no mail, query answer or state view tells bob or cy her number, that she
    guessed, or the secret number; ann alone is told."""
    before = len(table.outbox())
    assert table.send("ann", "GUESS 4") == "applied"
    assert [row.recipient for row in table.outbox()[before:]] == [EMAIL["ann"]]  # her report, nobody else's mail
    assert "You guessed 4." in table.mails_to("ann", before)[0].body
    assert table.send("bob", "STATUS") == "query"
    (answer,) = table.mails_to("bob", before)
    target = secret(table.sealed_state().setup, 1)
    for text in (said(table.mails_to("bob")) + said(table.mails_to("cy")), answer.body):
        assert "ann" not in re.sub(r"Players: [^\n]*|Points: [^\n]*", "", text).replace("Thanks", "")
        assert not re.search(rf"\b4\b|\b{target}\b", re.sub(r"(Move|round|Round) \d+|of 3|1 to 10|\d{4}-", "", text))
    kind = SealedGuess()
    state = table.sealed_state()
    for view in (table.moderator.state_json(table.name), table.moderator.state_json(table.name, "bob"),
                 kind.state_json(table.name, state, "cy")):
        assert "4" not in str(view.get("your_guess")) and "ann" not in str(view["rounds"])
        assert str(target) not in str(view["rounds"])
    assert table.moderator.state_json(table.name, "ann")["your_guess"] == 4


def test_a_guess_may_be_changed_until_the_last_is_in_sg_3(table: SealedTable) -> None:
    """SG-3: the last guess counts; changing it tells nobody else either."""
    table.send("ann", "GUESS 2")
    before = len(table.outbox())
    table.send("ann", "GUESS 9")
    assert {row.recipient for row in table.outbox()[before:]} == {EMAIL["ann"]}
    table.send("bob", "GUESS 1")
    table.send("cy", "GUESS 1")
    (resolved,) = table.sealed_state().resolved
    assert dict(resolved.guesses) == {"ann": 9, "bob": 1, "cy": 1}
    ends = table.outbox()[before:]
    assert any("ann 9" in row.body for row in ends if row.recipient == EMAIL["cy"])  # revealed once all are in


def test_a_refused_guess_names_the_line_and_what_is_legal(table: SealedTable) -> None:
    before = len(table.outbox())
    assert table.send("bob", "GUESS 11") == "refused"
    (reply,) = table.mails_to("bob", before)
    assert "line 1: GUESS 11" in reply.body and "GUESS 1; GUESS 2" in reply.body
    assert table.sealed_state().guesses == ()


def test_the_deadline_takes_the_default_only_for_who_has_not_guessed_sg_6(table: SealedTable) -> None:
    """SG-6: reminders and the default (GUESS 5) reach only the players whose guess is missing."""
    with table.db.transaction() as session:
        game = find_game(session, table.name)
        settings = load_settings(session, game)
        settings.deadline_hours["guess"] = 10
        settings.reminder_hours = (4.0,)
        save_settings(session, game, settings)
    table.send("ann", "GUESS 8")  # the log stamps the real time: the clock starts now
    start = datetime.now(UTC)
    before = len(table.outbox())
    tick(table.db, start + timedelta(hours=7), moderator_address=MODERATOR)
    reminded = {row.recipient for row in table.outbox()[before:] if row.purpose == "reminder"}
    assert reminded == {EMAIL["bob"], EMAIL["cy"]}
    # Each answer restarts the clock of the decisions still open (as for every kind): bob's default at
    # 10 hours, cy's 10 hours after that.
    for hours in (11, 22):
        tick(table.db, start + timedelta(hours=hours), moderator_address=MODERATOR)
    (resolved,) = table.sealed_state().resolved
    assert dict(resolved.guesses) == {"ann": 8, "bob": 5, "cy": 5}


def test_the_kind_checks_its_own_options(table: SealedTable) -> None:
    """A game master's choice of another kind is refused by this one; so is a player count it cannot seat."""
    with pytest.raises(BadSetup, match="no options"):
        table.moderator.create_game("g2", PLAYERS[:2], deal=[("russia", "ann")], kind=KIND)
    with pytest.raises(BadSetup, match="2 to 4 players"):
        table.moderator.create_game("g3", PLAYERS[:1], kind=KIND)
    assert Moderator(table.db).kind_of(table.name).name == KIND


def test_pbem_state_shows_a_sealed_answer_only_to_its_player_or_when_asked_for_everything(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``pbem state --json``: the public view has no sealed answer; ``--for`` adds the player's own;
    ``--everything`` (the game master's explicit flag) shows the whole stored state."""
    import json

    from typer.testing import CliRunner

    from pbem.cli import app

    url = f"sqlite:///{tmp_path / 'cli.db'}"
    with registered(SealedGuess()):
        Moderator(Database(url)).create_game("g", PLAYERS[:2], seed=3, kind=KIND)
        Moderator(Database(url)).submit("g", "ann", "GUESS 6")

        def state(*flags: str) -> dict:  # type: ignore[type-arg]
            result = CliRunner().invoke(app, ["--database", url, "state", "g", "--json", *flags])
            assert result.exit_code == 0, result.output
            return json.loads(result.stdout)  # type: ignore[no-any-return]

        assert "6" not in json.dumps(state()["rounds"]) and "your_guess" not in state()
        assert state("--for", "ann")["your_guess"] == 6 and state("--for", "BOB")["your_guess"] is None
        assert state("--everything")["guesses"] == [["ann", 6]]
        refused = CliRunner().invoke(app, ["--database", url, "state", "g", "--for", "ann"])
        assert refused.exit_code == 2 and "go with --json" in refused.stderr


def test_move_numbers_do_not_count_sealed_answers_sg_2(table: SealedTable) -> None:
    """SG-2: every mail of the open round carries the move the round began at, so bob cannot tell from his
    own report's move number whether ann guessed before him; replies bind to it as to any move."""
    table.send("ann", "GUESS 2")
    assert table.send("bob", "GUESS 9") == "applied"
    rows = table.mails_to("bob")
    assert rows and all(row.version == 0 and ("Move 0:" in row.subject or row.purpose == "welcome") for row in rows)
    assert table.send("bob", "GUESS 3") == "applied"  # a reply to his move-0 mail still counts (SG-3)
    assert table.sealed_state().guess_of("bob") == 3


def test_undoing_a_sealed_answer_tells_nobody_else(table: SealedTable) -> None:
    """The game master takes back ann's guess: only ann hears of it."""
    from pbem import gamemaster

    table.send("ann", "GUESS 2")
    before = len(table.outbox())
    gamemaster.undo(table.db, table.name, mail=gamemaster.MailContext.from_config(table.config))
    assert {row.recipient for row in table.outbox()[before:]} == {EMAIL["ann"]}
    assert table.sealed_state().guesses == ()
