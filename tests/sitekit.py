"""What the public site's tests share: a game of either kind played by mail with ``[site]`` configured, and
every file of the site read back (tests/moderator/test_site*.py)."""
from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from pbem.store import Database
from tests.mailflowkit import config_for
from tests.picturemail import Game

SITE_URL = "https://games.example.org/pbem"


def site_game(kind: str, tmp_path: Path, *, name: str = "g1") -> tuple[Game, Path]:
    """A game of ``kind`` by mail whose moderator keeps a site in ``tmp_path / 'site'`` and links it in mail."""
    folder = tmp_path / "site"
    game = Game(Database(f"sqlite:///{tmp_path / 'site.db'}"),
                config_for(site={"dir": str(folder), "url": SITE_URL}), name=name)
    game.start(kind)
    return game, folder


class Links(HTMLParser):
    """Every href and src of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [value for name, value in attrs if name in ("href", "src") and value]


def links_of(page: Path) -> list[str]:
    parser = Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.found


def files_of(folder: Path) -> dict[Path, bytes]:
    return {path: path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def texts_of(folder: Path, *, pages_only: bool = False) -> str:
    """Every page and style sheet of the site as one text (the pictures' bytes left out; ``pages_only``: the
    style sheet too)."""
    return "\n".join(data.decode("utf-8") for path, data in files_of(folder).items()
                     if path.suffix == ".html" or (path.suffix == ".css" and not pages_only))


def visible(html_page: str) -> str:
    """A page's text without its markup, entities left as they are."""
    return re.sub(r"<[^>]*>", " ", html_page)
