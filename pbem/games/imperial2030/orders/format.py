"""Actions back into canonical order text.

The canonical text is what the moderator shows in prompts, option lists and
reports, and what a player can copy into a reply: so it must parse back to the
very same action (``parse_order(state, player, format_action(board, a)) == a``).
Names are the board's display names (``New York``), except rondel spaces,
which are written by id: "production" alone would depend on where the marker
stands, and the text must not. Keywords are upper case (``FLEET Rome TO
Mediterranean Sea``, ``ARMY Paris TO Mumbai HOSTILE VIA Mediterranean Sea,
Indian Ocean``), unit kinds lower case as in ``IMPORT army Moscow``, canals by
name (``STANDING ALLOW Europe Suez``).

A seat whose language is not English reads the same orders in its own words
(``lexicon``: ``АРМИЯ Париж В Мумбай ВРАЖДЕБНАЯ``, a rondel space by the name
of its kind and its number, ``РОНДЕЛЬ Производство 2``), which its parser
reads back to the same action.
"""
from __future__ import annotations

import re

from engine.imperial2030.actions import (
    Action,
    ArmyMove,
    Attack,
    BuildFactory,
    BuyBond,
    ChooseSpace,
    ClearStanding,
    DestroyFactory,
    Donate,
    Done,
    Fight,
    FleetMove,
    ForceStop,
    Import,
    Pass,
    Passage,
    Produce,
    SetStanding,
    UpgradeBond,
)
from engine.imperial2030.board import Board
from engine.imperial2030.model import StandingKind, StandingOrder
from pbem.games.imperial2030.orders.keywords import Keyword, shown
from pbem.games.imperial2030.orders.lexicon import canal as local_canal
from pbem.games.imperial2030.orders.lexicon import current, word
from pbem.games.imperial2030.orders.lexicon import name as local_name
from pbem.games.imperial2030.orders.names import space_id_text

NOTHING = "nothing"  # "PRODUCE nothing": distinct from "PRODUCE", which means every factory
TO = "TO"
IN = "IN"
VIA = "VIA"
FACTORY = "FACTORY"
CLEAR = "CLEAR"

# The answer keyword each kind of standing order repeats: STANDING ALLOW ..., STANDING NO FIGHT ...
STANDING_KEYWORDS: dict[StandingKind, Keyword] = {
    StandingKind.ALLOW: Keyword.ALLOW,
    StandingKind.DENY: Keyword.DENY,
    StandingKind.FIGHT: Keyword.FIGHT,
    StandingKind.NO_FIGHT: Keyword.NO_FIGHT,
    StandingKind.FORCE: Keyword.FORCE,
    StandingKind.NO_FORCE: Keyword.NO_FORCE,
}


def canal_english(canal: str) -> str:
    """A canal as the order language writes it: ``suez`` -> ``Suez``."""
    return canal.replace("_", " ").title()


def canal_name(canal: str) -> str:
    """A canal as players write it, in the language being written: ``suez`` -> ``Suez`` (Russian ``Суэц``)."""
    return local_canal(canal_english(canal))


def _name(board: Board, id: str) -> str:
    """A nation or region as the seat reads it (``Moscow``, ``Москва``)."""
    return local_name(board.name(id))


def _upgrade_to() -> str:
    lex = current()
    return lex.upgrade_to if lex else TO


def standing_text(board: Board, order: StandingOrder) -> str:
    """The words after STANDING: ``ALLOW Europe Suez``, ``NO FIGHT``, ``FORCE Russia``."""
    text = shown(STANDING_KEYWORDS[order.kind])
    if order.nation is not None:
        text += f" {_name(board, order.nation)}"
    if order.canal is not None:
        text += f" {canal_name(order.canal)}"
    return text


# The words after a keyword that an order of HELP may hold, as the order language writes them.
_SMALL_WORDS = ("TO", "IN", "VIA", "HOSTILE", "FRIENDLY", "ATTACK", "FACTORY", "CLEAR", "far", "army", "fleet",
                "nothing")


def localize_order(board: Board, text: str) -> str:
    """An order, or an order's form, written in the order language (``IMPORT 2 army Moscow``, ``FIGHT
    [<nation>] [ARMY|FLEET]``) in the words of the language being written (``ИМПОРТ 2 армия Москва``): HELP's
    forms and examples, written once in English. The same text in an English mail."""
    lex = current()
    if lex is None:
        return text
    keyword = next((k for k in sorted(Keyword, key=lambda k: -len(k.text))
                    if text == k.text or text.startswith(k.text + " ")), None)
    head, rest = (shown(keyword), text[len(keyword.text):]) if keyword else ("", text)
    if keyword is Keyword.STANDING and rest.strip():  # its answer is an order of its own: STANDING ALLOW ...
        return f"{head} {localize_order(board, rest.strip())}"
    words = {n.name: local_name(n.name) for n in board.nations}
    words.update({r.name: local_name(r.name) for r in board.regions.values()})
    words.update({canal_english(c): canal_name(c) for c in board.canals})
    words.update({w: word(w) for w in _SMALL_WORDS})
    words.update({w.upper(): word(w).upper() for w in ("army", "fleet")})
    if keyword is Keyword.UPGRADE:
        words[TO] = _upgrade_to()
    if keyword is Keyword.ATTACK:
        words[IN] = word(IN)
    if keyword is Keyword.RONDEL:
        for sid in board.rondel_ids:
            space = board.rondel_by_id[sid]
            words[space.action.value] = lex.spaces.get(space.name, space.name).lower()  # "taxation"
            words.setdefault(sid, space_id_text(board, sid))  # "production_2"
    pattern = re.compile(r"(?<!\w)(" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + r")(?!\w)")
    return head + pattern.sub(lambda m: words[m.group()], rest)


def format_action(board: Board, action: Action) -> str:
    match action:
        case ChooseSpace(space):
            return f"{shown(Keyword.RONDEL)} {space_id_text(board, space)}"
        case ForceStop(force):
            return shown(Keyword.FORCE if force else Keyword.NO_FORCE)
        case BuildFactory(city):
            return f"{shown(Keyword.BUILD)} {_name(board, city)}"
        case Produce(None):
            return shown(Keyword.PRODUCE)
        case Produce(provinces):
            listed = ", ".join(_name(board, p) for p in provinces or ()) or word(NOTHING)
            return f"{shown(Keyword.PRODUCE)} {listed}"
        case Import(units):
            if not units:
                return shown(Keyword.IMPORT)
            return f"{shown(Keyword.IMPORT)} " + ", ".join(f"{word(u.kind.value)} {_name(board, u.region)}" for u in units)
        case BuyBond(nation, value):
            return f"{shown(Keyword.BUY)} {_name(board, nation)} {value}"
        case UpgradeBond(nation, old, new):
            return f"{shown(Keyword.UPGRADE)} {_name(board, nation)} {old} {_upgrade_to()} {new}"
        case Pass():
            return shown(Keyword.PASS)
        case Donate(nation, amount):
            return f"{shown(Keyword.DONATE)} {amount} {word(TO)} {_name(board, nation)}"
        case FleetMove(origin, dest, attack):
            text = f"{shown(Keyword.FLEET)} {_name(board, origin)} {word(TO)} {_name(board, dest)}"
            return text + (f" {shown(Keyword.ATTACK)} {_name(board, attack)}" if attack else "")
        case ArmyMove(origin, dest, stance, attack, attack_kind, via):
            text = f"{shown(Keyword.ARMY)} {_name(board, origin)} {word(TO)} {_name(board, dest)}"
            if stance is not None:
                text += f" {word(stance.value.upper())}"
            if attack is not None:
                text += f" {shown(Keyword.ATTACK)} {_name(board, attack)}"
                text += f" {word(attack_kind.value)}" if attack_kind is not None else ""
            if via:
                text += f" {word(VIA)} " + ", ".join(_name(board, sea) for sea in via)
            return text
        case Attack(region, nation, kind):
            unit = f" {word(kind.value)}" if kind is not None else ""
            return f"{shown(Keyword.ATTACK)} {_name(board, nation)}{unit} {word(IN)} {_name(board, region)}"
        case DestroyFactory(province):
            return f"{shown(Keyword.DESTROY)} {word(FACTORY)} {_name(board, province)}"
        case Done():
            return shown(Keyword.DONE)
        case Fight(False, _, _):
            return shown(Keyword.NO_FIGHT)
        case Fight(True, nation, kind):
            return " ".join([shown(Keyword.FIGHT)] + ([_name(board, nation)] if nation else [])
                            + ([word(kind.value)] if kind else []))
        case Passage(allow):
            return shown(Keyword.ALLOW if allow else Keyword.DENY)
        case SetStanding(order):
            return f"{shown(Keyword.STANDING)} {standing_text(board, order)}"
        case ClearStanding():
            return f"{shown(Keyword.STANDING)} {word(CLEAR)}"
    raise TypeError(f"not an action: {action!r}")
