"""A bot answers every prompt of the current line of play: after `pbem undo` it plays the move again.

Before, a bot skipped every prompt whose move was not above the last it answered, so after an
undo it never answered the prompt for the move taken back, and the game waited forever.
"""
from __future__ import annotations

import os
import time
from email.message import EmailMessage
from pathlib import Path

from pbem.bots.player import BotPlayer
from pbem.daemon.sender import outgoing_mail
from pbem.mail import build_message
from pbem.moderator import gamemaster
from pbem.moderator.inbound.handler import process_message
from pbem.store import Database
from tests.mailflowkit import NOW, Table, config_for

ANN = "ann@example.org"


def deliver_new_mail(table: Table, maildir: Path, seen: set[int]) -> int:
    """Put every outbox mail to ann not delivered yet into the bot's Maildir, in queueing order."""
    count = 0
    for row in table.outbox():
        if row.recipient != ANN or row.id in seen:
            continue
        seen.add(row.id)  # type: ignore[arg-type]
        for sub in ("cur", "new", "tmp"):
            (maildir / sub).mkdir(parents=True, exist_ok=True)
        name = f"{time.time_ns()}.M{row.id}.test"
        (maildir / "tmp" / name).write_bytes(bytes(build_message(outgoing_mail(row, table.config.moderator))))
        os.rename(maildir / "tmp" / name, maildir / "new" / name)
        time.sleep(0.002)  # delivery order = modification time order
        count += 1
    return count


def test_after_an_undo_the_bot_answers_the_prompt_of_the_move_taken_back(tmp_path: Path) -> None:
    table = Table(Database(f"sqlite:///{tmp_path / 'mail.db'}"), config_for())
    table.create()
    sent: list[EmailMessage] = []
    bot = BotPlayer("ann@example.org", tmp_path / "ann", send=sent.append, strategy="sensible", seed=3)
    seen: set[int] = set()
    try:
        deliver_new_mail(table, bot.maildir, seen)
        assert bot.step() == 1  # the first rondel prompt
        answer = sent[-1].get_content()
        outcome = process_message(table.db, table.config, table.mail_from("ann", answer), "INBOX", 77, 1, NOW,
                                  moderator=table.moderator)
        assert outcome.version is not None and outcome.version >= 1
        deliver_new_mail(table, bot.maildir, seen)
        bot.step()
        replies = len(sent)

        while table.log_length() > 0:  # the game master takes every move back
            gamemaster.undo(table.db, "g1", mail=gamemaster.MailContext.make(moderator_address="pbem@games.test"))
        assert deliver_new_mail(table, bot.maildir, seen) > 0
        assert bot.step() == 1, "the bot must answer the prompt of the move taken back"
        assert len(sent) == replies + 1
    finally:
        bot.close()
