"""Who may write: the host's allow and deny lists (``[senders]``) and each game's (``pbem game set NAME allow=``).

An entry with an ``@`` is one address; any other entry is a domain, and
covers its subdomains too (``spam.example`` denies ``x@mx.spam.example``).
Deny wins over allow. An allow list that is not empty lets only its entries
write; a game's allow list also lets in the address of the seat or observer
whose token the mail carries (the game master seated them: a list of a club's
domain must not lock out a player with another address).

A refused mail changes nothing; its sender gets one answer, ever
(``pbem.moderator.inbound.handler``: the strangers' budget, and a budget of
one per denied address), so a stranger who keeps writing hears from us once.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Lists:
    """One allow list and one deny list, lowercased; ``where`` names them in the record ("host", "game g1")."""

    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    where: str = "host"

    def refusal(self, address: str, *, own: str | None = None) -> str | None:
        """Why ``address`` may not write here (for the record), or None. ``own`` is let in by the allow list."""
        address = address.strip().lower()
        denied = first_match(address, self.deny)
        if denied is not None:
            return f"{address} is on the {self.where}'s deny list ({denied})"
        if self.allow and first_match(address, self.allow) is None and address != (own or "").strip().lower():
            return f"{address} is not on the {self.where}'s allow list"
        return None


def first_match(address: str, entries: Iterable[str]) -> str | None:
    """The first entry that names ``address`` (the address itself, or its domain or a parent domain of it)."""
    domain = address.rpartition("@")[2]
    for entry in entries:
        entry = entry.strip().lower().lstrip("@")
        if not entry:
            continue
        if "@" in entry:
            if entry == address:
                return entry
        elif domain == entry or domain.endswith("." + entry):
            return entry
    return None


def parse_entries(text: str) -> tuple[str, ...]:
    """``pbem game set`` values: ``spam.example,x@y.org`` (commas or spaces), or ``none`` for an empty list.

    Raises ValueError naming an entry that is neither an address nor a domain."""
    if text.strip().lower() == "none":
        return ()
    entries = tuple(dict.fromkeys(e.strip().lower().lstrip("@") for e in text.replace(",", " ").split() if e.strip()))
    for entry in entries:
        local, at, domain = entry.rpartition("@")
        if "." not in domain or (at and not local) or any(ch in entry for ch in "<>()[];:\"'"):
            raise ValueError(f"{entry!r} is neither an address (x@y.org) nor a domain (spam.example)")
    return entries
