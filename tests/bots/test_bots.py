"""Bot players: prompt text in, a legal order out; the mail loop answers prompts only, retries after refusals.

Every golden prompt (tests/golden/prompt_*.txt) is rebuilt as the game
position it was rendered from (the recipes of tests/games/imperial2030/test_render.py), and each
answer a bot gives to the golden text is applied to that position by the
order layer: it must be accepted, and its orders must be among those listed.
"""
from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

import pytest

from engine.core.seats import Seat as EmeSeat
from engine.eight_minute_empire.actions import Bid
from engine.eight_minute_empire.board import default_board as eme_board
from engine.eight_minute_empire.game import apply as eme_apply
from engine.eight_minute_empire.game import new_game as eme_new_game
from engine.eight_minute_empire.model import Setup as EmeSetup
from engine.imperial2030.actions import ChooseSpace, FleetMove
from engine.imperial2030.decisions import pending
from engine.imperial2030.game import apply
from engine.imperial2030.mapfile import default_board
from engine.imperial2030.model import GameSetup, GameState, Seat, Variant
from engine.imperial2030.randomplay import random_move
from engine.imperial2030.setup import new_game
from pbem.bots import BotPlayer
from pbem.bots.mailio import latest_mail, read_mail, reply_message
from pbem.bots.player import BotPool
from pbem.cli import app
from pbem.games.eight_minute_empire import prompts as eme_prompts
from pbem.games.eight_minute_empire import views as eme_views
from pbem.games.eight_minute_empire.bot import EightMinuteBot
from pbem.games.imperial2030.bot.player import ImperialBot
from pbem.games.imperial2030.bot.reading import (
    parse_prompt,
    parse_refusal,
    parse_report,
)
from pbem.games.imperial2030.bot.strategy import (
    STRATEGIES,
    BotError,
    decide,
    decide_after_refusal,
)
from pbem.games.imperial2030.mails import (
    render_error,
    render_prompt,
    render_report,
)
from pbem.games.imperial2030.orders import apply_exchange, legal_orders, split_message
from pbem.games.imperial2030.runmessage import run_message as _run_orders
from pbem.games.optionsblock import split_option
from pbem.mail import MaildirInbox, OutgoingMail, build_message, parse_message
from pbem.mail.hub import MailHub
from tests.helpers import new, play, standard_game, swiss_bank, turn_of
from tests.imperialpositions import GOLDEN, busy, russia_maneuvers, start

# --- the positions of the golden prompts ------------------------------------------------------------


def _canal() -> GameState:
    state = busy()
    state.nations["europe"].flags.remove("northafrica")
    state.nations["india"].flags.append("northafrica")
    state.nations["europe"].armies.pop("northafrica")
    state, _ = play(state, ChooseSpace("maneuver_1"))
    state, _ = play(state, FleetMove("mediterraneansea", "indianocean"))
    return state


def _force_stop() -> GameState:
    state = swiss_bank(standard_game(), "Finn", "Eva")
    state = turn_of(state, "russia", rondel="maneuver_1")
    state, _ = play(state, ChooseSpace("import"))
    return state


POSITIONS: dict[str, tuple[Callable[[], GameState], str]] = {
    "prompt_rondel_first": (lambda: start()[0], "Anna"),
    "prompt_rondel_costs": (busy, "Finn"),
    "prompt_investor": (lambda: play(start()[0], ChooseSpace("investor"))[0], "Ben"),
    "prompt_import": (lambda: play(busy(), ChooseSpace("import"))[0], "Finn"),
    "prompt_production": (lambda: play(busy(), ChooseSpace("production_1"))[0], "Finn"),
    "prompt_factory": (lambda: play(turn_of(busy(), "russia", rondel="taxation"), ChooseSpace("factory"))[0], "Anna"),
    "prompt_force_stop": (_force_stop, "Finn"),
    "prompt_maneuver": (russia_maneuvers, "Anna"),
    "prompt_battle": (lambda: play(russia_maneuvers(), FleetMove("seaofjapan", "chinasea"))[0], "Ben"),
    "prompt_canal": (_canal, "Cleo"),
    "prompt_setup_bond": (lambda: new(("Anna", "Ben", "Cleo"), variants=[Variant.EXPERT], start_player="Ben")[0],
                          "Ben"),
}


def test_every_golden_prompt_has_a_position() -> None:
    assert {p.stem for p in GOLDEN.glob("prompt_*.txt")} == set(POSITIONS)


def golden_text(name: str) -> str:
    return (GOLDEN / f"{name}.txt").read_text()


def listed(text: str) -> set[str]:
    """Every order the prompt lists (alternatives of HOSTILE/FRIENDLY lines included), upper case."""
    decision = parse_prompt(text).decision
    assert decision is not None
    return {o.upper() for o in decision.all_orders()}


def combined_parts(line: str) -> list[str]:
    """``IMPORT army Paris, fleet London`` -> ``IMPORT army Paris``, ``IMPORT fleet London``."""
    keyword, _, rest = line.partition(" ")
    if keyword.upper() in ("IMPORT", "PRODUCE") and "," in rest:
        return [f"{keyword} {part.strip()}" for part in rest.split(",")]
    return [line]


@pytest.mark.parametrize("name", sorted(POSITIONS))
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_bot_answers_every_golden_prompt_with_a_legal_order(name: str, strategy: str) -> None:
    build, reader = POSITIONS[name]
    state = build()
    text = golden_text(name)
    options = listed(text)
    legal = {o.upper() for o in legal_orders(state, reader)}
    assert options <= legal, "the golden prompt no longer matches its position"
    seeds = range(25) if strategy == "random" else range(5)
    answers = set()
    for seed in seeds:
        answer = decide(text, strategy, seed=seed)
        answers.add(answer)
        lines = [line for line in answer.splitlines() if line.strip()]
        assert lines, answer
        first = lines[0]
        # the first line is one of the listed options (or a combination of them)
        assert all(part.upper() in options for part in combined_parts(first)) or first.upper() in options, answer
        for line in lines[1:]:  # maneuver moves and DONE; a rondel move's action (its own prompt's options)
            assert line.upper() in options or line.split()[0].upper() in ("DONE", "PRODUCE", "IMPORT", "BUILD"), answer
        exchange = apply_exchange(state, reader, split_message(answer), end_maneuver=True)
        error = exchange.message.error
        if error is not None and strategy == "random" and "supply" in error.reason:
            # the prompt does not tell how many units are left in supply: a random import may ask for too
            # many; the error reply tells, and the answer after it must stand
            text_of_error = render_error(exchange.state, reader, _run_orders(
                default_board(), state, reader, answer, {}).refusal, game="atlas")
            answer = decide_after_refusal(text_of_error, text, strategy, seed=seed) or ""
            exchange = apply_exchange(state, reader, split_message(answer), end_maneuver=True)
            error = exchange.message.error
        assert error is None, (answer, error)
        assert exchange.applied, answer
    if strategy == "random" and len(options) > 1:
        assert len(answers) > 1, "random play always chose the same answer"


def test_a_maneuver_moves_units_then_ends() -> None:
    text = golden_text("prompt_maneuver")
    for strategy in STRATEGIES:
        answers = [decide(text, strategy, seed=seed) for seed in range(10)]
        assert all(a.splitlines()[-1] == "DONE" for a in answers)
        assert any(len(a.splitlines()) > 1 for a in answers), strategy
    sensible = decide(text, "sensible", seed=1)
    # the sensible bot goes for neutral regions, not into other nations' homes, and no convoys
    for line in sensible.splitlines()[:-1]:
        assert not line.endswith(("HOSTILE", "FRIENDLY")), line
    fleets = [line for line in sensible.splitlines() if line.startswith("FLEET")]
    armies = [line for line in sensible.splitlines() if line.startswith("ARMY")]
    assert sensible.splitlines().index(armies[0]) > sensible.splitlines().index(fleets[-1]) if fleets and armies \
        else True


def test_sensible_choices() -> None:
    assert decide(golden_text("prompt_canal"), "sensible") == "ALLOW"
    assert decide(golden_text("prompt_force_stop"), "sensible") == "NO FORCE"
    assert decide(golden_text("prompt_production"), "sensible") == "PRODUCE"
    assert decide(golden_text("prompt_factory"), "sensible") == "BUILD Novosibirsk"  # armaments, affordable
    imports = decide(golden_text("prompt_import"), "sensible")
    assert imports.startswith("IMPORT ") and len(imports.split(",")) == 3
    # rondel with costs: never pays for a space it does not need
    assert "production_2" not in decide(golden_text("prompt_rondel_costs"), "sensible")
    # the battle: China defends China Sea? It is no home province: no fight
    assert decide(golden_text("prompt_battle"), "sensible") == "NO FIGHT"


def test_sensible_taxes_when_taxation_pays() -> None:
    state = busy()  # Europe (Finn): 3 factories, 3 flags -> income 9, 2 power points
    report = render_report(state, "Finn", (), game="atlas", board=False)
    prompt = render_prompt(state, "Finn", game="atlas")
    rich = state.clone()
    rich.nations["europe"].rondel = "production_2"
    rich.nations["europe"].flags.extend(["egypt", "westafrica", "southafrica", "scandinavia"])
    rich_report = render_report(rich, "Finn", (), game="atlas", board=False)
    rich_prompt = render_prompt(rich, "Finn", game="atlas")
    assert "RONDEL taxation" in rich_prompt
    assert decide(rich_prompt, "sensible", report_text=rich_report).startswith("RONDEL taxation")
    assert decide(prompt, "sensible", report_text=report)  # and something sensible without taxation in reach


def test_the_same_seed_gives_the_same_answer() -> None:
    text = golden_text("prompt_maneuver")
    assert decide(text, "random", seed=7) == decide(text, "random", seed=7)
    assert len({decide(text, "random", seed=s) for s in range(10)}) > 3


def test_text_that_asks_nothing_is_not_answered() -> None:
    with pytest.raises(BotError):
        decide((GOLDEN / "report_start_anna.txt").read_text(), "random")
    with pytest.raises(ValueError):
        decide(golden_text("prompt_canal"), "clever")


# --- reading the moderator's mail ---------------------------------------------------------------------


def test_reading_prompts() -> None:
    prompt = parse_prompt(golden_text("prompt_rondel_costs"))
    assert (prompt.game, prompt.reader, prompt.round, prompt.version) == ("atlas", "Finn", 4, 37)
    assert prompt.cash == 8 and prompt.treasuries == {"Europe": 15}
    decision = prompt.decision
    assert decision is not None and decision.kind == "rondel"
    assert decision.options[0].order == "RONDEL production_1"
    assert decision.options[0].detail == "Production, 1 space, free"
    assert decision.examples[0] == ("RONDEL production_1", "PRODUCE")
    maneuver = parse_prompt(golden_text("prompt_maneuver")).decision
    assert maneuver is not None and maneuver.kind == "maneuver" and maneuver.default == "DONE"
    line = next(o for o in maneuver.options if o.order == "ARMY Beijing TO Chongqing HOSTILE")
    assert line.alternatives == ("ARMY Beijing TO Chongqing FRIENDLY",)
    assert line.group == "Armies in Beijing (1 may move)"
    kinds = {name: parse_prompt(golden_text(name)).decision.kind for name in POSITIONS}  # type: ignore[union-attr]
    assert kinds == {
        "prompt_rondel_first": "rondel", "prompt_rondel_costs": "rondel", "prompt_investor": "investment",
        "prompt_import": "import", "prompt_production": "production", "prompt_factory": "factory",
        "prompt_force_stop": "force_stop", "prompt_maneuver": "maneuver", "prompt_battle": "battle",
        "prompt_canal": "canal", "prompt_setup_bond": "setup_bond",
    }
    assert parse_prompt(golden_text("prompt_import")).decision.limit == 3  # type: ignore[union-attr]
    assert split_option("    ARMY Moscow TO Paris HOSTILE        or FRIENDLY; by sea") == (
        "ARMY Moscow TO Paris HOSTILE", "or FRIENDLY; by sea")


def test_reading_reports() -> None:
    report = parse_report((GOLDEN / "report_maneuver_finn.txt").read_text())
    assert report is not None
    assert (report.reader, report.version, report.governs, report.cash) == ("Finn", 42, ("Europe",), 8)
    europe = report.nations["Europe"]
    assert (europe.treasury, europe.power, europe.factories, europe.flags) == (15, 17, 3, 3)
    assert europe.flag_regions == ("Mediterranean Sea", "North Africa", "Turkey")
    assert report.nations["Russia"].factory_regions == ("Moscow", "Vladivostok")
    assert parse_report(golden_text("prompt_canal")) is None


def test_reading_refusals_and_answering_again() -> None:
    illegal = (GOLDEN / "error_illegal.txt").read_text()
    refusal = parse_refusal(illegal)
    assert refusal.refused == "RONDEL taxation" and refusal.waits_for_reader
    assert "RONDEL investor" in refusal.legal and not any("<" in o for o in refusal.legal)
    for seed in range(10):
        again = decide_after_refusal(illegal, golden_text("prompt_rondel_costs"), "random", seed=seed)
        assert again is not None and again.split("\n")[0] in refusal.legal and "taxation" not in again
    assert decide_after_refusal((GOLDEN / "error_not_your_turn.txt").read_text(), None, "random") is None
    # the engine's own wording of imports ("import up to 3 of: ...") is read too
    state, _ = play(busy(), ChooseSpace("import"))
    result = _run_orders(default_board(), state, "Finn", "IMPORT army Paris, army Paris, army Paris, army Paris", {})
    assert result.refusal is not None
    error = render_error(result.state, "Finn", result.refusal, game="atlas")
    again = decide_after_refusal(error, golden_text("prompt_import"), "random", seed=3)
    assert again is not None
    assert _run_orders(default_board(), state, "Finn", again, {}).refusal is None


# --- whole games against the engine, without mail ------------------------------------------------------


def bot_game(players: int, seed: int, strategy: str) -> tuple[GameState, int, int]:
    """A game played by bots through prompt and report texts; (final state, messages, refusals)."""
    board = default_board()
    seats = tuple(Seat(f"bot{i + 1}", f"bot{i + 1}@demo.pbem") for i in range(players))
    state, _ = new_game(board, GameSetup(seats, seed))
    waiting: dict = {}
    messages = refusals = 0
    while not state.finished and messages < 2000:
        player = pending(state)[0].player
        prompt = render_prompt(state, player, game="demo")
        assert prompt is not None
        report = render_report(state, player, (), game="demo", board=False)
        answer = decide(prompt, strategy, seed=f"{seed}:{player}", report_text=report)
        for attempt in range(1, 8):
            messages += 1
            outcome = _run_orders(board, state, player, answer, waiting)
            state, waiting = outcome.state, outcome.waiting
            if outcome.refusal is None or outcome.applied:
                refusals += outcome.refusal is not None
                break
            refusals += 1
            error = render_error(state, player, outcome.refusal, game="demo")
            retry = decide_after_refusal(error, prompt, strategy, seed=f"{seed}:{player}", attempt=attempt)
            assert retry is not None
            answer = retry
    return state, messages, refusals


@pytest.mark.parametrize("players,seed,strategy", [(2, 28, "sensible"), (4, 7, "sensible"), (3, 5, "random")])
@pytest.mark.slow
def test_bots_finish_games(players: int, seed: int, strategy: str) -> None:
    state, messages, refusals = bot_game(players, seed, strategy)
    assert state.finished
    assert max(ns.power for ns in state.nations.values()) >= state.board.tables.power_max
    if strategy == "sensible":
        assert refusals == 0
    else:
        assert refusals <= messages // 50


# --- the mail loop --------------------------------------------------------------------------------------


MODERATOR = "moderator@demo.pbem"
_ids = iter(range(1, 10_000))


def moderator_mail(body: str, *, to: str = "bot1@demo.pbem", token: str = "seat1token", decision: str | None = None,
                   subject: str = "[demo] Move", purpose: str = "", move: int | None = None) -> bytes:
    """A mail as the moderator sends it: what it is (``purpose``: a prompt when it asks a ``decision``, else a
    report, unless told) and the ``move`` it is about in its headers, which the bots' mail loop reads."""
    mail = OutgoingMail(to=to, subject=subject, body=body, from_address=MODERATOR,
                        message_id=f"<m{next(_ids)}@demo.pbem>", date=datetime.now(UTC),
                        reply_to=f"moderator+{token}@demo.pbem", references=("<root@demo.pbem>",),
                        decision=decision, purpose=purpose or ("prompt" if decision else "report"), move=move)
    return bytes(build_message(mail))


def put(maildir: Path, raw: bytes) -> None:
    for sub in ("cur", "new", "tmp"):
        (maildir / sub).mkdir(parents=True, exist_ok=True)
    name = f"{time.time_ns()}.M{next(_ids)}.test"
    (maildir / "tmp" / name).write_bytes(raw)
    os.rename(maildir / "tmp" / name, maildir / "new" / name)
    time.sleep(0.002)  # delivery order = modification time order


@pytest.fixture
def bot(tmp_path: Path):  # type: ignore[no-untyped-def]
    sent: list[EmailMessage] = []
    player = BotPlayer("bot1@demo.pbem", tmp_path / "bot1", send=sent.append, strategy="sensible", seed=1)
    player.sent = sent  # type: ignore[attr-defined]
    yield player
    player.close()


def test_a_bot_answers_a_prompt_by_replying_to_its_reply_to(bot: BotPlayer, tmp_path: Path) -> None:
    prompt = moderator_mail(golden_text("prompt_canal"), decision="canal", subject="[demo] Your decision")
    put(bot.maildir, prompt)
    assert bot.step() == 1
    (reply,) = bot.sent  # type: ignore[attr-defined]
    original = read_mail(prompt)
    assert reply["To"] == "moderator+seat1token@demo.pbem"
    assert reply["From"].addresses[0].addr_spec == "bot1@demo.pbem"
    assert reply["In-Reply-To"] == original.message_id
    assert reply["References"].split() == ["<root@demo.pbem>", original.message_id]
    assert reply["Subject"] == "Re: [demo] Your decision"
    assert reply.get_content().strip() == "ALLOW"
    assert os.listdir(bot.maildir / "new") == [] and os.listdir(bot.maildir / "cur") == []
    assert len(os.listdir(bot.maildir / ".processed" / "cur")) == 1
    assert bot.step() == 0  # nothing new


def test_a_bot_never_answers_reports_and_keeps_the_latest(bot: BotPlayer) -> None:
    put(bot.maildir, moderator_mail((GOLDEN / "report_start_anna.txt").read_text(), move=0))
    put(bot.maildir, moderator_mail((GOLDEN / "welcome_anna.txt").read_text(), purpose="welcome", move=0))
    assert bot.step() == 0 and bot.sent == []  # type: ignore[attr-defined]
    seat = bot.seats["moderator+seat1token@demo.pbem"]
    assert seat.report is not None and seat.report_version == 0


def test_a_bot_answers_each_position_once(bot: BotPlayer) -> None:
    text = golden_text("prompt_rondel_costs")  # move 37
    put(bot.maildir, moderator_mail(text, decision="rondel", move=37))
    put(bot.maildir, moderator_mail(text, decision="rondel", move=37))  # the same position again (a resend)
    assert bot.step() == 1
    put(bot.maildir, moderator_mail(text, decision="rondel", move=37))
    assert bot.step() == 0
    assert bot.stats.skipped == 1  # the same position twice in one batch is answered once, skipped later
    older = text.replace("after move 37", "after move 36")
    newer = text.replace("after move 37", "after move 40")
    put(bot.maildir, moderator_mail(older, decision="rondel", move=36))
    assert bot.step() == 0
    put(bot.maildir, moderator_mail(older, decision="rondel", move=36))
    put(bot.maildir, moderator_mail(newer, decision="rondel", move=40))
    assert bot.step() == 1  # the newest of a batch is answered, once
    assert len(bot.sent) == 2  # type: ignore[attr-defined]


def test_a_refused_answer_is_followed_by_another(bot: BotPlayer) -> None:
    put(bot.maildir, moderator_mail(golden_text("prompt_rondel_costs"), decision="rondel", move=37))
    assert bot.step() == 1
    error = (GOLDEN / "error_illegal.txt").read_text()  # "RONDEL taxation" refused, nothing stood: still move 37
    put(bot.maildir, moderator_mail(error, subject="Re: [demo] Your orders", purpose="error", move=37))
    assert bot.step() == 1
    retry = bot.sent[-1].get_content().strip()  # type: ignore[attr-defined]
    assert retry.split("\n")[0] in parse_refusal(error).legal
    assert retry != bot.sent[0].get_content().strip()  # type: ignore[attr-defined]
    assert bot.stats.retries == 1


def test_after_a_partly_applied_message_the_bot_waits_for_the_new_prompt(bot: BotPlayer) -> None:
    put(bot.maildir, moderator_mail(golden_text("prompt_rondel_costs"), decision="rondel", move=37))
    assert bot.step() == 1
    applied = (GOLDEN / "error_illegal.txt").read_text().replace(
        "REFUSED\n-------", "APPLIED (these stand)\n---------------------\n  line 1: RONDEL import\n\nREFUSED\n-------")
    put(bot.maildir, moderator_mail(applied, purpose="error", move=38))  # a line stood: the game is at move 38
    assert bot.step() == 0 and len(bot.sent) == 1  # type: ignore[attr-defined]


def test_a_game_end_closes_the_seat(bot: BotPlayer) -> None:
    put(bot.maildir, moderator_mail((GOLDEN / "game_end.txt").read_text(), purpose="game_end", move=60))
    assert not bot.finished or bot.seats
    bot.step()
    assert bot.finished
    put(bot.maildir, moderator_mail(golden_text("prompt_canal"), decision="canal"))
    assert bot.step() == 0


def test_replying_like_a_mail_client(tmp_path: Path) -> None:
    raw = moderator_mail(golden_text("prompt_canal"), decision="canal", subject="[demo] Your decision: canal")
    maildir = tmp_path / "ann"
    put(maildir, moderator_mail((GOLDEN / "report_start_anna.txt").read_text()))
    put(maildir, raw)
    latest = latest_mail(maildir)
    assert latest is not None and latest.decision == "canal"
    reply = reply_message(latest, "ann@demo.pbem", "ALLOW", from_name="ann")
    assert reply["To"] == "moderator+seat1token@demo.pbem" and reply["Subject"] == "Re: [demo] Your decision: canal"
    assert latest_mail(maildir, asking=False).subject == "[demo] Your decision: canal"  # type: ignore[union-attr]


def test_random_answers_stay_legal_in_random_positions() -> None:
    """Random play through prompts from many positions of a random game (the engine's own random player)."""
    board = default_board()
    state, _ = new_game(board, GameSetup(tuple(Seat(f"p{i}") for i in range(5)), 11))
    rng = random.Random(11)
    checked = 0
    for step in range(400):
        if state.finished:
            break
        if step % 7 == 0:
            player = pending(state)[0].player
            prompt = render_prompt(state, player, game="g")
            assert prompt is not None
            answer = decide(prompt, "random", seed=step)
            exchange = apply_exchange(state, player, split_message(answer), end_maneuver=True)
            error = exchange.message.error
            # only supply limits of combined production may refuse a random answer
            assert error is None or "supply" in error.reason, (answer, error.reason)
            checked += 1
        player, action = random_move(state, rng)
        state, _ = apply(state, player, action)
    assert checked > 20


def test_pbem_bot_once_answers_through_smtp(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    with MailHub(tmp_path / "mail", fsync=False) as hub:
        maildir = hub.ensure_maildir("bot7@demo.pbem")
        put(maildir, moderator_mail(golden_text("prompt_force_stop"), to="bot7@demo.pbem", token="t7token",
                                    decision="force_stop"))
        result = CliRunner().invoke(app, ["bot", "--maildir", str(maildir), "--smtp", f"127.0.0.1:{hub.port}",
                                          "--address", "bot7@demo.pbem", "--strategy", "sensible", "--once"])
        assert result.exit_code == 0, result.output
        assert "1 reply sent" in result.output
        assert hub.wait_delivered(1, 5)
        with MaildirInbox(hub.maildir_for(MODERATOR)) as inbox:
            (fetched,) = inbox.fetch_new(None).messages
        inbound = parse_message(fetched.raw, moderator_address=MODERATOR)
        assert inbound.token == "t7token" and inbound.sender == "bot7@demo.pbem"
        assert inbound.body.strip() == "NO FORCE"
        bad = CliRunner().invoke(app, ["bot", "--maildir", str(maildir), "--smtp", "nohost", "--address", "b@x.org"])
        assert bad.exit_code == 2 and "HOST:PORT" in bad.output


# --- a seed gives one game: a decision depends on the position, not on how and when it was mailed ----------


class RecordingBot(ImperialBot):
    """Imperial 2030's bot, noting the report each answer weighed."""

    def __init__(self) -> None:
        self.reports: list[str | None] = []

    def answer(self, prompt: str, strategy: str, seed: int | str, report: str | None) -> str | None:
        self.reports.append(report)
        return super().answer(prompt, strategy, seed, report)


def test_a_prompt_is_decided_on_the_report_it_carries_not_on_an_older_one(tmp_path: Path) -> None:
    """With a report per move (``MAIL EVERY``) the bot kept the last report that asked nothing, a move or
    more older than its prompt, and weighed that: the same seed played another game than with ``MAIL TURN``
    (where the prompt is the only mail)."""
    recording = RecordingBot()
    player = BotPlayer("bot1@demo.pbem", tmp_path / "bot1", send=lambda message: None, strategy="sensible",
                       seed=1, bot=recording)
    try:
        put(player.maildir, moderator_mail((GOLDEN / "report_start_anna.txt").read_text()))  # move 0
        position = busy()  # move 37: the report of the move, with its NATIONS, and the prompt in one mail
        prompt = render_report(position, "Finn", game="atlas", board=False) + render_prompt(position, "Finn",
                                                                                            game="atlas")
        put(player.maildir, moderator_mail(prompt, decision="rondel"))
        assert player.step() == 1
    finally:
        player.close()
    assert recording.reports == [read_mail(moderator_mail(prompt)).body]


def test_an_eight_minute_empire_bot_chooses_alike_whatever_the_deadline_and_the_news() -> None:
    """The bot seeded its choice with the whole prompt, deadline included: another minute, another game."""
    board = eme_board()
    state, _ = eme_new_game(board, EmeSetup((EmeSeat("ann"), EmeSeat("bob"), EmeSeat("cy")), 3))
    for name in ("ann", "bob", "cy"):
        state, _ = eme_apply(board, state, name, Bid(0))
    player = state.current
    assert player is not None
    report = eme_views.report(board, state, player, (), "demo", with_map=True)
    first = report + (eme_prompts.prompt(board, state, player, "demo", "2030-06-03 12:00 UTC") or "")
    later = ("SINCE YOUR LAST MAIL\n  - bob took a card.\n\n" + report
             + (eme_prompts.prompt(board, state, player, "demo", "2030-06-03 12:01 UTC") or ""))
    bot = EightMinuteBot()
    for seed in range(12):
        assert bot.answer(first, "random", seed, None) == bot.answer(later, "random", seed, None)
        assert (bot.answer_refusal("REFUSED", first, "random", seed, None, ["TAKE 1"], 1)
                == bot.answer_refusal("REFUSED", later, "random", seed, None, ["TAKE 1"], 1))
    assert len({bot.answer(first, "random", seed, None) for seed in range(12)}) > 1  # the seed still counts


def test_bots_answer_prompts_mailed_at_once_in_seat_order(tmp_path: Path) -> None:
    """Prompts mailed to several seats at once (sealed bids) come in seat order; the pool answered them in
    the order it happened to find them: a sweep looked at the first bot's mailbox just before its prompt
    came and at the second's just after, so the second bot answered first and the game's log changed."""
    replies: list[str] = []
    bots = [BotPlayer(f"bot{n}@demo.pbem", tmp_path / f"bot{n}", send=lambda m, n=n: replies.append(f"bot{n}"),
                      seed=n) for n in (1, 2)]
    looked, delivered = bots[0].inbox.has_mail, []

    def look_then_deliver() -> bool:
        """The first bot's mailbox looked at, then the hub delivers both prompts, in seat order."""
        found = looked()
        if not delivered:
            delivered.append(True)
            for bot in bots:
                put(bot.maildir, moderator_mail(golden_text("prompt_rondel_first"), to=bot.address,
                                                token=f"{bot.name}token", decision="rondel"))
        return found

    bots[0].inbox.has_mail = look_then_deliver  # type: ignore[method-assign]
    pool = BotPool(bots, sweep=0).start()
    try:
        deadline = time.monotonic() + 10
        while len(replies) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        pool.stop()
    assert replies == ["bot1", "bot2"]
