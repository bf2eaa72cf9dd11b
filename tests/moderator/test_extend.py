"""EXTEND <hours> by mail, ``pbem extend`` from the host: more time for the decisions pending now, and only them."""
from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from engine.imperial2030.decisions import pending
from pbem import store
from pbem.games.imperial2030.orders import legal_orders
from pbem.moderator import Moderator
from pbem.moderator.deadlines import game_deadlines
from pbem.moderator.gamemaster import GameMasterError, MailContext, force, pause
from pbem.moderator.gamemaster.extending import extend
from pbem.store import Database
from tests.moderatorkit import MODERATOR, mails, since, two_player_game

MAIL = MailContext.make(moderator_address=MODERATOR)


@pytest.fixture
def mod(tmp_path: Path) -> Moderator:
    moderator = Moderator(Database(f"sqlite:///{tmp_path / 'pbem.db'}"))
    two_player_game(moderator)
    return moderator


def dues(mod: Moderator) -> list:  # type: ignore[type-arg]
    with mod.db.transaction() as session:
        game = store.find_game(session, "demo")
        return [d.due for d in game_deadlines(session, game, store.load_state(session, game))]


def test_extend_moves_every_pending_deadline_later_by_the_hours_and_tells_every_seat(mod: Moderator) -> None:
    before = dues(mod)
    done = extend(mod.db, "demo", 24, mail=MAIL, now=since(mod) + timedelta(hours=1))
    assert dues(mod) == [due + timedelta(hours=24) for due in before]
    assert done.mailed == 2 and {m.recipient for m in mails(mod, purpose="extend")} == {"ann@example.org",
                                                                                       "bob@example.org"}


def test_two_extensions_add_up(mod: Moderator) -> None:
    before = dues(mod)
    extend(mod.db, "demo", 10, now=since(mod) + timedelta(hours=1))
    extend(mod.db, "demo", 5, now=since(mod) + timedelta(hours=2))
    assert dues(mod) == [due + timedelta(hours=15) for due in before]


def test_the_next_decision_counts_from_when_it_became_pending_not_from_the_extension(mod: Moderator) -> None:
    start = since(mod)
    extend(mod.db, "demo", 48, now=start + timedelta(hours=1))
    state = mod.state("demo")
    decider = pending(state)[0].player
    forced = force(mod.db, "demo", decider, legal_orders(state, decider)[0], now=start + timedelta(hours=2))
    assert forced.played.applied
    assert since(mod) < start + timedelta(hours=48)  # the decision after it starts when it became pending


def test_a_paused_game_has_no_deadlines_to_extend(mod: Moderator) -> None:
    pause(mod.db, "demo")
    with pytest.raises(GameMasterError, match="paused"):
        extend(mod.db, "demo", 24)
