"""Shared helpers of the mail-flow tests (most of tests/moderator/ and tests/daemon/): a game created with mail, players' replies.

``Table`` is one database with one game created by ``create_game_with_mail``
(two or three players, a fixed deal); it knows each seat's token (read from the
welcome mails in the outbox, as the player would from the Reply-To) and builds
the raw mails players send.
"""
from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import format_datetime
from typing import Any

from sqlmodel import select

from engine.imperial2030.decisions import pending
from engine.imperial2030.model import GameState
from pbem.config import Config, ModeratorSettings, parse_config
from pbem.daemon.sender import outgoing_mail
from pbem.games.imperial2030.orders import legal_orders
from pbem.mail import OutgoingMail, token_of_address
from pbem.moderator import Moderator
from pbem.moderator.gamemaster.newgame import create_game_with_mail
from pbem.store import Database, find_game, load_log, load_state
from pbem.store.inbound import InboundRow
from pbem.store.mailprefs import MailMode
from pbem.store.outbox import OutboxRow, pictures_of
from tests.mailservers import DovecotAccount
from tests.smtpservers import SmtpServer

MODERATOR = "pbem@games.test"
PLAYERS = [("ann", "ann@example.org"), ("bob", "bob@example.org"), ("cy", "cy@example.org")]
NOW = datetime(2030, 6, 3, 12, 0, tzinfo=UTC)
_ids = itertools.count(1)


def picture_of(db: Database, row: OutboxRow) -> bytes | None:
    """The PNG the mail of ``row`` carries (a move's picture is stored once: ``pbem.store.outbox``), or None."""
    if row.picture_id is None:
        return None
    with db.transaction() as session:
        stored = pictures_of(session, [row.picture_id]).get(row.picture_id)
    return stored.png if stored is not None else None


def mail_of(db: Database, row: OutboxRow, moderator: ModeratorSettings | None = None) -> OutgoingMail:
    """The mail the sender builds from ``row``, its picture and all (``pbem.daemon.sender.outgoing_mail``)."""
    picture = None
    if row.picture_id is not None:
        with db.transaction() as session:
            picture = pictures_of(session, [row.picture_id]).get(row.picture_id)
    return outgoing_mail(row, moderator, picture)


def wait_until(condition: Callable[[], Any], timeout: float = 20.0, what: str = "", every: float = 0.05) -> Any:
    """``condition()``'s first true value, looked at every ``every`` seconds; an AssertionError (naming
    ``what``) after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out waiting{': ' + what if what else ''}")


def mailbox_config_text(account: Any, smtp: Any, url: str, *, password: str | None = None,
                        imap_login: str | None = None, smtp_login: str = "") -> str:
    """A pbem.toml for a moderator reading ``account`` (a ``mailservers.DovecotAccount``) and sending through
    ``smtp`` (a ``mailservers.SmtpServer``), its database at ``url``. ``imap_login`` replaces the password
    line (an XOAUTH2 login); ``smtp_login`` adds lines to [smtp]."""
    imap_login = imap_login or f'password = "{password or account.password}"'
    return f'''
[moderator]
address = "{MODERATOR}"

[database]
url = "{url}"

[imap]
host = "{account.host}"
port = {account.port}
security = "none"
username = "{account.user}"
{imap_login}
timeout = 10
poll_interval = 0.2

[smtp]
host = "{smtp.host}"
port = {smtp.port}
security = "none"
{smtp_login}
timeout = 10
'''


def config_for(**sections: dict[str, Any]) -> Config:
    data: dict[str, Any] = {"moderator": {"address": MODERATOR, "name": "Imperial 2030 moderator"},
                            "smtp": {"host": "127.0.0.1", "security": "none"}}
    for name, values in sections.items():
        data[name] = {**data.get(name, {}), **values}
    return parse_config(data, None, {})


def raw_mail(sender: str, to: str, body: str, *, subject: str = "orders", message_id: str | None = None,
             headers: str = "", content_type: str = "text/plain; charset=utf-8", sender_name: str = "") -> bytes:
    """The bytes of a plain mail as a player's client sends it (CRLF line ends)."""
    message_id = message_id or f"<player-{next(_ids)}@clients.example>"
    lines = [
        f"From: {sender_name + ' ' if sender_name else ''}<{sender}>",
        f"To: {to}",
        f"Subject: {subject}",
        f"Date: {format_datetime(NOW)}",
        f"Message-ID: {message_id}",
        "MIME-Version: 1.0",
        f"Content-Type: {content_type}",
    ]
    if headers:
        lines += headers.strip("\n").split("\n")
    head = "\r\n".join(lines).encode()
    return head + b"\r\n\r\n" + body.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8")


@dataclass
class Table:
    """One database, one game by mail."""

    db: Database
    config: Config
    name: str = "g1"
    moderator: Moderator = field(init=False)

    def __post_init__(self) -> None:
        self.moderator = Moderator(self.db)

    def create(self, players: int = 2, now: datetime = NOW, mail: MailMode = MailMode.EVERY) -> None:
        """The game, its welcome mails queued at ``now`` (due then: use the real time for a real clock). The
        tables play in ``MAIL EVERY`` (a mail per move, which most mail-flow tests read) unless told otherwise;
        a new game's own default is ``NEW_GAME_MAIL``."""
        setup = self.moderator.make_setup(self.name, PLAYERS[:players], [("russia", "ann")], 7)
        create_game_with_mail(self.moderator, self.config, self.name, setup, now, mail=mail)

    # --- reading the database -------------------------------------------------------------------

    def outbox(self) -> list[OutboxRow]:
        with self.db.transaction() as session:
            return list(session.exec(select(OutboxRow).order_by(OutboxRow.id)).all())  # type: ignore[arg-type]

    def inbound(self) -> list[InboundRow]:
        with self.db.transaction() as session:
            return list(session.exec(select(InboundRow).order_by(InboundRow.id)).all())  # type: ignore[arg-type]

    def state(self) -> GameState:
        with self.db.transaction() as session:
            return load_state(session, find_game(session, self.name))

    def log_length(self) -> int:
        with self.db.transaction() as session:
            return len(load_log(session, find_game(session, self.name)))

    def token(self, player: str) -> str:
        email = dict(PLAYERS)[player]
        with self.db.transaction() as session:
            game_id = find_game(session, self.name).id
        for row in reversed(self.outbox()):
            if row.recipient == email and row.game_id == game_id and row.headers.get("reply_to"):
                token = token_of_address(row.headers["reply_to"], MODERATOR)
                assert token
                return token
        raise AssertionError(f"no mail with a token to {player}")

    def reply_to(self, player: str) -> str:
        return f"pbem+{self.token(player)}@games.test"

    def decider(self) -> str:
        return pending(self.state())[0].player

    def an_order(self, player: str | None = None) -> tuple[str, str]:
        """(player, a legal order of theirs), preferring not to use the investor space (shorter games)."""
        player = player or self.decider()
        orders = legal_orders(self.state(), player)
        pick = [o for o in orders if "investor" not in o.lower()] or orders
        return player, pick[0]

    def mail_from(self, player: str, body: str, **kwargs: Any) -> bytes:
        return raw_mail(dict(PLAYERS)[player], self.reply_to(player), body, **kwargs)


def mail_config(account: DovecotAccount, smtp: SmtpServer, **sections: dict[str, Any]) -> Config:
    imap = {"host": account.host, "port": account.port, "security": "none", "username": account.user,
            "password": account.password, "timeout": 10, "poll_interval": 0.2}
    return config_for(imap=imap, smtp={"host": smtp.host, "port": smtp.port, "security": "none", "timeout": 10},
                      **sections)
