"""The order language: email text into engine actions and back (players' guide: docs/orders.md).

Layers, each in its own module: ``names`` (typed names to board ids),
``message`` (a mail body into order lines), ``keywords`` and ``parse`` (one
order into an action, against the state), ``format`` (an action into canonical
text), ``legal`` (what may be written now), ``apply`` (a message applied line
by line) and ``errors`` (one hierarchy of refusals).
"""
from pbem.games.imperial2030.orders.apply import (
    AppliedOrder,
    Exchange,
    MessageResult,
    QueryLine,
    apply_action,
    apply_exchange,
    apply_lines,
    apply_message,
    apply_order,
    held,
    in_own_maneuver,
)
from pbem.games.imperial2030.orders.errors import (
    AmbiguousName,
    BadName,
    IllegalOrder,
    NotYourTurn,
    OrderError,
    OrderSyntaxError,
    UnknownName,
    UnsupportedOrder,
)
from pbem.games.imperial2030.orders.format import format_action
from pbem.games.imperial2030.orders.legal import legal_orders
from pbem.games.imperial2030.orders.names import (
    normalise,
    resolve_nation,
    resolve_region,
    resolve_space,
    resolve_unit_kind,
)
from pbem.games.imperial2030.orders.parse import (
    Query,
    QueryKind,
    parse_line,
    parse_order,
)
from pbem.games.imperial2030.orders.split import (
    MessageLine,
    SplitMessage,
    split_message,
    split_orders,
)

__all__ = [
    "AmbiguousName", "AppliedOrder", "BadName", "Exchange", "IllegalOrder", "MessageLine", "MessageResult", "NotYourTurn",
    "OrderError", "OrderSyntaxError", "Query", "QueryKind", "QueryLine", "UnknownName", "UnsupportedOrder",
    "apply_action", "apply_exchange", "apply_lines", "apply_message", "apply_order", "format_action", "held",
    "in_own_maneuver", "legal_orders",
    "normalise",
    "parse_line", "parse_order", "resolve_nation", "resolve_region", "resolve_space", "resolve_unit_kind",
    "SplitMessage", "split_message", "split_orders",
]
