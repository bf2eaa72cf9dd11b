"""Cutting the body of an email into Imperial 2030's order lines (the shared reading in ``pbem.games.messagetext``)."""
from __future__ import annotations

from pbem.games import messagetext
from pbem.games.imperial2030.orders.errors import OrderSyntaxError
from pbem.games.imperial2030.orders.keywords import read_keyword
from pbem.games.messagetext import SplitMessage, clean_line, clean_order
from pbem.games.results import MessageLine

__all__ = ["MessageLine", "SplitMessage", "clean_line", "clean_order", "split_message", "split_orders"]


def split_orders(text: str) -> SplitMessage:
    """The orders of a message and the courtesy lines set aside (``messagetext.split_orders``)."""
    return messagetext.split_orders(text, _looks_like_order)


def split_message(text: str) -> list[MessageLine]:
    """The orders of a message, in order (``split_orders`` without the lines it set aside)."""
    return list(split_orders(text).orders)


def _looks_like_order(text: str) -> bool:
    """Whether ``text`` starts like an order: a keyword, its prefix, or a misspelling close to one."""
    try:
        read_keyword(text)
    except OrderSyntaxError as exc:
        return bool(exc.suggestions)
    return True
