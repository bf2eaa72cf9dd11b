"""Allow and deny lists, the host's (``[senders]``) and a game's (``pbem game set NAME allow= deny=``), through
the real inbound path: a refused sender's mail changes nothing and is answered once, ever."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pbem.config import parse_config
from pbem.errors import ConfigError
from pbem.moderator.gamemaster.common import GameMasterError
from pbem.moderator.gamemaster.tuning import set_game
from pbem.moderator.inbound.handler import process_message
from pbem.moderator.senders import Lists
from pbem.store import Database
from tests.mailflowkit import MODERATOR, NOW, Table, config_for, raw_mail

_uids = iter(range(1, 100_000))


def make(tmp_path: Path, **senders: Any) -> Table:
    table = Table(Database(f"sqlite:///{tmp_path / 'senders.db'}"), config_for(senders=senders))
    table.create()
    return table


def process(table: Table, raw: bytes):  # type: ignore[no-untyped-def]
    return process_message(table.db, table.config, raw, "INBOX", 5, next(_uids), NOW, moderator=table.moderator)


def answers_to(table: Table, address: str) -> list[Any]:
    return [row for row in table.outbox() if row.recipient == address and row.purpose == "denied"]


def test_a_denied_domain_gets_one_answer_ever(tmp_path: Path) -> None:
    table = make(tmp_path, deny=["spam.example"])
    for _ in range(3):
        outcome = process(table, raw_mail("x@mx.spam.example", MODERATOR, "hello", subject="buy"))
        assert outcome.outcome == "denied" and "deny list (spam.example)" in outcome.reason
    answers = answers_to(table, "x@mx.spam.example")
    assert len(answers) == 1
    assert "was not read" in answers[0].body and "will not be answered" in answers[0].body


def test_a_denied_address_cannot_play_its_seat(tmp_path: Path) -> None:
    table = make(tmp_path, deny=["ann@example.org"])
    player, order = table.an_order("ann")
    length = table.log_length()
    outcome = process(table, table.mail_from(player, order))
    assert outcome.outcome == "denied" and table.log_length() == length
    assert process(table, table.mail_from("bob", "STATUS")).outcome == "query"


def test_a_host_allow_list_lets_in_only_its_entries(tmp_path: Path) -> None:
    table = make(tmp_path, allow=["example.org"])
    assert process(table, table.mail_from("ann", "STATUS")).outcome == "query"
    outcome = process(table, raw_mail("stranger@example.net", MODERATOR, "hello"))
    assert outcome.outcome == "denied" and "not on the host's allow list" in outcome.reason
    assert len(answers_to(table, "stranger@example.net")) == 1


def test_deny_wins_over_allow(tmp_path: Path) -> None:
    table = make(tmp_path, allow=["example.org"], deny=["bob@example.org"])
    assert process(table, table.mail_from("bob", "STATUS")).outcome == "denied"


def test_a_bounce_from_a_denied_domain_is_still_never_answered(tmp_path: Path) -> None:
    table = make(tmp_path, deny=["example.net"])
    raw = raw_mail("mailer-daemon@example.net", MODERATOR, "failed", subject="Undelivered Mail Returned to Sender")
    assert process(table, raw).outcome == "automatic"
    assert answers_to(table, "mailer-daemon@example.net") == []


def test_a_games_deny_list_refuses_its_entries_in_that_game(tmp_path: Path) -> None:
    table = make(tmp_path)
    set_game(table.db, "g1", ["deny=ann@example.org"])
    player, order = table.an_order("ann")
    length = table.log_length()
    outcome = process(table, table.mail_from(player, order))
    assert outcome.outcome == "denied" and "game g1's deny list" in outcome.reason
    assert table.log_length() == length
    assert process(table, table.mail_from("bob", "STATUS")).outcome == "query"


def test_a_games_allow_list_keeps_its_own_players_and_refuses_others_with_their_tokens(tmp_path: Path) -> None:
    table = make(tmp_path)
    set_game(table.db, "g1", ["allow=club.example"])
    assert process(table, table.mail_from("ann", "STATUS")).outcome == "query"  # the seat's own address
    outcome = process(table, raw_mail("mallory@example.net", table.reply_to("ann"), "STATUS"))
    assert outcome.outcome == "denied"  # not even the seat's warning: the game lets no such address write
    assert len(answers_to(table, "mallory@example.net")) == 1
    assert [row for row in table.outbox() if row.purpose == "spoofed"] == []


def test_game_set_takes_addresses_and_domains_and_none_empties_a_list(tmp_path: Path) -> None:
    table = make(tmp_path)
    change = set_game(table.db, "g1", ["deny=Spam.Example, x@y.org"])
    assert change.settings.deny == ("spam.example", "x@y.org")
    assert change.changed == ("deny: none -> spam.example,x@y.org",)
    assert set_game(table.db, "g1", ["deny=none"]).settings.deny == ()


@pytest.mark.parametrize("value", ["nodot", "@", "a@b", "<x@y.org>"])
def test_game_set_refuses_what_is_neither_an_address_nor_a_domain(tmp_path: Path, value: str) -> None:
    table = make(tmp_path)
    with pytest.raises(GameMasterError, match="neither an address"):
        set_game(table.db, "g1", [f"allow={value}"])


def test_a_domain_covers_its_subdomains_but_not_lookalikes() -> None:
    lists = Lists(deny=("spam.example",))
    assert lists.refusal("a@spam.example") and lists.refusal("a@mx.spam.example")
    assert lists.refusal("a@notspam.example") is None


def test_the_host_lists_must_be_lists_of_entries() -> None:
    with pytest.raises(ConfigError, match=r"\[senders\] deny must be a list"):
        parse_config({"senders": {"deny": "spam.example"}}, None, {})
    with pytest.raises(ConfigError, match="unknown setting"):
        parse_config({"senders": {"block": []}}, None, {})
    assert parse_config({"senders": {"allow": ["Club.Example"]}}, None, {}).senders.allow == ("club.example",)
