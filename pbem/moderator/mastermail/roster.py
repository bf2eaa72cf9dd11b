"""Who masters a game: the host names masters (CLI), a master promotes an observer or ejects a master (mail).

Naming a master issues its token and queues the welcome that carries it (the
only place the token exists in plaintext). Ejecting the last master is
refused: the game would fall back to the host's address, which is the host's
own decision to make (``pbem game master remove``).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session

from pbem import store
from pbem.config import ModeratorSettings
from pbem.games import kind_of
from pbem.mail import token_address
from pbem.moderator.gamemaster.common import GameMasterError, MailContext, _stamp, _transaction
from pbem.moderator.games import EMAIL
from pbem.moderator.mastermail.mailing import HELP, WELCOME, game_language, queue_to_master, said, subject
from pbem.store import Database, GameRow
from pbem.store.masters import HOST, MasterRow, add_master, find_master, masters_of, remove_master
from pbem.store.observers import find_observer


@dataclass(frozen=True)
class Named:
    game: str
    email: str
    welcomed: bool  # the welcome with the token was queued (False: no [moderator] address configured)


def name_master(session: Session, game: GameRow, email: str, by: str, identity: ModeratorSettings | None,
                now: datetime) -> Named:
    """Make ``email`` a master of ``game`` (a fresh token) and queue its welcome when mail is configured."""
    email = email.strip()
    if not EMAIL.match(email):
        raise GameMasterError(f"bad email address {email!r}")
    existing = find_master(session, game, email)
    if existing is not None and existing.active:
        raise GameMasterError(f"{email} is a master of game {game.name!r} already")
    row, token = add_master(session, game, email, by, now)
    if identity is None:
        return Named(game.name, row.email, False)
    with game_language(session, game):
        help_text = said(HELP, address=token_address(identity.address, token))
        body = said(WELCOME, game=game.name, title=kind_of(game.kind).info.title, by_host=by == HOST,
                    by=by, token=token, address=token_address(identity.address, token)) + "\n\n" + help_text
        queue_to_master(session, game, row.email, token, identity, key=f"master_welcome:{_stamp(now)}",
                        subject=subject(game.name, "welcome"), body=body, now=now)
    return Named(game.name, row.email, True)


def promote(session: Session, game: GameRow, email: str, by: str, identity: ModeratorSettings | None,
            now: datetime) -> Named:
    """PROMOTE by mail: only an observer of the game may be made a master (the issue's rule)."""
    watcher = find_observer(session, game, email)
    if watcher is None or not watcher.active:
        raise GameMasterError(f"{email.strip()} is no observer of game {game.name!r}: a master promotes an "
                              "observer (the host may name anyone with pbem game master add)")
    return name_master(session, game, email, by, identity, now)


def eject(session: Session, game: GameRow, email: str, now: datetime) -> MasterRow:
    """EJECT by mail, or the host's remove: ``email`` is no longer a master; refused for the last one by mail."""
    row = find_master(session, game, email)
    if row is None or not row.active:
        raise GameMasterError(f"{email.strip()} is no master of game {game.name!r}")
    remove_master(session, row, now)
    return row


def host_add(db: Database, name: str, email: str, mail: MailContext, now: datetime) -> Named:
    """``pbem game master add``: the host names a master."""
    with _transaction(db) as session:
        return name_master(session, store.find_game(session, name), email, HOST, mail.identity(), now)


def host_remove(db: Database, name: str, email: str, now: datetime) -> str:
    """``pbem game master remove``: the address removed."""
    with _transaction(db) as session:
        return eject(session, store.find_game(session, name), email, now).email


def host_list(db: Database, name: str) -> list[tuple[str, str]]:
    """``pbem game master list``: (address, who named it) of each master of the game."""
    with _transaction(db) as session:
        return [(row.email, row.promoted_by) for row in masters_of(session, store.find_game(session, name))]
