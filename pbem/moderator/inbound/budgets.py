"""How many replies the inbound handler may write, and to whom: the budgets of a seat, a forged seat and a stranger.

A mixin of the inbound handler (``pbem.moderator.inbound.handler._Handler``),
shared by its other mixins (``SeatReplies``, ``Gates``), which answer within
these budgets; the handler supplies what is declared here. Why budgets at
all, and who is charged what: the handler's module docstring.
"""
from __future__ import annotations

from sqlmodel import Session

from pbem.config import Config
from pbem.moderator.notify.compose import MailComposer
from pbem.store import SeatRow
from pbem.store.inbound import Budget
from pbem.store.tokens import has_played

SPOOF_NOTICES_PER_DAY = 1  # warnings to a seat that mail from another address carried its token
STRANGER_REPLIES_PER_DAY = 3  # replies to one address for mail without a seat's token (an unknown responder)


class ReplyBudgets:
    """The reply budgets; a reply over its budget is left unwritten and noted."""

    session: Session
    config: Config
    compose: MailComposer
    notes: list[str]

    def _allowed(self, budgets: tuple[Budget, ...], purpose: str) -> bool:
        if self.compose.may_reply(budgets, purpose):
            return True
        self.notes.append(f"reply to {budgets[0].key.partition(':')[2]} suppressed (rate limit)")
        return False

    def _seat_budget(self, seat: SeatRow) -> tuple[Budget, ...]:
        """A reply to mail that carried this seat's token, from its address: the seat's own budget."""
        limits = self.config.limits
        return (Budget(f"seat:{seat.email}", limits.replies_per_sender_per_hour, limits.replies_per_sender_per_day),)

    def _spoof_budget(self, seat: SeatRow) -> tuple[Budget, ...]:
        """A warning to the seat about mail from another address: one a day, so a forger cannot flood it."""
        return (Budget(f"spoofed:{seat.email}", per_day=SPOOF_NOTICES_PER_DAY),)

    def _stranger_budget(self, address: str) -> tuple[Budget, ...]:
        """A reply to mail without a seat's token: never the seat's budget (see the module docstring)."""
        limits = self.config.limits
        budgets = [Budget(f"stranger:{address}", per_day=STRANGER_REPLIES_PER_DAY),
                   Budget(f"domain:{address.rpartition('@')[2]}", per_hour=limits.replies_per_domain_per_hour),
                   Budget("strangers", per_hour=limits.replies_to_strangers_per_hour)]
        if not has_played(self.session, address):
            budgets.append(Budget(f"once:{address}", ever=1))
        return tuple(budgets)
