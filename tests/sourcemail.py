"""A game by mail of either kind and what its seats got: the table that the tests of the move's sources
(tests/moderator/test_source_mail.py) and of the game master's notices (test_notice_mail.py) compare in two
databases."""
from __future__ import annotations

import itertools
import re
from datetime import datetime

from pbem import store
from pbem.games import kind_of
from pbem.moderator.gamemaster import MailContext
from pbem.moderator.inbound import process_message
from pbem.store import Database
from pbem.store.mailprefs import take_news
from pbem.store.outbox import OutboxRow
from tests.emetable import EmeTable
from tests.mailflowkit import MODERATOR, PLAYERS, Table, config_for

IMPERIAL, EME = "imperial2030", "eight-minute-empire"
PLAYER_OF = {address: name for name, address in PLAYERS}
GAME_MASTER = "gm@example.org"
MAIL = MailContext.make(moderator_address=MODERATOR, game_master=GAME_MASTER)
BOARD = {IMPERIAL: "THE WORLD BOARD", EME: "THE MAP"}
UNCHANGED = "The board has not changed since"
MODES = ["every", "turn", "round", "daily"]
NOTE_BLOCK = re.compile(r"NOTE FROM THE MODERATOR\n-+\n(?:.+\n|\n(?=  \S))+\n*")
_uids = itertools.count(1)


# --- a game in a database, and what its seats got ----------------------------------------------------------------


def new_table(kind: str, url: str) -> Table:
    """A game by mail: Imperial 2030 for two (ann governs Russia and moves first), Eight-Minute Empire for three."""
    table = (EmeTable if kind == EME else Table)(Database(url), config_for())
    table.create(players=3 if kind == EME else 2)
    return table


def kind_name(table: Table) -> str:
    return EME if isinstance(table, EmeTable) else IMPERIAL


def mail(table: Table, player: str, body: str, now: datetime) -> str:
    """The player's mail, handled at ``now``; its outcome."""
    return process_message(table.db, table.config, table.mail_from(player, body), "INBOX", 1, next(_uids), now,
                           moderator=table.moderator).outcome


def decider_and_default(table: Table) -> tuple[str, str]:
    """The first deciding player and the default answer of their decision: an order every source can give. A
    rondel choice has none: there ann takes the investor space, so that bob must decide next."""
    kind, state = kind_of(kind_name(table)), table.state()
    decision = next(d for d in kind.rules.pending(state) if not d.answered)
    return decision.player, kind.default_order(state, decision) or "RONDEL investor"


def mails_since(table: Table, start: int) -> dict[str, OutboxRow]:
    """The mail each seat got since outbox row ``start``: one at most (one mail per seat per event)."""
    by_seat: dict[str, OutboxRow] = {}
    for row in table.outbox()[start:]:
        player = PLAYER_OF.get(row.recipient)
        if player is not None:
            assert player not in by_seat, f"{player} got two mails: {by_seat[player].purpose}, {row.purpose}"
            by_seat[player] = row
    return by_seat


def kept_news(table: Table) -> dict[str, list[str]]:
    """Every seat's news kept for its next mail (read, and left in place)."""
    with table.db.transaction() as session:
        game = store.find_game(session, table.name)
        news = {seat.name: take_news(session, seat) for seat in store.seats(session, game)}
        session.rollback()
    return news


def told_of_last_moves(table: Table, since: int) -> set[str]:
    """The seats the moves logged from ``since`` on tell anything (``GameKind.tells``), by replaying the log."""
    kind = kind_of(kind_name(table))
    with table.db.transaction() as session:
        game = store.find_game(session, table.name)
        setup, log = store.game_setup(game), store.load_log(session, game)
    state, _ = kind.rules.new_game(setup)
    events: list[object] = []
    for entry in log:
        state, new = kind.rules.apply(state, entry.player, entry.action)
        if entry.version >= since:
            events += new
    return {player for player in state.seating if kind.tells(state, events, player)}


def without_note(body: str, marker: str) -> str:
    """``body`` without the source's note: its block in the head, and the kept-news bullet that holds ``marker``."""
    body = NOTE_BLOCK.sub("", body, count=1)
    lines, out, at = body.split("\n"), [], 0
    while at < len(lines):
        end = at + 1
        if lines[at].startswith("  - "):
            while end < len(lines) and lines[end].startswith("    "):
                end += 1
            if marker and marker in " ".join(" ".join(lines[at:end]).split()):
                at = end
                continue
        out.extend(lines[at:end])
        at = end
    return "\n".join(out)
