"""The public site reads on a phone and on a desktop (issue 32): headless Chromium shows the index and a game's
page of each game, the list of its moves and a page of one of them, in a frame 412 pixels wide (most phones) and
1280 (a laptop): nothing runs off the right edge (the page's scroll width is at most the frame's). Screenshots are
kept in the test's folder (``screen.png``) as its artefact."""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.picturemail import CHROMIUM, IN_CI
from tests.sitekit import site_game

KINDS = ("imperial2030", "eight-minute-empire")


def scroll_widths(pages: list[Path], folder: Path, width: int) -> list[int]:
    """The scroll width of each page shown in a frame ``width`` pixels wide, in one run of the browser (a headless
    window is never narrower than 500 pixels, hence the frames; a script of the test's own page around them, the
    site has none, writes the figures into its title)."""
    assert CHROMIUM is not None
    frames = "".join(f'<iframe src="{page.relative_to(folder).as_posix()}" width="{width}" height="900" '
                     f'style="border:0"></iframe>' for page in pages)
    probe = ("<script>window.onload = () => { document.title = JSON.stringify(Array.from("
             "document.querySelectorAll('iframe'), f => f.contentDocument.documentElement.scrollWidth)); };</script>")
    frame_page = folder / f"frames{width}.html"
    frame_page.write_text(f'<!DOCTYPE html><html><head><title>-</title></head><body style="margin:0">{frames}'
                          f"{probe}</body></html>", encoding="utf-8")
    common = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--allow-file-access-from-files", f"--user-data-dir={folder / 'profile'}",
              f"--window-size={max(800, width + 100)},1000", "--virtual-time-budget=5000"]
    done = subprocess.run([*common, "--dump-dom", frame_page.as_uri()], check=True, timeout=300,
                          capture_output=True, text=True)
    found = re.search(r"<title>(\[.*?\])</title>", done.stdout)
    assert found, done.stdout[:500]
    subprocess.run([*common, "--hide-scrollbars", f"--screenshot={folder / f'screen{width}.png'}",
                    frame_page.as_uri()], check=True, timeout=300, capture_output=True)
    assert (folder / f"screen{width}.png").stat().st_size > 0
    return [int(value) for value in json.loads(found.group(1))]


@pytest.mark.skipif(CHROMIUM is None and not IN_CI,
                    reason="chromium is not installed (apt-get install chromium); under CI=true this test must run")
@pytest.mark.slow
@pytest.mark.parametrize("width", [412, 1280])
@pytest.mark.parametrize("kind", KINDS)
def test_the_index_a_games_page_its_moves_and_a_moves_page_fit_the_screen(kind: str, width: int, tmp_path: Path) -> None:
    assert CHROMIUM is not None, "CI=true: chromium must be installed (.ci/run installs it)"
    game, folder = site_game(kind, tmp_path)
    for _ in range(6):
        game.play()
    home = folder / "games" / "g1"
    pages = [folder / "index.html", home / "index.html", home / "history.html",
             sorted((home / "moves").glob("*.html"))[-1]]
    widths = scroll_widths(pages, tmp_path, width)
    assert all(shown <= width for shown in widths), list(zip(pages, widths, strict=True))
