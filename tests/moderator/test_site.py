"""The public site (pbem.moderator.site, issue 32): a page per game, written by `pbem site` and after each move.

Each game's page shows the board now, whose turn and by when, the players and the history, with a page and a
picture per move; every link leads to a file of the site; nothing a seat may not see publicly is in any file:
no sealed bid before all are in (not even that it was given), no address, no token; every name is text,
never markup."""
from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from pbem.languages import Language, speaking
from pbem.moderator.notify.compose import MailComposer
from pbem.moderator.site.links import game_url, slug
from pbem.moderator.site.public import Board, Due, GamePage, MoveView
from pbem.moderator.site.write import game_files, write_file, write_site
from pbem.render.scene import Scene
from pbem.store import find_game, load_state, seats
from tests.mailflowkit import NOW, PLAYERS
from tests.picturemail import Game
from tests.sitekit import SITE_URL, files_of, links_of, site_game, texts_of

KINDS = ("imperial2030", "eight-minute-empire")


def bid_all(game: Game) -> None:
    """Every seat of an Eight-Minute Empire game bids: the bids are revealed, the first turn begins."""
    for player, bid in (("ann", 0), ("bob", 1), ("cy", 2)):
        assert game.send(player, f"BID {bid}") == "applied"


@pytest.mark.parametrize("kind", KINDS)
def test_a_game_in_progress_has_a_page_with_its_board_turn_players_and_history(kind: str, tmp_path: Path) -> None:
    game, folder = site_game(kind, tmp_path)
    for _ in range(4):
        game.play()
    home = folder / "games" / "g1"
    page = (home / "index.html").read_text(encoding="utf-8")
    assert "g1" in page and game.kind.info.title in page
    assert "ann" in page and "bob" in page
    assert 'href="moves/' in page and list((home / "boards").glob("*.png"))
    assert 'href="games/g1/index.html"' in (folder / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("kind", KINDS)
def test_every_link_of_every_page_leads_to_a_file_of_the_site(kind: str, tmp_path: Path) -> None:
    game, folder = site_game(kind, tmp_path)
    for _ in range(6):
        game.play()
    pages = sorted(folder.rglob("*.html"))
    assert len(pages) >= 4
    for page in pages:
        for link in links_of(page):
            assert "://" not in link, (page, link)
            assert (page.parent / link).resolve().is_file(), (page.relative_to(folder), link)


def test_a_sealed_bid_under_way_is_in_no_file_not_even_that_it_was_given(tmp_path: Path) -> None:
    game, folder = site_game("eight-minute-empire", tmp_path)
    before = files_of(folder)
    assert game.send("ann", "BID 3") == "applied"  # bob has not bid yet
    assert files_of(folder) == before  # nothing at all changed: neither the amount nor that ann bid
    write_site(game.db, folder)  # written again from scratch, the same
    assert files_of(folder) == before
    assert game.send("bob", "BID 1") == "applied"
    assert files_of(folder) == before
    assert game.send("cy", "BID 0") == "applied"  # all bids are in: now the public learns them
    assert "ann 3" in texts_of(folder)


@pytest.mark.parametrize("kind", KINDS)
def test_no_file_holds_a_seats_address_or_token(kind: str, tmp_path: Path) -> None:
    game, folder = site_game(kind, tmp_path)
    for _ in range(3):
        game.play()
    text = texts_of(folder, pages_only=True).lower()
    for player, email in PLAYERS[:len(game.current().seating)]:
        assert email.lower() not in text
        assert game.token(player).lower() not in text
    assert "@" not in text


def test_the_moderator_refreshes_the_pages_after_a_move_by_mail(tmp_path: Path) -> None:
    game, folder = site_game("eight-minute-empire", tmp_path)
    bid_all(game)
    moves = folder / "games" / "g1" / "moves"
    assert sorted(path.name for path in moves.iterdir()) == ["3.html"]
    assert "Move 3" in (folder / "games" / "g1" / "index.html").read_text(encoding="utf-8")


def test_a_seats_mail_links_the_games_page_when_the_site_has_an_address(tmp_path: Path) -> None:
    game, _ = site_game("eight-minute-empire", tmp_path)
    welcomes = len(game.outbox())
    bid_all(game)
    reports = [row for row in game.outbox()[welcomes:] if row.purpose in ("report", "prompt")]
    assert reports and all(f"{SITE_URL}/games/g1/" in row.body for row in reports)


def test_the_welcome_and_the_games_last_mail_link_the_games_page(tmp_path: Path) -> None:
    game, _ = site_game("eight-minute-empire", tmp_path)
    welcomes = [row for row in game.outbox() if row.purpose == "welcome"]
    assert welcomes and all(f"{SITE_URL}/games/g1/" in row.body for row in welcomes)
    with game.db.transaction() as session:
        row = find_game(session, game.name)
        composer = MailComposer(session, game.config.require_moderator(), NOW, cause="end")
        for seat in seats(session, row):
            composer.game_end(row, load_state(session, row), seat, [])
    ends = [row for row in game.outbox() if row.purpose == "game_end"]
    assert ends and all(row.body.rstrip().endswith(f"{SITE_URL}/games/g1/") for row in ends)


def test_a_failed_refresh_is_logged_and_the_moves_mail_goes_out(tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    game, folder = site_game("eight-minute-empire", tmp_path)
    shutil.rmtree(folder)
    folder.write_text("a file where the folder should be", encoding="utf-8")
    mails = len(game.outbox())
    with caplog.at_level(logging.ERROR, logger="pbem.moderator.site"):
        bid_all(game)
    assert len(game.outbox()) > mails
    assert "public pages of game" in caplog.text


def _page(name: str, player: str, sentence: str) -> GamePage:
    board = Board("b.png", Scene.__new__(Scene))
    return GamePage(name=name, slug=slug(name), title="Eight-Minute Empire", language=Language.EN, finished=False,
                    move=2, turn_line=sentence, dues=(Due(player, sentence, ""),), players=((player, sentence),),
                    scores=(), end_lines=(), board_text=sentence, board=board,
                    moves=(MoveView(2, (sentence,), board),))


def test_names_and_sentences_are_text_never_markup() -> None:
    hostile = '<script>alert("x")</script>'
    with speaking(Language.EN):
        files = game_files(_page('a"b\'c' + hostile, hostile, "She said: " + hostile))
    for path, text in ((path, data.decode("utf-8")) for path, data in files.items()):
        assert "<script" not in text, path  # the history's JSON too
        if path.endswith(".html"):
            assert "&lt;script&gt;" in text
            assert 'a"b' not in text.split("<body>")[1]  # the quote is escaped wherever the name is shown


def test_a_game_folder_name_is_safe_in_a_path_and_an_address() -> None:
    assert slug("friday-2") == "friday-2"
    assert slug("../etc") != "../etc" and "/" not in slug("../etc") and not slug("../etc").startswith(".")
    assert slug("a b") != slug("a-b")
    assert game_url("https://x.org/site/", "friday") == "https://x.org/site/games/friday/"


def test_a_file_is_replaced_whole_and_only_when_it_changes(tmp_path: Path) -> None:
    target = tmp_path / "page.html"
    assert write_file(target, b"one")
    assert not write_file(target, b"one")
    assert write_file(target, b"two") and target.read_bytes() == b"two"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]  # no temporary file left behind
    assert target.stat().st_mode & 0o644 == 0o644
