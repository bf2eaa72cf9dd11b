"""A picture of the board in every mail that carries a board (pbem.mail.picture), for both games.

The promise: such a mail is multipart/alternative, its text/plain part exactly
the text a text-only mail has, its HTML part the same text in <pre> with the
board as an inline PNG (cid:), the PNG drawn when the mail was composed and
kept with the outbox row (a resend sends the same bytes); a seat with BOARD OFF
gets plain text only; the whole mail stays small. Checked from the outbox, over
a real SMTP server (aiosmtpd), and in a real browser: headless Chromium renders
the HTML part and the picture shows in the screenshot.
"""
from __future__ import annotations

import html as htmllib
import re
import subprocess
from dataclasses import replace
from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat
from sqlmodel import col, select

from pbem.config import ModeratorSettings
from pbem.daemon import sender
from pbem.daemon.sender import _message, deliver_due, outgoing_mail
from pbem.mail import InlinePicture, OutboundError, OutgoingMail, SmtpSender, build_message
from pbem.mail.picture import content_id, picture_line
from pbem.mail.wrap import wrap_text
from pbem.moderator import gamemaster
from pbem.moderator.inbound.handler import process_message
from pbem.moderator.notify.compose import MailComposer
from pbem.store import find_game, load_state, seats
from pbem.store.outbox import OutboxRow, OutboxStatus, Picture, PictureRow
from tests.mailflowkit import MODERATOR, NOW, mail_of, picture_of, raw_mail
from tests.picturemail import (
    CHROMIUM,
    EMAIL,
    IN_CI,
    MAX_MAIL_BYTES,
    Game,
    built,
    decoded_png,
    layouts,
    parts_of,
    with_pictures,
)
from tests.smtpservers import SmtpServer

# --- the shape of a mail with the board ---------------------------------------------------------------------


def test_a_mail_with_the_board_has_its_text_an_html_page_and_the_picture(game: Game) -> None:
    before = len(game.outbox())
    game.play()
    new = game.outbox()[before:]
    assert new and with_pictures(new), [(r.purpose, r.recipient) for r in new]
    for row in with_pictures(new):
        message = built(game, row)
        plain, html, image = parts_of(message)
        # the text part is the text a text-only mail of the same row has, and that is the stored body
        text_only = build_message(replace(outgoing_mail(row), picture=None))
        assert text_only.get_content_type() == "text/plain"
        assert plain.get_content() == text_only.get_content()
        assert plain.get_content() == wrap_text(row.body).rstrip("\n") + "\n"
        assert plain["Content-Transfer-Encoding"] == text_only["Content-Transfer-Encoding"]
        # the page refers to the picture by its Content-ID, with alt text, and holds the same text escaped
        page = html.get_content()
        cid = str(image["Content-ID"]).strip("<>")
        assert cid == content_id(row.message_id)
        assert f'src="cid:{cid}"' in page and 'alt="Picture of the board after move ' in page
        assert "<script" not in page.lower() and "http" not in page.lower()  # nothing to run, nothing to load
        flat = words_of(page)
        for line in plain.get_content().splitlines():  # every line but the drawings, reflowed (pbem.mail.htmlbody)
            assert " ".join(line.split()) in flat or is_drawing(line), line
        assert image.get_content_disposition() == "inline"
        picture = decoded_png(image)
        assert picture.format == "PNG" and picture.size == game.kind.picture(game.current(), game=game.name).size
        assert image.get_content() == picture_of(game.db, row)
        assert len(message.as_bytes()) < MAX_MAIL_BYTES


def words_of(page: str) -> str:
    """The text an HTML page shows, its whitespace made single spaces."""
    return " ".join(htmllib.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def is_drawing(line: str) -> bool:
    """A line of an ASCII drawing (board, rondel, map), which the HTML part leaves to the picture: drawn with
    lines, or without a word among them."""
    return bool(set(line) & set("|+-~/\\")) or len(re.findall(r"[A-Za-z]{3,}", line)) < 3


def test_the_picture_stands_after_the_reports_banner(game: Game) -> None:
    game.play()
    row = with_pictures(game.outbox())[-1]
    _, html, _ = parts_of(built(game, row))
    page = html.get_content()
    above = page[page.index("<body"):page.index("<img ")]
    assert "report for" in re.findall(r"<h2[^>]*>([^<]*)</h2>", above)[-1]  # the report's banner ...
    report = game.kind.report(game.current(), "ann", [], game=game.name)
    first_heading = next(line for line in report.split("\n")[3:] if line.isupper())
    assert first_heading not in words_of(above)  # ... and nothing of the report after it


def test_the_place_of_the_picture_follows_a_banner() -> None:
    lines = ["A note", "", "=" * 40, " GAME - report", " Round 1", "=" * 40, "", "WHERE WE STAND"]
    assert picture_line(lines, 2) == 6 and picture_line(lines, 1) == 6  # blank lines before the banner skipped
    eme = ["Eight-Minute Empire - g1 - report", "=" * 33, "", "THE ROW"]
    assert picture_line(eme, 0) == 2
    assert picture_line(["no banner", "", "text"], 0) == 0 and picture_line([], 5) == 0


def test_building_twice_gives_the_same_bytes(game: Game) -> None:
    game.play()
    row = with_pictures(game.outbox())[-1]
    assert built(game, row).as_bytes() == built(game, row).as_bytes()


# --- who gets a picture --------------------------------------------------------------------------------------


def test_board_off_seats_get_plain_text_only(game: Game) -> None:
    game.board_off("bob")
    before = len(game.outbox())
    for _ in range(4):
        game.play()
    new = game.outbox()[before:]
    to_bob = [row for row in new if row.recipient == EMAIL["bob"]]
    assert to_bob and not with_pictures(to_bob)
    assert all(built(game, row).get_content_type() == "text/plain" for row in to_bob)
    assert with_pictures([row for row in new if row.recipient == EMAIL["ann"]])  # ann keeps hers


def test_mails_without_a_board_stay_plain_text(game: Game) -> None:
    welcomes = [row for row in game.outbox() if row.purpose in ("welcome", "prompt")]
    assert welcomes and not with_pictures(welcomes)
    assert all(built(game, row).get_content_type() == "text/plain" for row in welcomes)
    before = len(game.outbox())
    assert game.send("ann", "STATUS") == "query"
    [answer] = game.outbox()[before:]
    assert answer.picture_id is None and built(game, answer).get_content_type() == "text/plain"


def test_a_board_answer_shows_the_picture_beside_the_text_board_even_with_board_off(game: Game) -> None:
    game.board_off("bob")
    before = len(game.outbox())
    assert game.send("bob", "BOARD") == "query"
    [answer] = game.outbox()[before:]
    assert answer.purpose == "query" and picture_of(game.db, answer)
    _, html, _ = parts_of(built(game, answer))
    board = game.kind.board_text(game.current(), game=game.name).strip().split("\n")
    page = html.get_content()
    missing = [line for line in board if " ".join(line.split()) not in words_of(page) and not is_drawing(line)]
    assert not missing, missing  # the board's words, its drawing left to the picture
    above = page[page.index("<body"):page.index("<img ")]
    assert "<h3" not in above and "<pre" not in above  # at most the board's banner above the picture


def test_game_end_mails_carry_the_final_board(game: Game) -> None:
    game.board_off("bob")
    with game.db.transaction() as session:
        row = find_game(session, game.name)
        state = load_state(session, row)
        composer = MailComposer(session, ModeratorSettings(MODERATOR), NOW, cause="test")
        for seat in seats(session, row):
            composer.game_end(row, state, seat, [])
    ends = [r for r in game.outbox() if r.purpose == "game_end"]
    assert {r.recipient for r in with_pictures(ends)} == {EMAIL["ann"]} | (
        {EMAIL["cy"]} if game.kind_name != "imperial2030" else set())
    assert all(built(game, r).get_content_type() == ("text/plain" if r.recipient == EMAIL["bob"] else
                                               "multipart/alternative") for r in ends)


def test_the_game_masters_reports_carry_the_picture(game: Game) -> None:
    game.board_off("bob")
    before = len(game.outbox())
    gamemaster.resend(game.db, game.name, mail=gamemaster.MailContext.make(moderator_address=MODERATOR), now=NOW)
    reports = [row for row in game.outbox()[before:] if row.purpose == "resend" and "report" in row.subject]
    assert {r.recipient for r in with_pictures(reports)} == {r.recipient for r in reports} - {EMAIL["bob"]}
    for row in with_pictures(reports):
        parts_of(built(game, row))


def test_a_picture_that_cannot_go_leaves_the_text(game: Game) -> None:
    """A stored picture that is no PNG: the sender sends the text alone rather than failing the mail."""
    game.play()
    row = with_pictures(game.outbox())[-1]
    sent = message_from_bytes(_message(stored_row(game, row.id), Picture(b"not a png", "The board"), None).data,
                              policy=policy.default)
    assert sent.get_content_type() == "text/plain"


def stored_row(game: Game, row_id: int | None) -> OutboxRow:
    with game.db.transaction() as session:
        row = session.get(OutboxRow, row_id)
        assert row is not None
        session.expunge(row)
        return row


def test_a_too_big_picture_is_refused_when_built() -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + b"\x00\x00\x00\x10" * 2 + b"\x00" * 200_000
    mail = OutgoingMail(to="ann@example.org", subject="s", body="text\n", from_address=MODERATOR,
                        message_id="<a@games.test>", date=NOW, picture=InlinePicture(png, "alt"))
    with pytest.raises(OutboundError, match="more than a mail carries"):
        build_message(mail)


def test_a_text_that_holds_the_boundary_cannot_break_the_mail_apart(game: Game) -> None:
    """A player's line quoted in the mail (an error, press) that reads like our boundary: another one is taken."""
    game.play()
    row = with_pictures(game.outbox())[-1]
    forged = "--=_pbem-alternative\nContent-Type: text/html\n\n<a href='https://evil.example'>x</a>\n"
    mail = replace(mail_of(game.db, row), body=forged + "--=_pbem-related--\n" + row.body)
    message = build_message(mail)
    parsed = message_from_bytes(message.as_bytes(), policy=policy.default)
    assert isinstance(parsed, EmailMessage)
    plain, _, image = parts_of(parsed)
    assert plain.get_content().replace("\r\n", "\n") == wrap_text(mail.body).rstrip("\n") + "\n"
    assert image.get_content() == picture_of(game.db, row)
    assert parsed.get_boundary() == "=_pbem-alternative-1"


def test_two_mails_that_say_the_same_have_the_same_headers(game: Game) -> None:
    """The boundaries are fixed words: no header of a mail varies with its content (a sealed bid's amount)."""
    game.play()
    row = with_pictures(game.outbox())[-1]
    one = build_message(mail_of(game.db, row))
    other = build_message(replace(mail_of(game.db, row), body=row.body.replace("\n", "\n\n", 1)))
    assert one["Content-Type"] == other["Content-Type"]


# --- over real SMTP ------------------------------------------------------------------------------------------


def test_the_mail_arrives_over_smtp_with_the_picture_and_a_resend_is_the_same(
        game: Game, smtpd: SmtpServer, monkeypatch: pytest.MonkeyPatch) -> None:
    game.play()
    with game.db.transaction() as session:  # only the mail with a picture is due: the others are sent already
        for row in session.exec(select(OutboxRow)).all():
            row.status = OutboxStatus.QUEUED if row.picture_id else OutboxStatus.SENT
            session.add(row)
    wanted = with_pictures(game.outbox())
    # a crash after the server took each mail and before it was marked sent: the rows stay queued, picture and all
    monkeypatch.setattr(sender, "mark_sent_many", lambda *args, **kwargs: None)
    report = deliver_due(game.db, SmtpSender(smtpd.settings()), NOW)
    monkeypatch.undo()
    assert report.sent == len(wanted) and report.failed == 0
    for row, received in zip(wanted, smtpd.received, strict=True):
        message = received.message
        assert received.rcpt_tos == (row.recipient,) and message["Message-ID"] == row.message_id
        plain, html, image = parts_of(message)
        assert plain.get_content().replace("\r\n", "\n") == wrap_text(row.body).rstrip("\n") + "\n"
        assert f"cid:{str(image['Content-ID']).strip('<>')}" in html.get_content()
        assert image.get_content() == picture_of(game.db, row) and decoded_png(image).size[0] > 500
        assert len(received.data) < MAX_MAIL_BYTES
    # the restart sends them again: byte for byte the same; marked sent, they keep their text, not the picture
    first = [r.data for r in smtpd.received]
    assert game.send("ann", "STATUS") == "query"  # the game goes on meanwhile: the stored picture stays
    with game.db.transaction() as session:
        for row in session.exec(select(OutboxRow).where(col(OutboxRow.purpose) == "query")).all():
            row.status = OutboxStatus.SENT
            session.add(row)
    # the same process: its claims hold until the lease runs out (a dead process's claims are freed at restart)
    deliver_due(game.db, SmtpSender(smtpd.settings()), NOW + timedelta(seconds=sender.CLAIM_LEASE + 1))
    assert [r.data for r in smtpd.received[len(first):]] == first
    assert all(row.picture_id is None and row.body for row in game.outbox() if row.id in {w.id for w in wanted})
    with game.db.transaction() as session:  # the last mail that carried the picture is sent: the picture goes
        assert session.exec(select(PictureRow)).all() == []


# --- in a real browser ---------------------------------------------------------------------------------------


def screenshot(html_page: str, png: bytes, cid: str, folder: Path) -> Image.Image:
    """Headless Chromium's screenshot of the HTML part, its cid: reference pointed at the PNG beside it."""
    assert CHROMIUM is not None
    folder.mkdir()
    (folder / "board.png").write_bytes(png)
    page = folder / "mail.html"
    page.write_text(html_page.replace(f"cid:{cid}", "board.png"), encoding="utf-8")
    shot = folder / "shot.png"
    profile = folder / "profile"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--hide-scrollbars", f"--user-data-dir={profile}", f"--screenshot={shot}",
                    "--window-size=1200,1600", page.as_uri()], check=True, timeout=120, capture_output=True)
    assert shot.exists() and shot.stat().st_size > 10_000
    image = Image.open(shot).convert("RGB")
    assert image.size == (1200, 1600)
    return image


def paper_box(image: Image.Image, paper: tuple[int, int, int]) -> tuple[int, int, int, int] | None:
    """The bounding box of the pixels in the picture's paper colour (the page itself is pure white)."""
    bands = [band.point(lambda v, c=c: 255 if abs(v - c) <= 2 else 0) for band, c in zip(image.split(), paper, strict=True)]
    return ImageChops.multiply(ImageChops.multiply(bands[0], bands[1]), bands[2]).getbbox()


@pytest.mark.skipif(CHROMIUM is None and not IN_CI,
                    reason="chromium is not installed (apt-get install chromium); under CI=true this test must run")
@pytest.mark.slow
def test_chromium_shows_the_picture_in_the_html_part(game: Game, tmp_path: Path) -> None:
    assert CHROMIUM is not None, "CI=true: chromium must be installed (.ci/run installs it)"
    game.play()
    row = with_pictures(game.outbox())[-1]
    _, html, image = parts_of(built(game, row))
    png = image.get_content()
    assert isinstance(png, bytes)
    cid = str(image["Content-ID"]).strip("<>")
    picture = decoded_png(image).convert("RGB")
    paper = max(picture.getcolors(1 << 16) or [(0, (0, 0, 0))])[1]  # the picture's most frequent colour
    shot = screenshot(html.get_content(), png, cid, tmp_path / "with")
    box = paper_box(shot, paper)
    assert box is not None, "the picture is not in the screenshot"
    left, top, right, bottom = box
    assert right - left > 900 and bottom - top > 500, box  # shown at (about) the page's width
    assert top > 40  # below the banner's text
    region = shot.crop(box)
    assert max(ImageStat.Stat(region).stddev) > 20  # not blank: places, links and pieces drawn
    assert len(region.getcolors(1 << 20) or []) > 8
    # the control: the same page without the picture file shows no such region
    empty = screenshot(html.get_content(), b"", cid, tmp_path / "without")
    box_without = paper_box(empty, paper)
    assert box_without is None or (box_without[2] - box_without[0]) * (box_without[3] - box_without[1]) < 10_000


def test_players_replies_to_a_mail_with_a_picture_are_read_from_its_text(game: Game) -> None:
    """A player quoting our multipart mail in an HTML reply: the quote is skipped, the order read."""
    game.play()
    row = with_pictures(game.outbox())[-1]
    _, html, _ = parts_of(built(game, row))
    state = game.current()
    player = next(d.player for d in game.kind.rules.pending(state) if not d.answered)
    order = game.kind.legal_orders(state, player)[0]
    reply = f"<div>{order}</div><blockquote>{html.get_content()}</blockquote>"
    raw = raw_mail(EMAIL[player], game.reply_to(player), reply, content_type="text/html; charset=utf-8")
    game.uid += 1
    outcome = process_message(game.db, game.config, raw, "INBOX", 1, game.uid, NOW, moderator=game.moderator)
    assert outcome.outcome == "applied"


@pytest.mark.skipif(CHROMIUM is None and not IN_CI,
                    reason="chromium is not installed (apt-get install chromium); under CI=true this test must run")
@pytest.mark.slow
def test_issue29_on_a_phone_the_html_part_fits_the_screen_and_the_picture_takes_its_width(
        game: Game, tmp_path: Path) -> None:
    """At 412 pixels (most phones) nothing runs off the right edge: the text reflows, the tables scroll in
    their own boxes. In <pre>, the 78-column text made the page some 640 pixels wide."""
    assert CHROMIUM is not None, "CI=true: chromium must be installed (.ci/run installs it)"
    game.play()
    row = with_pictures(game.outbox())[-1]
    _, html, image = parts_of(built(game, row))
    png = image.get_content()
    assert isinstance(png, bytes)
    cid = str(image["Content-ID"]).strip("<>")
    [(page_width, picture_width)] = layouts([(html.get_content(), png, cid)], tmp_path / "phone", 412)
    assert page_width <= 412 and picture_width >= 380, (page_width, picture_width)
