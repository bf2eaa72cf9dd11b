"""A game of either kind by mail whose mails carry the board's picture, and how to take such a mail apart: the
helpers of the picture-mail tests (tests/mail/test_mail_picture.py, test_mail_phone.py)."""
from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from PIL import Image

from pbem.config import ModeratorSettings
from pbem.games import GameKind, kind_of
from pbem.mail import build_message
from pbem.moderator.gamemaster.newgame import create_game_with_mail
from pbem.moderator.inbound.handler import process_message
from pbem.store import find_game, load_state, seats
from pbem.store.mailprefs import MailMode, set_prefs
from pbem.store.outbox import OutboxRow
from tests.mailflowkit import MODERATOR, NOW, PLAYERS, Table, mail_of

KINDS = ("imperial2030", "eight-minute-empire")
EMAIL = dict(PLAYERS)
MAX_MAIL_BYTES = 100_000  # an Imperial report with its picture is some 70 KB, an Eight-Minute Empire one 25 KB
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
IN_CI = os.environ.get("CI") == "true"


class Game(Table):
    """A game of either kind by mail; each player's mail is fed to the moderator as the inbound flow would."""

    kind_name: str = "imperial2030"
    uid: int = 0

    def start(self, kind_name: str) -> None:
        self.kind_name = kind_name
        if kind_name == "imperial2030":
            self.create(players=2)
        else:
            setup = self.moderator.make_setup(self.name, PLAYERS, seed=5, kind=kind_name)
            create_game_with_mail(self.moderator, self.config, self.name, setup, NOW, kind=kind_name,
                                  mail=MailMode.EVERY)

    @property
    def kind(self) -> GameKind:
        return kind_of(self.kind_name)

    def send(self, player: str, body: str) -> str:
        self.uid += 1
        return process_message(self.db, self.config, self.mail_from(player, body), "INBOX", 1, self.uid, NOW,
                               moderator=self.moderator).outcome

    def current(self) -> Any:
        with self.db.transaction() as session:
            return load_state(session, find_game(session, self.name))

    def play(self) -> str:
        """The first decider's first legal order, sent by mail; the player who sent it."""
        state = self.current()
        player = next(d.player for d in self.kind.rules.pending(state) if not d.answered)
        assert self.send(player, self.kind.legal_orders(state, player)[0]) == "applied"
        return player

    def board_off(self, player: str) -> None:
        with self.db.transaction() as session:
            seat = next(s for s in seats(session, find_game(session, self.name)) if s.name == player)
            set_prefs(session, seat, board=False)


def built(game: Game, row: OutboxRow) -> EmailMessage:
    return build_message(mail_of(game.db, row, ModeratorSettings(MODERATOR)))


def parts_of(message: EmailMessage) -> tuple[EmailMessage, EmailMessage, EmailMessage]:
    """(text/plain, text/html, image/png) of a mail with a picture, checking the shape on the way."""
    assert message.get_content_type() == "multipart/alternative"
    plain, related = list(message.iter_parts())
    assert plain.get_content_type() == "text/plain" and related.get_content_type() == "multipart/related"
    html, image = list(related.iter_parts())
    assert html.get_content_type() == "text/html" and image.get_content_type() == "image/png"
    assert isinstance(plain, EmailMessage) and isinstance(html, EmailMessage) and isinstance(image, EmailMessage)
    return plain, html, image


def decoded_png(image: EmailMessage) -> Image.Image:
    data = image.get_content()
    assert isinstance(data, bytes)
    picture = Image.open(io.BytesIO(data))
    picture.load()
    return picture


def with_pictures(rows: list[OutboxRow]) -> list[OutboxRow]:
    return [row for row in rows if row.picture_id]


def layouts(mails: list[tuple[str, bytes, str]], folder: Path, width: int) -> list[tuple[int, int]]:
    """(the page's scroll width, the picture's shown width) of each of ``mails`` (HTML part, PNG, Content-ID)
    in headless Chromium, each shown in a frame ``width`` pixels wide, in one run of the browser.

    A headless window is never narrower than 500 pixels, hence the frames. A script in the test's page around
    them (a mail carries none) writes the figures into its title, which ``--dump-dom`` prints once every frame
    has loaded. Each mail's cid: reference is pointed at its PNG beside it. A screenshot of the frames is kept
    in ``folder`` (``screen.png``), the test's artefact.
    """
    assert CHROMIUM is not None
    folder.mkdir()
    frames = []
    for index, (html_page, png, cid) in enumerate(mails):
        (folder / f"board{index}.png").write_bytes(png)
        (folder / f"mail{index}.html").write_text(html_page.replace(f"cid:{cid}", f"board{index}.png"),
                                                  encoding="utf-8")
        frames.append(f'<iframe src="mail{index}.html" width="{width}" height="900" style="border:0"></iframe>')
    probe = ("<script>window.onload = () => { document.title = JSON.stringify(Array.from("
             "document.querySelectorAll('iframe'), f => { const d = f.contentDocument; const i = d.querySelector('img'); "
             "return [d.documentElement.scrollWidth, i ? i.getBoundingClientRect().width : 0]; })); };</script>")
    page = folder / "frames.html"
    page.write_text(f'<!DOCTYPE html><html><head><title>-</title></head><body style="margin:0">{"".join(frames)}'
                    f"{probe}</body></html>", encoding="utf-8")
    done = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                           "--allow-file-access-from-files", f"--user-data-dir={folder / 'profile'}",
                           f"--window-size={max(800, width + 100)},1000", "--virtual-time-budget=5000",
                           "--dump-dom", page.as_uri()], check=True, timeout=300, capture_output=True, text=True)
    found = re.search(r"<title>(\[.*?\])</title>", done.stdout)
    assert found, done.stdout[:500]
    # what a reader sees, kept beside the mails as the test's artefact (pytest keeps its last runs' folders)
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                    "--allow-file-access-from-files", f"--user-data-dir={folder / 'profile'}",
                    f"--window-size={max(800, width + 100)},1000", "--virtual-time-budget=5000",
                    f"--screenshot={folder / 'screen.png'}", page.as_uri()], check=True, timeout=300, capture_output=True)
    assert (folder / "screen.png").stat().st_size > 0
    return [(int(page_width), round(picture_width)) for page_width, picture_width in json.loads(found.group(1))]
