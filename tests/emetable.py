"""A three-player game of Eight-Minute Empire on the moderator, with mail: the table of the EME mail-flow tests.

The ``table`` fixture that sets one up is in tests/moderator/conftest.py (and tests/store/test_store_memo.py).
"""
from __future__ import annotations

from engine.eight_minute_empire.model import State
from pbem.moderator.gamemaster.newgame import create_game_with_mail
from pbem.moderator.inbound.handler import process_message
from pbem.store.outbox import OutboxRow
from tests.mailflowkit import NOW, PLAYERS, Table

KIND = "eight-minute-empire"
EMAIL = dict(PLAYERS)


class EmeTable(Table):
    uid = 0

    def create(self, players: int = 3, now=NOW) -> None:  # type: ignore[no-untyped-def]
        setup = self.moderator.make_setup(self.name, PLAYERS[:players], seed=5, kind=KIND)
        create_game_with_mail(self.moderator, self.config, self.name, setup, now, kind=KIND)

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
