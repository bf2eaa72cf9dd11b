"""Creating a game that is played by mail: seats get tokens, welcome mails (and first prompts) are queued.

Used by ``pbem game new`` when the configuration has ``[moderator]`` and
``[smtp]``. One transaction: the game, its settings (deadlines from
``[deadlines]``, the thread root) and the mails; ``pbem run`` or
``pbem poll --once`` deliver them.
"""
from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session

from pbem.config import Config
from pbem.games import DEFAULT_KIND, NewGame, kind_of
from pbem.languages import SOURCE, Language
from pbem.moderator.games import Moderator
from pbem.moderator.notify.compose import MailComposer, Queued
from pbem.moderator.site.write import refresh_safely
from pbem.store import seats
from pbem.store.mailprefs import NEW_GAME_MAIL, MailMode, set_prefs
from pbem.store.models import id_of
from pbem.store.settings import GameSettings, save_settings


def create_game_with_mail(moderator: Moderator, config: Config, name: str, setup: Any,
                          now: datetime | None = None, *, kind: str = DEFAULT_KIND,
                          mail: MailMode = NEW_GAME_MAIL, language: Language = SOURCE,
                          languages: Mapping[str, Language] | None = None) -> tuple[NewGame, list[Queued]]:
    """Store the game and queue every seat's welcome mail, in one transaction; the mails queued. ``mail``: the
    game's default MAIL mode, which a seat may change by mail; ``language``: the game's language, ``languages``
    a seat's own (by player name), which a seat may change by mail (``LANGUAGE``). With ``[site] dir`` the
    game's public page is written after the commit."""
    identity = config.require_moderator()
    now = now or datetime.now(UTC)
    with moderator.transaction() as session:
        created, queued, game_id = create_game_in(session, moderator, config, name, setup, now, kind=kind, mail=mail,
                                                  language=language, languages=languages)
    if identity.site.dir is not None:  # the welcomes are committed: the new game's public page
        refresh_safely(moderator.db, identity.site.dir, game_id)
    return created, queued


def create_game_in(session: Session, moderator: Moderator, config: Config, name: str, setup: Any, now: datetime,
                   *, kind: str = DEFAULT_KIND, mail: MailMode = NEW_GAME_MAIL, language: Language = SOURCE,
                   languages: Mapping[str, Language] | None = None) -> tuple[NewGame, list[Queued], int]:
    """The game, its settings and every seat's welcome mail, in the caller's transaction (a game filled by mail
    starts in the transaction of the mail that took its last seat); the new game, its mails queued, its id."""
    identity = config.require_moderator()
    game, created = moderator.create_game_in(session, name, setup, kind=kind)
    composer = MailComposer(session, identity, now)
    first = seats(session, game)[0]
    game_kind = kind_of(game.kind)
    settings = GameSettings(deadline_hours=config.deadlines.for_kind(game_kind.info.deadline_hours,
                                                                     game_kind.info.decisions),
                            reminder_hours=tuple(config.deadlines.reminder_hours),
                            thread_root=composer.welcome_id(game, first.email), mail_default=mail.value,
                            language=language.value)
    save_settings(session, game, settings)
    for seat in seats(session, game):
        if seat.name in (languages or {}):
            set_prefs(session, seat, language=(languages or {})[seat.name])
    composer.welcomes(game, created.state)
    return created, composer.queued, id_of(game)
