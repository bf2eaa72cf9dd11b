"""Eight-Minute Empire's sealed bid (R8-BID-1, R8-BID-2) over the real mail path.

Players' mails are appended to a real Dovecot inbox, ``poll_once`` (what
``pbem poll --once`` runs) reads them over IMAP, and the moderator's mail is
sent over SMTP to aiosmtpd; every check reads what a player's mailbox would
hold. Three players bid: ann 4, bob 6, ann changes to 5, cy 2 (the last).
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

import pytest

from engine.eight_minute_empire.model import State
from pbem.daemon import MailFlow, poll_once
from pbem.moderator.gamemaster.newgame import create_game_with_mail
from pbem.store import Database
from pbem.store.mailprefs import MailMode
from tests.mailflowkit import NOW, PLAYERS, Table, mail_config, raw_mail
from tests.mailservers import DovecotAccount
from tests.smtpservers import SmtpServer

KIND = "eight-minute-empire"
EMAILS = dict(PLAYERS)
PLAYER_OF = {email: player for player, email in PLAYERS}
BEFORE_THE_LAST = [("ann", 4), ("bob", 6), ("ann", 5)]  # ann changes her bid
FINAL = {"ann": 5, "bob": 6, "cy": 2}  # cy's is the last bid
THREADING = ("Message-ID", "In-Reply-To", "References")  # differ between any two mails by design
REVEALS = re.compile(r"All bids are in: .*?first turn\.")  # 'All bids are in: ann 5, ... takes the first turn.'
TELLS_A_BID = re.compile(r"\bbid|has bid|have bid|waiting|\bmove [1-9]", re.IGNORECASE)


@dataclass
class Bidding:
    """One 3-player game by mail: players reply to their bid prompt; the moderator polls the real inbox."""

    table: Table
    flow: MailFlow
    inbox: DovecotAccount
    relay: SmtpServer

    def prompt(self, player: str) -> EmailMessage:
        return next(r.message for r in self.relay.received
                    if r.rcpt_tos == (EMAILS[player],) and r.message["X-PBEM-Decision"] == "bid")

    def mail(self, player: str, body: str, *, message_id: str | None = None) -> bytes:
        """``player`` hits Reply on their bid prompt: To its Reply-To, threaded under it."""
        prompt = self.prompt(player)
        return raw_mail(EMAILS[player], str(prompt["Reply-To"]).split("<")[-1].rstrip(">"), body,
                        subject=f"Re: {prompt['Subject']}", message_id=message_id,
                        headers=f"In-Reply-To: {prompt['Message-ID']}\nReferences: {prompt['Message-ID']}")

    def deliver(self, *raws: bytes) -> tuple[list[str], list[tuple[str, EmailMessage]]]:
        """Append ``raws`` to the inbox, poll once: the inbound outcomes and the (reader, mail) pairs sent."""
        before = len(self.relay.received)
        for raw in raws:
            self.inbox.append(raw)
        report = poll_once(self.flow)
        assert report.ok, report
        outcomes = [o.outcome for o in report.inbox.outcomes] if report.inbox else []
        return outcomes, [(PLAYER_OF[r.rcpt_tos[0]], r.message) for r in self.relay.received[before:]]

    def bid(self, player: str, coins: int) -> list[tuple[str, EmailMessage]]:
        outcomes, sent = self.deliver(self.mail(player, f"BID {coins}\n"))
        assert outcomes == ["applied"]
        return sent


@pytest.fixture
def bidding(tmp_path: Path, dovecot: DovecotAccount, smtpd: SmtpServer) -> Iterator[Bidding]:
    table = Table(Database(f"sqlite:///{tmp_path / 'eme.db'}"), mail_config(dovecot, smtpd))
    setup = table.moderator.make_setup(table.name, PLAYERS, seed=5, kind=KIND)
    create_game_with_mail(table.moderator, table.config, table.name, setup, NOW, kind=KIND, mail=MailMode.EVERY)
    game = Bidding(table, MailFlow(table.config, table.db, moderator=table.moderator, clock=lambda: NOW),
                   dovecot, smtpd)
    game.deliver()  # the welcome mails and the bid prompts go out
    yield game
    table.db.dispose()


def content(message: EmailMessage) -> str:
    """The text/plain part (the whole mail when it has no picture of the board)."""
    plain = message.get_body(("plain",))
    assert plain is not None
    return str(plain.get_content())


def whole(message: EmailMessage) -> str:
    """Every header line and the text, as the reader's client has them."""
    return "\n".join(f"{name}: {value}" for name, value in message.items()) + "\n\n" + content(message)


def flat(message: EmailMessage) -> str:
    """The text with its line breaks and indents as single spaces (a sentence may be wrapped)."""
    return " ".join(content(message).split())


def own_bid(coins: int) -> str:
    """How a mail tells its reader their own bid: 'You bid 4', 'Your bid: 4', 'Your bid of 4'."""
    return rf"\b[Yy]our? bid\b\W*(?:of )?{coins}\b"


def reveal(message: EmailMessage) -> str:
    """The one sentence of a report that reveals the bids (R8-BID-1) and who pays and starts (R8-BID-2)."""
    [sentence] = REVEALS.findall(flat(message))
    return str(sentence)


def shape(message: EmailMessage) -> tuple[list[tuple[str, str]], str]:
    """What a reader can compare between two mails: the headers (but the threading ones) and the text."""
    return [(k, str(v)) for k, v in message.items() if k not in THREADING], content(message)


def test_r8_bid_1_each_bid_is_confirmed_to_its_bidder_alone(bidding: Bidding) -> None:
    """R8-BID-1: a bid is secret; its bidder (and nobody else) is told it, and a changed bid is told again."""
    for player, coins in BEFORE_THE_LAST:
        sent = bidding.bid(player, coins)
        assert [reader for reader, _ in sent] == [player]
        assert re.search(own_bid(coins), flat(sent[0][1])), content(sent[0][1])


@pytest.mark.slow
def test_r8_bid_1_no_mail_before_the_last_bid_names_another_players_bid(bidding: Bidding) -> None:
    """R8-BID-1: until every bid is in no mail shows another's bid or whether they bid: not in the text,
    the subject, the Message-ID's or subject's move number, nor any X-PBEM-* header."""
    sent = bidding.deliver(bidding.mail("cy", "STATUS\nHISTORY\nOPTIONS\n"))[1]
    given: dict[str, int] = {}
    for player, coins in BEFORE_THE_LAST:
        confirmed = bidding.bid(player, coins)
        given[player] = coins
        answers = bidding.deliver(*(bidding.mail(p, "STATUS\nHISTORY\n") for p, _ in PLAYERS if p != player))[1]
        assert [r for r, _ in confirmed] == [player]  # no mail at all to the others: they asked nothing
        assert sorted(r for r, _ in answers) == sorted(p for p, _ in PLAYERS if p != player)
        sent += confirmed + answers
    for reader, message in sent:
        assert "[g1] Move 0: " in message["Subject"], message["Subject"]
        assert message["Message-ID"].startswith("<pbem.g1.0."), message["Message-ID"]
        pbem = {k: str(v) for k, v in message.items() if k.lower().startswith("x-pbem-")}
        assert set(pbem) <= {"X-PBEM-Loop", "X-PBEM-Decision", "X-PBEM-Mail", "X-PBEM-Move"}, pbem
        assert pbem.get("X-PBEM-Decision", "bid") == "bid" and pbem.get("X-PBEM-Move", "0") == "0", pbem
        # what the mail is to its reader: the answer to their own bid (report) or question (query), whoever bid
        assert pbem.get("X-PBEM-Mail") in ("report", "query"), pbem
        for line in whole(message).splitlines():
            for other, coins in given.items():
                if other != reader and re.search(rf"\b{other}\b", line):
                    assert not TELLS_A_BID.search(line) and not re.search(rf"\b{coins}\b", line), (reader, line)


def test_r8_bid_1_a_waiting_player_is_told_the_same_whoever_has_bid(bidding: Bidding) -> None:
    """R8-BID-1: what cy is told while the bid is open is the same before and after ann and bob bid."""
    _, [(_, first)] = bidding.deliver(bidding.mail("cy", "STATUS\nHISTORY\nOPTIONS\n"))
    for player, coins in BEFORE_THE_LAST:
        bidding.bid(player, coins)
    _, [(_, later)] = bidding.deliver(bidding.mail("cy", "STATUS\nHISTORY\nOPTIONS\n"))
    assert shape(later) == shape(first)


@pytest.mark.slow
def test_r8_bid_1_a_changed_bid_is_confirmed_as_the_first_was_though_another_bid_since(bidding: Bidding) -> None:
    """R8-BID-1: ann's confirmation of her changed bid, after bob's bid, differs from her changed bid's before
    it only in her own amount (and its Message-ID): it tells nothing of bob. (Her first confirmation showed
    the map; the later ones say it is unchanged since that mail.)"""
    bidding.bid("ann", 4)
    [(_, before)] = bidding.bid("ann", 5)
    bidding.bid("bob", 6)
    [(_, changed)] = bidding.bid("ann", 3)
    headers, text = shape(changed)
    assert (headers, re.sub(own_bid(3), lambda m: m[0][:-1] + "5", text)) == shape(before)


def test_r8_bid_1_a_bidders_history_does_not_count_the_hidden_bids(bidding: Bidding) -> None:
    """R8-BID-1: HISTORY during the bid shows a bidder their own bids, numbered as if nobody else had bid:
    bob, bidding after ann, and ann, changing her bid after bob's, cannot tell from it that another bid."""
    told = {}
    for player, coins in BEFORE_THE_LAST:
        bidding.bid(player, coins)
        _, [(_, answer)] = bidding.deliver(bidding.mail(player, "HISTORY\n"))
        lines = [line for line in content(answer).splitlines() if re.search(rf"\b{player}\b", line)]
        told[player] = [n for line in lines for n in re.findall(r"\d+", re.sub(r"BID \d+", "", line))]
    assert told["bob"] in (["1"], []), told  # once ['2']: ann's hidden bid was counted
    assert told["ann"] in (["1", "2"], []), told  # once ['1', '3']: the gap was bob's hidden bid


def test_r8_bid_1_and_2_the_last_bid_reveals_every_bid_in_one_report_to_each_player(bidding: Bidding) -> None:
    """R8-BID-1: when the last bid is in, each player gets exactly one report revealing all (final) bids at
    once; R8-BID-2: the highest bidder, bob, pays his bid and is asked to take the first turn; the others
    keep their coins."""
    for player, coins in BEFORE_THE_LAST:
        bidding.bid(player, coins)
    sent = bidding.bid("cy", 2)
    reports = dict(sent)
    assert len(reports) == 3 and len(sent) == 3  # one mail each: the report, with bob's prompt in his
    assert [(r, m["X-PBEM-Decision"]) for r, m in sent if m["X-PBEM-Decision"]] == [("bob", "take")]
    for reader, message in reports.items():
        told = reveal(message)
        assert all(re.search(rf"\b(?:{p}|you) {n}\b", told, re.IGNORECASE) for p, n in FINAL.items()), told
        payer = "(?:bob|you)" if reader == "bob" else "bob"
        assert re.search(rf"\b{payer} pays? 6 and takes? the first turn", told, re.IGNORECASE), told
    assert sum(len(REVEALS.findall(flat(r.message))) for r in bidding.relay.received) == 3  # ever, to anyone
    state = bidding.table.moderator.state(bidding.table.name)
    assert isinstance(state, State) and state.current == "bob" and state.coins == {"ann": 11, "bob": 5, "cy": 11}


def resent(raw: bytes) -> bytes:
    """The same mail delivered again (a client's re-send): a new Received line, the same Message-ID."""
    return b"Received: from mx.example.org by imap.games.test; Mon, 3 Jun 2030 12:05:00 +0000\r\n" + raw


def test_r8_bid_1_a_bid_mail_delivered_twice_is_applied_once(bidding: Bidding) -> None:
    """A bid mail that arrives again (same Message-ID) is recognised and changes nothing: ann's first bid,
    re-sent after she changed it, does not restore it; the last bid, re-sent, reveals nothing twice."""
    first = bidding.mail("ann", "BID 4\n", message_id="<ann-bids-4@clients.example>")
    assert bidding.deliver(first)[0] == ["applied"]
    bidding.bid("bob", 6)
    bidding.bid("ann", 5)
    moves = bidding.table.log_length()
    assert bidding.deliver(resent(first)) == (["duplicate"], [])
    last = bidding.mail("cy", "BID 2\n", message_id="<cy-bids-2@clients.example>")
    outcomes, sent = bidding.deliver(last)
    reports = [m for _, m in sent]
    assert outcomes == ["applied"] and len(reports) == 3
    assert all(re.search(r"\b(?:ann|you) 5\b", reveal(m), re.IGNORECASE) for m in reports)  # not her resent 4
    assert bidding.deliver(resent(last)) == (["duplicate"], [])
    assert bidding.table.log_length() == moves + 1
    assert bidding.inbox.uids("INBOX") == [] and len(bidding.inbox.uids("processed")) == 6
