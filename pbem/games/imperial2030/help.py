"""HELP: the order language explained to players, with examples taken from the board.

``help_text(None)`` lists every order of the language (docs/orders.md), grouped as the
document groups them (the nation's turn, the maneuver, answers out of turn,
at any time), each with its meaning in one line and an example ready to copy.
``help_text("army")`` explains one order in full: its form, its meaning,
notes and two or three examples. A topic is read like the first word of an
order (any keyword, alias or unique prefix: ``HELP arm``, ``HELP invest``,
``HELP no fight``); a few other words lead to the order they belong to
(``HOSTILE`` and ``VIA`` to ARMY, ``FAR`` to RONDEL, a canal to ALLOW), and
``HELP maneuver``, ``HELP names`` and ``HELP messages`` explain a group or
the reading of a mail. An unknown topic is answered with the topics there are
and the closest ones ("did you mean").

This module decides which page a topic asks for; the words are in
``templates/imperial2030/help.j2`` (the pages) and ``_help_orders.j2`` (one
macro an order), marked for translation, and what they quote from the board
(examples that parse, the rules' numbers) comes from
``pbem.games.imperial2030.helpfacts``. The text is pure ASCII and no line is
wider than 78 columns.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
from enum import StrEnum

from engine.imperial2030.board import Board
from engine.imperial2030.mapfile import default_board
from pbem.games.imperial2030.helpfacts import Group, HelpFacts, OrderHelp, help_facts, orders_help
from pbem.games.imperial2030.orders.errors import OrderSyntaxError
from pbem.games.imperial2030.orders.format import canal_name, localize_order
from pbem.games.imperial2030.orders.keywords import SPECS, Keyword, read_keyword
from pbem.games.imperial2030.orders.lexicon import current
from pbem.games.imperial2030.orders.lexicon import name as local_name
from pbem.games.imperial2030.orders.names import normalise
from pbem.render.env import render
from pbem.render.text import clip

__all__ = ["Group", "HelpView", "OrderHelp", "Page", "Topic", "help_text", "help_view", "order_help", "resolve_topic",
           "topics"]

HELP_TEMPLATE = "imperial2030/help.j2"
ASKED_WIDTH = 40  # an unknown topic is quoted back at most this wide


class Page(StrEnum):
    """The pages of HELP besides one order's (``help.j2`` lays each out)."""

    ORDERS = "orders"  # every order, by group
    ORDER = "order"
    GROUP = "group"
    NAMES = "names"  # how names are read
    MESSAGES = "messages"  # how a mail is read
    UNKNOWN = "unknown"  # no such topic: the topics there are


# Topic words that are not keywords, and the order (or page) they lead to.
_GROUP_WORDS: dict[str, Group] = {
    "turn": Group.TURN, "nationsturn": Group.TURN, "yourturn": Group.TURN,
    "maneuver": Group.MANEUVER, "manoeuvre": Group.MANEUVER, "maneuvre": Group.MANEUVER,
    "manoeuver": Group.MANEUVER, "movement": Group.MANEUVER, "move": Group.MANEUVER,
    "answers": Group.ANSWERS, "answer": Group.ANSWERS, "outofturn": Group.ANSWERS,
    "anytime": Group.ANYTIME, "reports": Group.ANYTIME, "queries": Group.ANYTIME,
}
_WORD_TOPICS: dict[str, Keyword] = {
    "hostile": Keyword.ARMY, "friendly": Keyword.ARMY, "via": Keyword.ARMY, "convoy": Keyword.ARMY,
    "armies": Keyword.ARMY, "fleets": Keyword.FLEET, "far": Keyword.RONDEL, "near": Keyword.RONDEL,
    "space": Keyword.RONDEL, "spaces": Keyword.RONDEL, "factory": Keyword.BUILD, "production": Keyword.PRODUCE,
    "taxation": Keyword.RONDEL, "tax": Keyword.RONDEL, "investor": Keyword.BUY, "bond": Keyword.BUY,
    "bonds": Keyword.BUY, "swissbank": Keyword.FORCE, "canal": Keyword.ALLOW, "canals": Keyword.ALLOW,
    "battle": Keyword.FIGHT, "standingorders": Keyword.STANDING, "default": Keyword.STANDING,
}
_PAGE_WORDS: dict[str, Page] = {
    "messages": Page.MESSAGES, "message": Page.MESSAGES, "mail": Page.MESSAGES, "email": Page.MESSAGES,
    "orders": Page.MESSAGES, "signature": Page.MESSAGES, "comments": Page.MESSAGES,
    "names": Page.NAMES, "name": Page.NAMES, "abbreviations": Page.NAMES, "prefix": Page.NAMES,
    "aliases": Page.NAMES,
}


def order_help(keyword: Keyword, board: Board | None = None) -> OrderHelp:
    return orders_help(board or default_board())[keyword]


# --- topics ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Topic:
    """What a HELP topic names: an order, a group of orders, a page, or nothing (with suggestions)."""

    keyword: Keyword | None = None
    group: Group | None = None
    page: Page | None = None
    suggestions: tuple[str, ...] = ()


def topics() -> tuple[str, ...]:
    """The topics HELP knows, as players would write them."""
    return tuple(s.keyword.text for s in SPECS) + ("MANEUVER", "NAMES", "MESSAGES")


def resolve_topic(text: str, board: Board | None = None) -> Topic:
    """The topic ``text`` names; ``Topic()`` with suggestions when it names none."""
    board = board or default_board()
    key = normalise(text)
    if key in _GROUP_WORDS:
        return Topic(group=_GROUP_WORDS[key])
    if key in _PAGE_WORDS:
        return Topic(page=_PAGE_WORDS[key])
    if key in _WORD_TOPICS:
        return Topic(keyword=_WORD_TOPICS[key])
    if key in {normalise(c) for c in board.canals} or key in {normalise(canal_name(c)) for c in board.canals}:
        return Topic(keyword=Keyword.ALLOW)
    try:
        return Topic(keyword=read_keyword(text).spec.keyword)
    except OrderSyntaxError as exc:
        suggestions = list(exc.suggestions)
    keywords = {normalise(k.text): k.text for k in Keyword}
    pages = {"maneuver": "MANEUVER", "manoeuvre": "MANEUVER", "names": "NAMES", "messages": "MESSAGES"}
    for words, cutoff in ((keywords, 0.6), (pages, 0.75)):  # "armee" is ARMY, not NAMES
        for close in difflib.get_close_matches(key, list(words), n=3, cutoff=cutoff):
            if words[close] not in suggestions:
                suggestions.append(words[close])
    return Topic(suggestions=tuple(suggestions[:4]))


# --- the page -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class HelpView:
    """One HELP answer as ``help.j2`` lays it out: the page and the facts it quotes."""

    page: Page
    orders: tuple[OrderHelp, ...]  # the orders listed: all of them, or the group's
    groups: tuple[Group, ...]  # the groups in the order of the list
    facts: HelpFacts
    order: OrderHelp | None = None  # Page.ORDER: the one explained
    group: Group | None = None  # Page.GROUP: the one listed
    asked: str = ""  # Page.UNKNOWN: the topic as written, quoted and clipped
    suggestions: tuple[str, ...] = ()  # Page.UNKNOWN: the closest topics
    topics: tuple[str, ...] = ()  # Page.UNKNOWN: every topic
    board: Board | None = None  # whose names ``local`` writes

    def local(self, text: str) -> str:
        """An order's form, keyword or example in the words of the seat's language (issue 30): the template
        writes them in the order language, and English mail keeps them so."""
        return localize_order(self.board or default_board(), text)


def help_view(topic: str | None, board: Board | None = None) -> HelpView:
    """What ``HELP [topic]`` shows, before the template words it (apart, so that a test can word it in another
    catalogue and see that every sentence is marked for translation)."""
    board = board or default_board()
    orders = orders_help(board)
    every = tuple(orders.values())
    if current() is not None:  # the examples in the seat's words, each still an order it can copy
        every = tuple(replace(e, examples=tuple("\n".join(localize_order(board, line) for line in x.splitlines())
                                                for x in e.examples)) for e in every)
    base = HelpView(Page.ORDERS, every, tuple(Group), _local_facts(board, help_facts(board)), board=board)
    if topic is None or not normalise(topic):
        return base
    found = resolve_topic(topic, board)
    if found.keyword is not None:
        order = next(e for e in every if e.keyword is found.keyword)
        return HelpView(Page.ORDER, every, base.groups, base.facts, order=order, board=board)
    if found.group is not None:
        return HelpView(Page.GROUP, tuple(e for e in every if e.group is found.group), base.groups, base.facts,
                        group=found.group, board=board)
    if found.page is not None:
        return HelpView(found.page, every, base.groups, base.facts, board=board)
    return HelpView(Page.UNKNOWN, every, base.groups, base.facts, asked=repr(clip(topic.strip(), ASKED_WIDTH)),
                    suggestions=found.suggestions, topics=topics(), board=board)


def _local_facts(board: Board, facts: HelpFacts) -> HelpFacts:
    """HELP's facts with the names it quotes in the seat's language (issue 30); the same facts in English."""
    if current() is None:
        return facts
    home, spelt = local_name(facts.army_home), local_name(facts.spellings[0])
    return replace(facts, nation=local_name(facts.nation), army_home=home, prefix=home[:3].lower(),
                   spellings=(spelt, "".join(c for c in spelt.lower() if c.isalnum()), spelt.upper()),
                   alias=(facts.alias[0], local_name(facts.alias[1])) if facts.alias else None,
                   mail_import=localize_order(board, facts.mail_import))


def help_text(topic: str | None = None, board: Board | None = None) -> str:
    """The answer to ``HELP [topic]``: every order, or one order, group or page; never raises."""
    return render(HELP_TEMPLATE, help=help_view(topic, board))
