"""A whole game by mail alone (issue 31), through a real Dovecot inbox and a real SMTP relay (aiosmtpd), never the
CLI: created by mail, filled by JOIN with confirmations, its creator the game master by mail (pausing, forcing,
replacing), a resignation and a takeover, an address change confirmed from both addresses, and played to its end
by the players' own mail.

Every address the test writes from learns its reply address from the mail it was sent, as a person would; the
database is only read, to pick each player's next legal order.
"""
from __future__ import annotations

from collections.abc import Iterator
from email.message import EmailMessage
from email.utils import getaddresses
from pathlib import Path

import pytest

from pbem.daemon import MailFlow, poll_once
from pbem.games import kind_of
from pbem.store import Database, find_game, load_state, replay_game, seats
from tests.mailflowkit import MODERATOR, NOW, Table, mail_config, raw_mail
from tests.mailservers import DovecotAccount
from tests.smtpservers import SmtpServer

HOST = "host@example.org"  # allowed to create games ([judge] creators): the game's first master
KIM, KIM2, LEA, MIA, NIA = "kim@a.example", "kim@new.example", "lea@b.example", "mia@c.example", "nia@d.example"


@pytest.fixture
def table(tmp_path: Path, dovecot: DovecotAccount, smtpd: SmtpServer) -> Iterator[Table]:
    t = Table(Database(f"sqlite:///{tmp_path / 'story.db'}"),
              mail_config(dovecot, smtpd, judge={"creators": [HOST]}), name="friday")
    yield t
    t.db.dispose()


class Post:
    """The moderator's mail seen from outside: what each address received, and mail sent to its inbox."""

    def __init__(self, table: Table, dovecot: DovecotAccount, smtpd: SmtpServer) -> None:
        self.table, self.dovecot, self.smtpd = table, dovecot, smtpd
        self.flow = MailFlow(table.config, table.db, moderator=table.moderator, clock=lambda: NOW)

    def to(self, address: str, since: int = 0) -> list[EmailMessage]:
        return [r.message for r in self.smtpd.received[since:] if r.rcpt_tos == (address,)]

    def send(self, sender: str, to: str, body: str, subject: str = "hello") -> str:
        """One mail into the moderator's inbox, read and answered (and what it queued sent): its outcome."""
        self.dovecot.append(raw_mail(sender, to, body, subject=subject))
        report = poll_once(self.flow)
        assert report.ok, report
        [outcome] = report.inbox.outcomes
        assert poll_once(self.flow).ok  # mail queued by the first pass's moves goes out
        return outcome.outcome

    def token_address(self, address: str) -> str:
        """The reply address of the newest mail to ``address`` that carries a token (its seat's, its master's)."""
        for message in reversed(self.to(address)):
            reply_to = getaddresses([str(message.get("Reply-To", ""))])
            if reply_to and "+" in reply_to[0][1]:
                return reply_to[0][1]
        raise AssertionError(f"no mail with a reply token to {address}")

    def confirm(self, sender: str, command: str) -> None:
        """``command`` to the moderator's address, then the reply to its confirmation mail, from ``sender``."""
        assert self.send(sender, MODERATOR, command) == "command"
        asked = self.to(sender)[-1]
        assert str(asked["Subject"]) == f"Please confirm: {command}"
        assert self.send(sender, self.token_address(sender), "yes", subject=f"Re: {asked['Subject']}") == "command"


def text_of(message: EmailMessage) -> str:
    plain = message.get_body(("plain",))
    assert plain is not None
    return str(plain.get_content())


@pytest.mark.slow
def test_issue31_a_game_created_filled_mastered_and_played_to_its_end_by_mail_alone(
        table: Table, dovecot: DovecotAccount, smtpd: SmtpServer) -> None:
    post = Post(table, dovecot, smtpd)
    post.confirm(HOST, "CREATE friday eight-minute-empire 2")
    post.confirm(KIM, "JOIN friday kim")
    post.confirm(LEA, "JOIN friday lea")
    master = post.token_address(HOST)  # the creator is the game's master, with a token of its own
    assert "PAUSE" in text_of(post.to(HOST)[-1])

    since = len(smtpd.received)
    assert post.send(HOST, master, "PAUSE") == "master"
    assert post.to(KIM, since) and post.to(LEA, since)  # the players are told
    assert post.send(HOST, master, "RESUME") == "master"

    with table.db.transaction() as session:
        game = find_game(session, "friday")
        kind, state = kind_of(game.kind), load_state(session, game)
    first = next(d.player for d in kind.pending(state) if not d.answered)
    assert post.send(HOST, master, f"FORCE {first} {kind.legal_orders(state, first)[0]}") == "master"
    assert "Done" in text_of(post.to(HOST)[-1])

    post.confirm(LEA, "RESIGN friday")  # the seat is given up: its master hears of it
    assert any("lea" in str(m["Subject"]) for m in post.to(HOST, since))
    post.confirm(MIA, "TAKEOVER friday lea")
    assert post.token_address(MIA)  # mia plays lea's seat now, with a token of her own

    assert post.send(KIM, MODERATOR, f"SET ADDRESS {KIM2}") == "command"  # confirmed from both addresses
    for address in (KIM, KIM2):
        asked = post.to(address)[-1]
        assert post.send(address, post.token_address(address), "yes", subject=f"Re: {asked['Subject']}") \
            in ("confirmed", "command")

    assert post.send(HOST, master, f"REPLACE lea {NIA}") == "master"  # mia leaves; nia sits down
    addresses, left = {"kim": KIM2, "lea": NIA}, len(smtpd.received)

    for _ in range(400):  # the rest of the game, by the players' own mail
        with table.db.transaction() as session:
            game = find_game(session, "friday")
            state = load_state(session, game)
            seated = {seat.name: seat.email for seat in seats(session, game)}
        if state.finished:
            break
        assert seated == addresses
        player = next(d.player for d in kind.pending(state) if not d.answered)  # a sealed bid made is answered
        address = addresses[player]
        assert post.send(address, post.token_address(address), kind.legal_orders(state, player)[0]) \
            in ("applied", "query")
    else:
        raise AssertionError("the game did not end")

    with table.db.transaction() as session:
        game = find_game(session, "friday")
        assert replay_game(session, game) == load_state(session, game)
    for address in addresses.values():  # the game-end mail reached the players who finished it
        assert str(post.to(address)[-1]["Subject"]) == "[friday] Game over"
    for address in (KIM, LEA, MIA):  # and nobody who left
        assert not post.to(address, left)
