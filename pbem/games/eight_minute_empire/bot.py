"""Eight-Minute Empire's bot: reads the options a prompt lists and picks one (``random``) or a useful one
(``sensible``: bid one coin, take the card whose offered use does most for its cost).

The prompt's options for a turn are a card and a sensible use of it
(``TAKE 3; MOVE 12-13, 12-9``, see ``prompts``); the sensible bot weighs them
by what they do (armies placed, armies moved out, a city, armies destroyed)
against the card's cost read from the row in the same mail.

A bot reads and answers in its seat's language: it reads under
``speaking(language)`` (``pbem.bots.player``), the options block's heading,
the banner, the row's "cost" and the players' heading are found as the
templates write them in that language (rendered here once per language, never
a second copy of the words), an option is weighed as the English order
language reads it (``names.english``), and the option copied is the one
printed, so the answer is in the seat's language and parses back. Its
choices are seeded with the prompt read back into English
(``pbem.games.untranslate``): a seed plays the same game in every language.
"""
from __future__ import annotations

import itertools
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from pbem.games import untranslate
from pbem.games.eight_minute_empire.names import english, keyword
from pbem.games.optionsblock import blocks
from pbem.languages import SOURCE, Language, speaking, spoken
from pbem.render.env import environment
from pbem.render.text import finish, plain, wrap

STRATEGIES = ("random", "sensible")
WORTH = {"PLACE": 1.0, "MOVE": 1.2, "CITY": 2.5, "DESTROY": 1.5}  # per army, path, city or army destroyed
COIN = 0.8  # what a coin is worth against those
_GAME, _WHAT, _CARD = "GAMEQZX", "WHATQZX", 987  # stand-ins rendered into the templates to find their words
_PLACE, _COST = 1, 9  # the first place of the row (``loop.index``), a cost no row has


@dataclass(frozen=True)
class Words:
    """What the bot looks for in a mail, as the templates write it in one language."""

    banner: re.Pattern[str]  # the title of a mail: its game and what it is (``ann, your move``)
    row: re.Pattern[str]  # a card's line in the row: its place and its cost
    players: str  # the heading of the players' standing, which only a report carries


def _render(source: str, **values: object) -> str:
    """A template's text as a mail in the language being written shows it (``plain``: typographic signs as
    ASCII), so that what is looked for is what the mail holds."""
    return plain(environment().from_string(source).render(**values))


@lru_cache(maxsize=len(Language))
def _words(language: Language) -> Words:
    """The templates' own words of ``language``, rendered once with stand-ins in place of the values."""
    with speaking(language):
        banner = _render('{% import "eight_minute_empire/_words.j2" as w %}{{ w.banner(game, what) }}',
                         game=_GAME, what=_WHAT).splitlines()[0]
        card = {"id": _CARD, "good": "wood", "double": False, "actions": [], "join": ""}
        row = _render('{% include "eight_minute_empire/_row.j2" %}',
                      row={"cards": [{"cost": _COST, "card": card}], "deck": 0}).splitlines()[1]
        players = _render('{% include "eight_minute_empire/_players.j2" %}', players=[]).strip()
    head = row[:row.index(f"#{_CARD}")]
    place, cost = head.index(str(_PLACE)), head.index(str(_COST))
    return Words(
        banner=re.compile("^" + re.escape(banner).replace(_GAME, r"(?P<game>\S+)").replace(_WHAT, "(?P<what>.*)")
                          + "$", re.MULTILINE),
        row=re.compile("^" + re.escape(head[:place]) + r"(\d)" + re.escape(head[place + 1:cost]) + r"(\d+)"
                       + re.escape(head[cost + 1:]), re.MULTILINE),
        players=players)


def worth(line: str, costs: dict[int, int]) -> float:
    """What an option does, less the coins its card costs."""
    value = 0.0
    for order in (part.strip() for part in line.split(";")):
        word, _, rest = order.partition(" ")
        items = [item for item in rest.split(",") if item.strip()]
        if word == "TAKE":
            value -= COIN * costs.get(int(rest), 0)
        elif word == "PLACE":
            value += WORTH[word] * sum(int(item.split("x")[1]) if "x" in item else 1 for item in items)
        elif word in WORTH:
            value += WORTH[word] * max(1, len(items))
    return value


def options_of(text: str) -> list[str]:
    """The ready-to-copy orders of the mail's first options block, as every game prints it
    (``pbem.games.optionsblock``: a line ending in ':', like the bid's range, only introduces the lines after it)."""
    found = blocks(text)
    return list(found[0].orders) if found else []


def decision_key(text: str) -> str:
    """What a prompt asks, and nothing of when or how it was mailed: the game and the reader (the last
    banner: the prompt's), the row, the players' standing and the options.

    The bot's choices are seeded with this and its seed. The whole text would
    not do: a prompt holds its deadline (a time of the clock), and what it
    tells since the seat's last mail depends on the seat's mail mode, so the
    same seed played another game on every run and in every mode.

    Read in the language being read, and read back into English: the key of
    a Russian prompt is its English twin's, so a seed plays one game in every
    language.
    """
    language = spoken()
    words = _words(language)
    lines = text.replace("\r\n", "\n").split("\n")
    heads = [index for index, line in enumerate(lines) if line.startswith(words.players)]
    players = list(itertools.takewhile(bool, lines[heads[0] + 1:])) if heads else []
    found = [(match.group("game"), match.group("what")) for match in words.banner.finditer(text)][-1:]
    if language is not SOURCE:
        return _english_key(lines, found, players, language, words)
    banners = [f"{game} {what}" for game, what in found]
    row = dict.fromkeys(line.strip() for line in lines if words.row.match(line))  # the row, told once or twice
    return "\n".join([*banners, *row, *players, *options_of(text)])


def _english_key(lines: list[str], banners: list[tuple[str, str]], players: list[str], language: Language,
                 words: Words) -> str:
    """The key of a translated prompt as its English twin's: the same lines read back into English
    (``pbem.games.untranslate``) and wrapped as the English template wraps them, so that a seed plays the
    same game in every language."""
    told = [f"{game} {untranslate.english(what, language)}" for game, what in banners]
    rows = []
    for index, line in enumerate(lines):
        if words.row.match(line):
            more = itertools.takewhile(lambda text: _indent(text) > 2 and not words.row.match(text), lines[index + 1:])
            rows.append(untranslate.english(" ".join(part.strip() for part in (line, *more)), language))
    standing = [english_line for chunk in _chunks(players) for english_line in _english_player(chunk, language)]
    options = [english(option) for option in options_of("\n".join(lines))]
    with speaking(SOURCE):
        row = dict.fromkeys(finish("  " + text).splitlines()[0].strip() for text in rows)
    return "\n".join([*told, *row, *standing, *options])


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _chunks(lines: list[str]) -> list[list[str]]:
    """The players' standing, one player's lines each (a player's first line is indented less than six)."""
    chunks: list[list[str]] = []
    for line in lines:
        if _indent(line) < 6 or not chunks:
            chunks.append([])
        chunks[-1].append(line)
    return chunks


def _english_player(lines: list[str], language: Language) -> list[str]:
    """One player's two wrapped paragraphs (who they are and hold; goods and points) in English, wrapped as
    ``_players.j2`` wraps them."""
    marker, texts = lines[0][:2], [lines[0][2:].strip(), *(line.strip() for line in lines[1:])]
    for cut in range(1, len(texts)):
        who = untranslate.message(" ".join(texts[:cut]), language)
        goods = untranslate.message(" ".join(texts[cut:]), language)
        if who is not None and goods is not None:
            with speaking(SOURCE):
                return [*wrap(who, 6, marker).splitlines(), *wrap(goods, 6, 6).splitlines()]
    return lines


class EightMinuteBot:
    """Answers Eight-Minute Empire prompts by mail."""

    @property
    def strategies(self) -> tuple[str, ...]:
        return STRATEGIES

    @property
    def languages(self) -> tuple[Language, ...]:
        """Every language: the bot finds its words in the templates of the language it reads."""
        return tuple(Language)

    def is_report(self, text: str) -> bool:
        return f"\n{_words(spoken()).players}" in text

    def answer(self, prompt: str, strategy: str, seed: int | str, report: str | None) -> str | None:
        options = options_of(prompt)
        if not options:
            return None
        return self._pick(options, strategy, random.Random(f"{seed}\x1f{decision_key(prompt)}"), prompt)

    def answer_refusal(self, error: str, prompt: str | None, strategy: str, seed: int | str, report: str | None,
                       avoid: Sequence[str], attempt: int) -> str | None:
        if attempt > 3:
            return keyword("DONE")
        options = [o for o in options_of(prompt or "") if o.upper() not in avoid]
        if not options:
            return keyword("DONE")
        refused = sorted(english(line).upper() for line in avoid)  # as in English: one game in every language
        rng = random.Random(f"{seed}\x1f{decision_key(prompt or '')}\x1fretry {attempt}\x1f{refused}")
        return self._pick(options, strategy, rng, prompt or "")

    def _pick(self, options: list[str], strategy: str, rng: random.Random, prompt: str) -> str:
        """One of ``options`` as printed (in the seat's language), chosen by what it says in the English
        order language."""
        if strategy != "sensible":
            return rng.choice(options)
        read = [(english(option), option) for option in options]  # (the English order, the option printed)
        if read[0][0].startswith("BID"):
            return next((option for order, option in read if order == "BID 1"), options[0])
        if read[0][0].startswith("TAKE"):
            costs = {int(place): int(cost) for place, cost in _words(spoken()).row.findall(prompt)}
            return max(read, key=lambda pair: (worth(pair[0], costs), rng.random()))[1]
        return options[0]  # the use the prompt offers first: the engine's sensible one, or DONE
