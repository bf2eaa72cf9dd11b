"""Answers to report requests (pbem.games.imperial2030.queries) and the HELP texts (pbem.games.imperial2030.help).

Fixed positions get exact assertions on the lines that matter; every answer
keeps to the mail limits (ASCII, at most 78 columns); a property test plays
random legal games and checks that every option OPTIONS prints is an order
that parses and that the engine accepts from the deciding player.
"""
from __future__ import annotations

import random
import re
from dataclasses import fields, is_dataclass, replace
from enum import Enum
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jinja2 import Environment, StrictUndefined

from engine.imperial2030.actions import ArmyMove, ChooseSpace, SetStanding
from engine.imperial2030.decisions import pending
from engine.imperial2030.game import LogEntry, apply
from engine.imperial2030.mapfile import default_board
from engine.imperial2030.model import (
    FinishedStep,
    GameSetup,
    GameState,
    Seat,
    Stance,
    StandingKind,
    Variant,
)
from engine.imperial2030.randomplay import random_move
from engine.imperial2030.setup import new_game
from pbem.games.imperial2030.help import (
    HELP_TEMPLATE,
    Group,
    help_text,
    help_view,
    order_help,
    resolve_topic,
    topics,
)
from pbem.games.imperial2030.helpfacts import help_facts
from pbem.games.imperial2030.orders import (
    Query,
    QueryKind,
    apply_message,
    format_action,
    parse_line,
    parse_order,
)
from pbem.games.imperial2030.orders.errors import BadName, OrderSyntaxError
from pbem.games.imperial2030.orders.keywords import MIN_PREFIX, SPECS, Keyword
from pbem.games.imperial2030.queries import (
    DEFAULT_HISTORY,
    MAX_HISTORY,
    QUERIES_TEMPLATE,
    HistoryEntry,
    HistoryView,
    Quiet,
    Where,
    answer,
    history_entries,
    option_orders,
    options_text,
    options_view,
    status_view,
)
from pbem.render import problems
from pbem.render.env import environment
from tests.helpers import standard_game, swiss_bank, turn_of
from tests.imperialpositions import battle_question, canal_question, suez_position

BOARD = default_board()
SETUP = GameSetup((Seat("ann"), Seat("bob"), Seat("cat")), seed=1,
                  deal=(("russia", "ann"), ("china", "bob"), ("india", "cat")))
# ann governs Russia and Brazil, bob China and Europe, cat India and USA (turn order: RU CN IN BR US EU).
OPENING = (
    "RONDEL import\nIMPORT army moscow, fleet vladivostok, army novosibirsk",  # ann, Russia
    "RONDEL import\nIMPORT army Beijing, fleet Shanghai",  # bob, China
    "RONDEL taxation", "RONDEL taxation", "RONDEL taxation", "RONDEL taxation",  # India, Brazil, USA, Europe
    "RONDEL maneuver",  # ann, Russia, round 2
)


def check_mail(text: str) -> None:
    assert problems(text) == [], problems(text)
    assert text.endswith("\n") and not text.endswith("\n\n")


def start() -> GameState:
    state, _ = new_game(BOARD, SETUP)
    return state


def play_texts(state: GameState, texts: tuple[str, ...], log: list[LogEntry] | None = None) -> GameState:
    """Each text sent by the player the game waits for; the accepted actions are appended to ``log``."""
    for text in texts:
        player = pending(state)[0].player
        result = apply_message(state, player, text, end_maneuver=True)
        assert result.ok, (text, result.error)
        if log is not None:
            log += [LogEntry(a.player, a.action, a.version) for a in result.applied]
        state = result.state
    return state


def maneuver() -> tuple[GameState, list[LogEntry]]:
    """Round 2, Russia (ann) maneuvers: a fleet in Vladivostok, armies in Moscow and Novosibirsk."""
    log: list[LogEntry] = []
    state = play_texts(start(), OPENING, log)
    return state, log


def lines_of(text: str) -> list[str]:
    return text.splitlines()


# --------------------------------------------------------------------------- STATUS


def test_status_at_the_start() -> None:
    text = answer(start(), "ann", Query(QueryKind.STATUS), game="atlas")
    check_mail(text)
    assert lines_of(text) == [
        "STATUS",
        "------",
        'Game "atlas", round 1, after move 0.',
        "Round 1: Russia's turn (ann), choosing a rondel space.",
        "The game waits for:",
        "  - ann: choose a rondel space for Russia (that is you: OPTIONS lists every",
        "    choice)",
        "You (ann): cash 2; bonds Russia 9, China 2, Brazil 9, Europe 2 (interest 10).",
        "You govern Russia: treasury 11, 0 power points (score multiplier x0), not on",
        "  the rondel yet, 2 factories, 0 armies, 0 fleets and 0 flags.",
        "You govern Brazil: treasury 11, 0 power points (score multiplier x0), not on",
        "  the rondel yet, 2 factories, 0 armies, 0 fleets and 0 flags.",
        "Power points: Russia 0, China 0, India 0, Brazil 0, USA 0, Europe 0.",
    ]


def test_status_mid_game_names_roles_and_keeps_cash_secret() -> None:
    state, _ = maneuver()
    text = answer(state, "bob", Query(QueryKind.STATUS))
    check_mail(text)
    lines = lines_of(text)
    assert lines[2] == "Round 2, after move 9."
    assert lines[3] == "Round 2: Russia's turn (ann), maneuvering."
    assert lines[5] == "  - ann: move Russia's fleets and armies"
    assert "You (bob): cash " in text and "you hold the investor card" in text.replace("\n", " ")
    assert "You govern China: treasury 9, 0 power points (score multiplier x0), rondel on" in lines
    assert "  Import, 2 factories, 1 army, 1 fleet and 0 flags." in lines
    assert "Cash:" not in text
    assert text.count("ann") == 2  # whose turn, and whom the game waits for: never ann's cash


def test_status_with_open_cash_shows_everyones_cash() -> None:
    state = start()
    text = answer(state, "cat", Query(QueryKind.STATUS), open_cash=True)
    assert lines_of(text)[-1] == "Cash: ann 2, bob 2, cat 2."


def test_status_of_a_finished_game_gives_the_scores() -> None:
    over = start().clone()
    over.step = FinishedStep("a nation reached 25 power points")
    text = answer(over, "ann", Query(QueryKind.STATUS))
    check_mail(text)
    assert "The game is over: a nation reached 25 power points." in text
    assert "Final scores: " in text and "The game waits for" not in text


def test_a_moderator_query_record_is_answered_too() -> None:
    record = SimpleNamespace(kind="status", topic=None, count=None, line_number=3, line="STATUS")
    assert answer(start(), "ann", record) == answer(start(), "ann", Query(QueryKind.STATUS))


def test_a_stranger_is_a_callers_mistake() -> None:
    with pytest.raises(ValueError, match="not a player"):
        answer(start(), "zed", Query(QueryKind.STATUS))


# --------------------------------------------------------------------------- BOARD


def test_board_is_the_world_board() -> None:
    state, _ = maneuver()
    text = answer(state, "cat", Query(QueryKind.BOARD), game="atlas")
    check_mail(text)
    assert lines_of(text)[1] == ' IMPERIAL 2030 - game "atlas" - the world board'
    assert "-- THE AMERICAS " in text and "Legend:" in text
    assert "RUa1" in text  # Russia's army in Moscow or Novosibirsk


# --------------------------------------------------------------------------- OPTIONS


def test_options_at_the_start_list_every_space() -> None:
    text = answer(start(), "ann", Query(QueryKind.OPTIONS), game="atlas")
    check_mail(text)
    lines = lines_of(text)
    assert lines[:6] == [
        "OPTIONS: WHAT ANN MAY DECIDE NOW",
        "--------------------------------",
        'Game "atlas", round 1, after move 0.',
        "",
        "CHOOSE A RONDEL SPACE FOR RUSSIA",
        "This is Russia's first turn: put its marker on any space, free.",
    ]
    assert "    RONDEL investor       Investor, free, pays interest" in lines
    assert option_orders(text) == tuple(f"RONDEL {space}" for space in BOARD.rondel_ids)
    assert lines[-2:] == ["At any time: DONATE <1 to 2> TO Russia | Brazil gives your cash to a treasury",
                          "you govern; STANDING sets an answer the game gives for you (HELP STANDING)."]


def test_options_in_the_maneuver() -> None:
    state, _ = maneuver()
    text = options_text(state, "ann")
    check_mail(text)
    lines = lines_of(text)
    assert "MOVE RUSSIA'S FLEETS AND ARMIES" in lines
    assert "  Fleets:" in lines and "  Armies in Moscow (1 may move):" in lines
    assert "    FLEET Vladivostok TO Sea of Japan    out of port" in lines
    assert "    ARMY Moscow TO Berlin HOSTILE        or FRIENDLY" in lines
    assert "    ARMY Moscow TO Murmansk              by rail" in lines
    assert "    DONE                                 end the maneuver, place flags" in lines
    orders = option_orders(text)
    assert orders[0] == "FLEET Vladivostok TO Sea of Japan" and orders[-1] == "DONE"
    assert len(orders) == 1 + 11 + 11 + 1
    assert parse_order(state, "ann", "ARMY Moscow TO Berlin HOSTILE") == ArmyMove("moscow", "berlin", Stance.HOSTILE)


def test_options_with_costs_in_an_investment_round() -> None:
    state = apply_message(start(), "ann", "RONDEL investor").state  # bob holds the investor card
    text = options_text(state, "bob")
    check_mail(text)
    lines = lines_of(text)
    assert "INVEST WITH THE INVESTOR CARD" in lines
    assert "  China:" in lines
    assert any(line.startswith("    UPGRADE China 9 TO 12") and "costs 3, interest 4 -> 5" in line for line in lines)
    assert any(line.startswith("    BUY India 4") and "costs 4, interest 2" in line for line in lines)
    assert "PASS" in option_orders(text)


def test_options_of_the_questions_out_of_turn() -> None:
    force = swiss_bank(turn_of(standard_game(), "russia", rondel="factory"), "Dan", "Cleo")
    force, _ = apply(force, "Anna", ChooseSpace("import"))  # past Investor: Dan, a Swiss bank, is asked
    suez = suez_position()
    canal = canal_question(suez)  # Europe's fleet wants through Suez: bob (India) is asked
    battle = battle_question(suez)
    cases = [(force, "Dan", "DECIDE AS A SWISS BANK WHETHER RUSSIA MUST STOP ON INVESTOR",
              ["    FORCE      stop it on Investor", "    NO FORCE   let it move on"]),
             (canal, "bob", "DECIDE FOR INDIA WHETHER EUROPE MAY PASS THE SUEZ CANAL", ["    ALLOW", "    DENY"]),
             (battle, "bob", "DECIDE WHETHER INDIA FIGHTS EUROPE IN INDIAN OCEAN",
              ["    FIGHT India fleet", "    NO FIGHT"])]
    for state, player, title, options in cases:
        text = options_text(state, player)
        check_mail(text)
        lines = lines_of(text)
        assert title in lines
        start_at = lines.index(options[0])
        assert lines[start_at:start_at + len(options)] == options
        for order in option_orders(text):
            apply(state, player, parse_order(state, player, order))
    waiting = options_text(canal, "ann")  # the mover waits for bob's answer
    assert lines_of(waiting)[3:6] == [
        "Your maneuver waits for another player's answer; it goes on (with the rest of",
        "your message, if any) once that is given. The game waits for:",
        "  - bob: decide for India whether Europe may pass the Suez canal",
    ]
    assert "DONATE 1 TO China | Brazil | Europe gives your cash" in waiting


def test_options_when_there_is_nothing_to_decide() -> None:
    text = options_text(start(), "bob", game="atlas")
    check_mail(text)
    assert lines_of(text)[2:5] == [
        'Game "atlas", round 1, after move 0.',
        "You have nothing to decide now. The game waits for:",
        "  - ann: choose a rondel space for Russia",
    ]
    assert option_orders(text) == ()


def test_options_of_a_finished_game() -> None:
    over = start().clone()
    over.step = FinishedStep("test")
    text = options_text(over, "ann")
    assert "The game is over: test. Nothing is left to decide." in text and option_orders(text) == ()


def test_options_show_the_deadline() -> None:
    text = answer(start(), "ann", Query(QueryKind.OPTIONS), deadline="Friday 18:00 UTC")
    assert "Please answer by Friday 18:00 UTC." in text


# --------------------------------------------------------------------------- HISTORY


def test_history_tells_the_last_moves_with_their_events() -> None:
    state, log = maneuver()
    text = answer(state, "cat", Query(QueryKind.HISTORY, count=3), log=log, game="atlas")
    check_mail(text)
    assert lines_of(text) == [
        "HISTORY: THE LAST 3 MOVES",
        "-------------------------",
        'Game "atlas", round 2, after move 9.',
        "",
        "move 7, cat: RONDEL taxation",
        "    - USA placed its marker on Taxation.",
        "    - USA collected 4 in taxes (2 factories, 0 flags).",
        "    - USA gained no power points (still 0).",
        "    - Round 1: Europe's turn.",
        "",
        "move 8, bob: RONDEL taxation",
        "    - Europe placed its marker on Taxation.",
        "    - Europe collected 4 in taxes (2 factories, 0 flags).",
        "    - Europe gained no power points (still 0).",
        "    - Round 2: Russia's turn.",
        "",
        "move 9, ann: RONDEL maneuver_2",
        "    - Russia moved to Maneuver (2 spaces).",
    ]


def test_history_default_count_and_empty_game() -> None:
    state, log = maneuver()
    entries = history_entries(BOARD, SETUP, log, DEFAULT_HISTORY)
    assert [e.version for e in entries] == list(range(9))  # fewer than 10 moves: all of them
    assert entries[1] == HistoryEntry(1, "ann", "IMPORT army Moscow, fleet Vladivostok, army Novosibirsk", (
        "Russia imported an army in Moscow, a fleet in Vladivostok and an army in Novosibirsk (paid 3).",
        "Round 1: China's turn.",
    ))
    assert entries[1].move == 2
    told = answer(state, "ann", Query(QueryKind.HISTORY), log=log)  # templates/imperial2030/history.j2
    assert "\nmove 2, ann: IMPORT army Moscow, fleet Vladivostok, army Novosibirsk\n" in told
    empty = answer(start(), "ann", Query(QueryKind.HISTORY), log=[])
    assert "Nothing has been played yet." in empty
    assert "not available" in answer(start(), "ann", Query(QueryKind.HISTORY), log=None)


def test_history_keeps_other_players_standing_orders_secret() -> None:
    log: list[LogEntry] = []
    state = start()
    result = apply_message(state, "cat", "STANDING ALLOW Europe Suez\nDONATE 1 TO India")
    log += [LogEntry(a.player, a.action, a.version) for a in result.applied]
    state = play_texts(result.state, ("RONDEL taxation",), log)
    assert isinstance(log[0].action, SetStanding)
    mine = [e.order for e in history_entries(BOARD, SETUP, log, 10, viewer="cat")]
    theirs = [e.order for e in history_entries(BOARD, SETUP, log, 10, viewer="ann")]
    assert mine == ["STANDING ALLOW Europe Suez", "DONATE 1 TO India", "RONDEL taxation"]
    assert theirs == ["DONATE 1 TO India", "RONDEL taxation"]
    assert "Suez" not in answer(state, "ann", Query(QueryKind.HISTORY), log=log)
    assert "always allow Europe through Suez" in answer(state, "cat", Query(QueryKind.HISTORY), log=log)
    assert [e.order for e in history_entries(BOARD, SETUP, log, 1, viewer="ann")] == ["RONDEL taxation"]


def test_history_quiet_moves_and_limits() -> None:
    state = start()
    log: list[LogEntry] = []
    state = play_texts(state, ("RONDEL import\nIMPORT",), log)
    assert history_entries(BOARD, SETUP, log, 1)[0].sentences == ("Russia imported nothing.", "Round 1: China's turn.")
    text = answer(state, "ann", Query(QueryKind.HISTORY, count=MAX_HISTORY + 1), log=log)
    assert f"(HISTORY shows at most {MAX_HISTORY} moves.)" in text
    assert "HISTORY: THE LAST 2 MOVES" in text
    broken = [LogEntry(e.player, e.action, e.version + 1) for e in log]
    assert "does not replay" in answer(state, "ann", Query(QueryKind.HISTORY), log=broken)


# --------------------------------------------------------------------------- HELP


def test_help_lists_every_order_by_group_with_an_example() -> None:
    text = answer(start(), "ann", Query(QueryKind.HELP))
    assert text == help_text(None)
    check_mail(text)
    lines = lines_of(text)
    assert lines[0] == "HELP: THE ORDERS"
    groups = ["YOUR NATION'S TURN", "THE MANEUVER", "ANSWERS OUT OF TURN", "AT ANY TIME"]
    assert [line for line in lines if line in groups] == groups
    assert {order_help(spec.keyword).group for spec in SPECS} == set(Group)
    for spec in SPECS:  # each order's form, from its macro in templates/imperial2030/_help_orders.j2
        assert any(line.startswith("  " + spec.keyword.text) for line in lines), spec.keyword
    assert "  RONDEL <space>                   Move the marker, take the space's action." in lines
    assert "                                   e.g. RONDEL taxation" in lines
    assert "                                   e.g. FLEET Vladivostok TO Sea of Japan" in lines
    assert "      e.g. IMPORT 2 army Moscow, fleet Vladivostok" in lines  # too long for the column
    assert all(len(line) <= 78 for line in lines)


def test_help_on_one_order() -> None:
    text = help_text("army")
    check_mail(text)
    lines = lines_of(text)
    assert lines[:3] == ["HELP: ARMY", "----------",
                         "ARMY <from> TO <to> [HOSTILE|FRIENDLY] [ATTACK <nation> [ARMY|FLEET]] [VIA"]
    assert "HOSTILE or FRIENDLY is required when the army enters another nation's home" in lines
    examples = lines.index("For example, any of these:")
    assert lines[examples + 1:examples + 6] == [
        "    ARMY Moscow TO Iran",
        "  or",
        "    ARMY Murmansk TO Berlin HOSTILE",
        "  or",
        "    ARMY Fortaleza TO San Francisco FRIENDLY VIA Caribbean Sea, North Pacific",
    ]
    assert "Also written: A." in lines
    rondel = help_text("RONDEL")
    assert "'production far' and 'maneuver far' the farther" in rondel.replace("\n", " ")
    assert "The marker moves 1 to 6 spaces; 3 are free" in rondel.replace("\n", " ")
    assert "end of a message with maneuver orders also ends the maneuver" in help_text("done").replace("\n", " ")
    assert "NO FIGHT to a battle question, ALLOW to a canal question" in help_text("pass").replace("\n", " ")


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.keyword.value)
def test_help_for_every_keyword_alias_and_unique_prefix(spec) -> None:  # type: ignore[no-untyped-def]
    heading = f"HELP: {spec.keyword.text}"
    spellings = [spec.keyword.value, spec.keyword.text, *spec.aliases]
    keys = {k: s.keyword for s in SPECS for k in s.keys}
    for key in spec.keys:
        for length in range(MIN_PREFIX, len(key)):
            prefix = key[:length]
            if {keyword for k, keyword in keys.items() if k.startswith(prefix)} == {spec.keyword}:
                spellings.append(prefix)
    for text in spellings:
        assert resolve_topic(text).keyword is spec.keyword, text
        page = help_text(text)
        assert page.splitlines()[0] == heading, text
        check_mail(page)


def test_help_topics_beyond_keywords() -> None:
    assert help_text("hostile") == help_text("ARMY")
    assert help_text("VIA") == help_text("ARMY")
    assert help_text("far") == help_text("RONDEL")
    assert help_text("Suez") == help_text("ALLOW")
    assert help_text("manoeuvre").splitlines()[0] == "HELP: THE MANEUVER"
    assert help_text("names").splitlines()[0] == "HELP: NAMES"
    assert help_text("messages").splitlines()[0] == "HELP: MESSAGES"
    assert help_text("") == help_text(None)
    for topic in ("maneuver", "names", "messages", "turn", "answers", "anytime"):
        check_mail(help_text(topic))


def test_help_on_an_unknown_topic_suggests() -> None:
    text = help_text("armee")
    check_mail(text)
    assert lines_of(text)[:3] == ["HELP", "----", "There is no help on 'armee'. Did you mean: ARMY?"]
    assert "Topics: RONDEL, BUILD, PRODUCE, IMPORT" in text
    assert "There is no help on 'no'. Did you mean: PASS, NO FORCE, NO FIGHT?" in help_text("no")
    assert "There is no help on 'xyzzy'.\n" in help_text("xyzzy")
    assert set(topics()) >= {spec.keyword.text for spec in SPECS}


def test_every_help_example_reads_as_an_order_or_report() -> None:
    """Examples name real places: each line parses in Russia's first turn (legality aside)."""
    state = start()
    for spec in SPECS:
        for example in order_help(spec.keyword).examples:
            for line in example.splitlines():
                try:
                    parsed = parse_line(state, "ann", line)
                except (OrderSyntaxError, BadName) as exc:  # pragma: no cover - the failure message
                    pytest.fail(f"HELP {spec.keyword.text}: {line!r}: {exc}")
                assert parsed is not None
    assert isinstance(parse_line(state, "ann", "HELP ARMY"), Query)
    assert parse_line(state, "ann", help_facts(BOARD).mail_import) is not None  # HELP MESSAGES' example mail


def test_help_examples_follow_the_board() -> None:
    entry = order_help(Keyword.IMPORT)
    assert entry.examples[:2] == ("IMPORT 2 army Moscow, fleet Vladivostok",
                                  "IMPORT army Moscow, army Moscow, fleet Vladivostok")
    assert order_help(Keyword.BUILD).examples[0] == "BUILD Novosibirsk"
    assert order_help(Keyword.STANDING).examples[0] == "STANDING ALLOW Brazil Panama"


OPEN, CLOSE = "\x01", "\x02"  # what the marking catalogue puts around each text it translates


def marking_environment() -> Environment:
    """The mail templates with a catalogue that brackets every text it translates: what a translation reaches."""
    base = environment()
    env = Environment(loader=base.loader, autoescape=False, undefined=StrictUndefined, trim_blocks=True,
                      lstrip_blocks=True, keep_trailing_newline=True, extensions=["jinja2.ext.i18n"])
    env.filters.update(base.filters)
    env.globals.update(base.globals)
    env.install_gettext_callables(  # type: ignore[attr-defined]  # added by the i18n extension
        lambda text: OPEN + text + CLOSE, lambda one, many, n: OPEN + (one if n == 1 else many) + CLOSE,
        newstyle=True, pgettext=lambda context, text: OPEN + text + CLOSE,  # a game's own words (issue 30)
        npgettext=lambda context, one, many, n: OPEN + (one if n == 1 else many) + CLOSE)
    return env


def test_every_help_sentence_is_marked_for_translation() -> None:
    """Take away what a catalogue translates: only the order language is left (forms, examples, keywords)."""
    template = marking_environment().get_template(HELP_TEMPLATE)
    examples = {line.strip() for spec in SPECS for e in order_help(spec.keyword).examples for line in e.splitlines()}
    examples.add(help_view(None).facts.mail_import)
    asked = [None, *topics(), "turn", "answers", "anytime", "xyzzy", "armee"]
    for topic in asked:
        text = template.render(help=help_view(topic))
        while re.search(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}", text):
            text = re.sub(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}", "", text)
        for line in text.splitlines():
            left = re.sub(r"<[^>]*>|\[[a-z]+\]", "", line).strip()  # <province>, [n]: the forms' placeholders
            assert left in examples or left == left.upper(), (topic, line)


def marked(value: Any) -> Any:
    """``value`` (a view) with every text marked as if translated: the words worded before the template."""
    if isinstance(value, str) and not isinstance(value, Enum):
        return OPEN + value + CLOSE if value else value
    if isinstance(value, tuple):
        return tuple(marked(item) for item in value)
    if is_dataclass(value) and not isinstance(value, type):
        return replace(value, **{f.name: marked(getattr(value, f.name)) for f in fields(value)})
    return value


def unmarked(text: str) -> list[str]:
    """The lines of ``text`` with what the marking catalogue translated taken away."""
    while re.search(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}", text):
        text = re.sub(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}", "", text)
    return [line.strip() for line in text.splitlines() if line.strip()]


def test_every_status_options_and_history_sentence_is_marked_for_translation() -> None:
    """Only headings in capitals (the report's keyword) and punctuation are left once the catalogue has spoken."""
    env = marking_environment()
    state, log = maneuver()
    suez = suez_position()
    over = start().clone()
    over.step = FinishedStep("test")
    texts = []
    bank = swiss_bank(turn_of(standard_game(), "russia", rondel="factory"), "Dan", "Cleo")  # Dan governs none
    for position, player in ((state, "ann"), (state, "cat"), (canal_question(suez), "ann"),
                             (canal_question(suez), "bob"), (over, "ann"), (start(), "bob"), (bank, "Dan")):
        for game, cash in (("", False), ("atlas", True)):
            texts.append(env.get_template("imperial2030/status.j2").render(
                status=marked(status_view(position, player, game=game, open_cash=cash))))
            texts.append(env.get_template("imperial2030/options.j2").render(
                options=marked(options_view(position, player, game=game, deadline="Friday" if cash else None))))
    entries = tuple(history_entries(BOARD, SETUP, log))
    where = Where("atlas", 2, 9)
    for view in (HistoryView(where, entries, True, "", None), HistoryView(where, entries[:1], True, "", MAX_HISTORY),
                 HistoryView(where, (), True, "", None), HistoryView(where, (), False, "", None),
                 HistoryView(where, (), True, "log entry 3", None)):
        texts.append(env.get_template("imperial2030/history.j2").render(history=marked(view)))
    quiet = env.get_template(QUERIES_TEMPLATE).module.quiet  # type: ignore[attr-defined]  # a macro
    texts += [str(quiet(kind, "", "", "", "")) for kind in Quiet]
    for text in texts:
        for line in unmarked(text):
            assert line == line.upper() and not re.search(r"[a-z]", line), (line, text)


# --------------------------------------------------------------------------- random positions


def random_game(seed: int, players: int, variants: frozenset[Variant]) -> GameState:
    names = ("ann", "bob", "cat", "dan", "eva", "fin")[:players]
    state, _ = new_game(BOARD, GameSetup(tuple(Seat(n) for n in names), seed=seed, variants=variants))
    return state


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), players=st.integers(2, 6),
       variants=st.frozensets(st.sampled_from(list(Variant))), steps=st.integers(0, 400))
@pytest.mark.slow
def test_every_option_listed_by_options_parses_and_applies(seed: int, players: int, variants: frozenset[Variant],
                                                           steps: int) -> None:
    state = random_game(seed, players, variants)
    rng = random.Random(seed)
    seen = set()
    for _ in range(steps):
        if state.finished:
            break
        kinds = {d.kind for d in pending(state)}
        if not kinds <= seen:  # the first position of each kind of decision in this game, and the last
            seen |= kinds
            check_options(state)
        player, action = random_move(state, rng)
        state, _ = apply(state, player, action)
    check_options(state)
    for kind in (QueryKind.STATUS, QueryKind.HISTORY):
        check_mail(answer(state, state.seating[0], Query(kind), log=[]))


def check_options(state: GameState) -> None:
    """Every order OPTIONS prints parses and applies; every option of the engine is printed."""
    for player in state.seating:
        text = options_text(state, player)
        check_mail(text)
        orders = option_orders(text)
        deciding = {d.player for d in pending(state)}
        assert bool(orders) == (player in deciding and not state.finished), (player, text)
        for order in orders:
            action = parse_order(state, player, order)
            apply(state, player, action)  # raises if the engine refuses it
        listed = set(orders)
        for decision in pending(state):
            if decision.player != player:
                continue
            for option in decision.options:  # every option is listed (FRIENDLY beside its HOSTILE twin)
                written = format_action(BOARD, option.action)
                if isinstance(option.action, ArmyMove) and option.action.stance is Stance.FRIENDLY:
                    written = written.replace(" FRIENDLY", " HOSTILE", 1)
                    assert written in listed or format_action(BOARD, option.action) in listed, written
                else:
                    assert written in listed, written


def test_standing_order_kinds_are_explained() -> None:
    text = help_text("standing").replace("\n", " ")
    for kind in StandingKind:
        assert kind.value.replace("_", " ").upper() in text, kind
