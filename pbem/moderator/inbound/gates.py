"""The handler's gates before a mail is read: bounces (``pbem.moderator.inbound.bounces``) and who may write
(``pbem.moderator.senders``).

A mixin of the inbound handler (``pbem.moderator.inbound.handler._Handler``),
which provides the session, the composer, the message and the reply budgets.
Order in the handler: an automatic mail (a bounce among them) is never
answered and is looked at first; then the host's lists (before anything of
the mail is read, so a denied sender's mail changes nothing, even a large
one); then, once the token names a game, the game's lists.
"""
from __future__ import annotations

from sqlmodel import Session

from pbem.config import Config, ModeratorSettings
from pbem.mail import InboundMessage
from pbem.moderator.inbound.bounces import judge_bounce
from pbem.moderator.inbound.budgets import ReplyBudgets
from pbem.moderator.inbound.outcome import Outcome
from pbem.moderator.inbound.words import said
from pbem.moderator.notify.compose import MailComposer
from pbem.moderator.notify.subjects import MailSubject, mail_subject, reply_subject
from pbem.moderator.senders import Lists
from pbem.store import GameRow, SeatRow
from pbem.store.inbound import Budget, InboundOutcome

DENIED = "denied"  # the outbox purpose of the answer to a refused sender, and its reason in core/refusal.j2
DENIALS_EVER = 1  # answers to one refused address, ever: a stranger who keeps writing hears from us once


class Gates(ReplyBudgets):
    """Bounces and the allow and deny lists; the handler supplies what is declared here."""

    session: Session
    config: Config
    identity: ModeratorSettings
    compose: MailComposer
    message: InboundMessage
    tag: str
    game: GameRow | None
    seat: SeatRow | None

    def outcome(self, outcome: str, reason: str, *, version_before: int | None = None,
                version: int | None = None) -> Outcome:
        raise NotImplementedError

    def automatic(self) -> Outcome:
        """Mail never answered; a bounce of ours is counted against the seat it came back from."""
        message = self.message
        reason = message.automatic_reason or "automatic mail"
        if message.bounce is None:
            return self.outcome(InboundOutcome.AUTOMATIC, reason)
        verdict = judge_bounce(self.session, self.compose, self.identity, message, message.bounce,
                               self.config.limits.bounces_to_unreachable, self.tag)
        self.game, self.seat = verdict.game, verdict.seat
        if verdict.seat is None:
            return self.outcome(InboundOutcome.AUTOMATIC, f"{reason}; {verdict.reason}")
        return self.outcome(InboundOutcome.BOUNCE, verdict.reason)

    def host_refusal(self) -> str | None:
        """Why the host's ``[senders]`` lists refuse the sender (None: they let it write, or name nobody)."""
        senders = self.config.senders
        sender = self.message.sender
        if not sender or not (senders.allow or senders.deny):
            return None
        return Lists(senders.allow, senders.deny).refusal(sender)

    def game_refusal(self, game: GameRow, allow: tuple[str, ...], deny: tuple[str, ...], own: str) -> str | None:
        """Why the game's lists refuse the sender; ``own`` (the seat's or observer's address) passes ``allow``."""
        sender = self.message.sender
        if not sender or not (allow or deny):
            return None
        return Lists(allow, deny, where=f"game {game.name}").refusal(sender, own=own)

    def denied(self, reason: str) -> Outcome:
        """A sender the lists refuse: nothing is read or changed; one answer, ever, within the strangers' budget."""
        message = self.message
        sender = message.sender if message.sender_problem is None else None
        if sender and self._allowed((*self._stranger_budget(sender), Budget(f"{DENIED}:{sender}", ever=DENIALS_EVER)),
                                    DENIED):
            self.compose.to_address(sender, purpose=DENIED, key=f"{DENIED}:{self.tag}",
                                    subject=reply_subject(message.subject, mail_subject(MailSubject.TO_MODERATOR)),
                                    body=said("refusal", reason=DENIED, subject=message.subject,
                                              address=self.identity.address),
                                    reply_to_message=message)
        return self.outcome(InboundOutcome.DENIED, reason)
