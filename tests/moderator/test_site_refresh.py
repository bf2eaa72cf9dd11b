"""The refresh of the public site after a move costs that move, not the game (issue 32): it narrates and draws the
new move alone and renders only the pages whose bytes can change; ``pbem site`` still writes everything and
repairs the folder; the game master's undo, replace, pause and resume refresh the pages too."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from pbem.moderator import gamemaster
from pbem.moderator.gamemaster import MailContext
from pbem.moderator.site import public
from pbem.moderator.site.write import refresh_safely, write_site
from pbem.store import find_game
from tests.mailflowkit import config_for
from tests.picturemail import Game
from tests.sitekit import files_of, site_game, visible


def _home(folder: Path) -> Path:
    return folder / "games" / "g1"


def _moves(folder: Path) -> list[int]:
    return sorted(int(path.stem) for path in (_home(folder) / "moves").glob("*.html"))


def _game_id(game: Game) -> int:
    with game.db.transaction() as session:
        return int(find_game(session, game.name).id or 0)


def _played(game: Game, moves: int) -> None:
    for _ in range(moves):
        game.play()


def _counted(monkeypatch: pytest.MonkeyPatch, game: Game) -> dict[str, int]:
    """Spies on the site's picture scenes and on the game's narration: how many of each were made."""
    counts = {"scenes": 0, "narrated": 0}
    board_of, narrate = public.board_of, type(game.kind).narrate

    def counted_board(*args: Any, **kwargs: Any) -> public.Board:
        counts["scenes"] += 1
        return board_of(*args, **kwargs)

    def counted_narrate(self: Any, *args: Any, **kwargs: Any) -> list[str]:
        counts["narrated"] += 1
        return narrate(self, *args, **kwargs)

    monkeypatch.setattr(public, "board_of", counted_board)
    monkeypatch.setattr(type(game.kind), "narrate", counted_narrate)
    return counts


def test_a_refresh_after_a_move_narrates_and_draws_that_move_alone_and_leaves_old_pages_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game, folder = site_game("imperial2030", tmp_path)
    _played(game, 6)
    first, *_, last = _moves(folder)
    (_home(folder) / "moves" / f"{first}.html").write_bytes(b"left as it was")  # a page no refresh renders
    with_site, game.config = game.config, config_for()  # the move made without its refresh, which is measured
    game.play()
    game.config = with_site
    before = files_of(folder)
    counts = _counted(monkeypatch, game)
    done = refresh_safely(game.db, folder, _game_id(game))
    assert counts == {"scenes": 1, "narrated": 1}  # the new move's, whose board is the board now
    assert done.pictures <= 1
    changed = {path.relative_to(_home(folder)).as_posix() for path, data in files_of(folder).items()
               if before.get(path) != data}
    newest = max(_moves(folder))
    assert changed <= {"index.html", "history.html", "history.json", f"moves/{newest}.html", f"moves/{last}.html"} \
        | {f"boards/{path.name}" for path in (_home(folder) / "boards").iterdir()}
    assert f"moves/{newest}.html" in changed and f'href="{newest}.html"' in \
        (_home(folder) / "moves" / f"{last}.html").read_text(encoding="utf-8")  # the "next" link appears
    assert (_home(folder) / "moves" / f"{first}.html").read_bytes() == b"left as it was"


def test_pbem_site_writes_every_page_again_and_repairs_the_folder(tmp_path: Path) -> None:
    game, folder = site_game("imperial2030", tmp_path)
    _played(game, 4)
    whole = files_of(folder)
    first = min(_moves(folder))
    (_home(folder) / "moves" / f"{first}.html").write_bytes(b"broken")
    (_home(folder) / "history.json").write_bytes(b"{not json")
    next((_home(folder) / "boards").glob("*.png")).unlink()
    write_site(game.db, folder)
    assert files_of(folder) == whole


def test_a_refresh_writes_a_missing_move_page_and_picture_again(tmp_path: Path) -> None:
    game, folder = site_game("imperial2030", tmp_path)
    _played(game, 3)
    first = min(_moves(folder))
    page = _home(folder) / "moves" / f"{first}.html"
    text = page.read_text(encoding="utf-8")
    picture = _home(folder) / re.findall(r'src="\.\./(boards/[^"]+)"', text)[0]
    page.unlink()
    picture.unlink()
    game.play()
    assert page.read_text(encoding="utf-8") == text and picture.is_file()


def test_the_games_page_lists_the_newest_moves_and_links_the_list_of_all(tmp_path: Path) -> None:
    game, folder = site_game("imperial2030", tmp_path)
    _played(game, 14)
    numbers = _moves(folder)
    page = (_home(folder) / "index.html").read_text(encoding="utf-8")
    listed = [int(n) for n in re.findall(r'href="moves/(\d+)\.html"', page)]
    assert listed == sorted(numbers, reverse=True)[:12]
    assert 'href="history.html"' in page
    every = (_home(folder) / "history.html").read_text(encoding="utf-8")
    assert [int(n) for n in re.findall(r'href="moves/(\d+)\.html"', every)] == sorted(numbers, reverse=True)


def test_an_undo_removes_the_moves_page_and_the_link_to_it(tmp_path: Path) -> None:
    game, folder = site_game("imperial2030", tmp_path)
    _played(game, 4)
    *_, before_last, last = _moves(folder)
    assert f'href="{last}.html"' in (_home(folder) / "moves" / f"{before_last}.html").read_text("utf-8")
    gamemaster.undo(game.db, game.name, mail=MailContext.from_config(game.config))
    assert _moves(folder)[-1] == before_last
    assert f'href="{last}.html"' not in (_home(folder) / "moves" / f"{before_last}.html").read_text("utf-8")
    assert f'"moves/{last}.html"' not in (_home(folder) / "index.html").read_text(encoding="utf-8")
    game.play()  # another move takes the number: its page tells the new move
    assert last in _moves(folder)


def test_a_replacement_renames_the_player_on_every_page(tmp_path: Path) -> None:
    game, folder = site_game("imperial2030", tmp_path)
    _played(game, 4)
    pages = " ".join(visible(data.decode("utf-8")) for path, data in files_of(folder).items() if path.suffix == ".html")
    assert re.search(r"\bbob\b", pages)
    gamemaster.replace(game.db, game.name, "bob", "dora", "dora@example.org", mail=MailContext.from_config(game.config))
    pages = " ".join(visible(data.decode("utf-8")) for path, data in files_of(folder).items() if path.suffix == ".html")
    assert not re.search(r"\bbob\b", pages) and re.search(r"\bdora\b", pages)


def test_pause_and_resume_refresh_the_games_page(tmp_path: Path) -> None:
    game, folder = site_game("imperial2030", tmp_path)
    _played(game, 2)
    mail = MailContext.from_config(game.config)
    gamemaster.pause(game.db, game.name, mail=mail)
    (_home(folder) / "index.html").unlink()
    gamemaster.resume(game.db, game.name, mail=mail)
    assert (_home(folder) / "index.html").is_file()
