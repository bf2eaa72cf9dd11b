"""The replies to a seat's mail beside its orders: stale orders, history, questions, preferences, refusals.

A mixin of the inbound handler (``pbem.moderator.inbound.handler._Handler``), which
provides the session, the composer, the message and the reply budgets; kept
apart because the handler's own job is the decision of what a mail is, and
these are the replies sent back once that is decided (their words: ``templates/core``).
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import Session

from pbem.games import kind_of
from pbem.games.results import Query
from pbem.mail import InboundMessage
from pbem.moderator.apply import SubmitResult
from pbem.moderator.inbound.binding import Binding
from pbem.moderator.inbound.budgets import ReplyBudgets
from pbem.moderator.inbound.corehelp import HelpContext, answer_help
from pbem.moderator.inbound.history import HISTORY_INLINE_LINES, history_text
from pbem.moderator.inbound.outcome import Outcome
from pbem.moderator.inbound.preferences import Refusal
from pbem.moderator.inbound.words import note
from pbem.moderator.notify.compose import MailComposer
from pbem.moderator.notify.subjects import (
    MailSubject,
    decision_kind,
    game_subject,
    mail_subject,
    move_subject,
    reply_subject,
)
from pbem.store import GameRow, SeatRow, load_log
from pbem.store.inbound import InboundOutcome
from pbem.store.mailprefs import prefs_of
from pbem.store.models import id_of


class SeatReplies(ReplyBudgets):
    """Replies to the seat that wrote; the handler supplies what is declared here."""

    session: Session
    compose: MailComposer
    message: InboundMessage
    tag: str
    now: datetime

    def outcome(self, outcome: str, reason: str, *, version_before: int | None = None,
                version: int | None = None) -> Outcome:
        raise NotImplementedError

    def stale(self, game: GameRow, seat: SeatRow, token: str, now: Any, binding: Binding, body: str,
              parts: list[str] | None = None) -> Outcome:
        """Orders written for a position that is gone: nothing applied, the player told what is asked now.

        The question comes first (issue 29: its options within the first 15 lines), then the press confirmed
        (``parts``), then why the orders were not applied.

        ``body`` is the message without the core's own lines (press, mail preferences): only orders are quoted
        back as not applied (the press was relayed, bound to no move).
        """
        assert binding.move is not None
        kind = kind_of(game.kind)
        lines = kind.order_lines(body)
        shown = kind.shown_move(now)
        prompt = kind.prompt(now, seat.name, game=game.name)
        waiting = sorted({d.player for d in kind.pending(now)}) if prompt is None else []
        if self._allowed(self._seat_budget(seat), "stale"):
            self.compose.to_seat(game, seat, purpose="stale", key=f"stale:{self.tag}", version=shown,
                                 subject=move_subject(game.name, shown, mail_subject(MailSubject.NOT_APPLIED)),
                                 body="\n".join(part for part in [
                                     prompt, *(parts or []),
                                     note("stale_orders", move=binding.move, shown=shown, taken_back=binding.move > shown,
                                          lines=lines, prompted=prompt is not None, waiting=waiting)] if part),
                                 known_token=token, reply_to_message=self.message,
                                 decision=decision_kind(kind, now, seat.name), auto_submitted="auto-replied")
        return self.outcome(InboundOutcome.STALE, f"answered move {binding.move}, the game is at move "
                            f"{now.version}: nothing applied", version_before=now.version, version=now.version)


    def history(self, game: GameRow, seat: SeatRow, state: Any, since: int) -> str:
        """HISTORY ALL / FROM: in the reply itself, or attached to it as a text file when it is long."""
        text = history_text(self.session, game, seat.name, state, since)
        lines = text.count("\n")
        if lines <= HISTORY_INLINE_LINES:
            return text
        name = f"{game.name}-history-from-{since}.txt" if since else f"{game.name}-history.txt"
        self.compose.attachments[id_of(seat)] = (name, text)
        return note("history_attached", lines=lines, name=name)


    def applied_late(self, binding: Binding, at: int) -> str:
        """Orders of an earlier move applied to the same, still open, decision: the player is told where."""
        return note("orders_applied_late", move=binding.move, at=at)


    def answers(self, game: GameRow, seat: SeatRow, result: SubmitResult) -> str:
        """The answers to the message's report requests (STATUS, BOARD, OPTIONS, HISTORY, HELP), together.

        Answered by the game kind (``GameKind.answer_query``) against the state the orders left; HELP with the
        moderator's own commands too (``pbem.moderator.inbound.corehelp``).
        """
        settings = self.compose.settings(game)
        kind = kind_of(game.kind)
        log_entries = load_log(self.session, game) if any(q.kind == "history" for q in result.queries) else None

        def answer(query: Query) -> str:
            def by_game() -> str:
                return kind.answer_query(result.state, seat.name, query, log=log_entries, game=game.name,
                                         open_cash=settings.open_cash)

            if query.kind != "help":
                return by_game()
            board = prefs_of(self.session, seat, settings.mail_default, settings.board_default).board
            return answer_help(query.topic, by_game, HelpContext(board, settings))

        return "\n".join(answer(query) for query in result.queries)


    def reply(self, game: GameRow, seat: SeatRow, result: SubmitResult, parts: list[str]) -> None:
        """The one reply to a message that changed nothing (a refusal, questions, preferences)."""
        kind = kind_of(game.kind)
        purpose = "error" if result.refusal is not None else "query" if result.queries else "preferences"
        fallback = {"error": MailSubject.YOUR_ORDERS, "query": MailSubject.YOUR_QUESTIONS,
                    "preferences": MailSubject.YOUR_MAIL}[purpose]
        self.compose.to_seat(game, seat, purpose=purpose, key=f"{purpose}:{self.tag}",
                             version=kind.shown_move(result.state),
                             subject=reply_subject(self.message.subject, game_subject(game.name, fallback)),
                             body="\n".join(parts), reply_to_message=self.message,
                             decision=decision_kind(kind, result.state, seat.name) if purpose == "error" else None,
                             auto_submitted="auto-replied")


    def preferences_only(self, game: GameRow, seat: SeatRow, state: Any, parts: list[str],
                         what: str = "mail preferences", *, ask_again: bool = False) -> Outcome:
        """The reply to a mail of preferences (and press) alone; ``ask_again`` (a new language): the seat's open
        question first, in the words it now reads, its options ready to copy."""
        kind = kind_of(game.kind)
        if self._allowed(self._seat_budget(seat), "preferences"):
            asked = self.compose.prompt_parts(game, state, seat) if ask_again else None
            question, decision = (asked[1], asked[2]) if asked is not None else ("", None)
            self.compose.to_seat(game, seat, purpose="preferences", key=f"preferences:{self.tag}",
                                 version=kind.shown_move(state),
                                 subject=reply_subject(self.message.subject, game_subject(game.name, MailSubject.YOUR_MAIL)),
                                 body="\n".join(part for part in (question, *parts) if part), decision=decision,
                                 reply_to_message=self.message, auto_submitted="auto-replied")
        return self.outcome(InboundOutcome.QUERY, what, version_before=state.version,
                            version=state.version)


    def preference_refused(self, game: GameRow, seat: SeatRow, token: str, state: Any, refusal: Refusal) -> Outcome:
        kind = kind_of(game.kind)
        self.compose.token_for(seat, token)
        if self._allowed(self._seat_budget(seat), "error"):
            body = note("preference_refused", refusal=refusal)
            self.compose.to_seat(game, seat, purpose="error", key=f"error:{self.tag}", version=kind.shown_move(state),
                                 subject=reply_subject(self.message.subject, game_subject(game.name, MailSubject.YOUR_ORDERS)),
                                 body=body, reply_to_message=self.message,
                                 decision=decision_kind(kind, state, seat.name), auto_submitted="auto-replied")
        return self.outcome(InboundOutcome.REFUSED, refusal.text(), version_before=state.version,
                            version=state.version)
