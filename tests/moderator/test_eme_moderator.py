"""Eight-Minute Empire on the moderator: orders by mail and by CLI, the sealed bid, the demo (R8-* ids)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine.core.seats import Seat
from engine.eight_minute_empire.board import default_board
from engine.eight_minute_empire.game import new_game
from engine.eight_minute_empire.model import Phase, Setup, State
from engine.eight_minute_empire.rules import state_to_json
from pbem import store
from pbem.cli import app
from pbem.demo import DemoOptions, main_text
from pbem.games.eight_minute_empire.views import check_map_art, map_lines
from pbem.moderator import Moderator
from pbem.render import problems
from pbem.store import Database
from tests.emetable import EMAIL, KIND, EmeTable


def test_r8_bid_1_no_mail_before_the_reveal_holds_another_players_bid(table: EmeTable) -> None:
    """R8-BID-1 by mail: ann's bid is confirmed to ann alone; bob's and cy's mails, STATUS answers, HISTORY and
    state views show neither her bid nor that she bid, and their move numbers do not move; the reveal comes
    to everyone in one report."""
    before = len(table.outbox())
    assert table.send("ann", "BID 7") == "applied"
    assert [row.recipient for row in table.outbox()[before:]] == [EMAIL["ann"]]
    assert "Your bid of 7 is recorded" in table.to("ann", before)[0].body
    assert table.send("ann", "BID 8") == "applied" and table.send("ann", "BID 7") == "applied"  # changed twice
    assert table.send("bob", "STATUS\nHISTORY\nOPTIONS") == "query"
    seen = "\n".join(f"{row.subject}\n{row.body}" for p in ("bob", "cy") for row in table.to(p))
    assert "BID 7" not in seen and "bid 7" not in seen.lower() and "ann bid" not in seen
    assert all(row.version == 0 for p in ("bob", "cy") for row in table.to(p))
    views = [table.moderator.state_json(table.name), table.moderator.state_json(table.name, "bob")]
    assert all("7" not in json.dumps(v.get("your_bid")) and v["bids"] is None and v["version"] == 0 for v in views)
    assert table.moderator.state_json(table.name, "ann")["your_bid"] == 7
    reveal = len(table.outbox())
    table.send("bob", "BID 2")
    table.send("cy", "BID 3")
    told = {"ann": "you 7, bob 2, cy 3", "bob": "ann 7, you 2, cy 3", "cy": "ann 7, bob 2, you 3"}
    for name, bids in told.items():
        (mail,) = [row for row in table.to(name, reveal) if "All bids are in" in row.body]  # one each
        assert f"All bids are in: {bids}." in mail.body and mail.purpose == ("prompt" if name == "ann" else "report")
    assert table.eme().current == "ann" and table.eme().coins["ann"] == 11 - 7  # R8-BID-2


def test_r8_turn_a_card_and_its_action_in_one_reply_the_end_of_the_message_ends_it(table: EmeTable) -> None:
    """R8-TURN-1..3, R8-ACT-6: TAKE then the action; the message's end is an implicit DONE."""
    for player in ("ann", "bob", "cy"):
        table.send(player, "BID 0")
    first = table.eme().current
    assert first is not None
    card = table.eme().row[0]
    assert table.send(first, "TAKE 1\nDONE") == "applied"
    assert table.eme().phase is Phase.TAKE and table.eme().current != first
    assert table.eme().hands[first] == (card,)
    second = table.eme().current
    assert second is not None and table.send(second, "TAKE 1") == "applied"  # TAKE alone: the action stays open
    assert table.eme().phase is Phase.ACTION and table.eme().current == second


def test_r8_turn_3_a_snapshot_of_the_older_format_is_passed_over_for_the_replay(table: EmeTable) -> None:
    """A snapshot is a cache: one written while a card's action was open by the engine that laid the deck's
    card at once (format 1: a full row, the deck one shorter, no "format") is not read; the game is its log's
    replay, and the row gets its sixth card only when the action is done."""
    for player in ("ann", "bob", "cy"):
        table.send(player, "BID 0")
    first = table.eme().current
    assert first is not None and table.send(first, "TAKE 1") == "applied"
    replayed = table.eme()
    assert len(replayed.row) == 5
    old = {key: value for key, value in state_to_json(replayed).items() if key != "format"}
    old.update(row=[*replayed.row, replayed.deck[0]], deck=list(replayed.deck[1:]))
    with table.db.transaction() as session:
        snapshot = store.latest_snapshot(session, store.find_game(session, table.name))
        assert snapshot is not None
        snapshot.state = old
        session.add(snapshot)
    assert table.eme() == replayed
    assert table.send(first, "DONE") == "applied"
    assert table.eme().row == (*replayed.row, replayed.deck[0]) and table.eme().deck == replayed.deck[1:]


def test_game_show_lists_the_deadlines_of_the_games_own_decisions(table: EmeTable, db_url: str) -> None:
    """A game made with mail holds every hour the configuration names, Imperial's defaults too: game show lists
    only the decisions an Eight-Minute Empire game asks for."""
    shown = CliRunner().invoke(app, ["--database", db_url, "game", "show", table.name])
    assert shown.exit_code == 0, shown.output
    (line,) = [line for line in shown.stdout.splitlines() if line.startswith("Deadlines:")]
    assert line == "Deadlines: neutral 48h, bid 48h, take 48h, action 48h; reminders 24h before."


def test_a_refused_order_names_the_line_and_what_is_legal(table: EmeTable) -> None:
    before = len(table.outbox())
    assert table.send("ann", "BID 99") == "refused"
    (reply,) = table.to("ann", before)
    assert "line 1: BID 99" in reply.body and "BID 0 to 11 (any whole number of coins), for example:" in reply.body


def test_the_cli_plays_eight_minute_empire(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    runner = CliRunner()

    def pbem(*args: str) -> str:
        result = runner.invoke(app, ["--database", url, *args])
        assert result.exit_code in (0, 1), result.output
        return result.stdout

    assert "eight-minute-empire" in pbem("kinds")
    created = pbem("game", "new", "g", "--kind", "eight-minute-empire", "--player", "ann:a@x.org",
                   "--player", "bob:b@x.org", "--seed", "3")
    assert "Eight-Minute Empire, 2 players" in created and "ann (red)" in created
    pbem("order", "g", "--as", "ann", "BID 1")
    out = pbem("order", "g", "--as", "bob", "BID 0")
    assert "All bids are in: ann 1, you 0. ann pays 1 and takes the first turn." in out
    state = json.loads(pbem("state", "g", "--json"))
    assert state["kind"] == KIND and state["current"] == "ann" and state["first_player"] == "ann"
    assert isinstance(state["deck"], int) and state["bids"] == {"ann": 1, "bob": 0}  # a count: the order is secret
    assert state["players"]["ann"]["coins"] == 13 and state["row"][0]["cost"] == 0
    assert "EIGHT-MINUTE EMPIRE" not in pbem("board", "g") and "Continent C" in pbem("board", "g")
    aged = pbem("game", "new", "a", "--kind", "eight-minute-empire", "--player", "ann:a@x.org",
                "--player", "bob:b@x.org", "--age-order", "BOB,ann")
    assert "Youngest first: bob, ann." in aged  # R8-SETUP-4: the game master gives the age order
    refused = runner.invoke(app, ["--database", url, "game", "new", "h", "--kind", "eight-minute-empire",
                                  "--player", "ann:a@x.org", "--player", "bob:b@x.org", "--deal", "russia=ann"])
    assert refused.exit_code == 2 and "has no option --deal; its options: --age-order" in refused.stderr


@pytest.mark.parametrize(("kind", "flags", "said"), [
    ("imperial2030", ["--age-order", "bob,ann"], "Imperial 2030 has no option --age-order; its options: --deal, "
                                                 "--start-player"),
    ("eight-minute-empire", ["--age-order", "bob,zed"], "--age-order must name every player once, youngest first"),
    ("eight-minute-empire", ["--start-player", "ann"], "Eight-Minute Empire has no option --start-player; its "
                                                       "options: --age-order"),
])
def test_a_refused_game_option_is_named_by_the_flag_the_game_master_typed(tmp_path: Path, kind: str,
                                                                         flags: list[str], said: str) -> None:
    refused = CliRunner().invoke(app, ["--database", f"sqlite:///{tmp_path / 'o.db'}", "game", "new", "g", "--kind",
                                       kind, "--player", "ann:a@x.org", "--player", "bob:b@x.org", *flags])
    assert refused.exit_code == 2 and said in refused.stderr and "ages" not in refused.stderr


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3), (5, 4)])
@pytest.mark.slow
def test_the_demo_plays_eight_minute_empire_to_the_end(tmp_path: Path, players: int, seed: int) -> None:
    """`pbem demo --kind eight-minute-empire` finishes for 2 to 5 players; its state is the replay of its log."""
    import io

    result = main_text(DemoOptions(players=players, seed=seed, directory=tmp_path, kind=KIND, timeout=300),
                       io.StringIO())
    assert result.finished and not result.timed_out
    db = Database(f"sqlite:///{tmp_path / 'pbem.db'}")
    try:
        state = Moderator(db).state("demo")
        assert isinstance(state, State) and state.finished and len(state.seating) == players
        with db.transaction() as session:
            replayed = store.replay_game(session, store.find_game(session, "demo"))
        assert state_to_json(replayed) == state_to_json(state)
    finally:
        db.dispose()


def test_the_map_draws_every_region_with_its_pieces_and_land_links() -> None:
    """R8-PIECE-2: the four continents drawn within 78 columns; each region's armies and cities in place."""
    from dataclasses import replace

    board = default_board()
    assert check_map_art(board) == []
    state, _ = new_game(board, Setup((Seat("ann"), Seat("bob")), 1))
    state = replace(state, armies={12: {"ann": 3, "bob": 3}, 13: {"ann": 2}}, cities={13: {"ann": 1}})
    text = "\n".join(map_lines(board, state)) + "\n"
    assert problems(text) == []
    assert "12:R3 B3" in text and "13:R2 Rc" in text and "Regions controlled: 13 ann." in text
    assert "Continent D" in text and "23 ~ 11" in text
