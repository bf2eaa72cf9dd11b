"""Every English sentence of Eight-Minute Empire's mails is marked for translation (issue 28): with a catalogue
that brackets each text it translates, what is left of HELP, a prompt, a report and a refusal is the order
language (keywords, ready-to-copy orders), headings' rules and numbers only."""
from __future__ import annotations

import random
import re
from dataclasses import replace

from engine.core.log import LogEntry
from engine.core.seats import Seat
from engine.eight_minute_empire.actions import Bid, Take
from engine.eight_minute_empire.board import ActionKind, default_board
from engine.eight_minute_empire.game import apply, new_game
from engine.eight_minute_empire.model import CardInPlay, Phase, Setup, State, Variant
from engine.eight_minute_empire.randomplay import random_move
from pbem.games import kind_named
from pbem.games.eight_minute_empire.help import help_text, topics
from pbem.games.eight_minute_empire.keywords import ALIASES
from pbem.games.eight_minute_empire.kind import EightMinuteEmpire
from pbem.games.eight_minute_empire.orders import COLOURS
from pbem.games.eight_minute_empire.scoresheet import score_sheet
from pbem.games.results import Query
from tests.games.marking import MARKED

BOARD = default_board()
NAMES = ("ann", "bob", "cy")
KIND = kind_named("eight-minute-empire")
assert isinstance(KIND, EightMinuteEmpire)





def unmarked(text: str) -> list[str]:
    """The lines of ``text`` with what the marking catalogue translated taken away."""
    while MARKED.search(text):
        text = MARKED.sub(" ", text)
    return [line.strip() for line in text.splitlines() if line.strip()]


# words in capitals that are no English: the order language's keywords and the game's name
KEYWORDS = {"TAKE", "BID", "PLACE", "MOVE", "CITY", "DESTROY", "PASS", "DONE", "HELP", "STATUS", "BOARD", "OPTIONS",
            "HISTORY", "EIGHT", "MINUTE", "EMPIRE", "OR", "AND", "NEUTRAL", "END", "MAIL", "TURN", "EVERY", "OFF", "ON",
            "MAP",
            *(word for topic in topics() for word in re.findall(r"[A-Z]{2,}", topic.upper())),
            *(word.upper() for aliases in ALIASES.values() for alias in aliases for word in alias.split())}


# names, data translated in a later step: players, colours, goods, the game's name; the variants' ids; HELP's
# topics as a player writes them (the keyword HELP before them is itself translated, issue 30)
DATA = sorted({*NAMES, "dan", "g1", *COLOURS, *BOARD.goods, "wild", *(v.value for v in Variant), *topics()},
              key=len, reverse=True)


# the words of orders as HELP's examples write them (PLACE 2 armies in 12, BID 3 coins or BID three)
EXAMPLE_WORDS = ("coins", "three", "armies", "army", "in", "and", "a", "city", "the", "region", "r", "second",
                 "place", "card", "row", "to", "neutral", "n", "topic")


def order_language(line: str, orders: set[str]) -> bool:
    """One of the orders the mail offers ready to copy, or names, keywords in capitals, rules, numbers and the
    map's cells (12:R3 Rc: red's 3 armies and a city)."""
    if line not in orders:
        for order in sorted(orders, key=len, reverse=True):
            line = line.replace(order, " ")
        line = re.sub(r"\b(?:" + "|".join(re.escape(name) for name in DATA) + r")\b", " ", line)
        line = re.sub(r"\b[A-Z](?:\d+|c)\b|\b[xr]\d+\b|\S+@\S+|\d{4}-\d\d-\d\d \d\d:\d\d UTC", " ", line)
        line = re.sub(r"\bHELP(?:[\s,]+[a-z]+)+", " ", line)  # HELP's topics, as a player writes them
        line = re.sub(r"\b(?:" + "|".join(EXAMPLE_WORDS) + r")\b", " ", line)
    return line in orders or not (re.search(r"[a-z]", line) or set(re.findall(r"[A-Z]{2,}", line)) - KEYWORDS)


def started(variants: frozenset[Variant] = frozenset(), names: tuple[str, ...] = NAMES) -> State:
    state, _ = new_game(BOARD, Setup(tuple(Seat(n) for n in names), 3, variants=variants))
    return state


def bid(state: State) -> State:
    for name in state.seating:
        state, _ = apply(BOARD, state, name, Bid(0))
    return state


def with_card(kind: ActionKind) -> State:
    card = next(c for c in BOARD.cards.values() if c.actions[0].kind is kind)
    left = (card.actions[0].amount, *(0 for _ in card.actions[1:]))
    return replace(bid(started()), phase=Phase.ACTION, current="ann", in_play=CardInPlay(card.id, left))


def test_every_help_sentence_is_marked_for_translation(marking: None) -> None:
    for topic in (None, *topics(), "xyzzy"):
        for line in unmarked(help_text(topic)):
            assert order_language(line, {"'xyzzy'"}), (topic, line)  # the topic asked for: the player's word


def positions() -> list[State]:
    return [started(), started(frozenset({Variant.NEUTRAL}), ("ann", "bob")), bid(started()),
            *(with_card(kind) for kind in ActionKind)]


def test_every_prompt_and_report_sentence_is_marked_for_translation(marking: None) -> None:
    for state in positions():
        for player in state.seating:
            prompt = KIND.prompt(state, player, game="g1", deadline="2030-05-03 18:00 UTC")
            if prompt is not None:
                orders = set(KIND.legal_orders(state, player))
                for line in unmarked(prompt):
                    assert order_language(line, orders), (line, prompt)
            for line in unmarked(KIND.report(state, player, (), game="g1", board=False)):
                assert order_language(line, set()), line
    state = bid(started())
    first = state.current or ""
    after, events = apply(BOARD, state, first, Take(1))
    for player in state.seating:
        for line in unmarked(KIND.report(after, player, events, game="g1", board=False)):
            assert order_language(line, set()), line


def test_every_refusal_sentence_is_marked_for_translation(marking: None) -> None:
    state = bid(started())
    player = state.current or ""
    # the order layer's refusals (the engine's own, e.g. a place beyond the row, are worded by engine/)
    for text in ("TAKE card 99", "TAEK 2", "TAKE 1\nPLACE 99", "TAKE 1\nDESTROY dan 3", "HISTORY many", "BID lots",
                 "12, 13", "TAKE 1\nMOVE 12", "TAKE 1\nPLACE 12 x0"):
        outcome = KIND.run_message(state, player, text, {})
        assert outcome.refusal is not None, text
        mail = KIND.error(state, player, outcome.refusal, outcome.applied, game="g1")
        orders = set(outcome.refusal.legal) | set(text.splitlines()) | {f"'{word}'" for word in text.split()}
        # and the player's own lines and words, quoted
        for line in unmarked(mail):
            assert order_language(line, orders), (line, mail)


def test_every_welcome_score_sheet_history_and_options_sentence_is_marked_for_translation(marking: None) -> None:
    for state in (started(), started(frozenset({Variant.NEUTRAL}), ("ann", "bob"))):
        for player in state.seating:
            for reply_to in (None, "g1+token@example.org"):
                for line in unmarked(KIND.welcome(state, player, game="g1", reply_to=reply_to)):
                    assert order_language(line, {"TAKE 3", "MOVE 12-13-14, 12-9"}), line
    rng = random.Random(5)
    state, log = bid(started()), list[LogEntry[object]]()
    while not state.finished:
        player, action = random_move(BOARD, state, rng)
        log.append(LogEntry(player, action, state.version))
        state, _ = apply(BOARD, state, player, action)
    texts = ["\n".join(score_sheet(BOARD, state)), "\n".join(KIND.end_lines(state)), "\n".join(KIND.pending_lines(state)),
             *(KIND.game_end(state, player, (), game="g1") for player in (None, *state.seating))]
    for position in (started(), bid(started())):
        for player in position.seating:
            texts.append(KIND.answer_query(position, player, Query(1, "HISTORY", "history"), log=[], game="g1"))
            texts.append(KIND.answer_query(position, player, Query(1, "OPTIONS", "options"), log=[], game="g1"))
            texts.append(KIND.answer_query(position, player, Query(1, "STATUS", "status"), log=[], game="g1"))
            texts.append(KIND.answer_query(position, player, Query(1, "BOARD", "board"), log=[], game="g1"))
            texts.append(KIND.report(position, player, (), game="g1", board=True))
            texts.append("\n".join(KIND.pending_lines(position)))
    texts.append(KIND.answer_query(state, "ann", Query(1, "HISTORY", "history", count=30), log=log, game="g1"))
    orders = {KIND.format_action(state, entry.action) for entry in log} | {
        order for position in (started(), bid(started())) for player in position.seating
        for order in KIND.legal_orders(position, player)}
    for text in texts:
        for line in unmarked(text):
            assert order_language(line, orders), (line, text)
