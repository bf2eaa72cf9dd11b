"""A game's alerts go to its masters (issue 31); the host's ``[moderator] game_master`` only when it has none."""
from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from pbem.moderator import Moderator
from pbem.moderator.gamemaster import MailContext
from pbem.moderator.mastermail.roster import host_add, host_remove
from pbem.store import Database
from tests.moderatorkit import GM, MODERATOR, mails, run, since, two_player_game

BOSS = "boss@example.org"


@pytest.fixture
def mod(tmp_path: Path) -> Moderator:
    moderator = Moderator(Database(f"sqlite:///{tmp_path / 'pbem.db'}"))
    two_player_game(moderator)
    return moderator


def test_a_stalled_decision_alerts_the_games_master_not_the_hosts_address(mod: Moderator) -> None:
    host_add(mod.db, "demo", BOSS, MailContext.make(moderator_address=MODERATOR), since(mod))
    report = run(mod, since(mod) + timedelta(hours=73))
    assert [(i.player, i.kind) for i in report.alerts] == [("ann", "rondel")]
    assert [alert.recipient for alert in mails(mod, purpose="stalled")] == [BOSS]


def test_a_game_with_a_master_is_alerted_without_a_hosts_address(mod: Moderator) -> None:
    host_add(mod.db, "demo", BOSS, MailContext.make(moderator_address=MODERATOR), since(mod))
    report = run(mod, since(mod) + timedelta(hours=73), game_master=None)
    assert report.alerts and [alert.recipient for alert in mails(mod, purpose="stalled")] == [BOSS]


def test_when_its_last_master_is_removed_the_hosts_address_is_alerted_again(mod: Moderator) -> None:
    host_add(mod.db, "demo", BOSS, MailContext.make(moderator_address=MODERATOR), since(mod))
    host_remove(mod.db, "demo", BOSS, since(mod))
    run(mod, since(mod) + timedelta(hours=73))
    assert [alert.recipient for alert in mails(mod, purpose="stalled")] == [GM]
