"""A translated Imperial 2030 mail read back into the English twin the bot's readers know (issue 30).

Why a twin: the bot (``reading``, ``strategy``) weighs what the English mail
says: a decision's title, an option's cost and interest, the NATIONS table,
who governs what. Read from the English twin of a Russian prompt, the bot
finds the same facts, decides the same (its randomness is seeded by the
game, the seat and the move, which read alike in every language), and so a
seed plays one game in every language.

How: nothing here knows a word of another language; every word is the
templates' and catalogues' own. A heading comes back through the catalogue
(``pbem.games.untranslate``), caseless, since the template upper-cases it;
an option's details and a group's title the same way. The orders (the
options, the examples, what is legal now, the reader's refused line) come
back through the order language's own lexicon (``orders.lexicon``: keywords,
the small words after them, names, rondel spaces), and so does every name
in a sentence (``Москва [A]``). The few sentences and phrases a reader looks
for (the money, the cash, the default, the table's details, the players'
lines) are each read by their own translation, rendered here with stand-ins
for the values: read by the whole catalogue, a phrase may come back as
another message translated alike (Polish ``fabryki: %(names)s``), and it is
much slower. What no reader looks at (what a decision is about, what
happened, the rondel, the world board) stays as it is. The twin keeps where
the readers find things: the banner, headings with their rule, the options
block, a sentence on one line (the readers join wrapped lines, so it reads
the same), the table's rows with single spaces.

A seat's answer goes the other way (``local_order``): the English orders the
strategy chose, in the seat's words, as the options print them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from engine.imperial2030.mapfile import default_board
from pbem.games import untranslate
from pbem.games.imperial2030.bot.lines import indent, is_heading
from pbem.games.imperial2030.orders.keywords import Keyword
from pbem.games.imperial2030.orders.lexicon import lexicon, to_english
from pbem.games.imperial2030.orders.names import space_id_text
from pbem.games.optionsblock import GROUP_INDENT, OPTION_INDENT, split_option
from pbem.languages import SOURCE, Language, folded, speaking
from pbem.render.env import environment
from pbem.render.text import plain

_LONGEST_SENTENCE = 8  # lines one sentence may be wrapped over (the longest the prompts write take five)
_SKIPPED = ("WHAT HAPPENED SINCE YOUR LAST REPORT", "THE RONDEL", "THE WORLD BOARD")  # no reader looks there
_TABLE = "NATIONS"
_STANDING = "WHERE WE STAND"
_PLAYERS = "PLAYERS AND BONDS (SEATING ORDER)"
_ENGLISH_TABLE_HEAD = "  Nation  Govt"


@dataclass(frozen=True)
class Words:
    """One language's order words, each by the English the order language writes (see ``english_order``)."""

    keywords: dict[str, str]  # folded keyword (``нет боя``) -> ``NO FIGHT``
    spaces: dict[str, str]  # folded rondel space as an order names it (``производство 1``) -> ``production_1``
    space_names: dict[str, str]  # a rondel space's name as the table shows it (``Производство``) -> ``Production``
    names: dict[str, str]  # a nation's, region's or canal's name -> its English
    nations: frozenset[str]  # the nations' English names
    name_pattern: re.Pattern[str] | None  # any of ``names``, longest first, as a whole word
    upper_names: re.Pattern[str] | None  # the same upper case, as a heading prints them
    options_heading: str  # ``Ваши варианты:``
    legal_heading: str  # a refusal's ``Legal now:``, ``Сейчас можно:``
    skipped: frozenset[str]  # the headings of the sections no reader looks at, as the language prints them
    money: tuple[re.Pattern[str], ...]  # the prompt's money sentence, for no nation, one, two ... (see ``_money``)
    nation_row: re.Pattern[str]  # a row of the NATIONS table


@lru_cache(maxsize=len(Language))
def words(language: Language) -> Words:
    """``language``'s order words, read from its lexicon (and the rondel's spaces as its orders name them)."""
    lex = lexicon(language)
    board = default_board()
    keywords: dict[str, str] = {}
    spaces: dict[str, str] = {}
    names: dict[str, str] = {}
    space_names: dict[str, str] = {}
    if lex is not None:
        for english, local in lex.keywords.items():
            if english.isupper():
                keywords.setdefault(folded(local), english)
                for other in lex.also.get(english, ()):
                    keywords.setdefault(folded(other), english)
        with speaking(language):
            for sid in board.rondel_ids:
                spaces[folded(space_id_text(board, sid))] = sid
        space_names = {local: english for english, local in lex.spaces.items()}
        names = {local: english for english, local in (*lex.names.items(), *lex.canals.items()) if local != english}
    pattern = upper = None
    if names:
        alternatives = "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))
        pattern = re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])")
        names.update({name.upper(): english for name, english in names.items()})
        alternatives = "|".join(re.escape(name.upper()) for name in sorted(names, key=len, reverse=True))
        upper = re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])")
    heading = environment(language).from_string('{% import "core/options.j2" as o %}{{ o.heading() }}')
    nations = "|".join(re.escape(n) for n in sorted({lex.names.get(n.name, n.name) if lex else n.name
                                                       for n in board.nations}, key=len, reverse=True))
    row = re.compile(rf"^(?P<mark>[> ]) (?P<name>{nations})\s+(?P<gov>\S+)\s+(?P<treasury>\d+)\s+(?P<power>\d+) "
                     r"\(x(?P<mult>\d+)\)\s+(?P<rondel>.+?)\s+(?P<fact>\d+)\s+(?P<army>\d+)\s+(?P<fleet>\d+)"
                     r"\s+(?P<flags>\d+)\s*$")
    skipped = frozenset(_said(language, title).upper() for title in _SKIPPED)
    money = tuple(_money_pattern(language, count) for count in range(len(board.nations) + 1))
    return Words(keywords, spaces, space_names, names, frozenset(n.name for n in board.nations), pattern, upper,
                 heading.render().strip(), _said(language, "Legal now:"), skipped, money, row)


def _said(language: Language, msgid: str) -> str:
    """A message without values as ``language`` prints it."""
    with speaking(language):
        return plain(environment(language).from_string("{{ _(msgid) }}").render(msgid=msgid))


# The phrases of the report's NATIONS details and players' lines the readers look for (``_view_words.j2``,
# ``_players.j2``), each read by its own translation: read by the whole catalogue, ``fabryki: %(names)s`` may
# come back as another message translated alike, and a list of names as a message of its own.
_PHRASES = ("factories %(names)s", "no factories", "flags %(names)s", "hostile armies in %(names)s",
            "%(seat)s %(player)s (you)", "governs %(nations)s", "cash %(cash)s", "investor card", "Swiss bank",
            "no nation", "bonds %(bonds)s (interest %(interest)s)", "bonds none", "%(some)s and %(last)s")
_LISTS = ("names", "nations")  # the values that are lists of names (``both``: ``a, b and c``)
_STAND_IN = "QZX%sQZX"


# The sentences the readers look for (``prompt.j2``, ``report.j2``, ``error.j2``), each read by its own
# translation: they are all a reader needs of a mail's prose (the rest, what a decision is about, stays as
# it is), and so no sentence is looked for among every message of the catalogue.
_PROSE = ("For example, reply with one of these:", "For example, reply with:", "or",
          "Without an answer, the game takes: %(order)s.", "Without an answer by the deadline, the game takes: "
          "%(order)s.", "Your cash: %(cash)s.", "line %(number)s: %(line)s",
          "The game does not wait for you now; it waits for:")
_ORDERS = ("order", "line")  # the values that are orders of the reader's


@lru_cache(maxsize=2 * len(Language))
def _phrases(language: Language, msgids: tuple[str, ...] = _PHRASES) -> dict[str, re.Pattern[str]]:
    """Each of ``msgids`` as ``language`` prints it, its values caught."""
    template = environment(language).from_string("{{ _(msgid, **values) }}")
    found: dict[str, re.Pattern[str]] = {}
    for msgid in msgids:
        names = re.findall(r"%\((\w+)\)s", msgid)
        with speaking(language):
            text = re.escape(plain(template.render(msgid=msgid, values={n: _STAND_IN % n for n in names})))
        for name in names:
            text = text.replace(_STAND_IN % name, rf"(?P<{name}>.+?)", 1).replace(_STAND_IN % name, f"(?P={name})")
        found[msgid] = re.compile(text + "$")
    return found


def _phrase(text: str, language: Language, msgids: tuple[str, ...] = _PHRASES) -> str | None:
    """``text`` (its names already in English) as the English phrase of ``msgids`` it is; None if none."""
    for msgid, pattern in _phrases(language, msgids).items():
        found = pattern.fullmatch(text)
        if found is not None and msgid != "%(some)s and %(last)s":
            values = {name: _listing(value, language) if name in _LISTS else
                      english_order(value, language) if name in _ORDERS else value
                      for name, value in found.groupdict().items()}
            return msgid % values
    return None


def _listing(text: str, language: Language) -> str:
    """A list of names (``a, b i c``) as English writes it (``a, b and c``)."""
    found = _phrases(language)["%(some)s and %(last)s"].fullmatch(text)
    if found is None:
        return text
    return f"{found.group('some')} and {found.group('last')}"


_CASH, _TREASURY, _NATION = 987001, 987100, "NATIONQZX"  # stand-ins rendered into the money sentence
_MONEY = '{% import "imperial2030/_prompt_words.j2" as w %}{{ w.money(cash, treasuries) }}'


def _money(language: Language, cash: object, treasuries: list[tuple[object, object]]) -> str:
    """The prompt's money sentence (the reader's cash, the treasuries concerned) as ``language`` prints it."""
    with speaking(language):
        return plain(environment(language).from_string(_MONEY).render(cash=cash, treasuries=treasuries))


def _money_pattern(language: Language, count: int) -> re.Pattern[str]:
    """The money sentence with ``count`` treasuries, its values caught: no catalogue reading can tell its
    parts apart (``a and b.`` is no message of its own, and its first part's value may swallow the rest)."""
    text = re.escape(_money(language, _CASH, [(f"{_NATION}{n}", _TREASURY + n) for n in range(count)]))
    text = text.replace(str(_CASH), r"(?P<cash>\d+)")
    for n in range(count):
        text = text.replace(str(_TREASURY + n), rf"(?P<t{n}>\d+)").replace(f"{_NATION}{n}", rf"(?P<n{n}>.+?)")
    return re.compile(text)


def _money_read(text: str, language: Language) -> str | None:
    """The money sentence ``text`` in English; None when it is not the money sentence."""
    for count, pattern in enumerate(words(language).money):
        found = pattern.fullmatch(text)
        if found is not None:
            return _money(SOURCE, found.group("cash"), [(found.group(f"n{n}"), found.group(f"t{n}"))
                                                         for n in range(count)])
    return None


def english_names(text: str, language: Language) -> str:
    """``text`` with every nation, region and canal of ``language`` named in English."""
    found = words(language)
    if found.name_pattern is None:
        return text
    return found.name_pattern.sub(lambda match: found.names[match.group()], text)


def english_order(line: str, language: Language) -> str:
    """An order as ``language`` prints it (``АРМИЯ Париж В Мумбай ВРАЖДЕБНАЯ``) as the English order language
    writes it (``ARMY Paris TO Mumbai HOSTILE``); an English order, or a line that is none, as it is."""
    if language is SOURCE:
        return line
    found = words(language)
    tokens = line.strip().split()
    for length in range(min(3, len(tokens)), 0, -1):
        keyword = found.keywords.get(folded(" ".join(tokens[:length])))
        if keyword is None:
            continue
        rest = " ".join(tokens[length:])
        if keyword == "RONDEL":
            rest = found.spaces.get(folded(rest), rest)
        else:
            try:
                kind = Keyword(keyword.lower())
            except ValueError:
                kind = None
            if kind is not None:
                with speaking(language):
                    rest = to_english(kind.value, rest)
            rest = english_names(rest, language)
            if found.upper_names is not None:  # an order the bot wrote, as the mail loop remembers it: upper case
                rest = found.upper_names.sub(lambda match: found.names[match.group()], rest)
        return f"{keyword} {rest}".strip()
    return line.strip()


_SMALL = ("TO", "IN", "VIA", "HOSTILE", "FRIENDLY", "ATTACK", "FACTORY", "CLEAR", "far", "army", "fleet", "nothing")


@lru_cache(maxsize=len(Language))
def _writing(language: Language) -> tuple[dict[str, str], re.Pattern[str]] | None:
    """(English name or small word -> ``language``'s, a pattern of them all as whole words), for
    ``local_order``; None in English."""
    lex = lexicon(language)
    if lex is None:
        return None
    table = {**lex.names, **lex.canals, **{small: lex.keywords[small] for small in _SMALL if small in lex.keywords}}
    alternatives = "|".join(re.escape(text) for text in sorted(table, key=len, reverse=True))
    return table, re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])")


def local_order(order: str, language: Language) -> str:
    """An English order (``ARMY Paris TO Mumbai HOSTILE``) as ``language`` prints it (``АРМИЯ Париж В Мумбай
    ВРАЖДЕБНАЯ``), as ``orders.format`` writes the options: the bot answers in its seat's words, and what it
    copies from the options block comes back as printed. A line that is no order, as it is."""
    writing = _writing(language)
    lex = lexicon(language)
    if writing is None or lex is None:
        return order
    tokens = order.strip().split()
    length = next((n for n in range(min(3, len(tokens)), 0, -1) if " ".join(tokens[:n]).upper() in lex.keywords), 0)
    if length:
        keyword, rest = " ".join(tokens[:length]).upper(), " ".join(tokens[length:])
        board = default_board()
        table, pattern = writing
        if keyword == "RONDEL" and rest in board.rondel_by_id:
            with speaking(language):
                rest = space_id_text(board, rest)
        else:
            upgrade = keyword == "UPGRADE"
            rest = pattern.sub(lambda match: lex.upgrade_to if upgrade and match.group() == "TO"
                               else table[match.group()], rest)
        return f"{lex.keywords[keyword]} {rest}".strip()
    return order.strip()


def _sentence(text: str, language: Language, money: bool = True) -> str | None:
    """One sentence a reader looks for (``_PROSE``, the money) in English; None when ``text`` is none of them.

    The names are read first (``english_names``). The prompt's money
    sentence (``money``: where one may stand) has a reader of its own
    (``_money_read``): Polish says ``You have 2 in cash`` as the report's
    ``Your cash: 2.``, so only where it stands is it read so.
    """
    text = english_names(text, language)
    said = _money_read(text, language) if money else None
    return said if said is not None else _phrase(text, language, _PROSE)


def _heading(text: str, language: Language) -> str:
    """A heading (upper case) in English, upper case; its names read first, as in ``_sentence``."""
    found = words(language)
    text = text.strip()
    if found.upper_names is not None:
        text = found.upper_names.sub(lambda match: found.names[match.group()].upper(), text)
    read = untranslate.message(text, language, caseless=True)
    return read.upper() if read is not None else text


def _wrapped(lines: list[str]) -> bool:
    """Whether ``lines`` may be one paragraph wrapped: the lines after the first indented alike, and no less
    than the first."""
    rest = {indent(line) for line in lines[1:]}
    return len(rest) == 1 and min(rest) >= indent(lines[0])




def english_twin(text: str, language: Language) -> str:
    """The English twin of ``text``, a mail written in ``language`` (see the module's docstring); an English
    mail as it is."""
    if language is SOURCE:
        return text
    lines = text.replace("\r\n", "\n").split("\n")
    return "\n".join(_Twin(lines, language).read())


class _Twin:
    """One mail's lines read into English, section by section."""

    def __init__(self, lines: list[str], language: Language) -> None:
        self.lines = lines
        self.language = language
        self.words = words(language)
        self.out: list[str] = []
        self.section = ""

    def read(self) -> list[str]:
        lines = self.lines
        index = 0
        while index < len(lines):
            line = lines[index]
            if line.startswith("=") and set(line) == {"="}:
                index = self._banner(index)
            elif is_heading(lines, index) and line.strip() in self.words.skipped:
                index = self._skip(index)
            elif is_heading(lines, index):
                title = _heading(line, self.language)
                self.section = title
                self.out += [title, "-" * len(title)]
                index += 2
            elif line.rstrip() == self.words.options_heading:
                index = self._options(index)
            elif not line.strip() or set(line.strip()) == {"-"}:
                self.out.append(line)
                index += 1
            elif line.strip() == self.words.legal_heading:
                index = self._legal(index)
            elif self.section == _TABLE:
                index = self._table(index)
            elif self.section == _PLAYERS:
                index = self._players(index)
            else:
                index = self._sentences(index)
        return self.out

    def _skip(self, index: int) -> int:
        """A section no reader looks at, as it is, up to the next heading or the footer's rule."""
        self.out += self.lines[index:index + 2]
        index += 2
        while index < len(self.lines) and not is_heading(self.lines, index) \
                and set(self.lines[index].strip() or " ") != {"-"}:
            self.out.append(self.lines[index])
            index += 1
        return index

    def _run_end(self, index: int) -> int:
        """The end of the lines of sentences from ``index``: up to a blank line, a heading or the options."""
        end = index
        while end < len(self.lines) and self.lines[end].strip() and not is_heading(self.lines, end) \
                and self.lines[end].rstrip() != self.words.options_heading and not self.lines[end].startswith("="):
            end += 1
        return end

    def _banner(self, index: int) -> int:
        """The banner between its rules: its title's parts (game, what the mail is) and the round line."""
        self.out.append(self.lines[index])
        index += 1
        while index < len(self.lines) and not (self.lines[index].startswith("=") and set(self.lines[index]) == {"="}):
            line = self.lines[index]
            parts = [untranslate.english(part, self.language) for part in line.strip().split(" - ")]
            self.out.append(" " + " - ".join(parts) if line.startswith(" ") else line)
            index += 1
        if index < len(self.lines):
            self.out.append(self.lines[index])
        return index + 1

    def _sentences(self, index: int) -> int:
        """Consecutive lines of sentences, each wrapped over one or more lines: those a reader looks for read
        one sentence a line, the others as they are (an example's orders are read as orders).

        A sentence is the line and those indented deeper after it (``wrap(4, 2)``), else the fewest lines
        that read: a sentence ending in a value (``line 1: %(line)s``) would swallow the lines after it.
        """
        end = self._run_end(index)
        run = self.lines[index:end]
        examples = False
        start = 0
        while start < len(run):
            deeper = start + 1
            while deeper < len(run) and indent(run[deeper]) > indent(run[start]):
                deeper += 1
            read, stop = None, start + 1
            for stop in (deeper, *range(start + 1, min(len(run), start + _LONGEST_SENTENCE) + 1)):
                if stop - start == 1 or _wrapped(run[start:stop]):
                    read = _sentence(" ".join(part.strip() for part in run[start:stop]), self.language,
                                     money=self.section != _STANDING)
                    if read is not None:
                        break
            if read is not None:
                examples = examples or read.startswith("For example")
                self.out.append(" " * indent(run[start]) + read)
                start = stop
                continue
            line = run[start]
            if examples and indent(line) == OPTION_INDENT:  # an example's order
                line = " " * OPTION_INDENT + english_order(line, self.language)
            self.out.append(line)
            start += 1
        return end

    def _legal(self, index: int) -> int:
        """A refusal's orders legal now, each wrapped from four spaces on (six for the rest), in English."""
        self.out.append("Legal now:")
        index += 1
        while index < len(self.lines) and indent(self.lines[index]) == OPTION_INDENT:
            end = index + 1
            while end < len(self.lines) and indent(self.lines[end]) > OPTION_INDENT and self.lines[end].strip():
                end += 1
            order = " ".join(part.strip() for part in self.lines[index:end])
            self.out.append(" " * OPTION_INDENT + english_order(order, self.language))
            index = end
        return index

    def _options(self, index: int) -> int:
        """The options block: each order in English, its details and group as sentences."""
        self.out.append("Your options:")
        index += 1
        while index < len(self.lines) and self.lines[index].strip():
            line = self.lines[index]
            depth = indent(line)
            if depth == OPTION_INDENT and not line.rstrip().endswith(":"):
                order, detail = split_option(line)
                index += 1
                while index < len(self.lines) and indent(self.lines[index]) > OPTION_INDENT \
                        and self.lines[index].strip():
                    detail = f"{detail} {self.lines[index].strip()}".strip()
                    index += 1
                english = english_order(order, self.language)
                said = self._words(detail) if detail else ""
                if english.startswith("RONDEL ") and detail:  # the space's name, then one phrase an item
                    said = ", ".join(self.words.space_names.get(item) or self._words(item)
                                     for item in detail.split(", "))
                self.out.append(f"{' ' * OPTION_INDENT}{english}   {said}".rstrip())
                continue
            if depth == GROUP_INDENT and line.rstrip().endswith(":"):
                self.out.append(f"{' ' * GROUP_INDENT}{self._words(line.strip()[:-1])}:")
            else:
                self.out.append(" " * depth + self._words(line.strip()))
            index += 1
        return index

    def _words(self, text: str) -> str:
        """A phrase or a list of them (an option's details, a group's title, a note) in English."""
        return untranslate.english(english_names(text, self.language), self.language)

    def _table(self, index: int) -> int:
        """The NATIONS table: its head, each row with single spaces, each nation's details a line."""
        line = self.lines[index]
        row = self.words.nation_row.match(line)
        if row is not None:
            cells = row.groupdict()
            name = self.words.names.get(cells["name"], cells["name"])
            rondel = cells["rondel"]
            rondel = self.words.space_names.get(rondel, rondel)
            self.out.append(f"{cells['mark']} {name} {cells['gov']} {cells['treasury']} {cells['power']} "
                            f"(x{cells['mult']}) {rondel} {cells['fact']} {cells['army']} {cells['fleet']} "
                            f"{cells['flags']}")
            return index + 1
        previous = self.lines[index - 1] if index else ""
        if set(previous.strip()) == {"-"}:  # the table's head, under its heading
            self.out.append(_ENGLISH_TABLE_HEAD)
            return index + 1
        end = index + 1
        while end < len(self.lines) and indent(self.lines[end]) > indent(line) and self.lines[end].strip():
            end += 1
        text = " ".join(part.strip() for part in self.lines[index:end])
        nation, colon, details = english_names(text, self.language).partition(": ")
        if colon and nation in self.words.nations:
            parts = [_phrase(part, self.language) or part for part in details.rstrip(".").split("; ")]
            self.out.append(f"  {nation}: {'; '.join(parts)}.")
        else:
            self.out.extend(self.lines[index:end])
        return end

    def _players(self, index: int) -> int:
        """A player's lines: who (``3 cy (you)``) and what they hold, then their bonds, each a line."""
        line = self.lines[index]
        end = index + 1
        while end < len(self.lines) and indent(self.lines[end]) > indent(line) + 2 and self.lines[end].strip():
            end += 1
        text = english_names(" ".join(part.strip() for part in self.lines[index:end]), self.language)
        read = _phrase(text, self.language)  # the bonds
        if read is not None:
            self.out.append(" " * indent(line) + read)
            return end
        who, colon, what = text.partition(": ")
        if colon:
            parts = [_phrase(part, self.language) or part for part in what.split("; ")]
            self.out.append(f"{' ' * indent(line)}{_phrase(who, self.language) or who}: {'; '.join(parts)}")
        else:
            self.out.extend(self.lines[index:end])
        return end
