"""Reading the moderator's mails as a player would: the prompt's options, an error's "Legal now", a report's table.

Everything here is text in, data out: no mail, no engine state. A bot sees
what a human sees (``pbem.render`` templates):

* a prompt (``templates/prompt.j2``): one block per decision, each with a
  title, a few lines about it, ``Your options:`` with one option per line (the
  order, then after a gap of two or more spaces its details; an army move
  into a foreign home province reads ``ARMY A TO B HOSTILE   or FRIENDLY``),
  optional group titles (``  Fleets:``), an optional note on combining
  (``  Combine up to 3 units ...``), examples and the default;
* an error reply (``templates/error.j2``): ``REFUSED`` with the line, then
  ``Legal now:`` (orders, no details) and whether the game waits for the reader;
* a report (``templates/report.j2``): the banner (game, round, move), the
  ``NATIONS`` table with each nation's details line (factories, flags), the
  players' lines (who governs what, the investor card) and the reader's cash.

A mail in another language (``pbem.languages.spoken``: the bot reads under
its seat's language) is read as its English twin (``bot.english``): the
same facts, so a seed plays the same game in every language.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from pbem.games.imperial2030.bot.english import english_twin
from pbem.games.imperial2030.bot.lines import indent, is_heading
from pbem.games.optionsblock import OptionsBlock, blocks
from pbem.languages import SOURCE, speaking, spoken

_BANNER_RE = re.compile(r'^ IMPERIAL 2030 - game "(?P<game>[^"]*)" - (?P<rest>.*)$')
_ROUND_RE = re.compile(r"^ Round (?P<round>\d+), after move (?P<version>\d+)")
_MONEY_RE = re.compile(r"You have (?P<cash>\d+) in cash")
_TREASURY_RE = re.compile(r"the treasury of (?P<nation>[A-Za-z ]+?) holds (?P<amount>\d+)")
_LIMIT_RE = re.compile(r"up to (?P<limit>\d+)")
_NATION_ROW_RE = re.compile(
    r"^[> ] (?P<name>\S+)\s+(?P<gov>\S+)\s+(?P<treasury>\d+)\s+(?P<power>\d+) \(x(?P<mult>\d+)\)\s+(?P<rondel>\S+)"
    r"\s+(?P<fact>\d+)\s+(?P<army>\d+)\s+(?P<fleet>\d+)\s+(?P<flags>\d+)\s*$")
_CASH_RE = re.compile(r"^\s*Your cash: (?P<cash>\d+)\.")

T = TypeVar("T")

KINDS = ("setup_bond", "rondel", "force_stop", "factory", "production", "import", "investment", "maneuver",
         "canal", "battle")


@dataclass(frozen=True)
class Option:
    """One line of ``Your options:``: the order to copy, its details, the group it stands in.

    ``alternatives`` holds the other orders the same line offers: for
    ``ARMY A TO B HOSTILE   or FRIENDLY`` it is ``("ARMY A TO B FRIENDLY",)``.
    """

    order: str
    detail: str = ""
    group: str = ""
    alternatives: tuple[str, ...] = ()

    @property
    def orders(self) -> tuple[str, ...]:
        """Every order this line offers: the written one first, then its alternatives."""
        return (self.order, *self.alternatives)

    @property
    def keyword(self) -> str:
        return self.order.split()[0].upper() if self.order.split() else ""


@dataclass(frozen=True)
class PromptDecision:
    """One decision block of a prompt."""

    title: str
    about: str
    options: tuple[Option, ...]
    combine: str = ""
    examples: tuple[tuple[str, ...], ...] = ()
    default: str | None = None

    @property
    def kind(self) -> str:
        """The kind of decision (``rondel``, ``maneuver`` … as in ``X-PBEM-Decision``), told by its orders."""
        return kind_of(self.title, tuple(o.keyword for o in self.options))

    @property
    def limit(self) -> int:
        """How many single options one order may combine (imports, production); 1 when the prompt says nothing."""
        match = _LIMIT_RE.search(self.combine)
        if match:
            return int(match.group("limit"))
        return len(self.options) if self.combine else 1

    def all_orders(self) -> tuple[str, ...]:
        return tuple(order for option in self.options for order in option.orders)


@dataclass(frozen=True)
class Prompt:
    """A prompt mail: banner facts, money line and the decisions asked of the reader."""

    game: str | None
    reader: str | None
    round: int | None
    version: int | None
    decisions: tuple[PromptDecision, ...]
    cash: int | None = None
    treasuries: dict[str, int] = field(default_factory=dict)

    @property
    def decision(self) -> PromptDecision | None:
        return self.decisions[0] if self.decisions else None


@dataclass(frozen=True)
class Refusal:
    """An error reply: the refused line, what is legal now, and whether the game still waits for the reader."""

    game: str | None
    reader: str | None
    refused: str | None
    legal: tuple[str, ...]
    not_applied: tuple[str, ...]
    waits_for_reader: bool


@dataclass(frozen=True)
class NationRow:
    name: str
    government: str
    treasury: int
    power: int
    multiplier: int
    rondel: str
    factories: int
    armies: int
    fleets: int
    flags: int
    flag_regions: tuple[str, ...] = ()
    factory_regions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Report:
    """What a report says that a bot may weigh: the nations, who governs what, the reader's cash."""

    game: str | None
    reader: str | None
    round: int | None
    version: int | None
    nations: dict[str, NationRow]
    governs: tuple[str, ...] = ()
    investor_card: bool = False
    cash: int | None = None
    finished: bool = False


# --- the mails, in the language being read ------------------------------------------------------


def parse_prompt(text: str) -> Prompt:
    """Every decision block of ``text`` (a prompt mail's body, or a report that carries the prompt).

    A text without options gives a prompt with no decisions.
    """
    return _in_english(_parse_prompt, text)


def parse_refusal(text: str) -> Refusal:
    """The refused line, what is legal now and whether the game still waits for the reader."""
    return _in_english(_parse_refusal, text)


def parse_report(text: str) -> Report | None:
    """The NATIONS table and the reader's own facts; None when ``text`` holds no such table."""
    return _in_english(_parse_report, text)


def _in_english(reader: Callable[[str], T], text: str) -> T:
    """``reader`` of an English mail, given ``text`` in the language being read as its English twin."""
    language = spoken()
    if language is SOURCE:
        return reader(text)
    twin = english_twin(text, language)
    with speaking(SOURCE):
        return reader(twin)


# --- helpers -----------------------------------------------------------------------------------


def kind_of(title: str, keywords: tuple[str, ...]) -> str:
    """The decision kind from the option keywords (and the title where keywords are shared)."""
    words = set(keywords)
    upper = title.upper()
    if "RONDEL" in words:
        return "rondel"
    if "BUILD" in words:
        return "factory"
    if "PRODUCE" in words:
        return "production"
    if "IMPORT" in words:
        return "import"
    if words & {"FLEET", "ARMY", "DONE", "DESTROY"}:
        return "maneuver"
    if "FIGHT" in words:
        return "battle"
    if words & {"ALLOW", "DENY"}:
        return "canal"
    if "FORCE" in words:
        return "force_stop"
    if words & {"BUY", "UPGRADE", "PASS"}:
        return "setup_bond" if "EXPERT SETUP" in upper else "investment"
    if "FACTORY" in upper:
        return "factory"
    return "unknown"


def _banner(lines: list[str]) -> tuple[str | None, str | None, int | None, int | None]:
    """The first banner of the mail and the round line under it (a note or news may stand above it)."""
    game = reader = None
    round_ = version = None
    first = next((i for i, line in enumerate(lines) if _BANNER_RE.match(line)), 0)
    for line in lines[first:first + 8]:
        match = _BANNER_RE.match(line)
        if match:
            game = match.group("game")
            rest = match.group("rest")
            for marker in (", your decision", ", an order was refused", ", a reminder"):
                if rest.endswith(marker):
                    reader = rest[: -len(marker)]
            if rest.startswith("report for "):
                reader = rest[len("report for "):]
            elif rest.startswith("welcome, "):
                reader = rest[len("welcome, "):]
        match = _ROUND_RE.match(line)
        if match:
            round_, version = int(match.group("round")), int(match.group("version"))
    return game, reader, round_, version




# --- prompts ---------------------------------------------------------------------------------


def _parse_prompt(text: str) -> Prompt:
    """Every decision block of ``text`` (a prompt mail's body, or a report that carries the prompt).

    A text without ``Your options:`` gives a prompt with no decisions.
    """
    lines = text.replace("\r\n", "\n").split("\n")
    game, reader, round_, version = _banner(lines)
    decisions = [_decision_of(lines, block) for block in blocks(text)]
    cash = None
    treasuries: dict[str, int] = {}
    joined = " ".join(" ".join(lines).split())
    match = _MONEY_RE.search(joined)
    if match:
        cash = int(match.group("cash"))
    for match in _TREASURY_RE.finditer(joined):
        treasuries[match.group("nation").strip()] = int(match.group("amount"))
    return Prompt(game, reader, round_, version, tuple(decisions), cash, treasuries)


def _decision_of(lines: list[str], block: OptionsBlock) -> PromptDecision:
    """The decision whose options ``block`` holds (read by the one reader of options, ``pbem.games.optionsblock``):
    its title and text above, its note on combining, its examples and default below."""
    title, about = _title_before(lines, block.start)
    options = [_with_alternatives(Option(o.order, o.detail, o.group)) for o in block.options]
    examples, default, _ = _examples_after(lines, block.end)
    return PromptDecision(title, about, tuple(options), " ".join(block.notes), examples, default)


def _with_alternatives(option: Option) -> Option:
    """``ARMY A TO B HOSTILE`` with details ``or FRIENDLY; by sea …`` also offers ``ARMY A TO B FRIENDLY``."""
    words = option.order.split()
    alternatives: list[str] = []
    if words and words[-1].upper() in ("HOSTILE", "FRIENDLY"):
        for part in option.detail.split(";"):
            part = part.strip()
            if part.lower().startswith("or "):
                other = part[3:].strip().upper()
                if other in ("HOSTILE", "FRIENDLY"):
                    alternatives.append(" ".join(words[:-1] + [other]))
    return Option(option.order, option.detail, option.group, tuple(alternatives))


def _title_before(lines: list[str], start: int) -> tuple[str, str]:
    """The heading and the text between it and ``Your options:``."""
    index = start - 1
    while index >= 0 and not is_heading(lines, index):
        index -= 1
    if index < 0:
        return "", ""
    about = " ".join(line.strip() for line in lines[index + 2:start] if line.strip())
    return lines[index].strip(), about


def _examples_after(lines: list[str], index: int) -> tuple[tuple[tuple[str, ...], ...], str | None, int]:
    """The examples (each a tuple of lines) and the default that follow an options block."""
    examples: list[tuple[str, ...]] = []
    default = None
    while index < len(lines) and not lines[index].strip():
        index += 1
    if index < len(lines) and lines[index].startswith("For example"):
        index += 1
        current: list[str] = []
        while index < len(lines) and lines[index].strip():
            line = lines[index]
            if line.strip() == "or" and indent(line) == 2:
                if current:
                    examples.append(tuple(current))
                current = []
            else:
                current.append(line.strip())
            index += 1
        if current:
            examples.append(tuple(current))
    while index < len(lines) and not lines[index].strip():
        index += 1
    if index < len(lines) and lines[index].startswith("Without an answer"):
        sentence = []
        while index < len(lines) and lines[index].strip():
            sentence.append(lines[index].strip())
            index += 1
        text = " ".join(sentence)
        _, _, value = text.partition("the game takes: ")
        default = value.rstrip(".").strip() or None
    return tuple(examples), default, index


# --- error replies -----------------------------------------------------------------------------


def _parse_refusal(text: str) -> Refusal:
    """The refused line, ``Legal now:`` (orders only; templates like ``DONATE <1 to 8>`` dropped) and the rest."""
    lines = text.replace("\r\n", "\n").split("\n")
    game, reader, _, _ = _banner(lines)
    refused = None
    legal: list[str] = []
    not_applied: list[str] = []
    waits = True
    section = ""
    for index, line in enumerate(lines):
        stripped = line.strip()
        if is_heading(lines, index):
            section = stripped
            continue
        if stripped == "Legal now:":
            section = "LEGAL"
            continue
        if stripped.startswith("The game does not wait for you now"):
            waits = False
            section = "WAITING"
            continue
        if not stripped or set(stripped) == {"-"} or set(stripped) == {"="}:
            if section == "LEGAL":
                section = ""
            continue
        if section == "REFUSED" and refused is None and stripped.startswith("line ") and ": " in stripped:
            refused = stripped.split(": ", 1)[1]
        elif section == "LEGAL":
            if indent(line) == 4:
                legal.append(stripped)
            elif legal:  # a wrapped long order
                legal[-1] += " " + stripped
        elif section.startswith("NOT APPLIED") and stripped.startswith("line ") and ": " in stripped:
            not_applied.append(stripped.split(": ", 1)[1])
    legal = [order for order in legal if "<" not in order]
    return Refusal(game, reader, refused, tuple(legal), tuple(not_applied), waits)


# --- reports -----------------------------------------------------------------------------------


def _parse_report(text: str) -> Report | None:
    """The NATIONS table and the reader's own facts; None when ``text`` holds no such table."""
    lines = text.replace("\r\n", "\n").split("\n")
    game, reader, round_, version = _banner(lines)
    nations: dict[str, NationRow] = {}
    details: dict[str, str] = {}
    in_table = False
    last_detail: str | None = None
    governs: tuple[str, ...] = ()
    investor = False
    cash = None
    finished = any("the game is over" in line for line in lines[:8])
    for index, line in enumerate(lines):
        if line.startswith("  Nation  Govt"):
            in_table = True
            continue
        if in_table:
            match = _NATION_ROW_RE.match(line)
            if match:
                g = match.groupdict()
                nations[g["name"]] = NationRow(g["name"], g["gov"], int(g["treasury"]), int(g["power"]),
                                               int(g["mult"]), g["rondel"], int(g["fact"]), int(g["army"]),
                                               int(g["fleet"]), int(g["flags"]))
                continue
            if not line.strip():
                in_table = False
                last_detail = None
                continue
            head = line[2:].split(":", 1)[0] if indent(line) == 2 else None
            if head in nations:
                last_detail = head
                details[head] = line.split(":", 1)[1].strip()
            elif last_detail is not None and indent(line) >= 4:
                details[last_detail] += " " + line.strip()
            else:
                last_detail = None
            continue
        stripped = line.strip()
        if reader and stripped.startswith(f"{reader} (you)") or re.match(r"^\d+ \S+ \(you\):", stripped):
            text_after = stripped.split(":", 1)[1] if ":" in stripped else ""
            following = index + 1
            while following < len(lines) and indent(lines[following]) >= 6 \
                    and not lines[following].strip().startswith("bonds "):
                text_after += " " + lines[following].strip()
                following += 1
            for part in text_after.split(";"):
                part = part.strip()
                if part.startswith("governs "):
                    governs = tuple(n.strip() for n in re.split(r",| and ", part[len("governs "):]) if n.strip())
                if "investor card" in part:
                    investor = True
        match = _CASH_RE.match(line)
        if match:
            cash = int(match.group("cash"))
    if not nations:
        return None
    for name, text_ in details.items():
        row = nations[name]
        flags = _listed(text_, "flags")
        factories = tuple(re.sub(r"\s*\[[AS]\]", "", f) for f in _listed(text_, "factories"))
        nations[name] = NationRow(**{**row.__dict__, "flag_regions": flags, "factory_regions": factories})
    return Report(game, reader, round_, version, nations, governs, investor, cash, finished)


def _listed(text: str, word: str) -> tuple[str, ...]:
    """The names after ``word`` in ``factories Moscow [A] and Vladivostok [S]; flags Guinea, Kazakhstan``."""
    for part in text.rstrip(".").split(";"):
        part = part.strip()
        if part.startswith(word + " "):
            body = part[len(word) + 1:]
            return tuple(n.strip() for n in re.split(r",\s*|\s+and\s+", body) if n.strip())
    return ()
