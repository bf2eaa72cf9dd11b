"""A three-player game of Eight-Minute Empire on the moderator, with mail: the table of the EME mail-flow tests.

``PressTable`` is one with an observer's mail too (the press tests).

The ``table`` fixture that sets one up is in tests/moderator/conftest.py (and tests/store/test_store_memo.py).
"""
from __future__ import annotations

from engine.eight_minute_empire.model import State
from pbem.games import kind_of
from pbem.mail import token_of_address
from pbem.moderator.gamemaster import set_game
from pbem.moderator.gamemaster.newgame import create_game_with_mail
from pbem.moderator.inbound.handler import process_message
from pbem.moderator.notify import observers as observing
from pbem.moderator.notify.observers import Sender
from pbem.store.mailprefs import MailMode
from pbem.store.outbox import OutboxRow
from tests.mailflowkit import MODERATOR, NOW, PLAYERS, Table, raw_mail

KIND = "eight-minute-empire"
EMAIL = dict(PLAYERS)
OLGA = "olga@watch.example"  # an observer


class EmeTable(Table):
    uid = 0

    def create(self, players: int = 3, now=NOW, mail: MailMode = MailMode.EVERY) -> None:  # type: ignore[no-untyped-def]
        setup = self.moderator.make_setup(self.name, PLAYERS[:players], seed=5, kind=KIND)
        create_game_with_mail(self.moderator, self.config, self.name, setup, now, kind=KIND, mail=mail)

    def send(self, player: str, body: str) -> str:
        self.uid += 1
        return process_message(self.db, self.config, self.mail_from(player, body), "INBOX", 1, self.uid, NOW,
                               moderator=self.moderator).outcome

    def eme(self) -> State:
        state = self.state()
        assert isinstance(state, State)
        return state

    def to(self, player: str, since: int = 0) -> list[OutboxRow]:
        return [row for row in self.outbox()[since:] if row.recipient == EMAIL[player]]


class PressTable(EmeTable):
    """An Eight-Minute Empire game by mail, with an observer's mail too."""

    def add_observer(self, address: str = OLGA) -> None:
        observing.add(self.db, self.name, address, Sender(MODERATOR, "games.test", "moderator"), NOW)

    def observer_token(self, address: str = OLGA) -> str:
        row = next(r for r in reversed(self.outbox()) if r.recipient == address and r.headers.get("reply_to"))
        token = token_of_address(row.headers["reply_to"], MODERATOR)
        assert token
        return token

    def observer_sends(self, body: str, address: str = OLGA, sender: str | None = None) -> str:
        self.uid += 1
        raw = raw_mail(sender or address, f"pbem+{self.observer_token(address)}@games.test", body)
        return process_message(self.db, self.config, raw, "INBOX", 1, self.uid, NOW, moderator=self.moderator).outcome

    def press_to(self, player: str, since: int) -> list[OutboxRow]:
        return [row for row in self.to(player, since) if row.purpose == "press"]

    def watched(self, since: int = 0, address: str = OLGA) -> list[OutboxRow]:
        return [row for row in self.outbox()[since:] if row.recipient == address]

    def colour(self, player: str) -> str:
        return kind_of(KIND).holdings(self.eme(), player)[0]


def cy_keeps_daily_news(table: EmeTable) -> int:
    """cy takes MAIL DAILY, the bids are made and ann takes a card: bob decides next and cy keeps the news.
    No deadlines, so only the digest falls due; returns the length of the outbox by then."""
    set_game(table.db, table.name, ["deadline.take=0", "deadline.action=0"])
    table.send("cy", "MAIL DAILY")
    for player, coins in (("ann", 2), ("cy", 0), ("bob", 1)):
        table.send(player, f"BID {coins}")
    table.send("ann", "TAKE 1\nDONE")
    return len(table.outbox())
