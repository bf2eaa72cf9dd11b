"""``pbem demo --language``: bots that read their prompts and answer in their seat's language (issue 30).

Whole Eight-Minute Empire games by mail, every bot seat in Russian, Polish,
Spanish or Italian: the game ends by the rules with the state equal to its
replay, the moderator applied every answer (the bots copied the localized
options, which parse back), and every mail reads in the seat's language,
within 78 characters a line. Imperial 2030's bots read English only: the
demo refuses to seat them in another language.
"""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from engine.core.seats import Seat
from pbem.bots.mailio import ReadMail, read_mail
from pbem.demo import MODERATOR, Demo, DemoOptions, DemoResult, main_text
from pbem.games import kind_named
from pbem.games.eight_minute_empire.bot import EightMinuteBot, decision_key
from pbem.games.eight_minute_empire.kind import EightMinuteEmpire
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


def test_issue30_imperials_bots_read_english_only(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="Imperial 2030's bots read English only for now; use --humans for the "
                                         "seats in ru"):
        Demo(DemoOptions(players=3, language="ru", directory=tmp_path / "demo"))
    assert not (tmp_path / "demo").exists()
    Demo(DemoOptions(players=2, humans=("ann",), languages=(("ann", "ru"),), directory=tmp_path / "people"))


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
