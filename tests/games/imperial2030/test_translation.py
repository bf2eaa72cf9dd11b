"""Every English sentence of Imperial 2030's mails is marked for translation (issue 30): with a catalogue that
brackets each text it translates, what is left of every kind of mail (welcome, the prompt of each decision, the
report with the board and the rondel, refusals, the game's end, HELP and its topics, STATUS, OPTIONS, HISTORY)
is the order language (keywords in capitals, ready-to-copy orders), names (players, nations, regions, rondel
spaces: data, translated in a later step), numbers, punctuation, rules and the ASCII art's cells."""
from __future__ import annotations

import re
from collections.abc import Iterable

from engine.core.log import LogEntry
from engine.imperial2030.actions import ChooseSpace
from engine.imperial2030.decisions import pending
from engine.imperial2030.game import apply
from engine.imperial2030.model import GameSetup, GameState, Seat, Variant
from engine.imperial2030.setup import new_game
from pbem.games import kind_named
from pbem.games.imperial2030.board import board_art
from pbem.games.imperial2030.help import help_text, topics
from pbem.games.imperial2030.kind import Imperial2030
from pbem.games.imperial2030.orders.keywords import SPECS, Keyword
from pbem.games.imperial2030.sayings import say
from pbem.games.results import Query
from pbem.languages import Language, speaking
from pbem.render.env import environment
from pbem.render.text import wrap
from tests.games.marking import CLOSE, MARKED, OPEN
from tests.helpers import BOARD, play, standard_game, turn_of
from tests.imperialpositions import (
    battle_question,
    busy,
    canal_question,
    finished,
    force_question,
    investment_question,
    russia_maneuvers,
    start,
    suez_position,
    three_players,
)

KIND = kind_named("imperial2030")
assert isinstance(KIND, Imperial2030)

PIECES = re.compile(r"\b[A-Z]{2}(?:[afh]\d+)+\b|\(x\d+\)")  # the board's pieces (RUa2f1), a multiplier (x2)
# lower-case words of orders (IMPORT army Moscow, fleet Vladivostok; HELP's examples in lower case)
ORDER_WORDS = {"far", "production", "maneuver", "nothing", "invest", "don", "t", "to",
               *(w for k in Keyword for w in k.value.split())}




def names(players: Iterable[str] = ()) -> list[str]:
    """Every name a mail may print as data, longest first: regions, nations, rondel spaces, canals, players."""
    found = {BOARD.name(x) for x in (*BOARD.regions, *BOARD.nation_ids, *BOARD.rondel_ids)}
    found |= {c.replace("_", " ").title() for c in BOARD.canals} | set(players) | {p.upper() for p in players} | {"g1"}
    found |= {*BOARD.rondel_ids, *BOARD.nation_ids, *BOARD.regions}
    found |= {"N Pacific", "mos", "SAN FRANCISCO"}  # HELP NAMES' examples of names as players write them
    return sorted(found, key=len, reverse=True)


# words in capitals that are no English: keywords, the game's name, nation codes, the marks of the board
CAPITALS = {w.upper() for w in ORDER_WORDS} | {"IMPERIAL", "RU", "CN", "IN", "BR", "US", "EU", "END", "CLEAR",
                                               "HOSTILE", "FRIENDLY", "TO", "VIA", "PP", "NY", "OFF", "ON"} | {
    word for topic in topics() for word in re.findall(r"[A-Z]{2,}", topic.upper())} | {
    word for spec in SPECS for alias in spec.aliases for word in re.findall(r"[A-Z]{2,}", alias.upper())} | {
    word for canal in BOARD.canals for word in re.findall(r"[A-Z]{2,}", canal.upper())} | {
    w for n in (*BOARD.regions, *BOARD.nation_ids, *BOARD.rondel_ids) for w in BOARD.name(n).upper().split()}
ART = {line.strip() for panel in board_art().panels for line in panel.lines}


def spread(words: str) -> str:
    """A pattern for ``words`` that a line's wrapping may have broken anywhere between them."""
    return r"\s+".join(re.escape(word) for word in words.split())


def leftover(text: str, orders: Iterable[str] = (), players: Iterable[str] = ()) -> list[str]:
    """The lines of ``text`` that still hold an English word once the marked texts, the ready-to-copy orders,
    the names, the board's pieces and the world board's art are taken away."""
    while MARKED.search(text):
        text = MARKED.sub(" ", text)
    text = re.sub(r"\S+@\S+|\d{4}-\d\d-\d\d \d\d:\d\d UTC", " ", text)  # addresses and deadlines: data
    known = sorted({order for order in orders if order.strip()}, key=len, reverse=True)
    lines = [line.strip() for line in text.splitlines()]
    text = "\n".join(line for line in lines if line and line not in known
                     and not any(line[:12] in art or art.startswith(line[:12]) for art in ART if art))
    # the orders, and the names as written in full or in lower case (HELP's examples), wherever lines broke
    every = {*names(players), *(name.lower() for name in names(players))}
    for words in (*known, *sorted(every, key=len, reverse=True)):
        text = re.sub(spread(words), " ", text)
    left = []
    for line in text.splitlines():
        # and an order's syntax (RONDEL <space>, HELP [topic]), the rondel art's arrows
        line = PIECES.sub(" ", re.sub(r"<[^<>]*>|\[[a-z ,.<>]*\]|-v-", " ", line)).strip()
        capitals = {w for w in re.findall(r"[A-Z]{2,}", line) if w not in CAPITALS}
        if set(re.findall(r"[a-z]+", line)) <= ORDER_WORDS and not capitals:
            continue  # an order: its keywords, names and order words
        if re.search(r"[a-z]", line) or capitals:
            left.append(line)
    return left


def check(text: str, orders: Iterable[str] = (), players: Iterable[str] = ()) -> None:
    found = leftover(text, orders, players)
    assert not found, "unmarked:\n" + "\n".join(found) + "\n--- in the mail:\n" + text.replace(OPEN, "[").replace(
        CLOSE, "]")


def expert() -> GameState:
    state, _ = new_game(BOARD, GameSetup((Seat("ann"), Seat("bob"), Seat("cat")), seed=1,
                                         variants=frozenset({Variant.EXPERT})))
    return state


def positions() -> list[GameState]:
    """A position for every kind of decision: rondel, import, factory, production, maneuver, taxation's
    investor, a force stop, an investment, a canal passage, a battle, the expert bond selection."""
    found = [start()[0], three_players(), busy(), russia_maneuvers(), force_question(), investment_question(),
             suez_position(), canal_question(suez_position()), battle_question(suez_position()), expert()]
    for before, space in (("maneuver_1", "import"), ("taxation", "factory"), ("factory", "production_1"),
                          ("maneuver_1", "investor"), ("maneuver_2", "taxation")):
        state, _ = play(turn_of(standard_game(), "russia", rondel=before), ChooseSpace(space))
        found.append(state)
    return found


def test_every_prompt_report_and_board_sentence_is_marked_for_translation(marking: None) -> None:
    for state in positions():
        for decision in pending(state):
            player = decision.player
            prompt = KIND.prompt(state, player, game="g1", deadline="2030-05-03 18:00 UTC")
            assert prompt is not None
            check(prompt, KIND.legal_orders(state, player), state.seating)
        for player in state.seating[:2]:
            check(KIND.report(state, player, (), game="g1", board=True), (), state.seating)
            check(KIND.report(state, player, (), game="g1", open_cash=True, board=False), (), state.seating)
    state, events = start()
    after, events = play(state, ChooseSpace("investor"))
    for player in after.seating:
        check(KIND.report(after, player, events, game="g1", board=False), (), after.seating)


def test_every_refusal_sentence_is_marked_for_translation(marking: None) -> None:
    state = russia_maneuvers()
    player = pending(state)[0].player
    other = next(p for p in state.seating if p != player)
    # the order layer's refusals, and the engine's (their reasons are worded by engine/ and left out here)
    for who, text, engine in ((player, "ARMY Moscow TO Atlantis", False), (player, "FLEET Atlantis TO Mars", False),
                              (player, "HISTORY many", False),
                              (player, "BUMP 3", False), (player, "ARMY Moscow TO Murmansk\nBUMP 3\nDONE", False),
                              (player, "FLEET Moscow TO Ukraine", True), (player, "RONDEL taxation", True),
                              (player, "DONE\nDONE", True), (other, "RONDEL taxation", True)):
        outcome = KIND.run_message(state, who, text, ())
        assert outcome.refusal is not None, text
        mail = KIND.error(state, who, outcome.refusal, outcome.applied, game="g1")
        if engine:
            mail = mail.replace(wrap(outcome.refusal.reason, 2), "")
        check(mail, [*outcome.refusal.legal, *text.splitlines(), *text.split()], state.seating)


def test_every_welcome_and_game_end_sentence_is_marked_for_translation(marking: None) -> None:
    for state in (start()[0], three_players(), expert()):
        for player in state.seating:
            for reply_to in (None, "g1+token@example.org"):
                for open_cash in (False, True):
                    check(KIND.welcome(state, player, game="g1", reply_to=reply_to, open_cash=open_cash),
                          ("RONDEL import", "IMPORT army Moscow, fleet Vladivostok"), state.seating)
    for tie in (False, True):
        state, events = finished(tie)
        for player in (None, *state.seating):
            check(KIND.game_end(state, player, events, game="g1"), (), state.seating)
        check("\n".join(KIND.end_lines(state)), (), state.seating)


def test_every_help_status_options_and_history_sentence_is_marked_for_translation(marking: None) -> None:
    for topic in (None, *topics(), "xyzzy"):
        check(help_text(topic, BOARD), [topic or ""])  # the topic asked for: the player's own word
    state, _ = start()
    log: list[LogEntry[object]] = []
    for player, action in (("Anna", ChooseSpace("investor")),):
        log.append(LogEntry(player, action, state.version))
        state, _ = apply(state, player, action)
    for position in (start()[0], state, russia_maneuvers(), canal_question(suez_position()), finished()[0]):
        for player in position.seating[:3]:
            orders = KIND.legal_orders(position, player)
            for kind in ("STATUS", "OPTIONS", "BOARD"):
                check(KIND.answer_query(position, player, Query(1, kind, kind.lower()), log=[], game="g1"),
                      orders, position.seating)
            check(KIND.answer_query(position, player, Query(1, "HISTORY", "history"), log=None, game="g1"),
                  orders, position.seating)
    orders = {KIND.format_action(state, entry.action) for entry in log}  # type: ignore[arg-type]
    for player in state.seating:
        check(KIND.answer_query(state, player, Query(1, "HISTORY", "history", count=30), log=log, game="g1"),
              orders, state.seating)


def test_a_canal_whose_name_is_not_known_takes_no_doubled_article() -> None:
    """An unknown canal is 'a canal' (no "through the the canal", "pass the a canal"); a known one keeps its name."""
    for unit in ("army", "fleet"):
        for canal in (None, "Suez"):
            text = say("_prompt_words", "canal_question", mover=None, unit=unit, origin="Rome", dest="Mumbai",
                       canal=canal, nation="India", allow="ALLOW", deny="DENY")
            assert ("through the Suez canal" if canal else "through a canal, which India controls") in text, text
            assert not re.search(r"\b(the|a) (the|a)\b", text), text
    for canal, words in ((None, "decide for India whether Europe may pass a canal"),
                         ("Suez", "decide for India whether Europe may pass the Suez canal")):
        said = say("_view_words", "decision", kind="canal", nation="India", mover="Europe", canal=canal, where=None)
        assert said == words
    state = canal_question(suez_position())
    assert "pass the Suez canal" in KIND.decision_words(state, KIND.rules.pending(state)[0])


def test_the_two_games_count_their_armies_in_their_own_rulebooks_words() -> None:
    """'%(num)d army' has the Imperial 2030 context: a Polish Imperial army is the rulebook's czolg, while an
    Eight-Minute Empire army stays an armia."""
    state = start()[0]
    with speaking(Language.PL):
        status = KIND.answer_query(state, "Anna", Query(1, "STATUS", "status"), log=[], game="g1")
        assert "0 czołgów" in status and "armii" not in status
        assert say("_view_words", "reached", nation="Europa", power=25) == "Europa: punktów wpływu 25."
        assert "2 armie" in str(environment().get_template("eight_minute_empire/_words.j2").module.armies(2))


def test_a_part_laid_out_once_per_move_is_kept_per_language() -> None:
    """The nations table, the rondel and the board are laid out once for a move's seats (same_objects): a Russian
    seat's report must not hand its words to the English seat's, nor the other way round."""
    state = start()[0]
    english = KIND.report(state, "Anna", (), game="g1", board=True)
    with speaking(Language.RU):
        russian = KIND.report(state, "Ben", (), game="g1", board=True)
    assert KIND.report(state, "Anna", (), game="g1", board=True) == english
    assert "THE RONDEL" in english and "Legend:" in english and "Treasury" in english
    assert "РОНДЕЛЬ" in russian and "THE RONDEL" not in russian and "Legend:" not in russian
    assert "Treasury" not in russian and "Казна" in russian


def test_why_the_game_ended_is_said_in_the_mails_language() -> None:
    """The engine gives the reason in English ("Europe reached 25 power points"): the game end, the report and
    the narration say it, and name the nation, in the reader's language (issue 30), and in English exactly as before."""
    state, events = finished()
    english = KIND.game_end(state, "Anna", events, game="g1")
    assert "The game ended because Europe reached 25 power points." in english
    with speaking(Language.PL):
        polish = KIND.game_end(state, "Anna", events, game="g1")
        report = KIND.report(state, "Anna", events, game="g1", board=False)
    assert "Gra się skończyła, bo Europa: punktów wpływu 25." in polish
    assert "reached" not in polish and "reached" not in report
    assert say("_view_words", "ended", reason="the moon fell") == "the moon fell"  # an unknown reason as given
