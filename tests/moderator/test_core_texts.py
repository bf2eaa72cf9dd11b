"""The words of the game master's and the deadline tick's mails, pinned as players and the game master read them.

They live in templates/core (issue 28: every word a player reads lives in a template); these tests hold the
texts no other test pins to the letter: the pause, resume, resend and replacement notices, the reminder, the
game master's alerts, the subjects' words, and the sentences a move's mail carries for the stand-in and for
refused waiting orders.
"""
from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pbem import store
from pbem.moderator import Moderator, gamemaster
from pbem.moderator.gamemaster import MailContext
from pbem.moderator.gamemaster.common import Subject, TickLine, notice, subject_words, tick_words, words
from pbem.moderator.gamemaster.export import ExportedAction, ExportedSeat, GameExport, export_text
from pbem.moderator.gamemaster.tuning import set_game
from pbem.moderator.tick import tick
from pbem.store import Database
from pbem.store.outbox import OutboxRow, mail_for_game
from tests.moderatorkit import GM, MODERATOR, PLAYERS

MAIL = MailContext.make(moderator_address=MODERATOR, game_master=GM)
T0 = datetime(2031, 1, 6, 12, 0, tzinfo=UTC)  # after the game's creation: every clock counts from here on


@pytest.fixture
def mod(tmp_path: Path) -> Iterator[Moderator]:
    """ann (Russia) has chosen the investor space at T0; bob must invest (24 hours, reminders 24 and 2 hours
    before), every other decision has 48 hours."""
    mod = Moderator(Database(f"sqlite:///{tmp_path / 'pbem.db'}"))
    mod.create_game("demo", PLAYERS[:2], deal=[("russia", "ann")], seed=1)
    set_game(mod.db, "demo", ["deadline.default=48", "deadline.investment=24", "reminders=24,2", "mail=every"])
    gamemaster.force(mod.db, "demo", "ann", "RONDEL investor", mail=MAIL, now=T0)
    yield mod
    mod.db.dispose()


def mails_after(mod: Moderator, start: int) -> list[OutboxRow]:
    with mod.db.transaction() as session:
        return list(mail_for_game(session, store.find_game(session, "demo").id))[start:]  # type: ignore[arg-type]


def count(mod: Moderator) -> int:
    return len(mails_after(mod, 0))


def run(mod: Moderator, hours: float, game_master: str | None = GM) -> list[str]:
    return tick(mod.db, T0 + timedelta(hours=hours), moderator_address=MODERATOR, game_master=game_master).lines()


def test_the_reminder_the_default_and_the_stalled_alert(mod: Moderator) -> None:
    start = count(mod)
    assert run(mod, 23) == ["demo: reminded bob (investment, due 2031-01-07 12:00 UTC)"]
    (reminder,) = mails_after(mod, start)
    assert reminder.subject == ("[demo] Move 1: reminder: please invest with the investor card by Tuesday "
                                "2031-01-07 12:00 UTC")
    assert reminder.body.startswith("====")  # the question first (issue 29), the reminder's note below it
    assert reminder.body.endswith(
        "\nREMINDER\n--------\n"
        "  Reminder: the game waits for you to invest with the investor card. Please\n"
        "  answer by Tuesday 2031-01-07 12:00 UTC (about 2 hours from this reminder).\n"
        "  Without an answer by then, the game takes: PASS.\n\n")
    assert run(mod, 30) == ["demo: no answer from bob by 2031-01-07 12:00 UTC: PASS"]
    start = count(mod)
    assert run(mod, 300) == ["demo: bob is past the deadline (rondel, due 2031-01-10 18:00 UTC): game master alerted"]
    (alert,) = mails_after(mod, start)
    assert (alert.recipient, alert.subject) == (GM, "[demo] Stalled: bob is past the deadline (rondel)")
    assert alert.body.startswith(
        "FOR THE GAME MASTER\n-------------------\n"
        "  Game demo: bob was asked to choose a rondel space for China (pending since\n"
        "  Tuesday 2031-01-07 18:00 UTC); the deadline passed on Friday 2031-01-10\n"
        "  18:00 UTC. This decision has no default answer, so the game waits.\n\n"
        "  To go on: pbem force demo --as bob \"...\" (orders for the player), pbem\n"
        "  resend demo --to bob (the prompt again), pbem replace demo bob NEW --email\n"
        "  ADDRESS (a new player), or pbem pause demo.\n\n"
        "  What bob is asked follows.\n\n====")
    assert run(mod, 301, game_master=None) == [
        "demo: bob is past the deadline (rondel, due 2031-01-10 18:00 UTC): no game master address configured"]


def test_pause_resume_and_resend(mod: Moderator) -> None:
    run(mod, 30)  # bob's PASS: bob must choose China's rondel space
    start = count(mod)
    gamemaster.pause(mod.db, "demo", mail=MAIL, now=T0 + timedelta(days=20))
    paused = mails_after(mod, start)
    assert [(m.subject, m.body) for m in paused] == [(
        "[demo] Move 2: game paused",
        "GAME PAUSED\n-----------\n"
        "  The game master has paused game demo. Orders are not taken and deadlines\n"
        "  stand still until the game is resumed; you will get a mail then.\n\n")] * 2
    assert run(mod, 20 * 24 + 1) == ["demo: paused, deadlines not applied"]
    start = count(mod)
    gamemaster.resume(mod.db, "demo", mail=MAIL, now=T0 + timedelta(days=20, hours=2))
    ann, bob = mails_after(mod, start)
    assert ann.subject == "[demo] Move 2: game resumed"
    assert ann.body.startswith(
        "GAME RESUMED\n------------\n"
        "  The game master has resumed game demo: orders are taken again.\n\n"
        "  Deadlines count from now: bob: choose a rondel space for China, by Wednesday\n"
        "  2031-01-29 14:00 UTC.\n\n\n====")  # the seat's news, none here, would stand between
    assert bob.subject == "[demo] Move 2: please choose a rondel space for China (game resumed)"
    start = count(mod)
    gamemaster.resend(mod.db, "demo", mail=MAIL, now=T0 + timedelta(days=20, hours=3))
    ann, bob = mails_after(mod, start)
    assert ann.subject == "[demo] Move 2: report (sent again)"
    assert ann.body.startswith("SENT AGAIN\n----------\n"
                               "  Sent again at the game master's request; the position is as of now.\n\n\n====")
    assert bob.subject == "[demo] Move 2: please choose a rondel space for China (sent again)"


def test_a_seat_given_to_a_new_player(mod: Moderator) -> None:
    start = count(mod)
    done = gamemaster.replace(mod.db, "demo", "bob", "carl", "carl@example.org", mail=MAIL, now=T0 + timedelta(hours=1))
    welcome, ann, goodbye = mails_after(mod, start)
    assert welcome.subject == "[demo] Move 1: please invest with the investor card (welcome, carl)"
    assert (
        "A SEAT FOR YOU\n--------------\n"
        "  Welcome to game demo: you take over seat 2 from bob, as it stands now.\n\n"
        f"  Your secret reply token is {done.token}. Replies to the\n"
        "  moderator's mails carry it; if a reply of yours does not, add this line to\n"
        f"  it: TOKEN {done.token}\n\n") in welcome.body
    assert ann.subject == "[demo] carl takes over from bob"
    assert ann.body.startswith(
        "NEW PLAYER\n----------\n"
        "  The game master has given bob's seat to another player: carl takes over seat\n"
        "  2 from bob, with the government of China, Brazil, Europe.\n\n"
        "  Deadlines of the pending decisions count from now.\n\n\n====")
    assert (goodbye.recipient, goodbye.subject) == ("bob@example.org", "[demo] carl takes over your seat")
    assert goodbye.body == (
        "YOU HAVE LEFT THE GAME\n----------------------\n"
        "  The game master has given your seat in game demo to another player: carl\n"
        "  takes over seat 2 from bob, with the government of China, Brazil, Europe.\n"
        "  Your orders are no longer taken. Thank you for playing.\n\n")


def test_the_game_master_is_asked_to_replace_a_seat_the_stand_in_plays(mod: Moderator) -> None:
    run(mod, 30)
    set_game(mod.db, "demo", ["absent=bot", "absent_limit=1"])
    start = count(mod)
    (line,) = run(mod, 300)
    assert line.startswith("demo: no answer from bob by 2031-01-10 18:00 UTC: the stand-in played RONDEL ")
    (ask,) = [m for m in mails_after(mod, start) if m.recipient == GM]
    assert ask.subject == "[demo] Please replace bob: 2 decisions missed"
    assert ask.body == (
        "FOR THE GAME MASTER\n-------------------\n"
        "  Game demo: the stand-in has taken the last 2 decisions of bob, who has not\n"
        "  answered. Please find a new player, or step in yourself:\n\n"
        "  pbem replace demo bob NEW --email ADDRESS (a new player takes the seat), or\n"
        "  pbem force demo --as bob \"...\" (orders for the seat).\n\n")


def test_the_subjects_words() -> None:
    assert subject_words(Subject.DIGEST) == "your daily digest"
    assert subject_words(Subject.UNDONE, move=7) == "move 7 taken back by the game master"
    assert subject_words(Subject.UNDONE_SHORT, move=7) == "move 7 taken back"
    assert subject_words(Subject.WELCOME, player="carl") == "Welcome, carl"
    assert subject_words(Subject.YOUR_SEAT, new="carl") == "carl takes over your seat"


def test_the_sentences_a_moves_mail_carries() -> None:
    """The stand-in's note, on a vacation and past a deadline, and a refused waiting line without its number:
    one line each, which the move's mail wraps."""
    assert words("core/move_note_stand_in.j2", player="bob", what="choose a rondel space for China",
                 orders="RONDEL factory; BUILD Chongqing", away_until="the end of 2031-01-08 (UTC)", due="") == (
        "bob is away until the end of 2031-01-08 (UTC): the stand-in (the moderator's bot) played for bob, who "
        "was asked to choose a rondel space for China: RONDEL factory; BUILD Chongqing.")
    assert words("core/move_note_stand_in.j2", player="bob", what="invest", orders="PASS", away_until="",
                 due="Tuesday 2031-01-07 12:00 UTC") == (
        "No answer from bob by the deadline (Tuesday 2031-01-07 12:00 UTC): the stand-in (the moderator's bot) "
        "played for bob, who was asked to invest: PASS.")
    assert words("core/move_note_waiting_refused.j2", line_number=None, line="", reason="No such unit.") == (
        "Your orders that waited for an answer went on; a line was refused: No such unit. The lines after it "
        "were not applied; please send your next orders.")


def test_a_reminder_without_a_default_and_a_resume_without_deadlines_to_show() -> None:
    assert notice("core/notice_reminder.j2", what="choose a rondel space for China", due="Friday 2031-01-10 18:00 UTC",
                  hours=1.5, default=None) == (
        "REMINDER\n--------\n"
        "  Reminder: the game waits for you to choose a rondel space for China. Please\n"
        "  answer by Friday 2031-01-10 18:00 UTC (about 1.5 hours from this reminder).\n"
        "  Without an answer by then, the game master is asked to step in.\n\n")
    sealed = "GAME RESUMED\n------------\n  The game master has resumed game demo: orders are taken again.\n\n"
    assert notice("core/notice_resumed.j2", game="demo", deadlines=[], counted=True) == (
        sealed + "  Deadlines count from now.\n\n")
    assert notice("core/notice_resumed.j2", game="demo", deadlines=[], counted=False) == sealed


def test_the_tick_reports_details() -> None:
    """What the tick tells the game master beside the lines the scenarios above meet."""
    assert tick_words(TickLine.STAND_IN, orders="RONDEL factory\nBUILD Manaus", vacation=True) == (
        "the stand-in played RONDEL factory\nBUILD Manaus (vacation)")
    assert tick_words(TickLine.REFUSED, order="PASS", reason=tick_words(TickLine.NOTHING_APPLIED)) == (
        "PASS was refused: nothing was applied")
    assert tick_words(TickLine.ALERTED, why=tick_words(TickLine.NO_STAND_IN)) == (
        "game master alerted (the stand-in found no order the game takes)")
    assert tick_words(TickLine.ALERTED_BEFORE) == "game master alerted before"
    assert [tick_words(TickLine.NOTHING, checked=n) for n in (0, 1, 2)] == [
        "Nothing due (0 active games checked).", "Nothing due (1 active game checked).",
        "Nothing due (2 active games checked)."]
    assert tick_words(TickLine.ERROR, error="demo: the database is busy") == "error: demo: the database is busy"


def test_the_exported_chronicle() -> None:
    """``pbem export --format text``: a public export of a finished game whose stored state went wrong, and a
    game master's export of a game without moves (tests/cli/test_export.py plays real games)."""
    finished = GameExport(
        name="g", kind="imperial2030", title="Imperial 2030", created=datetime(2031, 1, 6, 12, 0, tzinfo=UTC),
        status="finished", public=True, setup=None, seats=(ExportedSeat(1, "ann", None), ExportedSeat(2, "bob", None)),
        setup_narration=("The game begins: every nation starts with a long sentence that needs wrapping because it "
                         "goes on and on.",),
        actions=(ExportedAction(0, "ann", {}, "RONDEL investor", datetime(2031, 1, 6, 13, 0, tzinfo=UTC),
                                ("Russia placed its marker on Investor.",)),),
        sealed_round_open=True, finished=True, final_scores=(("bob", 123), ("ann", 7)), replay_matches=False)
    assert export_text(finished) == (
        "Game g: Imperial 2030 (imperial2030), finished. Public export.\n"
        "Players (seating order): ann, bob.\n"
        "Created: 2031-01-06 12:00 UTC.\n\n"
        "Setup:\n"
        "    The game begins: every nation starts with a long sentence that needs\n"
        "      wrapping because it goes on and on.\n\n"
        "move 1  (2031-01-06 13:00 UTC)  ann: RONDEL investor\n"
        "    Russia placed its marker on Investor.\n\n"
        "A sealed round is open: the answers given in it are not shown until all are\nin.\n\n"
        "Final scores:\n  1. bob   123\n  2. ann     7\n\n"
        "WARNING: the stored state differs from the replay of the log!\n")
    empty = GameExport(
        name="g", kind="eme", title="Eight", created=datetime(2031, 1, 6, 12, 0, tzinfo=UTC), status="active",
        public=False, setup={}, seats=(ExportedSeat(1, "ann", "ann@example.org"),), setup_narration=(), actions=(),
        sealed_round_open=True, finished=False, final_scores=None, replay_matches=True)
    assert export_text(empty) == (
        "Game g: Eight (eme), active.\nPlayers (seating order): ann <ann@example.org>.\n"
        "Created: 2031-01-06 12:00 UTC.\n\nNo moves yet.\n\nThe stored state equals the replay of the log.\n")


def test_what_game_set_says_it_changed(mod: Moderator) -> None:
    assert set_game(mod.db, "demo", ["reminders=12,1.5", "deadline.rondel=36"]).changed == (
        "reminders: 24h,2h -> 12h,1.5h", "deadline.rondel: 72h -> 36h")
    assert set_game(mod.db, "demo", ["deadline.default=24", "reminders=none", "deadline.investment=0", "mail=daily",
                                     "board=off", "open_cash=on", "absent_limit=2", "absent=bot"]).changed == (
        "deadline.default: 48h -> 24h", "reminders: 12h,1.5h -> none", "deadline.investment: 24h -> no deadline",
        "mail: every -> daily (for seats that chose none)", "board: on -> off (for seats that chose none)",
        "open_cash: off -> on", "absent_limit: 3 -> 2", "absent: alert -> bot")
