"""The public site written: the index of games, a page per game and per move, the board's pictures.

Layout of the folder (every link relative, so that any web server, or a
browser opening the files, finds them)::

    index.html                      every game: its title, players, whether it is over
    site.css                        the one style sheet (no script anywhere: none is needed)
    games/<game>/index.html         the board now, whose turn and by when, the players, the history
    games/<game>/moves/<n>.html     move n: what happened, and the board after it
    games/<game>/boards/<digest>.png a picture, named by what it draws

When pictures are drawn: a move's page, and the picture of the board after
it, are written when the move is published, that is by the refresh after
the move (the moderator's, with ``[site] dir``) or by ``pbem site DIR``. A
picture is drawn only when its file is missing: after a move the refresh
draws at most one (the board now; none when the move changed no piece),
and ``pbem site`` on a game that has no pages yet draws each board of its
history once. Drawing every move's picture anew on every refresh would cost
a long game seconds per move; drawing none until a reader asks needs a
server that runs code, and the pages are static.

Every file is written atomically (a temporary file in the same folder, then
renamed over the old one), and only when its bytes change, so a reader
never sees half a page and a web server's caches stay valid. Move pages and
pictures no history shows any more (the game master took moves back) are
removed.

The refresh after a move (:func:`refresh_safely`) runs after the move's
mail is committed to the outbox; a failure is logged and never reaches the
mail: the next move's refresh writes the whole game again.
"""
from __future__ import annotations

import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from sqlmodel import Session, col, select

from pbem.languages import SOURCE, Language, speaking
from pbem.moderator.site.links import GAMES
from pbem.moderator.site.public import GamePage, game_line, game_page, pictures
from pbem.render.pages import render_page, static_text
from pbem.render.picture import render_png
from pbem.store import Database, GameRow, find_game, seats
from pbem.store.models import id_of
from pbem.store.settings import load_settings

log = logging.getLogger("pbem.moderator.site")

STYLE = "site.css"
INDEX = "index.html"
MOVES, BOARDS = "moves", "boards"


@dataclass(frozen=True)
class Written:
    """What a write did: files whose bytes changed (pages, the style sheet), pictures drawn, games written."""

    files: int = 0
    pictures: int = 0
    games: int = 0

    def __add__(self, other: Written) -> Written:
        return Written(self.files + other.files, self.pictures + other.pictures, self.games + other.games)


def write_file(path: Path, data: bytes) -> bool:
    """``data`` into ``path`` atomically, unless the file holds it already; whether it was written."""
    try:
        if path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".writing-", suffix=path.suffix)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o644)  # a web server reads it (mkstemp makes it the owner's alone)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return True


def _page(template: str, **context: object) -> bytes:
    return render_page(template, **context).encode("utf-8")


def game_files(page: GamePage) -> dict[str, bytes]:
    """The pages of one game, by path relative to its folder (in the language being written)."""
    language = page.language.value
    files = {INDEX: _page("site/game.html.j2", g=page, root="../../", language=language)}
    numbers = [move.number for move in page.moves]
    for index, move in enumerate(page.moves):
        files[f"{MOVES}/{move.number}.html"] = _page(
            "site/move.html.j2", g=page, m=move, root="../../../", language=language,
            previous=numbers[index - 1] if index > 0 else None,
            following=numbers[index + 1] if index + 1 < len(numbers) else None)
    return files


def write_game(db: Database, folder: Path, game_id: int) -> Written:
    """Read the game (one short transaction), then write its pages and the pictures it lacks."""
    with db.transaction() as session:
        game = session.get(GameRow, game_id)
        if game is None:
            return Written()
        language = Language(_language(session, game))
        with speaking(language):  # the pages, the narration and the picture's words in the game's language
            page = game_page(session, game)
            files = game_files(page)
    home = folder / GAMES / page.slug
    written = sum(write_file(home / path, data) for path, data in files.items())
    drawn = 0
    for name, scene in pictures(page).items():
        target = home / BOARDS / name
        if not target.exists():
            write_file(target, render_png(scene))
            drawn += 1
    _remove_stale(home / MOVES, {Path(path).name for path in files if path.startswith(MOVES + "/")})
    _remove_stale(home / BOARDS, set(pictures(page)))
    return Written(written, drawn, 1)


def _language(session: Session, game: GameRow) -> str:
    """The game's language (its setting), English for a code this moderator does not know."""
    chosen = load_settings(session, game).language
    return chosen if chosen in {language.value for language in Language} else SOURCE.value


def _remove_stale(where: Path, keep: set[str]) -> None:
    """Files of ``where`` that no page shows any more (moves taken back), and temporary files left by a crash."""
    if not where.is_dir():
        return
    for path in where.iterdir():
        if path.is_file() and path.name not in keep:
            path.unlink(missing_ok=True)


def write_index(db: Database, folder: Path) -> Written:
    """The index of every game, and the style sheet."""
    with db.transaction() as session:
        rows = _all_games(session)
        lines = [game_line(row, tuple(seat.name for seat in seats(session, row))) for row in rows]
        languages = {_language(session, row) for row in rows}
    language = Language(languages.pop()) if len(languages) == 1 else SOURCE  # the games' one language, else English
    with speaking(language):
        index = _page("site/index.html.j2", games=lines, language=language.value, root="")
    written = write_file(folder / INDEX, index) + write_file(folder / STYLE, static_text("site/site.css").encode())
    return Written(written)


def _all_games(session: Session) -> list[GameRow]:
    return list(session.exec(select(GameRow).order_by(col(GameRow.name))).all())


def write_site(db: Database, folder: Path, games: tuple[str, ...] = ()) -> Written:
    """Every game's pages (or those of ``games``, by name) and the index (``pbem site DIR``)."""
    with db.transaction() as session:
        ids = [id_of(find_game(session, name)) for name in games] if games else \
            [id_of(row) for row in _all_games(session)]
    total = Written()
    for game_id in ids:
        total += write_game(db, folder, game_id)
    return total + write_index(db, folder)


def refresh_safely(db: Database, folder: Path, game_id: int) -> Written:
    """After a move's mail is committed: the game's pages and the index written again. Never raises: a failure
    is logged and the next move's refresh writes the whole game."""
    try:
        return write_game(db, folder, game_id) + write_index(db, folder)
    except Exception:
        log.exception("the public pages of game %s could not be written to %s; the next move tries again",
                      game_id, folder)
        return Written()


