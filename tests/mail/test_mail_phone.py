"""Every mail with the board reads on a phone and on a desktop (issue 29, "a phone-sized HTML part").

Headless Chromium shows the HTML part of each kind of mail that carries the picture, of both games, in a frame
412 pixels wide (most phones) and 1280 (a laptop): nothing runs off the right edge (the page's scroll width is
at most the frame's), the picture takes the screen's width on the phone, and its smallest text is at least 9 CSS
pixels tall there (the picture is shown at its own size and slides sideways in its box).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from pbem.config import ModeratorSettings
from pbem.mail.picture import png_size
from pbem.moderator import gamemaster
from pbem.moderator.notify.compose import MailComposer
from pbem.render.scene import smallest_text
from pbem.store import find_game, load_state, seats
from pbem.store.outbox import OutboxRow
from tests.mailflowkit import MODERATOR, NOW
from tests.picturemail import CHROMIUM, IN_CI, Game, built, layouts, parts_of, with_pictures

MOVES = 8


def every_kind_of_mail(game: Game) -> list[OutboxRow]:
    """Reports and prompts of several moves, an answer to BOARD, the game master's resend and the game's end:
    one mail of each purpose and subject's kind, each with the picture."""
    for _ in range(MOVES):
        game.play()
    assert game.send("bob", "BOARD") == "query"
    gamemaster.resend(game.db, game.name, mail=gamemaster.MailContext.make(moderator_address=MODERATOR), now=NOW)
    with game.db.transaction() as session:
        row = find_game(session, game.name)
        composer = MailComposer(session, ModeratorSettings(MODERATOR), NOW, cause="test")
        for seat in seats(session, row):
            composer.game_end(row, load_state(session, row), seat, [])
    kinds: dict[tuple[str, str], OutboxRow] = {}
    for mail in with_pictures(game.outbox()):
        what = mail.subject.split(":", 1)[-1].split()[0] if ":" in mail.subject else ""
        kinds.setdefault((mail.purpose, what), mail)
    return list(kinds.values())


@pytest.mark.skipif(CHROMIUM is None and not IN_CI,
                    reason="chromium is not installed (apt-get install chromium); under CI=true this test must run")
@pytest.mark.slow
@pytest.mark.parametrize("width", [412, 1280])
def test_issue29_every_mail_with_the_board_fits_the_screen(game: Game, tmp_path: Path, width: int) -> None:
    assert CHROMIUM is not None, "CI=true: chromium must be installed (.ci/run installs it)"
    rows = every_kind_of_mail(game)
    assert {row.purpose for row in rows} >= {"report", "query", "resend", "game_end"}, [r.purpose for r in rows]
    mails = []
    for row in rows:
        _, html, image = parts_of(built(game, row))
        png = image.get_content()
        assert isinstance(png, bytes)
        mails.append((html.get_content(), png, str(image["Content-ID"]).strip("<>")))
    shown = layouts(mails, tmp_path / f"at{width}", width)
    smallest = smallest_text(game.kind.picture(game.current(), game=game.name))
    for row, (page_width, picture_width), (_, png, _) in zip(rows, shown, mails, strict=True):
        assert page_width <= width, (row.purpose, row.subject, page_width)
        if width == 412:
            assert picture_width >= 380, (row.purpose, row.subject, picture_width)
        # the smallest text of the picture, in CSS pixels as shown: the picture's own size times its scale
        assert smallest * picture_width / png_size(png)[0] >= 9, (row.purpose, row.subject, picture_width)
