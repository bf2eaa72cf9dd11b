"""The refresh of the public site after a move costs that move, not the game (issue 32): it narrates and draws the
new move alone and renders only the pages whose bytes can change; ``pbem site`` still writes everything and
repairs the folder."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from pbem.moderator.site import public
from pbem.moderator.site.write import refresh_safely, write_site
from pbem.store import find_game
from tests.mailflowkit import config_for
from tests.picturemail import Game
from tests.sitekit import files_of, site_game


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
