"""``pbem demo --language``: bots that read their prompts and answer in their seat's language (issue 30).

Whole games of both kinds by mail, every bot seat in Russian, Polish,
Spanish or Italian: the game ends by the rules with the state equal to its
replay and equal to the English game of the same seed (the bots decide as in
English), the moderator applied every answer (the bots wrote the localized
orders, which parse back), and every mail reads in the seat's language, with
the rulebook's words, within 78 characters a line.
"""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from engine.core.seats import Seat
from pbem.bots.mailio import ReadMail, read_mail
from pbem.demo import MODERATOR, DemoOptions, DemoResult, main_text
from pbem.games import kind_named
from pbem.games.eight_minute_empire.bot import EightMinuteBot, decision_key
from pbem.games.eight_minute_empire.kind import EightMinuteEmpire
from pbem.games.imperial2030.orders.lexicon import lexicon
from pbem.games.kind import SetupChoices
from pbem.languages import Language, speaking

EME = "eight-minute-empire"
KIND = kind_named(EME)
# the English report headings and the English options' heading: none of them in a translated mail
ENGLISH_HEADINGS = ("THE ROW (place, cost, card)", "PLAYERS (seating order", "WHAT HAPPENED", "Your options:",
                    "EIGHT-MINUTE EMPIRE - demo - bot1, your move")
# what each language's orders start with when the bots copy their options: the bid's keyword
BID = {Language.RU: "СТАВКА", Language.PL: "OFERTA", Language.ES: "PUJA", Language.IT: "OFFERTA"}
# the glossary's ✓ words of the Russian rulebook (../shared/i18n/glossary-eight-minute-empire.md), by their stems
RUSSIAN = ("монет", "арми", "стоимость", "ставк", "ряд", "карт", "игрок")


def mails(directory: Path, address: str) -> list[ReadMail]:
    """Every mail one address received (a bot files what it read in ``.processed``)."""
    box = directory / "mail" / address
    return [read_mail(path.read_bytes()) for part in (".processed/cur", "cur", "new") if (box / part).is_dir()
            for path in sorted((box / part).iterdir())]


def play(directory: Path, **options: object) -> tuple[str, DemoResult]:
    """A demo played to its end in this process; what it printed, and its result."""
    out = io.StringIO()
    result = main_text(DemoOptions(directory=directory, timeout=300, **options), out)  # type: ignore[arg-type]
    assert result.finished, out.getvalue()
    return out.getvalue(), result


@pytest.fixture(scope="module")
def english_game(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """The English game of the seed the languages play (its final state as JSON, its final scores)."""
    printed, result = play(tmp_path_factory.mktemp("english") / "demo", kind=EME, players=3, seed=1)
    return KIND.state_to_json(result.state), printed[printed.index("FINAL SCORES"):printed.index("Mail:")]


@pytest.mark.slow
@pytest.mark.parametrize("language", [Language.RU, Language.PL, Language.ES, Language.IT], ids=str)
def test_issue30_a_whole_eight_minute_empire_demo_with_bots_in_a_language(
        tmp_path: Path, language: Language, english_game: tuple[str, str]) -> None:
    """Played, answered and written in the language; and the seed's English game, move for move."""
    printed, result = play(tmp_path / "demo", kind=EME, players=3, seed=1, language=language.value)
    assert "The final state equals the replay of the game's log." in printed
    assert (KIND.state_to_json(result.state), printed[printed.index("FINAL SCORES"):printed.index("Mail:")]) \
        == english_game
    replies = mails(tmp_path / "demo", MODERATOR)
    bids = [mail.body.strip() for mail in replies if mail.body.strip().split(" ")[0] in (BID[language], "BID")]
    assert bids and all(bid.startswith(BID[language]) for bid in bids)  # the bots answered in the language
    for seat in ("bot1", "bot2", "bot3"):
        received = mails(tmp_path / "demo", f"{seat}@demo.pbem")
        assert any(mail.asks for mail in received)
        for mail in received:
            for line in mail.body.splitlines():
                assert len(line) <= 78, (seat, mail.subject, line)
            for heading in ENGLISH_HEADINGS:
                assert heading not in mail.body, (seat, mail.subject, heading)
    if language is Language.RU:
        text = "\n".join(mail.body for mail in mails(tmp_path / "demo", "bot1@demo.pbem")).lower()
        missing = [word for word in RUSSIAN if word not in text]
        assert not missing
        assert "ВОСЬМИМИНУТНАЯ ИМПЕРИЯ" in text.upper()


@pytest.mark.slow
def test_issue30_one_seat_in_another_language_than_the_others(tmp_path: Path) -> None:
    """``--language ru --language bot2=pl``: each bot reads and answers its own seat's language."""
    printed, _ = play(tmp_path / "demo", kind=EME, players=2, seed=3, language="ru", languages=(("bot2", "pl"),))
    assert "The final state equals the replay of the game's log." in printed
    first = {mail.sender: mail.body.split()[0] for mail in reversed(mails(tmp_path / "demo", MODERATOR))}
    assert first == {"bot1@demo.pbem": "СТАВКА", "bot2@demo.pbem": "OFERTA"}
    assert all("Twoje opcje" in m.body or not m.asks for m in mails(tmp_path / "demo", "bot2@demo.pbem"))


IMPERIAL = kind_named("imperial2030")
IMPERIAL_GAME = {"players": 2, "seed": 28}  # a short game of the English demo tests (tests/bots/test_demo.py)
# the English headings of Imperial 2030's reports and prompts: none of them in a translated mail
IMPERIAL_HEADINGS = ("WHAT HAPPENED SINCE YOUR LAST REPORT", "WHERE WE STAND", "\nNATIONS\n", "PLAYERS AND BONDS",
                     "THE RONDEL", "THE WORLD BOARD", "Your options:", "IMPERIAL 2030 - game", ", your decision")
# the glossary's ✓ words of each rulebook (../shared/i18n/glossary-imperial2030.md): nations, the rondel's
# spaces, and the game's own nouns, by their stems where they decline
RULEBOOK = {
    Language.RU: ("Россия", "Китай", "Индия", "Бразилия", "США", "Европа", "Фабрики", "Производство", "Импорт",
                  "Маневры", "Инвестор", "Налогообложение", "рондел", "делени", "игрок", "правительств"),
    Language.PL: ("Rosja", "Chiny", "Indie", "Brazylia", "USA", "Europa", "Fabryka", "Produkcja", "Import",
                  "Manewry", "Inwestor", "Podatek", "rondl", "pole akcji", "gracz", "rząd"),
    Language.ES: ("Rusia", "China", "India", "Brasil", "Estados Unidos", "Europa", "Fábrica", "Producción",
                  "Importación", "Maniobra", "Inversor", "Tributación", "rondel", "espacio", "jugador", "gobierno"),
    Language.IT: ("Russia", "Cina", "India", "Brasile", "Stati Uniti", "Europa", "Fabbrica", "Produzione",
                  "Importazione", "Manovra", "Investitore", "Tassazione", "ruota", "casella", "giocatore", "governo"),
}


@pytest.fixture(scope="module")
def english_imperial_game(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """Imperial 2030's English game of the seed the languages play (its final state, its final scores)."""
    printed, result = play(tmp_path_factory.mktemp("imperial") / "demo", **IMPERIAL_GAME)
    return IMPERIAL.state_to_json(result.state), printed[printed.index("Final scores:"):printed.index("Mail:")]


@pytest.mark.slow
@pytest.mark.parametrize("language", [Language.RU, Language.PL, Language.ES, Language.IT], ids=str)
def test_issue30_a_whole_imperial_demo_with_bots_in_a_language(
        tmp_path: Path, language: Language, english_imperial_game: tuple[str, str]) -> None:
    """Played, answered and written in the language, with the rulebook's words; and the seed's English game,
    move for move."""
    printed, result = play(tmp_path / "demo", language=language.value, **IMPERIAL_GAME)
    assert "The final state equals the replay of the game's log." in printed
    assert (IMPERIAL.state_to_json(result.state), printed[printed.index("Final scores:"):printed.index("Mail:")]) \
        == english_imperial_game
    words = lexicon(language)
    assert words is not None
    local = set(words.keywords.values())
    orders = [line.strip() for mail in mails(tmp_path / "demo", MODERATOR) for line in mail.body.splitlines()
              if line.strip()]
    assert orders and all(any(order.startswith(f"{word} ") or order == word for word in local) for order in orders)
    own = local - set(words.keywords)  # the language's own words, not English ones
    assert any(order.split()[0] in own for order in orders)
    text = ""
    for seat in ("bot1", "bot2"):
        received = mails(tmp_path / "demo", f"{seat}@demo.pbem")
        assert any(mail.asks for mail in received)
        for mail in received:
            for line in mail.body.splitlines():
                assert len(line) <= 78, (seat, mail.subject, line)
            for heading in IMPERIAL_HEADINGS:
                assert heading not in mail.body, (seat, mail.subject, heading)
            text += mail.body.lower()
    assert [word for word in RULEBOOK[language] if word.lower() not in text] == []


def test_issue30_the_bot_answers_a_russian_prompt_with_a_russian_option_that_parses_back() -> None:
    kind = KIND
    assert isinstance(kind, EightMinuteEmpire)
    seats = tuple(Seat(name, f"{name}@example.org") for name in ("ann", "bob", "cy"))
    state, _ = kind.rules.new_game(kind.make_setup(SetupChoices(seats, 4, (), {})))
    bot = EightMinuteBot()
    for _ in range(12):  # the bids, then turns: take a card and use it
        player = [p for p in kind.rules.pending(state) if not p.answered][0].player
        with speaking(Language.RU):
            prompt = kind.prompt(state, player, game="g1")
            assert prompt is not None
            answer = bot.answer(prompt, "sensible", 7, None)
        assert answer is not None and answer.split()[0] in ("СТАВКА", "ВЗЯТЬ", "ГОТОВО"), answer
        with speaking(Language.RU):
            outcome = kind.run_message(state, player, answer, {})
        assert outcome.refusal is None, (answer, outcome.refusal)
        state = outcome.state


@pytest.mark.parametrize("language", [Language.RU, Language.PL, Language.ES, Language.IT], ids=str)
def test_issue30_a_translated_prompt_seeds_the_bot_as_its_english_twin(language: Language) -> None:
    """``decision_key`` of a prompt with its report, in the language, equals the English one's: the row, the
    players' standing (wrapped as in English), the banner and the options read back through the catalogue."""
    kind = KIND
    seats = tuple(Seat(name, f"{name}@example.org") for name in ("ann", "bob", "cy", "dee"))
    state, events = kind.rules.new_game(kind.make_setup(SetupChoices(seats, 5, (), {})))
    for move in range(24):
        player = [p for p in kind.rules.pending(state) if not p.answered][0].player
        mails = []
        for speaks in (Language.EN, language):
            with speaking(speaks):
                mail = f"{kind.prompt(state, player, game='g1')}\n{kind.report(state, player, events, game='g1')}"
                mails.append((mail, decision_key(mail)))
        (english, key), (translated, translated_key) = mails
        assert translated != english and translated_key == key, move
        outcome = kind.run_message(state, player, kind.bot.answer(english, "random", move, None) or "", {})
        state, events = outcome.state, outcome.events
