"""Games on the moderator without mail, and the deadline tick's helpers: what the moderator's tests of
orders, deadlines and the game master start from (tests/moderator/test_moderator.py, test_deadlines.py,
test_deadline_alarm.py, test_gamemaster.py, test_source_mail.py)."""
from __future__ import annotations

from datetime import datetime

from engine.imperial2030.decisions import DecisionKind, pending
from pbem import store
from pbem.moderator import Moderator
from pbem.moderator.deadlines import decision_since
from pbem.moderator.tick import tick
from pbem.store.outbox import OutboxRow, mail_for_game
from tests.imperialpositions import SUEZ_DEAL, SUEZ_OPENING

GM = "gm@example.org"
MODERATOR = "pbem@games.example"
PLAYERS = [("ann", "ann@example.org"), ("bob", "bob@example.org"), ("cy", "cy@example.org"),
           ("dee", "dee@example.org"), ("eve", "eve@example.org"), ("fay", "fay@example.org")]


def two_player_game(mod: Moderator, name: str = "demo") -> None:
    """ann governs Russia (and so moves first), bob holds the investor card."""
    mod.create_game(name, PLAYERS[:2], deal=[("russia", "ann")], seed=1)


def suez_game(mod: Moderator, name: str = "suez") -> None:
    """Europe (ann) on its Maneuver with fleets in Rome and the Mediterranean; India (bob) holds Suez."""
    mod.create_game(name, PLAYERS[:2], deal=list(SUEZ_DEAL), seed=1)
    for player, text in SUEZ_OPENING:
        result = mod.submit(name, player, text)
        assert result.ok and result.waiting is None, (text, result.refusal)
    (decision,) = pending(mod.state(name))
    assert (decision.player, decision.kind, decision.nation) == ("ann", DecisionKind.MANEUVER, "europe")


def since(mod: Moderator, name: str = "demo") -> datetime:
    with mod.db.transaction() as session:
        return decision_since(session, store.find_game(session, name))


def mails(mod: Moderator, name: str = "demo", purpose: str | None = None) -> list[OutboxRow]:
    with mod.db.transaction() as session:
        rows = mail_for_game(session, store.find_game(session, name).id)  # type: ignore[arg-type]
    return [r for r in rows if purpose is None or r.purpose == purpose]


def run(mod: Moderator, now: datetime, game_master: str | None = GM):  # type: ignore[no-untyped-def]
    return tick(mod.db, now, moderator_address=MODERATOR, game_master=game_master)
