"""Mail to a game's masters: every one carries the master's own token in its Reply-To, so Reply just works.

The words are in ``templates/core/master_*.j2`` (marked for translation);
a master reads them in the game's language. Subjects are ``[GAME] …``.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlmodel import Session

from pbem.config import ModeratorSettings
from pbem.languages import Language, speaking
from pbem.mail import InboundMessage, Threading, message_id_for, reply_threading, token_address
from pbem.render.env import environment, render_phrase
from pbem.store import GameRow
from pbem.store.outbox import OutboxRow, QueuedMail, queue_mail
from pbem.store.settings import load_settings

PURPOSE = "master"
HELP, ANSWER, WELCOME, SUBJECT = ("core/master_help.j2", "core/master_answer.j2", "core/master_welcome.j2",
                                  "core/master_subject.j2")


def said(template: str, /, **values: Any) -> str:
    """A master text as the template writes it, a paragraph to a line (the mail writer wraps them)."""
    return environment().get_template(template).render(**values).strip("\n")


def subject(game: str, what: str) -> str:
    """``[GAME] …``: ``what`` is welcome, reply or ejected (``core/master_subject.j2``)."""
    return f"[{game}] " + render_phrase(SUBJECT, what=what)


@contextmanager
def game_language(session: Session, game: GameRow) -> Iterator[None]:
    """A master reads the game's language (the one a new seat gets)."""
    with speaking(Language(load_settings(session, game).language)):
        yield


def queue_to_master(session: Session, game: GameRow, email: str, token: str, identity: ModeratorSettings, *,
                    key: str, subject: str, body: str, now: datetime, version: int = 0,
                    replying: InboundMessage | None = None) -> OutboxRow:
    """One mail to a master, Reply-To the master's token address; threaded under the mail it answers."""
    threading = reply_threading(replying) if replying is not None else Threading(None, ())
    headers: dict[str, Any] = {
        "reply_to": token_address(identity.address, token), "to_name": "",
        "in_reply_to": threading.in_reply_to, "references": list(threading.references),
        "auto_submitted": "auto-replied" if replying is not None else "auto-generated", "date": now.isoformat(),
        "from": identity.address, "from_name": identity.name,
    }
    return queue_mail(session, QueuedMail(
        recipient=email, purpose=PURPOSE, message_id=message_id_for(game.name, version, email, key,
                                                                    domain=identity.domain),
        subject=subject, body=body, game_id=game.id, version=version, headers=headers, created=now))
