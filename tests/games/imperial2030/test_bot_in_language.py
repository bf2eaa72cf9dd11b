"""Imperial 2030's bot in every language (issue 30): a translated mail reads as its English twin, the bot
answers it as it answers the English one, in the seat's words, and the moderator accepts the answer.

A game is played from a fixed deal: at every move the prompt and the report
are written in English and in the language, the bot answers both, and the
translated answer, read back into the English order language, must be the
English answer; it is then applied in the language (so the next position is
the English game's too).
"""
from __future__ import annotations

import pytest

from engine.core.seats import Seat
from pbem.games import kind_named
from pbem.games.imperial2030.bot.english import english_order, english_twin, local_order
from pbem.games.imperial2030.bot.player import ImperialBot
from pbem.games.imperial2030.bot.reading import parse_prompt, parse_refusal, parse_report
from pbem.games.imperial2030.kind import Imperial2030
from pbem.games.imperial2030.orders.lexicon import lexicon
from pbem.games.kind import SetupChoices
from pbem.games.optionsblock import blocks
from pbem.languages import Language, speaking

KIND = kind_named("imperial2030")
LANGUAGES = [Language.RU, Language.PL, Language.ES, Language.IT]


def start(players: int) -> object:
    """A new game of ``players`` seats from the standard deal of seed 1."""
    seats = tuple(Seat(name, f"{name}@example.org") for name in ("ann", "bob", "cy", "dee")[:players])
    state, _ = KIND.rules.new_game(KIND.make_setup(SetupChoices(seats, 1, (), {})))
    return state


def mails(state: object, player: str, events: object, language: Language) -> tuple[str, str]:
    """(the prompt, the report) ``player`` reads in ``language``."""
    with speaking(language):
        prompt = KIND.prompt(state, player, game="g1")  # type: ignore[arg-type]
        report = KIND.report(state, player, events, game="g1")  # type: ignore[arg-type]
    assert prompt is not None
    return prompt, report


def to_play(state: object) -> str:
    return [p for p in KIND.rules.pending(state) if not p.answered][0].player  # type: ignore[arg-type]


def in_english(answer: str, language: Language) -> str:
    return "\n".join(english_order(line, language) for line in answer.splitlines()).upper()


@pytest.mark.slow
@pytest.mark.parametrize("language", LANGUAGES, ids=str)
@pytest.mark.parametrize("strategy, players, moves", [("sensible", 3, 90), ("random", 2, 90)])
def test_issue30_the_bot_answers_a_translated_prompt_as_its_english_twin(
        language: Language, strategy: str, players: int, moves: int) -> None:
    assert isinstance(KIND, Imperial2030)
    bot = ImperialBot()
    state = start(players)
    events: object = ()
    for move in range(moves):
        player = to_play(state)
        english, english_report = mails(state, player, events, Language.EN)
        translated, translated_report = mails(state, player, events, language)
        with speaking(Language.EN):
            expected = bot.answer(english, strategy, move, english_report) or ""
        with speaking(language):
            answer = bot.answer(translated, strategy, move, translated_report) or ""
            assert parse_report(translated_report) == parse_report_in_english(english_report)
        assert in_english(answer, language) == expected.upper(), move
        with speaking(language):
            outcome = KIND.run_message(state, player, answer, {})  # type: ignore[arg-type]
        state, events = outcome.state, outcome.events


def parse_report_in_english(text: str) -> object:
    with speaking(Language.EN):
        return parse_report(text)


@pytest.mark.parametrize("language", LANGUAGES, ids=str)
def test_issue30_the_first_prompt_and_report_read_as_in_english(language: Language) -> None:
    """What the bot weighs: the decision (its nation and kind, the options with their details), the money,
    the NATIONS table with factories and flags, who governs what, the reader's cash."""
    state = start(3)
    player = to_play(state)
    (english, english_report), (translated, translated_report) = (mails(state, player, (), lang)
                                                                  for lang in (Language.EN, language))
    with speaking(Language.EN):
        prompt, report = parse_prompt(english), parse_report(english_report)
    with speaking(language):
        read, read_report = parse_prompt(translated), parse_report(translated_report)
    assert read.decision is not None and prompt.decision is not None
    assert (read.game, read.reader, read.version, read.cash, read.treasuries) \
        == (prompt.game, prompt.reader, prompt.version, prompt.cash, prompt.treasuries)
    assert (read.decision.title, read.decision.kind, read.decision.options, read.decision.examples) \
        == (prompt.decision.title, prompt.decision.kind, prompt.decision.options, prompt.decision.examples)
    assert read_report == report and report is not None and report.governs


@pytest.mark.parametrize("language", LANGUAGES, ids=str)
def test_issue30_the_bot_answers_in_the_seats_words_and_they_read_back(language: Language) -> None:
    state = start(3)
    player = to_play(state)
    prompt, report = mails(state, player, (), language)
    with speaking(language):
        answer = ImperialBot().answer(prompt, "sensible", 1, report)
        printed = [option.order for block in blocks(prompt) for option in block.options]
    assert answer is not None and answer.splitlines()[0] in printed  # the option as printed
    keyword = lexicon(language)
    assert keyword is not None and answer.split()[0] == keyword.keywords["RONDEL"]
    for order in printed:
        assert local_order(english_order(order, language), language) == order
    with speaking(language):
        assert KIND.run_message(state, player, answer, {}).refusal is None  # type: ignore[arg-type]


@pytest.mark.parametrize("language", LANGUAGES, ids=str)
def test_issue30_a_translated_refusal_names_the_refused_order_and_what_is_legal_in_english(
        language: Language) -> None:
    state = start(3)
    player = to_play(state)
    with speaking(language):
        wrong = local_order("IMPORT army Moscow", language)
        refusal = KIND.run_message(state, player, wrong, {}).refusal  # type: ignore[arg-type]
        assert refusal is not None
        read = parse_refusal(KIND.error(state, player, refusal, game="g1"))  # type: ignore[arg-type]
    assert read.refused == "IMPORT army Moscow" and read.waits_for_reader
    assert "RONDEL taxation" in read.legal and "RONDEL production_2" in read.legal
    with speaking(language):
        again = ImperialBot().answer_refusal(KIND.error(state, player, refusal, game="g1"), None, "random", 1,
                                             None, [wrong.upper()], 1)  # type: ignore[arg-type]
    assert again is not None and in_english(again, language).startswith("RONDEL ")


def test_issue30_an_english_mail_is_its_own_twin() -> None:
    state = start(3)
    prompt, report = mails(state, to_play(state), (), Language.EN)
    assert english_twin(prompt, Language.EN) == prompt and english_twin(report, Language.EN) == report
    assert english_order("ARMY Paris TO Mumbai HOSTILE", Language.EN) == "ARMY Paris TO Mumbai HOSTILE"


def test_issue30_orders_read_back_from_russian_and_written_again() -> None:
    said = {"АРМИЯ Париж В Мумбай ВРАЖДЕБНАЯ": "ARMY Paris TO Mumbai HOSTILE",
            "РОНДЕЛЬ Производство 2": "RONDEL production_2",
            "ИМПОРТ армия Москва, корабль Владивосток": "IMPORT army Moscow, fleet Vladivostok"}
    for russian, english in said.items():
        assert english_order(russian, Language.RU) == english
        assert local_order(english, Language.RU) == russian
        assert english_order(russian.upper(), Language.RU).upper() == english.upper()  # as the loop remembers it


def test_issue30_the_bot_tells_a_report_by_its_translated_heading() -> None:
    state = start(3)
    player = to_play(state)
    bot = ImperialBot()
    assert set(bot.languages) == set(Language)
    for language in Language:
        prompt, report = mails(state, player, (), language)
        with speaking(language):
            assert bot.is_report(report) and not bot.is_report(prompt)
